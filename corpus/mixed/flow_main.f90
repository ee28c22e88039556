!=====================================================================
! mixed/ - multi-file program mixing fixed-form F77 and free-form
! Fortran 90 that share data through COMMON /field/.
! Files (compile order): consts.f90 (module), relax.f (F77 SOR and
! advection), flow_main.f90 (this main program).
! Computes: a vorticity/stream-function flow in a box: initial
! Gaussian vortices, alternating SOR solves and explicit advection.
! Exercises: external F77 subroutines called with implicit
!   interfaces, COMMON via a module, exp, sum/maxval/abs.
! Runtime class: compute/array-bound (cache resident), COMMON-heavy.
!=====================================================================
program flow_main
  use consts
  implicit none
  integer, parameter :: nsteps = 44
  integer :: i, j, s
  real(dp) :: x, y
  external :: sor, advect

  niter = 0
  psi = 0.0_dp
  do j = 1, ny
    do i = 1, nx
      x = real(i - 1, dp) / (nx - 1)
      y = real(j - 1, dp) / (ny - 1)
      omg(i, j) = 50.0_dp * exp(-((x - 0.4_dp)**2 + (y - 0.5_dp)**2) / 0.01_dp) &
                - 50.0_dp * exp(-((x - 0.6_dp)**2 + (y - 0.5_dp)**2) / 0.01_dp)
    end do
  end do
  do s = 1, nsteps
    call sor(1.8_dp, 1.0e-9_dp, 60)
    call advect(2.0e-4_dp)
  end do
  print '(a,i7,a,es22.14,a,es22.14)', ' MIXED sweeps=', niter, ' psisum=', sum(psi), &
      ' omgmax=', maxval(abs(omg))
end program flow_main
