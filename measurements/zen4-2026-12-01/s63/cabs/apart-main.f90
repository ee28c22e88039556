program main
  use m
  integer :: i
  real :: t0, t1
  integer(8) :: reps
  do i = 1, 513
    xc41(i) = cmplx(1.0 + mod(i*37, 100)/100.0, mod(i*11, 100)/100.0)
  end do
  reps = 40000
  call cpu_time(t0)
  call k(reps)
  call cpu_time(t1)
  print *, (t1-t0)/(reps*512.0)*1e9, ' ns/call'
end program
subroutine sink(y)
  real :: y(*)
end subroutine
