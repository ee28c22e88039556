program r3v
  implicit none
  integer, parameter :: n = 128, m = n / 2, cycles = 60
  real(8), allocatable :: f(:,:,:), c(:,:,:)
  integer :: i, j, k, t, mode
  real(8) :: t0, t1, t2
  character(8) :: arg
  call get_command_argument(1, arg); read(arg,*) mode
  allocate(f(0:n+1,0:n+1,0:n+1), c(0:m+1,0:m+1,0:m+1))
  do k = 0, n + 1
    do j = 0, n + 1
      do i = 0, n + 1
        f(i,j,k) = real(mod(i + 3*j + 7*k, 11), 8)
      end do
    end do
  end do
  c = 0
  t1 = 0; t2 = 0
  do t = 1, cycles
    call cpu_time(t0)
    if (mode /= 2) then
    do k = 1, m
      do j = 1, m
        do i = 1, m
          c(i,j,k) = 0.5d0 * f(2*i,2*j,2*k) + 0.0625d0 * (f(2*i-1,2*j,2*k) + f(2*i+1,2*j,2*k) &
               + f(2*i,2*j-1,2*k) + f(2*i,2*j+1,2*k) + f(2*i,2*j,2*k-1) + f(2*i,2*j,2*k+1))
        end do
      end do
    end do
    end if
    call cpu_time(t1); t2 = t2 + (t1 - t0); t0 = t1
    if (mode /= 1) then
    do k = 1, m
      do j = 1, m
        do i = 1, m
          f(2*i,2*j,2*k) = f(2*i,2*j,2*k) + 0.1d0 * c(i,j,k)
          f(2*i-1,2*j,2*k) = f(2*i-1,2*j,2*k) + 0.05d0 * (c(i,j,k) + c(i-1,j,k))
        end do
      end do
    end do
    end if
    call cpu_time(t1); 
  end do
  print *, sum(c), f(n/2,n/2,n/2), 'restrict ms', t2*1000
end program
