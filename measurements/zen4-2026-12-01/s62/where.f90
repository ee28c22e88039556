program wh
  implicit none
  integer, parameter :: dp = kind(1.0d0), n = 250000
  real(dp), allocatable :: u(:), v(:), w(:)
  integer :: i, s, mode
  integer(8) :: t0, t1, rate
  character(len=8) :: arg
  call get_command_argument(1, arg); read(arg,*) mode
  allocate(u(n), v(n), w(n))
  do i = 1, n
    u(i) = sin(1.0e-3_dp * real(i, dp)) + 0.2_dp * cos(0.37_dp * real(i, dp))
  end do
  w = u
  v(2:n - 1) = 0.25_dp * (u(1:n - 2) + 2.0_dp * u(2:n - 1) + u(3:n))
  v(1) = u(1); v(n) = u(n)
  if (mode == 1) v = 1.0_dp
  if (mode == 2) then
    call random_number(v); v = 2*v - 1
  end if
  call system_clock(t0, rate)
  do s = 1, 160
    where (v > 0.3_dp)
      u = u - 1.0e-9_dp * v
    elsewhere (v < -0.3_dp)
      u = u + 1.0e-9_dp * v**2
    elsewhere
      u = 0.99999_dp * u + 0.00001_dp * w
    end where
  end do
  call system_clock(t1)
  print '(a,i2,f10.3,a,f8.3,a,i8)', 'mode', mode, real(t1-t0)/real(rate)*1e3, ' ms', &
     real(t1-t0)/real(rate)*1e9/(160.0*n), ' ns/elem', count(v > 0.3_dp)
  print *, sum(u)
end program
