!=====================================================================
! kinds.f90 - integer(8) arithmetic and conversions between kinds:
! a 64-bit LCG feeding fixed-point (integer(8), 2**24 scale) and
! floating-point versions of the same dot products and polynomial,
! digit sums of 64-bit numbers, a histogram indexed by floor() of
! real values, and single/double accumulation of a series with the
! results converted back and forth.
! Exercises: integer(8) add/multiply/divide/modulo/compare, mixed
!   integer(4)/integer(8) expressions, int/nint/floor/ceiling of
!   real and double, real()/dble() of integers, single<->double
!   conversions (real(x), dble(s), mixed-precision expressions),
!   integer(8) arrays, kind parameters, module constants.
! Runtime class: compute-bound (integer(8) and conversions).
!=====================================================================
module kinds_mod
  implicit none
  integer, parameter :: i8 = selected_int_kind(18)
  integer, parameter :: sp = kind(1.0), dp = kind(1.0d0)
  integer(i8), parameter :: scale = 16777216_i8    ! 2**24
  integer(i8), parameter :: lcg_a = 3141597_i8, lcg_c = 1442695041_i8
  integer(i8), parameter :: lcg_m = 2147483648_i8 * 512_i8   ! 2**40
contains
  ! next state of the 40-bit LCG
  function nxt(s) result(t)
    integer(i8), intent(in) :: s
    integer(i8) :: t
    t = modulo(s * lcg_a + lcg_c, lcg_m)
  end function nxt

  ! sum of the decimal digits of a non-negative integer(8)
  function digsum(v) result(d)
    integer(i8), intent(in) :: v
    integer :: d
    integer(i8) :: w
    d = 0
    w = v
    do while (w > 0_i8)
      d = d + int(mod(w, 10_i8))
      w = w / 10_i8
    end do
  end function digsum
end module kinds_mod

program kinds
  use kinds_mod
  implicit none
  integer, parameter :: n = 4096, nrep = 2700, nhist = 64, nser = 50000000
  integer(i8) :: s, fx(n), fy(n), fdot, big, acc8
  real(dp) :: x(n), y(n), ddot, err, xd
  real(sp) :: xs, ssum, hs
  real(dp) :: dsum, hd
  integer :: hist(0:nhist - 1), i, rep, k, m, dsumi, nneg
  integer(i8) :: lcg_check

  s = 20251122_i8
  do i = 1, n
    s = nxt(s)
    x(i) = real(s, dp) / real(lcg_m, dp) - 0.5_dp
    s = nxt(s)
    y(i) = real(modulo(s, 1000000_i8), dp) * 1.0e-6_dp - 0.25_dp
  end do
  lcg_check = s

  ! fixed-point dot products against floating point
  err = 0.0_dp
  acc8 = 0_i8
  nneg = 0
  do rep = 1, nrep
    do i = 1, n
      fx(i) = nint(x(i) * real(scale, dp), i8)
      fy(i) = int(y(i) * real(scale, dp), i8) + int(mod(rep, 3), i8)
    end do
    fdot = 0_i8
    ddot = 0.0_dp
    do i = 1, n
      fdot = fdot + (fx(i) * fy(i)) / scale
      ddot = ddot + x(i) * y(i)
    end do
    if (fdot < 0_i8) nneg = nneg + 1
    err = max(err, abs(real(fdot, dp) / real(scale, dp) - ddot))
    acc8 = modulo(acc8 * 31_i8 + fdot, lcg_m)
    ! perturb the data: x <- x + tiny, via single precision round trip
    do i = 1, n, 7
      xs = real(x(i), sp)
      x(i) = dble(xs) + 1.0e-9_dp * real(i + rep, dp)
    end do
  end do

  ! digit sums of 64-bit numbers and mixed int(4)/int(8) arithmetic
  dsumi = 0
  big = 1_i8
  do k = 1, 3600000
    big = modulo(big * 3_i8 + k, 1000000000000000_i8)
    m = k / 7
    dsumi = dsumi + digsum(big + m)
  end do

  ! histogram of a smooth function by floor/ceiling of reals
  hist = 0
  do k = 1, 18000000
    xd = 0.5_dp * (1.0_dp + sin(1.0e-3_dp * real(k, dp))) * real(nhist, dp)
    i = min(nhist - 1, max(0, floor(xd)))
    hist(i) = hist(i) + 1
    if (ceiling(xd) - floor(xd) == 0) hist(0) = hist(0) + 1
  end do

  ! the same series in single and double, with conversions each term
  ssum = 0.0_sp
  dsum = 0.0_dp
  do k = 1, nser
    hs = 1.0_sp / real(k, sp)
    hd = 1.0_dp / dble(k)
    ssum = ssum + hs
    dsum = dsum + hd * real(hs, dp) * k
  end do

  print '(a,i14,a,es12.4,a,i5)', ' KINDS acc8=', acc8, ' err=', err, ' nneg=', nneg
  print '(a,i10,a,i16,a,i14)', ' KINDS digits=', dsumi, ' big=', big, ' lcg=', lcg_check
  print '(a,8i8)', ' KINDS hist=', hist(0:nhist - 1:9)
  print '(a,f14.6,a,f22.12)', ' KINDS ssum=', ssum, ' dsum=', dsum
end program kinds
