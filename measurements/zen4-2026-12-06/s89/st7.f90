program st7
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer :: n1, i, j, k, s, nsteps
  real(dp), allocatable :: u(:,:,:), v(:,:,:)
  real(dp) :: t0, t1, alpha
  character(len=16) :: arg
  call get_command_argument(1, arg); read(arg, *) n1
  nsteps = 40000000 / n1
  alpha = 0.1_dp
  allocate(u(n1,4,4), v(n1,4,4)); u = 1.0_dp; v = 0.0_dp
  call cpu_time(t0)
  do s = 1, nsteps
    do k = 2, 3
      do j = 2, 3
        do i = 2, n1 - 1
          v(i,j,k) = u(i,j,k) + alpha * (u(i-1,j,k) + u(i+1,j,k) + u(i,j-1,k) &
                   + u(i,j+1,k) + u(i,j,k-1) + u(i,j,k+1) - 6.0_dp * u(i,j,k))
        end do
      end do
    end do
    u(5,2,2) = u(5,2,2) + v(7,2,2) * 1e-9_dp
  end do
  call cpu_time(t1)
  print '(i6,f8.3,a,g12.4)', n1, (t1-t0)/(real(nsteps,dp)*4*(n1-2))*1e9/0.2721, ' cycles/point', sum(v)
end program
