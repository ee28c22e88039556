! bg_fasta's random loop alone: variant 1 as the program (LCG, scale, COUNT over the cumulative
! probabilities, a character stored); 2 without the COUNT (the character picked by the value);
! 3 the LCG chain alone; 4 the COUNT over a fixed value (no chain into it).
program fk
  implicit none
  integer, parameter :: IM = 139968, IA = 3877, IC = 29573, n = 32000000
  integer :: last, i, j, v, k, np
  real :: probs(15), r, t0, t1
  character(1) :: chars(0:15), line(61)
  character(len=8) :: arg
  call get_command_argument(1, arg); read(arg, *) v
  call get_command_argument(2, arg); read(arg, *) np
  do k = 1, np
    probs(k) = real(k) / np * IM
  end do
  chars = 'a'
  last = 42; j = 0
  call cpu_time(t0)
  select case (v)
  case (1)
    do i = 1, n
      last = mod(last*IA + IC, IM); r = real(last)*(IM*1.0)/IM
      j = j + 1; if (j > 60) j = 1
      line(j) = chars(count(r >= probs(1:np)))
    end do
  case (2)
    do i = 1, n
      last = mod(last*IA + IC, IM); r = real(last)*(IM*1.0)/IM
      j = j + 1; if (j > 60) j = 1
      line(j) = chars(int(r) / 10000)
    end do
  case (3)
    do i = 1, n
      last = mod(last*IA + IC, IM)
    end do
  case (4)
    do i = 1, n
      r = real(i)
      j = j + 1; if (j > 60) j = 1
      line(j) = chars(count(r >= probs(1:np)))
    end do
  end select
  call cpu_time(t1)
  print '(a,i2,a,i3,a,f8.3,a,i0)', 'variant', v, ' probs', np, ':', &
    (t1 - t0) / n * 1e9, ' ns an iteration; check ', last + ichar(line(1))
end program fk
