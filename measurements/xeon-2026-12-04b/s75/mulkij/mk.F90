! mulkij alone with allocatable arrays: C(I,J) += A(I,K)*B(K,J), J innermost (row walks of C
! and B; -D BCOL: B read along its columns, from a transposed copy), N from -D N=...
program mk
  implicit none
  integer, parameter :: n = N
  double precision, allocatable :: a(:,:), b(:,:), c(:,:), bt(:,:)
  integer :: i, j, k, t0, t1, rate
  double precision :: r
  allocate(a(n,n), b(n,n), c(n,n), bt(n,n))
  do j = 1, n
    do i = 1, n
      a(i,j) = 1.0d0 / (i + j)
      b(i,j) = 2.0d0 / (i + 2*j)
      c(i,j) = 0.0d0
      bt(j,i) = b(i,j)
    end do
  end do
  call system_clock(t0, rate)
  do k = 1, n
    do i = 1, n
      r = a(i,k)
      do j = 1, n
#ifdef BCOL
        c(i,j) = c(i,j) + r * bt(j,k)
#else
        c(i,j) = c(i,j) + r * b(k,j)
#endif
      end do
    end do
  end do
  call system_clock(t1)
  print '(a,i6,a,f8.3,a,f8.3,a)', ' n=', n, ' time=', dble(t1-t0)/rate*1d3, ' ms, ', &
    dble(t1-t0)/rate*1d9/dble(n)**3, ' ns/iter'
  if (c(1,1) < -1d0) print *, c(1,1)
end program mk
