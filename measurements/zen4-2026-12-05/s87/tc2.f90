! Random trip counts 1..6 at each entry of an inner loop; three bodies.
! mode 0: arithmetic only (a sum in a register)
! mode 1: one load and one store to a small array a step apart (no chain between entries)
! mode 2: the flip (loads and stores of the same small array, the next entry reads what this one wrote)
! mode 3: no inner loop: an IF on the same random values (t > 7), the same table walk
program tc2
  implicit none
  integer, parameter :: n = 20000000, m = 1048576
  integer :: mode, k, ii, t, t1, s, seed, pat
  integer, allocatable :: trips(:)
  integer :: line(16), buf(64)
  character(len=8) :: arg
  integer(8) :: c0, c1, rate
  call get_command_argument(1, arg); read(arg,*) mode
  call get_command_argument(2, arg); read(arg,*) pat
  allocate(trips(m))
  seed = 12345
  do k = 1, m
     seed = mod(seed*1103515245 + 12345, 2147483647)
     trips(k) = 2 + mod(abs(seed/65536), 11)
     if (pat == 1) trips(k) = 2 + mod(k, 11)
  end do
  line = [(k, k = 1, 16)]
  buf = 0
  s = 0
  call system_clock(c0, rate)
  select case (mode)
  case (0)
     do k = 1, n
        t = trips(iand(k, m-1) + 1)
        do ii = 1, ishft(t, -1)
           s = s + ii*k
        end do
     end do
  case (1)
     do k = 1, n
        t = trips(iand(k, m-1) + 1)
        do ii = 1, ishft(t, -1)
           buf(ii+8) = buf(ii) + k
        end do
     end do
     s = sum(buf)
  case (2)
     do k = 1, n
        t = trips(iand(k, m-1) + 1)
        do ii = 1, ishft(t, -1)
           t1 = line(ii)
           line(ii) = line(t + 1 - ii)
           line(t + 1 - ii) = t1
        end do
        s = s + line(1)
     end do
  case (3)
     do k = 1, n
        t = trips(iand(k, m-1) + 1)
        if (t > 7) then
           s = s + k
        else
           s = s - 1
        end if
     end do
  end select
  call system_clock(c1)
  print '(a,i2,a,f8.3,a,i14)', 'mode', mode, ' ns/entry', real(c1-c0)/rate/n*1e9, ' s=', s
end program
