!=====================================================================
! omp_reduce.f90 - Lagged dot products, 2-norms, max-norms and minima
! of three vectors x, y, z of 2M doubles (48 MB), for nlag different
! lags; every lag is one PARALLEL DO with several scalars reduced in
! one clause: REDUCTION(+:sxy,sxz,syz,sxx,szz), REDUCTION(MAX:amax,
! dmax), REDUCTION(MIN:pmin, amin), and an integer REDUCTION(+:npos)
! in a second clause.  The vector entries are multiples of 1/256 with
! magnitude below 4, so every product and every partial sum is
! exactly representable in real(8): the reduced values are the same
! for any thread count and summation order and can be printed in full.
! Exercises: REDUCTION with +, MAX, MIN on several real(8) scalars in
!   one clause, integer(8) and default-integer reductions, counter-based
!   own LCG (hash of the index) for parallel initialisation, sqrt/abs/
!   max/min intrinsics, offset (lagged) unit-stride accesses.
! Runtime class: memory-bound streaming (48 MB) with 5 multiply-adds
!   per element.
!=====================================================================
program omp_reduce
  implicit none
  integer, parameter :: dp = kind(1.0d0), i8 = selected_int_kind(18)
  integer, parameter :: n = 2*1024*1024, nlag = 72
  real(dp), save :: x(n), y(n), z(n)
  real(dp) :: sxy, sxz, syz, sxx, szz, amax, dmax, pmin, amin, p
  real(dp) :: txy, txz, tyz, tnx, tnz, tamax, tdmax, tpmin, tamin
  integer :: i, l, lag, npos, tpos
  integer(i8) :: h, hsum


  ! counter-based generator: a few LCG steps started from the index,
  ! so each element is independent of the thread that computes it
  hsum = 0_i8
!$omp parallel do private(h) reduction(+:hsum)
  do i = 1, n
    h = mod(int(i, i8) * 2654435761_i8 + 12345_i8, 4294967296_i8)
    h = mod(h * 1103515245_i8 + 12345_i8, 2147483648_i8)
    x(i) = real(mod(h, 2001_i8) - 1000_i8, dp) / 256.0_dp
    h = mod(h * 1103515245_i8 + 12345_i8, 2147483648_i8)
    y(i) = real(mod(h, 1999_i8) - 999_i8, dp) / 256.0_dp
    h = mod(h * 1103515245_i8 + 12345_i8, 2147483648_i8)
    z(i) = real(mod(h, 1601_i8) - 800_i8, dp) / 256.0_dp
    hsum = hsum + mod(h, 1000_i8)
  end do
!$omp end parallel do

  txy = 0.0_dp
  txz = 0.0_dp
  tyz = 0.0_dp
  tnx = 0.0_dp
  tnz = 0.0_dp
  tamax = 0.0_dp
  tdmax = 0.0_dp
  tpmin = 0.0_dp
  tamin = 0.0_dp
  tpos = 0
  do l = 1, nlag
    lag = (l - 1) * 97
    sxy = 0.0_dp
    sxz = 0.0_dp
    syz = 0.0_dp
    sxx = 0.0_dp
    szz = 0.0_dp
    amax = 0.0_dp
    dmax = 0.0_dp
    pmin = huge(1.0_dp)
    amin = huge(1.0_dp)
    npos = 0
!$omp parallel do private(p) &
!$omp reduction(+:sxy,sxz,syz,sxx,szz) reduction(max:amax,dmax) &
!$omp reduction(min:pmin,amin) reduction(+:npos)
    do i = 1, n - lag
      p = x(i) * y(i + lag)
      sxy = sxy + p
      sxz = sxz + x(i) * z(i + lag)
      syz = syz + y(i) * z(i + lag)
      sxx = sxx + x(i) * x(i)
      szz = szz + z(i + lag) * z(i + lag)
      amax = max(amax, abs(x(i)))
      dmax = max(dmax, abs(x(i) - z(i + lag)))
      pmin = min(pmin, p)
      amin = min(amin, x(i) + y(i) * z(i + lag))
      if (p > 0.0_dp) npos = npos + 1
    end do
!$omp end parallel do
    if (l == 1 .or. l == nlag) then
      print '(a,i6,3(a,f22.8))', ' lag=', lag, ' xy=', sxy, ' xz=', sxz, ' yz=', syz
      print '(a,2f20.12,a,2f12.8,a,2f14.8,a,i0)', '   |x|,|z|=', sqrt(sxx), sqrt(szz), &
           ' max=', amax, dmax, ' min=', pmin, amin, ' npos=', npos
    end if
    txy = txy + sxy
    txz = txz + sxz
    tyz = tyz + syz
    tnx = tnx + sqrt(sxx)
    tnz = tnz + sqrt(szz)
    tamax = tamax + amax
    tdmax = tdmax + dmax
    tpmin = tpmin + pmin
    tamin = tamin + amin
    tpos = tpos + npos
  end do

  print '(a,i0,a,i0,a,i0)', ' OMP_REDUCE n=', n, ' nlag=', nlag, ' hsum=', hsum
  print '(a,3f24.8)', ' total dots  =', txy, txz, tyz
  print '(a,2f24.10)', ' total norms =', tnx, tnz
  print '(a,4f16.8,a,i0)', ' total max/min =', tamax, tdmax, tpmin, tamin, ' npos=', tpos
end program omp_reduce
