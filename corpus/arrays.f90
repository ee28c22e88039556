!=====================================================================
! arrays.f90 - Array-syntax-heavy smoothing and mixing of 1-D fields
! and small dense matrices: whole-array expressions, sections with
! offsets and strides, WHERE / ELSEWHERE, the reductions sum,
! maxval, minval, count, any, all, product, dot_product, matmul and
! transpose, merge, and a scratch array allocated and deallocated
! with a different size in every iteration.
! Exercises: whole-array assignment and expressions (1-D and 2-D),
!   array sections u(1:n-2), u(1:n:2), WHERE with two ELSEWHERE
!   branches, array reductions and transformational intrinsics,
!   ALLOCATE/DEALLOCATE inside a loop, elemental intrinsics on
!   arrays (abs, sqrt, exp), logical masks.
! Runtime class: array-syntax, memory/array-bound (~6 MB fields).
!=====================================================================
program arrays
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: n = 250000, nstep = 160, m = 48, nmat = 2000
  real(dp), allocatable :: u(:), v(:), w(:), tmp(:)
  real(dp) :: a(m, m), b(m, m), c(m, m), x(m), y(m)
  logical :: pos(m)
  real(dp) :: tot, mx, mn, dotp, acc, lam, pr
  integer :: i, j, s, k, cnt, nany

  allocate(u(n), v(n), w(n))
  do i = 1, n
    u(i) = sin(1.0e-3_dp * real(i, dp)) + 0.2_dp * cos(0.37_dp * real(i, dp))
  end do
  v = 0.0_dp
  w = u
  tot = 0.0_dp
  mx = 0.0_dp
  mn = 0.0_dp
  dotp = 0.0_dp
  acc = 0.0_dp
  cnt = 0
  do s = 1, nstep
    w = 0.5_dp * (u + v)
    v(2:n - 1) = 0.25_dp * (u(1:n - 2) + 2.0_dp * u(2:n - 1) + u(3:n))
    v(1) = u(1)
    v(n) = u(n)
    where (v > 0.3_dp)
      u = u - 0.1_dp * v
    elsewhere (v < -0.3_dp)
      u = u + 0.1_dp * v**2
    elsewhere
      u = 0.99_dp * u + 0.01_dp * w
    end where
    u(1:n:2) = u(1:n:2) + 1.0e-4_dp * sqrt(abs(w(2:n:2)))
    tot = tot + sum(u)
    mx = max(mx, maxval(abs(w)))
    mn = min(mn, minval(v))
    cnt = cnt + count(u > 0.0_dp)
    dotp = dotp + dot_product(u, v) / real(n, dp)
    ! scratch array of a new size in every step
    k = 1000 + mod(s * 7919, n - 1000)
    allocate(tmp(k))
    tmp = u(1:k) * v(n - k + 1:n)
    tmp = merge(tmp, -tmp, tmp > 0.0_dp)
    acc = acc + sum(tmp) / real(k, dp)
    deallocate(tmp)
  end do

  ! small matrices: matmul, transpose, reductions
  do j = 1, m
    do i = 1, m
      a(i, j) = 1.0_dp / real(i + j, dp)
      b(i, j) = real(mod(i * j, 5), dp) * 0.1_dp
    end do
  end do
  x = 1.0_dp
  lam = 0.0_dp
  nany = 0
  pr = 1.0_dp
  do s = 1, nmat
    c = matmul(a, b)
    b = 0.5_dp * (b + transpose(c)) / maxval(abs(c))
    y = matmul(a, x) + 1.0e-3_dp * b(:, mod(s, m) + 1)
    lam = sqrt(dot_product(y, y))
    x = y / lam
    pos = x > sum(x) / real(m, dp)
    if (any(pos) .and. .not. all(pos)) nany = nany + 1
    pr = pr * product(1.0_dp + 1.0e-4_dp * x(1:8))
    c(2:m - 1, 2:m - 1) = c(1:m - 2, 2:m - 1) + c(3:m, 2:m - 1) - exp(-c(2:m - 1, 2:m - 1))
    b = b + 1.0e-6_dp * c
  end do

  print '(a,es22.14,a,es16.8,a,es16.8)', ' ARRAYS tot=', tot, ' max=', mx, ' min=', mn
  print '(a,i10,a,es22.14,a,es22.14)', ' ARRAYS cnt=', cnt, ' dot=', dotp, ' acc=', acc
  print '(a,es22.14,a,i6,a,es22.14,a,es16.8)', ' ARRAYS lam=', lam, ' nany=', nany, &
    ' pr=', pr, ' bsum=', sum(b)
end program arrays
