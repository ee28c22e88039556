! LU factorization without pivoting of a diagonally dominant matrix, then a solve:
! the example of predictions at sizes never run (`augur analyze --scale n=... -D N={n}`).
! Its nests are triangular (k < i, j): their counts are cubic and quadratic in N.
#ifndef N
#define N 900
#endif
program lu
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: n = N
  real(dp), allocatable :: a(:,:), b(:), x(:)
  integer :: i, j, k
  allocate (a(n, n), b(n), x(n))
  do j = 1, n
    do i = 1, n
      a(i, j) = 1.0_dp / (i + j - 1)
    end do
    a(j, j) = a(j, j) + n
    b(j) = 1.0_dp
  end do
  ! a = L U, column by column (right-looking, unit lower triangle)
  do k = 1, n - 1
    do i = k + 1, n
      a(i, k) = a(i, k) / a(k, k)
    end do
    do j = k + 1, n
      do i = k + 1, n
        a(i, j) = a(i, j) - a(i, k) * a(k, j)
      end do
    end do
  end do
  ! L y = b, then U x = y
  x = b
  do j = 1, n - 1
    do i = j + 1, n
      x(i) = x(i) - a(i, j) * x(j)
    end do
  end do
  do j = n, 1, -1
    x(j) = x(j) / a(j, j)
    do i = 1, j - 1
      x(i) = x(i) - a(i, j) * x(j)
    end do
  end do
  print '(a, i0, a, es22.14)', ' LU n=', n, ' sum(x)=', sum(x)
end program lu
