!=====================================================================
! spline.f90 - Natural cubic spline interpolation: builds splines
! through samples of several test functions (tridiagonal solve for
! the second derivatives), evaluates them on a fine grid with a
! binary interval search, and integrates the error. All helpers are
! internal procedures of the main program (host association).
! Exercises: internal subroutines/functions after CONTAINS, host
!   association of arrays, real(kind=dp), explicit-shape and
!   assumed-shape dummies, binary search DO WHILE, select case on
!   the test-function id, exp/sin/atan/sqrt/abs.
! Runtime class: compute-bound, call-bound.
!=====================================================================
program spline
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nk = 400, ne = 2600000, nfun = 4
  real(dp) :: xk(nk), yk(nk), m2(nk)
  real(dp) :: x, e, emax, integ, h
  integer :: f, i

  h = 1.0_dp / (nk - 1)
  do i = 1, nk
    xk(i) = (i - 1) * h + 0.1_dp * h * sin(real(i, dp))
  end do
  xk(1) = 0.0_dp
  xk(nk) = 1.0_dp
  emax = 0.0_dp
  integ = 0.0_dp
  do f = 1, nfun
    do i = 1, nk
      yk(i) = g(f, xk(i))
    end do
    call build(xk, yk, m2)
    e = 0.0_dp
    do i = 0, ne
      x = real(i, dp) / ne
      e = e + abs(evals(x) - g(f, x))
      integ = integ + evals(x) / ne
    end do
    emax = max(emax, e / ne)
  end do
  print '(a,es14.6,a,es22.14)', ' SPLINE mean err=', emax, ' integral=', integ
contains
  real(dp) function g(id, t)
    integer, intent(in) :: id
    real(dp), intent(in) :: t
    select case (id)
    case (1)
      g = sin(6.0_dp * t)
    case (2)
      g = exp(-3.0_dp * t) * cos(10.0_dp * t)
    case (3)
      g = atan(20.0_dp * (t - 0.5_dp))
    case default
      g = sqrt(t + 0.01_dp) * abs(t - 0.3_dp)
    end select
  end function g

  subroutine build(xs, ys, d2)
    real(dp), intent(in) :: xs(:), ys(:)
    real(dp), intent(out) :: d2(:)
    real(dp) :: c(size(xs)), r(size(xs)), hl, hr, piv
    integer :: n, j
    n = size(xs)
    d2(1) = 0.0_dp
    d2(n) = 0.0_dp
    c(1) = 0.0_dp
    r(1) = 0.0_dp
    do j = 2, n - 1
      hl = xs(j) - xs(j - 1)
      hr = xs(j + 1) - xs(j)
      piv = 2.0_dp * (hl + hr) - hl * c(j - 1)
      c(j) = hr / piv
      r(j) = (6.0_dp * ((ys(j + 1) - ys(j)) / hr - (ys(j) - ys(j - 1)) / hl) - hl * r(j - 1)) / piv
    end do
    do j = n - 1, 2, -1
      d2(j) = r(j) - c(j) * d2(j + 1)
    end do
  end subroutine build

  integer function locate(t)
    real(dp), intent(in) :: t
    integer :: lo, hi, mid
    lo = 1
    hi = nk
    do while (hi - lo > 1)
      mid = (lo + hi) / 2
      if (xk(mid) > t) then
        hi = mid
      else
        lo = mid
      end if
    end do
    locate = lo
  end function locate

  real(dp) function evals(t)
    real(dp), intent(in) :: t
    integer :: j
    real(dp) :: a, b, hh
    j = locate(t)
    hh = xk(j + 1) - xk(j)
    a = (xk(j + 1) - t) / hh
    b = 1.0_dp - a
    evals = a * yk(j) + b * yk(j + 1) + ((a**3 - a) * m2(j) + (b**3 - b) * m2(j + 1)) * hh * hh / 6.0_dp
  end function evals
end program spline
