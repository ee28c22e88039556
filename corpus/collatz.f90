!=====================================================================
! collatz.f90 - Reads from standard input a range [lo, hi] and a
! cache size, then computes Collatz (3n+1) stopping times for every
! start value with a memo table (integer(8) trajectories), the
! longest chain, and a histogram of stopping times.
! Exercises: list-directed READ from standard input, allocatable
!   arrays sized by input, integer(8) arithmetic, mod, DO WHILE,
!   EXIT, logical tests, maxloc, count.
! stdin: collatz.in  (e.g. "1 3000000" / "1000000").
! Runtime class: integer, branchy.
!=====================================================================
program collatz
  implicit none
  integer, parameter :: i8 = selected_int_kind(18)
  integer :: lo, hi, ncache, i, steps, best, bestn, nbin
  integer, allocatable :: memo(:), hist(:)
  integer(i8) :: x, total

  read (*, *) lo, hi
  read (*, *) ncache
  allocate(memo(ncache), hist(0:63))
  memo = -1
  memo(1) = 0
  hist = 0
  total = 0
  best = -1
  bestn = 0
  do i = lo, hi
    x = i
    steps = 0
    do while (x /= 1)
      if (x <= ncache) then
        if (memo(x) >= 0) then
          steps = steps + memo(x)
          exit
        end if
      end if
      if (mod(x, 2_i8) == 0) then
        x = x / 2
      else
        x = 3 * x + 1
      end if
      steps = steps + 1
    end do
    if (i <= ncache) memo(i) = steps
    total = total + steps
    if (steps > best) then
      best = steps
      bestn = i
    end if
    nbin = min(steps / 8, 63)
    hist(nbin) = hist(nbin) + 1
  end do
  print '(a,2i9,a,i16,a,i5,a,i9)', ' COLLATZ range', lo, hi, ' total=', total, ' best=', best, ' at', bestn
  print '(a,i3,a,i8)', ' COLLATZ modal bin', maxloc(hist, 1) - 1, ' nonempty', count(hist > 0)
end program collatz
