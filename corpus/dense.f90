#ifndef NSIZE
#define NSIZE 680
#endif
!=====================================================================
! dense.f90 - Single-precision and double-precision dense linear
! algebra in modern syntax: matrix multiply by explicit loops (ikj
! order with array-section axpy), by dot_product of rows/columns,
! and by the MATMUL intrinsic; then a power iteration for the
! dominant eigenvalue using matmul on a vector and norm2.
! Exercises: real (default) vs real(kind=dp), array sections
!   a(:,k), dot_product, matmul, transpose, norm2, maxval/maxloc,
!   abs, allocatable 2-D arrays, whole-array assignment.
! Runtime class: compute-bound.
!=====================================================================
program dense
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: n = NSIZE, npow = 200
  real, allocatable :: as(:,:), bs(:,:), cs(:,:)
  real(dp), allocatable :: a(:,:), b(:,:), c1(:,:), c2(:,:), c3(:,:), at(:,:)
  real(dp), allocatable :: v(:), w(:)
  real(dp) :: lambda, d12, d13
  integer :: i, j, k, it

  allocate(a(n,n), b(n,n), c1(n,n), c2(n,n), c3(n,n), at(n,n), v(n), w(n))
  allocate(as(n,n), bs(n,n), cs(n,n))
  do j = 1, n
    do i = 1, n
      a(i,j) = 1.0_dp / real(i + j - 1, dp)
      b(i,j) = real(mod(i * j, 7) - 3, dp) * 0.1_dp
    end do
  end do
  as = real(a)
  bs = real(b)
  ! ikj with column axpy on sections
  c1 = 0.0_dp
  do j = 1, n
    do k = 1, n
      c1(:, j) = c1(:, j) + a(:, k) * b(k, j)
    end do
  end do
  ! dot products of rows of a (via transpose) and columns of b
  at = transpose(a)
  do j = 1, n
    do i = 1, n
      c2(i, j) = dot_product(at(:, i), b(:, j))
    end do
  end do
  c3 = matmul(a, b)
  d12 = maxval(abs(c1 - c2))
  d13 = maxval(abs(c1 - c3))
  ! single precision explicit triple loop, jki order
  cs = 0.0
  do j = 1, n
    do k = 1, n
      do i = 1, n
        cs(i, j) = cs(i, j) + as(i, k) * bs(k, j)
      end do
    end do
  end do
  ! power iteration on the (symmetric positive) Hilbert-like matrix
  v = 1.0_dp
  lambda = 0.0_dp
  do it = 1, npow
    w = matmul(a, v)
    lambda = norm2(w) / norm2(v)
    v = w / norm2(w)
  end do
  print '(a,2es10.2,a,es22.14,a,es16.8)', ' DENSE diff=', d12, d13, ' lambda=', lambda, ' ssum=', sum(cs)
  print '(a,2i5,es22.14)', ' DENSE maxloc', maxloc(c1), maxval(c1)
end program dense
