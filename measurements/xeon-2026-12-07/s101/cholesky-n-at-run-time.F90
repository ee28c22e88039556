program cholv
  implicit none
  integer :: n, reps, i, j, k, r
  real(8), allocatable :: a(:,:)
  real(8) :: t0, t1, iters
  character(len=16) :: arg
  call get_command_argument(1, arg); read(arg,*) n
  call get_command_argument(2, arg); read(arg,*) reps
  allocate(a(n,n))
  iters = 0
  call cpu_time(t0)
  do r = 1, reps
    do j = 1, n
      do i = 1, n
        a(i,j) = 1.0d0 / real(i + j, 8)
      end do
      a(j,j) = a(j,j) + real(n, 8)
    end do
    do j = 1, n
      do k = 1, j - 1
        do i = j, n
          a(i,j) = a(i,j) - a(i,k) * a(j,k)
        end do
      end do
      a(j,j) = sqrt(a(j,j))
      do i = j + 1, n
        a(i,j) = a(i,j) / a(j,j)
      end do
    end do
  end do
  call cpu_time(t1)
  do j = 1, n
    iters = iters + real(j-1,8)*real(n-j+1,8)
  end do
  print '(i6,f10.3,a,f8.3,a)', n, (t1-t0)*1e3, ' ms ', (t1-t0)/(iters*reps)*1e9, ' ns/iter (incl. init+div)'
  print *, a(n,n)
end program
