!=====================================================================
! omp_sections.f90 - Two parallel constructs:
!  (1) PARALLEL SECTIONS with three independent, unequal jobs:
!      A (largest) counts the primes below np by trial division,
!      B (medium) sums the Leibniz series for pi over nl terms,
!      C (smallest) runs a 2-D lattice random walk of nw steps driven
!      by an own LCG and counts its returns to the origin.
!      With two threads one thread runs A and the other B and C, so
!      the construct takes about max(A, B + C).
!  (2) One PARALLEL region in which a SINGLE thread fills a shared
!      array from a sequential LCG (implicit barrier at END SINGLE), an
!      !$omp do computes Collatz stopping times of the entries, the
!      MASTER thread sums them (no implied barrier, hence the explicit
!      !$omp barrier), and a second !$omp do, which needs the master's
!      mean, counts the entries above it (integer reduction).
! Every job is serial inside its section or per element, so the
! output does not depend on the thread count.
! Exercises: !$omp parallel sections / section, !$omp single,
!   !$omp master, !$omp barrier, orphan-free worksharing DO inside a
!   parallel region, integer division and mod (trial division),
!   real(8) division series, branchy LCG walk, DO WHILE (Collatz).
! Runtime class: integer compute-bound, branchy, unequal tasks.
!=====================================================================
program omp_sections
  implicit none
  integer, parameter :: dp = kind(1.0d0), i8 = selected_int_kind(18)
  integer, parameter :: np = 1800000, nl = 40000000, nw = 6000000, m = 500000
  integer :: nprime, nret, maxd, i, k, d
  integer :: ix, iy
  logical :: isp
  real(dp) :: pisum
  integer(i8) :: seed, x, total, above, smax
  integer, allocatable :: steps(:)
  integer(i8), allocatable :: val(:)

  ! ---------------- (1) unequal sections ----------------
!$omp parallel sections private(i, k, d, isp, seed, ix, iy)
!$omp section
  ! A: trial-division prime count
  nprime = 1
  do i = 3, np, 2
    isp = .true.
    d = 3
    do while (d * d <= i)
      if (mod(i, d) == 0) then
        isp = .false.
        exit
      end if
      d = d + 2
    end do
    if (isp) nprime = nprime + 1
  end do
!$omp section
  ! B: Leibniz series, summed from the small terms up
  pisum = 0.0_dp
  do k = nl, 1, -1
    if (mod(k, 2) == 1) then
      pisum = pisum + 4.0_dp / real(2*k - 1, dp)
    else
      pisum = pisum - 4.0_dp / real(2*k - 1, dp)
    end if
  end do
!$omp section
  ! C: 2-D lattice walk
  seed = 12345_i8
  ix = 0
  iy = 0
  nret = 0
  maxd = 0
  do k = 1, nw
    seed = mod(seed * 1103515245_i8 + 12345_i8, 2147483648_i8)
    select case (int(seed / 536870912_i8))
    case (0)
      ix = ix + 1
    case (1)
      ix = ix - 1
    case (2)
      iy = iy + 1
    case default
      iy = iy - 1
    end select
    if (ix == 0 .and. iy == 0) nret = nret + 1
    maxd = max(maxd, abs(ix) + abs(iy))
  end do
!$omp end parallel sections

  print '(a,i0,a,i0,a,i0)', ' OMP_SECTIONS np=', np, ' nl=', nl, ' nw=', nw
  print '(a,i0,a,f16.12,a,i0,a,i0)', ' primes=', nprime, ' pi~', pisum, &
       ' returns=', nret, ' maxdist=', maxd

  ! ------------- (2) single / master / barrier -------------
  allocate(steps(m), val(m))
  total = 0_i8
  above = 0_i8
  smax = 0_i8
!$omp parallel private(i, x, k)
!$omp single
  seed = 20240101_i8
  do i = 1, m
    seed = mod(seed * 48271_i8, 2147483647_i8)
    val(i) = 1_i8 + mod(seed, 3000000_i8)
  end do
!$omp end single
!$omp do schedule(dynamic, 1000)
  do i = 1, m
    x = val(i)
    k = 0
    do while (x /= 1_i8)
      if (mod(x, 2_i8) == 0_i8) then
        x = x / 2_i8
      else
        x = 3_i8 * x + 1_i8
      end if
      k = k + 1
    end do
    steps(i) = k
  end do
!$omp end do nowait
!$omp barrier
!$omp master
  do i = 1, m
    total = total + steps(i)
    smax = max(smax, int(steps(i), i8))
  end do
!$omp end master
!$omp barrier
!$omp do reduction(+:above)
  do i = 1, m
    if (int(steps(i), i8) * m > total) above = above + 1
  end do
!$omp end do
!$omp end parallel

  print '(a,i0,a,i0,a,i0,a,i0)', ' collatz m=', m, ' total steps=', total, &
       ' max=', smax, ' above mean=', above
  deallocate(steps, val)
end program omp_sections
