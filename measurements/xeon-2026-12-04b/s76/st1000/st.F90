program st
  implicit none
  integer :: n, reps, i, j, k
  real(8), allocatable :: a(:,:), b(:,:)
  integer(8) :: t0, t1, rate
  character(len=32) :: arg
  call get_command_argument(1, arg); read(arg,*) n
  reps = max(1, int(4.0d7 / (real(n,8)*n)))
  allocate(a(n,n), b(n,n))
  do j = 1, n
    do i = 1, n
      a(i,j) = real(mod(i*j, 7), 8)
    end do
  end do
  b = 0
  call system_clock(t0, rate)
  do k = 1, reps
    do i = 2, n - 1
      do j = 2, n - 1
        b(i,j) = 0.25d0 * (a(i-1,j) + a(i+1,j) + a(i,j-1) + a(i,j+1))
      end do
    end do
    a(5,5) = a(5,5) + b(5,6)
  end do
  call system_clock(t1)
  print '(i6,i6,f8.3,a,f10.1)', n, reps, real(t1-t0,8)/rate*1d9/(real(reps,8)*(n-2)**2), ' ns/elem', sum(b)
end program
