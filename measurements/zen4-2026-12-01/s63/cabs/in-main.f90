program k6
  implicit none
  integer, parameter :: n = 512
  complex :: x(n), w
  real :: y(n), t0, t1, s
  integer :: i, r, reps, cnt
  do i = 1, n
    x(i) = cmplx(1.0 + mod(i*37, 100)/100.0, mod(i*11, 100)/100.0)
  end do
  reps = 40000
  call cpu_time(t0)
  do r = 1, reps
    do i = 1, n
      y(i) = abs(x(i))
    end do
    call sink(y)
  end do
  call cpu_time(t1)
  print '(a,f8.2,a)', 'array loop ', (t1-t0)/(real(reps)*n)*1e9, ' ns/call'
  w = (1.1, 0.2); cnt = 0
  call cpu_time(t0)
  do i = 1, 20000000
    w = w + (1e-7, 0.0)
    if (abs(w) .lt. 1.0e-6) cnt = cnt + 1
  end do
  call cpu_time(t1)
  print '(a,f8.2,a,i3)', 'scalar loop ', (t1-t0)/2e7*1e9, ' ns/call', cnt
  s = 0
  call cpu_time(t0)
  do i = 1, 20000000
    w = w + (1e-7, 0.0)
    s = s + abs(w)
  end do
  call cpu_time(t1)
  print '(a,f8.2,a,f12.1)', 'scalar sum ', (t1-t0)/2e7*1e9, ' ns/call', s
end program
