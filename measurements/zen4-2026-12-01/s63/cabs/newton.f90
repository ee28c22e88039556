program k2
  implicit none
  complex :: z, dz, a
  integer :: it, n, mode, cnt
  real :: t0, t1, s
  character(len=8) :: arg
  call get_command_argument(1, arg); read(arg,*) mode
  n = 20000000
  a = (0.9, 0.3)
  z = (1.1, 0.2)
  cnt = 0; s = 0
  call cpu_time(t0)
  do it = 1, n
    if (mode == 1) then
      if (cabs(z) .lt. 1.0e-6) cnt = cnt + 1
    end if
    dz = (z**5 - (1.0, 0.0)) / (5.0 * z**4)
    z = z - dz + a*1e-7
    if (mode >= 1) then
      if (cabs(dz) .lt. 1.0e-6) cnt = cnt + 1
    end if
  end do
  call cpu_time(t1)
  print '(i2,f9.2,a,2f8.3,i10)', mode, (t1-t0)/n*1e9, ' ns/it', z, cnt
end program
