!=====================================================================
! omp_histo.f90 - Histograms of pseudo-random values.  Element i gets
! its own short LCG stream (seeded from i, nstep steps of
! x = (1103515245 x + 12345) mod 2^31, each followed by the xor-shift
! x = ieor(x, x/2^13)), whose top 8 bits pick one of nbin = 256
! bins.  Pass 1 bins n1 values and updates the shared histogram
! inside a named CRITICAL section; pass 2 bins n2 values from a second
! stream with `!$omp atomic` updates of h(k) = h(k) + 1.
! The nstep LCG steps per element keep the critical section's share
! of the time (and so its contention) moderate.  Counts are integers,
! so the histograms do not depend on the thread count.
! Exercises: !$omp critical (named) and !$omp atomic updates of a
!   shared integer array, integer(8) LCG arithmetic with mod and ieor,
!   integer REDUCTION(+:) and REDUCTION(max:/min:) over the bins.
! Runtime class: integer compute-bound plus synchronisation
!   (lock / atomic read-modify-write); 2 KB histograms.
!=====================================================================
program omp_histo
  implicit none
  integer, parameter :: i8 = selected_int_kind(18)
  integer, parameter :: n1 = 5000000, n2 = 14000000, nbin = 256, nstep = 8
  integer :: hc(nbin), ha(nbin)
  integer :: i, k, s, hmax, hmin
  integer(i8) :: x, wsum, dev, tot

  hc = 0
  ha = 0

  ! pass 1: critical section around the bin update
!$omp parallel do schedule(static) private(x, k, s)
  do i = 1, n1
    x = mod(int(i, i8) * 69069_i8 + 1_i8, 2147483648_i8)
    do s = 1, nstep
      x = mod(x * 1103515245_i8 + 12345_i8, 2147483648_i8)
      x = ieor(x, x / 8192_i8)
    end do
    k = int(mod(x / 8388608_i8, int(nbin, i8))) + 1
!$omp critical (histc)
    hc(k) = hc(k) + 1
!$omp end critical (histc)
  end do
!$omp end parallel do

  ! pass 2: atomic increment of the bin
!$omp parallel do schedule(static) private(x, k, s)
  do i = 1, n2
    x = mod(int(i, i8) * 40692_i8 + 7_i8, 2147483648_i8)
    do s = 1, nstep
      x = mod(x * 1103515245_i8 + 12345_i8, 2147483648_i8)
      x = ieor(x, x / 8192_i8)
    end do
    k = int(mod(x / 8388608_i8, int(nbin, i8))) + 1
!$omp atomic
    ha(k) = ha(k) + 1
  end do
!$omp end parallel do

  ! summaries of both histograms (integer reductions)
  tot = 0_i8
  wsum = 0_i8
  dev = 0_i8
  hmax = 0
  hmin = huge(1)
!$omp parallel do reduction(+:tot,wsum,dev) reduction(max:hmax) reduction(min:hmin)
  do k = 1, nbin
    tot = tot + hc(k) + ha(k)
    wsum = wsum + int(k, i8) * hc(k) + int(nbin + 1 - k, i8) * ha(k)
    dev = dev + (int(hc(k), i8) * nbin - n1)**2 / nbin + (int(ha(k), i8) * nbin - n2)**2 / nbin
    hmax = max(hmax, hc(k), ha(k))
    hmin = min(hmin, hc(k), ha(k))
  end do
!$omp end parallel do

  print '(a,i0,a,i0,a,i0,a,i0)', ' OMP_HISTO n1=', n1, ' n2=', n2, ' nbin=', nbin, ' nstep=', nstep
  print '(a,i0,a,i0,a,i0)', ' total=', tot, ' weighted=', wsum, ' deviation=', dev
  print '(a,i0,a,i0,a,i0,a,i0)', ' hmax=', hmax, ' hmin=', hmin, ' hc(1)=', hc(1), ' ha(nbin)=', ha(nbin)
end program omp_histo
