!=====================================================================
! md/ - multi-file Lennard-Jones molecular dynamics.
! Files (compile order): md_types.f90 (module), md_force.f90 (module
! using md_types), md_main.f90 (this main program).
! Computes: 2744 LJ particles on a cubic lattice, linked-cell forces,
! velocity Verlet with velocity rescaling for the first steps,
! prints energies.
! Exercises: multi-module program, derived types, allocatable arrays,
!   cell lists (indirect linked lists), sqrt, modulo, anint.
! Runtime class: compute-bound, irregular memory access.
!=====================================================================
program md_main
  use md_types
  use md_force
  implicit none
  type(particles) :: p
  integer, parameter :: nsteps = 60
  integer :: i, j, k, n, s
  real(dp) :: a, phase

  allocate(p%x(3, npart), p%v(3, npart), p%f(3, npart))
  p%box = (npart / density)**(1.0_dp / 3.0_dp)
  ncell = max(3, int(p%box / rcut))
  allocate(head(ncell**3), next(npart))
  a = p%box / nside
  n = 0
  do k = 0, nside - 1
    do j = 0, nside - 1
      do i = 0, nside - 1
        n = n + 1
        p%x(:, n) = a * [real(i, dp) + 0.5_dp, real(j, dp) + 0.5_dp, real(k, dp) + 0.5_dp]
        phase = 0.37_dp * n
        p%v(:, n) = [sin(phase), cos(1.3_dp * phase), sin(2.1_dp * phase + 0.4_dp)]
      end do
    end do
  end do
  do i = 1, 3
    p%v(i, :) = p%v(i, :) - sum(p%v(i, :)) / npart
  end do
  p%ekin = 0.5_dp * sum(p%v**2)
  call rescale(p, 1.0_dp)
  call forces(p)
  do s = 1, nsteps
    call step(p)
    if (s <= 10) call rescale(p, 1.0_dp)
  end do
  print '(a,i4,a,i3,a,3es20.12)', ' MD n=', nside, ' cells=', ncell, ' epot/ekin/etot=', &
      p%epot / npart, p%ekin / npart, (p%epot + p%ekin) / npart
end program md_main
