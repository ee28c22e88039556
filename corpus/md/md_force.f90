!=====================================================================
! md/md_force.f90 - force module (compile second, uses md_types):
! Lennard-Jones forces with a linked-cell list and minimum-image
! periodic boundaries; velocity-Verlet integrator and thermostat.
! Exercises: module dependency chain, allocatable components,
!   nested cell loops with modulo wrap, anint, exp-free LJ algebra
!   (1/r^6), triangular pair test i < j, intent(inout) derived type.
!=====================================================================
module md_force
  use md_types
  implicit none
contains
  subroutine build_cells(p)
    type(particles), intent(in) :: p
    integer :: i, c, cx, cy, cz
    real(dp) :: cl
    cl = p%box / ncell
    head = 0
    do i = 1, npart
      cx = min(int(modulo(p%x(1,i), p%box) / cl), ncell - 1)
      cy = min(int(modulo(p%x(2,i), p%box) / cl), ncell - 1)
      cz = min(int(modulo(p%x(3,i), p%box) / cl), ncell - 1)
      c = 1 + cx + ncell * (cy + ncell * cz)
      next(i) = head(c)
      head(c) = i
    end do
  end subroutine build_cells

  subroutine forces(p)
    type(particles), intent(inout) :: p
    integer :: cx, cy, cz, dx, dy, dz, c1, c2, i, j
    real(dp) :: d(3), r2, ir2, ir6, ff, rc2, ecut
    rc2 = rcut * rcut
    ecut = 4.0_dp * (1.0_dp / rc2**6 - 1.0_dp / rc2**3)
    call build_cells(p)
    p%f = 0.0_dp
    p%epot = 0.0_dp
    do cz = 0, ncell - 1
    do cy = 0, ncell - 1
    do cx = 0, ncell - 1
      c1 = 1 + cx + ncell * (cy + ncell * cz)
      do dz = -1, 1
      do dy = -1, 1
      do dx = -1, 1
        c2 = 1 + modulo(cx + dx, ncell) + ncell * (modulo(cy + dy, ncell) &
             + ncell * modulo(cz + dz, ncell))
        i = head(c1)
        do while (i > 0)
          j = head(c2)
          do while (j > 0)
            if (i < j) then
              d = p%x(:,i) - p%x(:,j)
              d = d - p%box * anint(d / p%box)
              r2 = d(1)**2 + d(2)**2 + d(3)**2
              if (r2 < rc2) then
                ir2 = 1.0_dp / r2
                ir6 = ir2 * ir2 * ir2
                ff = 48.0_dp * ir2 * ir6 * (ir6 - 0.5_dp)
                p%f(:,i) = p%f(:,i) + ff * d
                p%f(:,j) = p%f(:,j) - ff * d
                p%epot = p%epot + 4.0_dp * ir6 * (ir6 - 1.0_dp) - ecut
              end if
            end if
            j = next(j)
          end do
          i = next(i)
        end do
      end do
      end do
      end do
    end do
    end do
    end do
  end subroutine forces

  subroutine step(p)
    type(particles), intent(inout) :: p
    p%v = p%v + 0.5_dp * dt * p%f
    p%x = p%x + dt * p%v
    call forces(p)
    p%v = p%v + 0.5_dp * dt * p%f
    p%ekin = 0.5_dp * sum(p%v**2)
  end subroutine step

  subroutine rescale(p, temp)
    type(particles), intent(inout) :: p
    real(dp), intent(in) :: temp
    real(dp) :: t
    t = 2.0_dp * p%ekin / (3.0_dp * npart)
    if (t > 0.0_dp) p%v = p%v * sqrt(temp / t)
  end subroutine rescale
end module md_force
