!=====================================================================
! omp_collapse.f90 - Loop nests parallelised with COLLAPSE(2):
!  (a) nsteps explicit steps of an Allen-Cahn reaction-diffusion
!      equation u_t = D lap(u) + u - u^3 on a 640 x 640 grid, the
!      (j,i) interior nest collapsed into one iteration space;
!  (b) five 3x3 stencil filters applied to the result, loop nest
!      (filter, row) collapsed, so that the outer extent 5 does not
!      limit the parallelism;
!  (c) a thin matrix product C(3,m) = A(3,k) B(k,m), the (row, column)
!      nest collapsed; with an outer extent of 3 alone, two threads
!      would split it 2:1.
! Every element is computed by the same serial expression, so the
! results do not depend on the thread count; the checksums are
! integer(8) reductions of nint(value * scale).
! Exercises: !$omp parallel do collapse(2) on rectangular nests with
!   small and large outer extents, PRIVATE scalars, real(8) stencil
!   and multiply-add, integer(8) REDUCTION(+:).
! Runtime class: compute/array-bound (3.3 MB grids, 9.6 MB matrix B,
!   cache-straddling).
!=====================================================================
program omp_collapse
  implicit none
  integer, parameter :: dp = kind(1.0d0), i8 = selected_int_kind(18)
  integer, parameter :: n = 640, nsteps = 30, nf = 5
  integer, parameter :: nr = 3, nk = 1100, nm = 1100, nprod = 100
  real(dp), parameter :: dcoef = 0.2_dp, dt = 0.05_dp
  real(dp), allocatable :: u(:,:), v(:,:), w(:,:,:), a(:,:), b(:,:), c(:,:)
  real(dp) :: wt(-1:1, -1:1, nf), lap, s
  integer :: i, j, k, step, ip, p, q
  integer(i8) :: ku, kw, kc, seed

  allocate(u(n,n), v(n,n), w(n,n,nf), a(nr,nk), b(nk,nm), c(nr,nm))

  ! initial field from an own LCG (serial, so it is thread independent)
  seed = 987654321_i8
  do j = 1, n
    do i = 1, n
      seed = mod(seed * 48271_i8, 2147483647_i8)
      u(i,j) = real(seed, dp) / 2147483647.0_dp * 2.0_dp - 1.0_dp
    end do
  end do
  v = u

  ! (a) reaction-diffusion, alternating u -> v and v -> u
  do step = 1, nsteps
    if (mod(step, 2) == 1) then
!$omp parallel do collapse(2) private(lap)
      do j = 2, n - 1
        do i = 2, n - 1
          lap = u(i-1,j) + u(i+1,j) + u(i,j-1) + u(i,j+1) - 4.0_dp * u(i,j)
          v(i,j) = u(i,j) + dt * (dcoef * lap + u(i,j) - u(i,j)**3)
        end do
      end do
!$omp end parallel do
    else
!$omp parallel do collapse(2) private(lap)
      do j = 2, n - 1
        do i = 2, n - 1
          lap = v(i-1,j) + v(i+1,j) + v(i,j-1) + v(i,j+1) - 4.0_dp * v(i,j)
          u(i,j) = v(i,j) + dt * (dcoef * lap + v(i,j) - v(i,j)**3)
        end do
      end do
!$omp end parallel do
    end if
  end do

  ! (b) five 3x3 filters; (filter, row) collapsed
  do k = 1, nf
    do q = -1, 1
      do p = -1, 1
        wt(p, q, k) = real(1 + mod(3*k + 5*p + 7*q + 20, 5), dp) / 16.0_dp
      end do
    end do
  end do
  w = 0.0_dp
!$omp parallel do collapse(2) private(i, s, p, q)
  do k = 1, nf
    do j = 2, n - 1
      do i = 2, n - 1
        s = 0.0_dp
        do q = -1, 1
          do p = -1, 1
            s = s + wt(p, q, k) * u(i+p, j+q)
          end do
        end do
        w(i,j,k) = s
      end do
    end do
  end do
!$omp end parallel do

  ! (c) thin matrix product, (row, column) collapsed, repeated with
  !     a sign-flipped and perturbed A
  do k = 1, nk
    do i = 1, nr
      a(i,k) = real(mod(i*31 + k*17, 23) - 11, dp) / 8.0_dp
    end do
  end do
  do j = 1, nm
    do k = 1, nk
      b(k,j) = real(mod(k*13 + j*7, 29) - 14, dp) / 16.0_dp
    end do
  end do
  kc = 0_i8
  do ip = 1, nprod
!$omp parallel do collapse(2) private(k, s) reduction(+:kc)
    do i = 1, nr
      do j = 1, nm
        s = 0.0_dp
        do k = 1, nk
          s = s + a(i,k) * b(k,j)
        end do
        c(i,j) = s
        kc = kc + abs(nint(s * 128.0_dp, i8)) * (i + ip)
      end do
    end do
!$omp end parallel do
    a = a * (-1.0_dp)
    a(mod(ip, nr) + 1, 1:nk:mod(ip, 7) + 2) = a(mod(ip, nr) + 1, 1:nk:mod(ip, 7) + 2) + 0.5_dp
  end do

  ku = 0_i8
  kw = 0_i8
!$omp parallel do collapse(2) reduction(+:ku,kw)
  do j = 1, n
    do i = 1, n
      ku = ku + nint(u(i,j) * 1.0e6_dp, i8)
      kw = kw + nint((w(i,j,1) - w(i,j,2) + 2.0_dp*w(i,j,3) - w(i,j,4) + w(i,j,5)) * 1.0e6_dp, i8)
    end do
  end do
!$omp end parallel do

  print '(a,i0,a,i0,a,i0,a,i0)', ' OMP_COLLAPSE n=', n, ' nsteps=', nsteps, ' nk=', nk, ' nm=', nm
  print '(a,i0,a,i0)', ' field*1e6=', ku, ' filters*1e6=', kw
  print '(a,i0,a,i0)', ' product=', kc, ' c(3,nm)*128=', nint(c(nr,nm) * 128.0_dp, i8)
  deallocate(u, v, w, a, b, c)
end program omp_collapse
