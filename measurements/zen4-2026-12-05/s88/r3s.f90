program r3s
  implicit none
  integer, parameter :: n = 160, m = n / 2, cycles = 30
  real(8), allocatable :: f(:,:,:), c(:,:,:)
  integer :: i, j, k, t, mode
  real(8) :: t0, t1
  character(8) :: arg
  call get_command_argument(1, arg); read(arg,*) mode
  allocate(f(0:n+1,0:n+1,0:n+1), c(0:m+1,0:m+1,0:m+1))
  f = 1; c = 0
  call cpu_time(t0)
  do t = 1, cycles
    select case (mode)
    case (1)
    do k = 1, m; do j = 1, m; do i = 1, m
      c(i,j,k) = f(2*i,2*j,2*k)
    end do; end do; end do
    case (2)
    do k = 1, m; do j = 1, m; do i = 1, m
      c(i,j,k) = f(2*i,2*j,2*k) + f(2*i,2*j+1,2*k)
    end do; end do; end do
    case (3)
    do k = 1, m; do j = 1, m; do i = 1, m
      c(i,j,k) = f(2*i,2*j,2*k) + f(2*i,2*j+1,2*k) + f(2*i,2*j,2*k+1)
    end do; end do; end do
    case (4)
    do k = 1, m; do j = 1, m; do i = 1, m
      c(i,j,k) = 0.5d0 * f(2*i,2*j,2*k) + 0.0625d0 * (f(2*i-1,2*j,2*k) + f(2*i+1,2*j,2*k) &
               + f(2*i,2*j-1,2*k) + f(2*i,2*j+1,2*k) + f(2*i,2*j,2*k-1) + f(2*i,2*j,2*k+1))
    end do; end do; end do
    case (5)
    do k = 1, 2*m+1; do j = 1, 2*m+1; do i = 1, m
      c(i,1,1) = c(i,1,1) + f(2*i,j,k)
    end do; end do; end do
    end select
  end do
  call cpu_time(t1)
  print '(a,i2,f9.2,a,f7.3,a)', 'mode', mode, (t1-t0)*1e3, ' ms', (t1-t0)*1e9/(cycles*real(m,8)**3), ' ns/point'
  if (sum(c) < 0) print *, 'x'
end program
