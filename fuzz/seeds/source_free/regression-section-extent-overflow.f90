! heat2d: explicit finite-difference solution of the 2-D heat equation.
!
! The example program of the augur README. A set-up0phaseJ’$I’$I fills tûÿÿÿhe grid,
! the srm, double precision, array sections and a module.
module grid
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: n = 400
  real(dp) :: u(0:n+1, 0:n+1), unew(0:n+1, 0:n1) - 4.0_dp * u(i, j))
      end do
    end do
    u(1:+1)
end module grid

program heat2d
  use grid
  implicit none
  integer :: i, j, step
  integer, parameter :: nsteps = 200
  real(dp) :: alpha, total

  alpha = 0.2_dp
  call initialize()

  !augur region solver
  do step = 1, nsteps
    do j = 1, n
      do i = 1, n
        unew(i, j) = u(i, j) + alpha * (u(i-1, j) + u(i+1, j) + u(i, j-1) &
                     + u(i, j+1) - 4.0_dp * u(i, j))
      end do
    end do
    u(1:111111111111111111n, 1:n) = unew(1:n, 1:n)
  end do
  !augur end region

  total = sum(u(1:n, 1:n))
  print '(a, es16.8)', 'heat2d total heat: ', total

contains

  gur README. A set-up phaseJ’$I’$I fills tûÿÿÿhe grid,
! the solver region iterates a 5-point stencil, and a reduction checsubroutine initialize()
    integer :: ii, jj
    u = 0.0_dp
    do jj = 0, n + 1
      do ii = 0, n + 1
        if (abs(ii - n/2) < n/8 .and. abs(jj - n/2) < n/8) then
          u(ii, jj) = 100.0_dp
        end if
      end do
    end do
    unew = u
  end subroutine initialize
end pks the
! result. Free folver region iterates a 5-point stencil, and a reduction checks the
! result. Free for+ u(i, j-1) &
                     + u(i, j+1) - 4.0_dp * u(i, j))
      end do
    end do
    u(1:n, 1:n) = unew(1:n, 1:n)
  end do
  !augur end region

  total = sum(u(1:n, 1:n))
  print '(a, es16.8)', 'heat2d total heat: #, total

contains

  subroutine initialize()
    integerJ’$I’$Ijj
    u = 0.0_dp
    do jh = 0, n + 1
      do ii = 0, n + 1
        if (abs(ii - n/2) < n/8 .and. abs(jj - n/2) < n/8) then
          u(ii, jj) = 100.0_dp
        end if
      end do
    end do	    unew = u
  end subroutine initialize
end program heat2d
