#ifndef NSIZE
#define NSIZE 4096
#endif
!=====================================================================
! transpose.f90 - Out-of-place matrix transpose of a 4096 x 4096
! real(8) matrix (128 MB per matrix) done three ways: naive
! column-order writes, naive row-order writes (strided reads),
! and cache-blocked tiles; then the intrinsic TRANSPOSE on a
! smaller block, and a strided column/row sum comparison.
! Exercises: 2-D address computation with large leading dimension,
!   unit vs non-unit stride, blocked loop nests with min(), array
!   intrinsic transpose, sum with dim=.
! Runtime class: memory-bound (strided, TLB-unfriendly).
!=====================================================================
program transp
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: n = NSIZE, bs = 32, m = 512
  real(dp), allocatable :: a(:,:), b(:,:), c(:,:), d(:,:)
  integer :: i, j, ii, jj
  real(dp) :: s1, s2, s3, s4

  allocate(a(n,n), b(n,n))
  do j = 1, n
    do i = 1, n
      a(i,j) = real(i, dp) + 1.0e-4_dp * real(j, dp)
    end do
  end do
  ! 1: walk the source by columns (unit-stride reads, strided writes)
  do j = 1, n
    do i = 1, n
      b(j,i) = a(i,j)
    end do
  end do
  s1 = b(1,n) + b(n,1) + b(n/2, n/3)
  ! 2: walk the destination by columns (strided reads)
  do i = 1, n
    do j = 1, n
      b(j,i) = 2.0_dp * a(i,j)
    end do
  end do
  s2 = b(1,n) + b(n,1) + b(n/2, n/3)
  ! 3: blocked
  do jj = 1, n, bs
    do ii = 1, n, bs
      do j = jj, min(jj + bs - 1, n)
        do i = ii, min(ii + bs - 1, n)
          b(j,i) = a(i,j) - 1.0_dp
        end do
      end do
    end do
  end do
  s3 = sum(b(:, 1)) + sum(b(1, :))
  ! 4: intrinsic on a sub-block, column sums vs row sums
  allocate(c(m,m), d(m,m))
  c = a(1:m, 1:m)
  d = transpose(c)
  s4 = sum(abs(sum(d, dim=1) - sum(c, dim=2)))
  print '(a,4es20.12)', ' TRANSPOSE ', s1, s2, s3, s4
end program transp
