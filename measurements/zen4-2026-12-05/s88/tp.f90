program tp
  implicit none
  integer, parameter :: n = 1024, nrep = 10
  real(8), allocatable :: a(:,:), b(:,:)
  real(8) :: t0, t1, t2, tr, tt
  integer :: i, j, it, mode
  character(8) :: arg
  call get_command_argument(1, arg); read(arg,*) mode
  allocate(a(n,n), b(n,n))
  do j = 1, n
    do i = 1, n
      a(i, j) = real(mod(i * 7 + j * 3, 17), 8) / 17.0d0
    end do
  end do
  b = 0; tr = 0; tt = 0
  do it = 1, nrep
    call cpu_time(t0)
    do j = 1, n
      do i = 2, n
        a(i, j) = a(i, j) + 0.5d0 * a(i - 1, j)
      end do
    end do
    call cpu_time(t1); tr = tr + t1 - t0
    if (mode == 1) then
    do j = 1, n
      do i = 1, n
        b(i, j) = a(j, i)
      end do
    end do
    else
    do j = 1, n
      do i = 1, n
        b(j, i) = a(i, j)
      end do
    end do
    end if
    call cpu_time(t2); tt = tt + t2 - t1
  end do
  print '(a,i2,2f9.2,a,f7.3,a)', 'mode', mode, tr*1e3, tt*1e3, ' ms', tt*1e9/(nrep*real(n,8)**2), ' ns/elem'
  if (sum(b) < 0) print *, 'x'
end program
