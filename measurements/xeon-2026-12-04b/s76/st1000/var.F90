program var
  implicit none
  integer, parameter :: n = NN
  integer :: reps, i, j, k
  real(8), allocatable :: a(:,:), b(:,:), c(:,:)
  real(8) :: s
  integer(8) :: t0, t1, rate
  reps = max(1, int(2.0d7 / (real(n,8)*n)))
  allocate(a(n,n), b(n,n), c(n,n))
  call random_number(a); call random_number(c); b = 0; s = 0
  call system_clock(t0, rate)
  do k = 1, reps
    do i = 2, n - 1
      do j = 2, n - 1
#if V == 1
        b(i,j) = 0.25d0 * (a(i-1,j) + a(i+1,j) + a(i,j-1) + a(i,j+1))
#elif V == 2
        s = s + a(i,j+1) * c(i,j)
#elif V == 3
        b(i,j) = c(i,j)
#elif V == 4
        b(i,j) = 1.0d0
#elif V == 5
        s = s + a(i,j+1) * c(i,j) * b(i,j)
#endif
      end do
    end do
    a(5,5) = a(5,5) + b(5,6) + s
  end do
  call system_clock(t1)
  print '(a,i2,i6,f8.3,a,g12.4)', 'V', V, n, real(t1-t0,8)/rate*1d9/(real(reps,8)*(n-2)**2), ' ns/elem', sum(b)+s
end program
