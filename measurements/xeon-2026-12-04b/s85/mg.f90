program mg
  implicit none
  integer, parameter :: n = 1000000, reps = 20
  integer(8), allocatable :: a(:), b(:), w(:)
  integer :: i, j, k, r, mode
  integer(8) :: s
  real(8) :: t0, t1
  character(8) :: arg
  call get_command_argument(1, arg); read(arg,*) mode
  allocate(a(n), b(n), w(2*n))
  if (mode == 0) then
    do i = 1, n
      a(i) = 2*i; b(i) = 2*i+1
    end do
  else
    s = 12345
    a(1) = 0; b(1) = 0
    do i = 2, n
      s = mod(s * 6364136_8 + 1442695_8, 4294967291_8)
      a(i) = a(i-1) + mod(s, 100_8)
      s = mod(s * 6364136_8 + 1442695_8, 4294967291_8)
      b(i) = b(i-1) + mod(s, 100_8)
    end do
  end if
  call cpu_time(t0)
  do r = 1, reps
    i = 1; j = 1; k = 1
    do while (i <= n .and. j <= n)
      if (a(i) <= b(j)) then
        w(k) = a(i); i = i + 1
      else
        w(k) = b(j); j = j + 1
      end if
      k = k + 1
    end do
    call sink(w, k)
  end do
  call cpu_time(t1)
  print '(a,i2,a,f8.3,a,i9)', 'mode', mode, ' ns/elem', (t1-t0)/(reps*dble(k-1))*1d9, ' k', k
end program
subroutine sink(w, k)
  integer(8) :: w(*)
  integer :: k
  if (w(1) == -99) print *, k
end subroutine
