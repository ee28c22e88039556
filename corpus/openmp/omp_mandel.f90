!=====================================================================
! omp_mandel.f90 - Escape-time counts of the Mandelbrot set on a
! 800 x 800 grid (maximum 1000 iterations) and of a Julia set
! (c = -0.8 + 0.156i) on the same grid.  The cost of a pixel is its
! escape count, so rows near the set are far more expensive than rows
! outside it.  The Mandelbrot rows are handed out with
! SCHEDULE(DYNAMIC,1); the Julia rows with SCHEDULE(RUNTIME) (the
! default run-time schedule unless OMP_SCHEDULE is set).  Each pixel is
! computed by the same scalar recurrence, so the integer counts do not
! depend on the thread count; the checksums are integer reductions.
! Exercises: data-dependent DO WHILE trip counts, real(8) multiply-add
!   recurrence, !$omp parallel do schedule(dynamic,1) and
!   schedule(runtime), PRIVATE scalars, integer REDUCTION(+:) and
!   REDUCTION(max:).
! Runtime class: compute-bound, branchy, strongly data-dependent load.
!=====================================================================
program omp_mandel
  implicit none
  integer, parameter :: dp = kind(1.0d0), i8 = selected_int_kind(18)
  integer, parameter :: nx = 800, ny = 800, maxit = 1000
  integer, save :: cnt(nx, ny), jcnt(nx, ny)
  integer :: i, j, it, inset, jinset, maxc
  integer(i8) :: msum, jsum, mw, jw
  real(dp) :: cx, cy, zx, zy, t

  ! Mandelbrot: rows dealt out one at a time
!$omp parallel do schedule(dynamic,1) private(i, it, cx, cy, zx, zy, t)
  do j = 1, ny
    cy = -1.3_dp + 2.6_dp * real(j - 1, dp) / real(ny - 1, dp)
    do i = 1, nx
      cx = -2.1_dp + 2.7_dp * real(i - 1, dp) / real(nx - 1, dp)
      zx = 0.0_dp
      zy = 0.0_dp
      it = 0
      do while (it < maxit .and. zx*zx + zy*zy <= 4.0_dp)
        t = zx*zx - zy*zy + cx
        zy = 2.0_dp*zx*zy + cy
        zx = t
        it = it + 1
      end do
      cnt(i, j) = it
    end do
  end do
!$omp end parallel do

  ! Julia set: schedule chosen at run time (OMP_SCHEDULE)
!$omp parallel do schedule(runtime) private(i, it, zx, zy, t)
  do j = 1, ny
    do i = 1, nx
      zx = -1.6_dp + 3.2_dp * real(i - 1, dp) / real(nx - 1, dp)
      zy = -1.2_dp + 2.4_dp * real(j - 1, dp) / real(ny - 1, dp)
      it = 0
      do while (it < maxit .and. zx*zx + zy*zy <= 4.0_dp)
        t = zx*zx - zy*zy - 0.8_dp
        zy = 2.0_dp*zx*zy + 0.156_dp
        zx = t
        it = it + 1
      end do
      jcnt(i, j) = it
    end do
  end do
!$omp end parallel do

  msum = 0_i8
  jsum = 0_i8
  mw = 0_i8
  jw = 0_i8
  inset = 0
  jinset = 0
  maxc = 0
!$omp parallel do private(i) reduction(+:msum,jsum,mw,jw,inset,jinset) reduction(max:maxc)
  do j = 1, ny
    do i = 1, nx
      msum = msum + cnt(i, j)
      jsum = jsum + jcnt(i, j)
      mw = mw + int(mod(i*7 + j*13, 101), i8) * cnt(i, j)
      jw = jw + int(mod(i*11 + j*3, 97), i8) * jcnt(i, j)
      if (cnt(i, j) == maxit) inset = inset + 1
      if (jcnt(i, j) == maxit) jinset = jinset + 1
      if (cnt(i, j) < maxit) maxc = max(maxc, cnt(i, j))
    end do
  end do
!$omp end parallel do

  print '(a,i0,a,i0,a,i0)', ' OMP_MANDEL nx=', nx, ' ny=', ny, ' maxit=', maxit
  print '(a,i0,a,i0,a,i0,a,i0)', ' mandel iters=', msum, ' weighted=', mw, &
       ' inset=', inset, ' max escaping=', maxc
  print '(a,i0,a,i0,a,i0)', ' julia  iters=', jsum, ' weighted=', jw, ' inset=', jinset
end program omp_mandel
