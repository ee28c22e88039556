! s = s + x(.)*y(k): the add chain with one load per element that is (1) an L1 hit,
! (2) strided by n (an L1 miss the L2 serves, a new page each), (3) strided, 4 chains
program v
  implicit none
  integer, parameter :: n = 700, reps = 1400
  real(8), allocatable :: x(:,:), y(:), z(:)
  real(8) :: s, s1, s2, s3, s4, t0, t1
  integer :: i, j, k
  allocate(x(n,n), y(n), z(n))
  call random_number(x); call random_number(y); call random_number(z)
  s = 0
  call cpu_time(t0)
  do j = 1, reps
    i = mod(j, n) + 1
    do k = 1, n
      s = s + z(k) * y(k)
    end do
    z(i) = s * 1d-9
  end do
  call cpu_time(t1)
  print '(a,f8.3,a,g12.4)', 'L1 hit     ', (t1-t0)/(dble(n)*reps)*1d9, ' ns', s
  s = 0
  call cpu_time(t0)
  do j = 1, reps
    i = mod(j, n) + 1
    do k = 1, n
      s = s + x(i,k) * y(k)
    end do
  end do
  call cpu_time(t1)
  print '(a,f8.3,a,g12.4)', 'strided    ', (t1-t0)/(dble(n)*reps)*1d9, ' ns', s
  s = 0
  call cpu_time(t0)
  do j = 1, reps
    i = mod(j, 8) + 1
    do k = 1, n
      s = s + x(i,k) * y(k)
    end do
  end do
  call cpu_time(t1)
  print '(a,f8.3,a,g12.4)', 'strided, 8 rows (L1 lines reused) ', (t1-t0)/(dble(n)*reps)*1d9, ' ns', s
  s1 = 0; s2 = 0; s3 = 0; s4 = 0
  call cpu_time(t0)
  do j = 1, reps
    i = mod(j, n) + 1
    do k = 1, n, 4
      s1 = s1 + x(i,k) * y(k)
      s2 = s2 + x(i,k+1) * y(k+1)
      s3 = s3 + x(i,k+2) * y(k+2)
      s4 = s4 + x(i,k+3) * y(k+3)
    end do
  end do
  call cpu_time(t1)
  print '(a,f8.3,a,g12.4)', 'strided 4 chains ', (t1-t0)/(dble(n)*reps)*1d9, ' ns', s1+s2+s3+s4
end program
