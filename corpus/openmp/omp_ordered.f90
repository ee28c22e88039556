!=====================================================================
! omp_ordered.f90 - Two loops with an ORDERED clause: an expensive,
! unordered part per iteration followed by a cheap !$omp ordered
! block that folds the result into an order-dependent hash
! h = (h * 1000003 + key) mod (2^31 - 1) and, every so often, prints
! a line; the ordered block runs in iteration order, so the hash and
! the printed lines are the same as in the serial program.
!  (1) n1 Simpson integrals of exp(-a t) cos(b t) p(t) over [0, 4]
!      with ns nodes, a and b depending on the iteration, p a cubic
!      whose coefficients come in as FIRSTPRIVATE copies;
!      SCHEDULE(STATIC,1) so that consecutive iterations alternate
!      between threads; LASTPRIVATE returns the last iteration's a, b.
!  (2) n2 lattice-point counts in discs of growing radius (integer
!      work growing with the iteration), SCHEDULE(DYNAMIC,4),
!      FIRSTPRIVATE offset, LASTPRIVATE count of the last disc.
! Exercises: !$omp parallel do ordered with !$omp ordered blocks,
!   FIRSTPRIVATE (array and scalar), LASTPRIVATE, static,1 and
!   dynamic,4 schedules, exp/cos in a Simpson sum, integer lattice
!   counting (x*x + y*y <= r*r), formatted output inside the ordered
!   block.
! Runtime class: compute-bound (libm exp/cos, integer loops) with a
!   serialising cheap ordered section.
!=====================================================================
program omp_ordered
  implicit none
  integer, parameter :: dp = kind(1.0d0), i8 = selected_int_kind(18)
  integer, parameter :: n1 = 6000, ns = 2000, n2 = 1400
  integer(i8), parameter :: pmod = 2147483647_i8
  real(dp) :: coef(0:3), a, b, t, hs, s, w, alast, blast
  integer :: i, k, x, y, r, offset, cnt, clast
  integer(i8) :: h1, h2

  coef = [1.0_dp, -0.5_dp, 0.25_dp, -0.03125_dp]
  hs = 4.0_dp / real(ns, dp)
  h1 = 0_i8
  a = 0.0_dp
  b = 0.0_dp

  ! (1) Simpson integrals, ordered hash
!$omp parallel do ordered schedule(static,1) firstprivate(coef) &
!$omp private(k, t, s, w) lastprivate(a, b)
  do i = 1, n1
    a = 0.1_dp + real(mod(i * 37, 101), dp) / 50.0_dp
    b = 0.5_dp + real(mod(i * 53, 97), dp) / 10.0_dp
    s = 0.0_dp
    do k = 0, ns
      t = real(k, dp) * hs
      if (k == 0 .or. k == ns) then
        w = 1.0_dp
      else if (mod(k, 2) == 1) then
        w = 4.0_dp
      else
        w = 2.0_dp
      end if
      s = s + w * exp(-a * t) * cos(b * t) * &
          (coef(0) + t * (coef(1) + t * (coef(2) + t * coef(3))))
    end do
    s = s * hs / 3.0_dp
!$omp ordered
    h1 = mod(h1 * 1000003_i8 + nint(s * 1.0e9_dp, i8) + 4000000000_i8, pmod)
    if (mod(i, 1000) == 0) print '(a,i6,a,f16.12,a,i12)', ' i=', i, ' integral=', s, ' hash=', h1
!$omp end ordered
  end do
!$omp end parallel do
  alast = a
  blast = b

  ! (2) lattice points in discs, ordered hash
  h2 = 0_i8
  offset = 7
  cnt = 0
!$omp parallel do ordered schedule(dynamic,4) firstprivate(offset) &
!$omp private(r, x, y) lastprivate(cnt)
  do i = 1, n2
    r = i / 4 + offset
    cnt = 0
    do x = -r, r
      do y = -r, r
        if (x*x + y*y <= r*r) cnt = cnt + 1
      end do
    end do
!$omp ordered
    h2 = mod(h2 * 1000003_i8 + int(cnt, i8), pmod)
    if (mod(i, 350) == 0) print '(a,i6,a,i6,a,i10,a,i12)', ' i=', i, ' r=', r, ' points=', cnt, ' hash=', h2
!$omp end ordered
  end do
!$omp end parallel do
  clast = cnt

  print '(a,i0,a,i0,a,i0,a,i0)', ' OMP_ORDERED n1=', n1, ' ns=', ns, ' n2=', n2, ' offset=', offset
  print '(a,i0,a,f8.4,a,f8.4)', ' hash1=', h1, ' last a=', alast, ' last b=', blast
  print '(a,i0,a,i0)', ' hash2=', h2, ' last count=', clast
end program omp_ordered
