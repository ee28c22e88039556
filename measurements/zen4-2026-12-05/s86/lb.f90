program lb
  ! a DO loop whose IF tests a logical read from an array: random (mode 1) or alternating (mode 0)
  implicit none
  integer, parameter :: n = 1000000, reps = 20
  logical(1), allocatable :: r(:)
  integer(8), allocatable :: v1(:), v2(:)
  integer :: k, rr, mode, m1, m2
  integer(8) :: s
  real(8) :: t0, t1
  character(8) :: arg
  call get_command_argument(1, arg); read(arg,*) mode
  allocate(r(n), v1(8), v2(8))
  v1 = 0; v2 = 0
  s = 12345
  do k = 1, n
    s = mod(s * 6364136_8 + 1442695_8, 4294967291_8)
    if (mode == 1) then
      r(k) = iand(ishft(s, -7), 1_8) == 1
    else
      r(k) = mod(k, 2) == 0
    end if
  end do
  call get_command_argument(2, arg); read(arg,*) m1
  m2 = m1 + 1
  call cpu_time(t0)
  do rr = 1, reps
    do k = 1, n
      if (r(k)) then
        v1(m1) = v1(m1) + 1
      else
        v2(m2) = v2(m2) + 1
      end if
    end do
    call sink(v1, v2)
  end do
  call cpu_time(t1)
  print '(a,i2,a,f8.3)', 'mode', mode, ' ns/elem', (t1-t0)/(reps*dble(n))*1d9
end program
subroutine sink(v1, v2)
  integer(8) :: v1(*), v2(*)
  if (v1(1) == -99) print *, v2(1)
end subroutine
