#ifndef NSIZE
#define NSIZE 460
#endif
!=====================================================================
! mm6.f90 - Dense matrix multiply C = C + A*B in all six loop orders
! (ijk, jik, ikj, kij, jki, kji), one subroutine per order, each
! called inside its own `!augur region` so that each kernel can be
! predicted and timed separately. N = 460: three 1.7 MB matrices, so
! the working set is larger than L2 and smaller than L3; the orders
! differ only in their access pattern (inner loop over k: dot
! product, A strided; over j: both B and C strided; over i: unit
! stride axpy), which is what the memory term of a model must see.
! Exercises: triple loop nests in every order, explicit-shape dummy
!   arrays, scalar hoisting of the invariant operand, allocatable
!   actual arguments, trace/checksum reductions, regions.
! Runtime class: memory-bound (orders ikj/kij) to compute-bound
!   (jki/kji), double precision.
!=====================================================================
module mm6_kernels
  implicit none
  integer, parameter :: dp = kind(1.0d0)
contains
  subroutine mm_ijk(n, a, b, c)
    integer, intent(in) :: n
    real(dp), intent(in) :: a(n, n), b(n, n)
    real(dp), intent(inout) :: c(n, n)
    integer :: i, j, k
    real(dp) :: s
    do i = 1, n
      do j = 1, n
        s = c(i, j)
        do k = 1, n
          s = s + a(i, k) * b(k, j)
        end do
        c(i, j) = s
      end do
    end do
  end subroutine mm_ijk

  subroutine mm_jik(n, a, b, c)
    integer, intent(in) :: n
    real(dp), intent(in) :: a(n, n), b(n, n)
    real(dp), intent(inout) :: c(n, n)
    integer :: i, j, k
    real(dp) :: s
    do j = 1, n
      do i = 1, n
        s = c(i, j)
        do k = 1, n
          s = s + a(i, k) * b(k, j)
        end do
        c(i, j) = s
      end do
    end do
  end subroutine mm_jik

  subroutine mm_ikj(n, a, b, c)
    integer, intent(in) :: n
    real(dp), intent(in) :: a(n, n), b(n, n)
    real(dp), intent(inout) :: c(n, n)
    integer :: i, j, k
    real(dp) :: r
    do i = 1, n
      do k = 1, n
        r = a(i, k)
        do j = 1, n
          c(i, j) = c(i, j) + r * b(k, j)
        end do
      end do
    end do
  end subroutine mm_ikj

  subroutine mm_kij(n, a, b, c)
    integer, intent(in) :: n
    real(dp), intent(in) :: a(n, n), b(n, n)
    real(dp), intent(inout) :: c(n, n)
    integer :: i, j, k
    real(dp) :: r
    do k = 1, n
      do i = 1, n
        r = a(i, k)
        do j = 1, n
          c(i, j) = c(i, j) + r * b(k, j)
        end do
      end do
    end do
  end subroutine mm_kij

  subroutine mm_jki(n, a, b, c)
    integer, intent(in) :: n
    real(dp), intent(in) :: a(n, n), b(n, n)
    real(dp), intent(inout) :: c(n, n)
    integer :: i, j, k
    real(dp) :: t
    do j = 1, n
      do k = 1, n
        t = b(k, j)
        do i = 1, n
          c(i, j) = c(i, j) + a(i, k) * t
        end do
      end do
    end do
  end subroutine mm_jki

  subroutine mm_kji(n, a, b, c)
    integer, intent(in) :: n
    real(dp), intent(in) :: a(n, n), b(n, n)
    real(dp), intent(inout) :: c(n, n)
    integer :: i, j, k
    real(dp) :: t
    do k = 1, n
      do j = 1, n
        t = b(k, j)
        do i = 1, n
          c(i, j) = c(i, j) + a(i, k) * t
        end do
      end do
    end do
  end subroutine mm_kji

  ! trace plus a light weighted sum of all entries, then reset c
  function check(n, c) result(t)
    integer, intent(in) :: n
    real(dp), intent(inout) :: c(n, n)
    real(dp) :: t
    integer :: i, j
    t = 0.0_dp
    do j = 1, n
      t = t + c(j, j)
      do i = 1, n, 5
        t = t + 1.0e-6_dp * c(i, j)
      end do
    end do
    c = 0.0_dp
  end function check
end module mm6_kernels

program mm6
  use mm6_kernels
  implicit none
  integer, parameter :: n = NSIZE
  real(dp), allocatable :: a(:, :), b(:, :), c(:, :)
  real(dp) :: t(6)
  integer :: i, j

  allocate(a(n, n), b(n, n), c(n, n))
  do j = 1, n
    do i = 1, n
      a(i, j) = real(mod(i * 13 + j * 7, 23), dp) / 22.0_dp - 0.5_dp
      b(i, j) = real(mod(i * 3 + j * 17, 19), dp) / 18.0_dp + 0.1_dp
    end do
  end do
  c = 0.0_dp
  !augur region ijk
  call mm_ijk(n, a, b, c)
  !augur end region
  t(1) = check(n, c)
  !augur region jik
  call mm_jik(n, a, b, c)
  !augur end region
  t(2) = check(n, c)
  !augur region ikj
  call mm_ikj(n, a, b, c)
  !augur end region
  t(3) = check(n, c)
  !augur region kij
  call mm_kij(n, a, b, c)
  !augur end region
  t(4) = check(n, c)
  !augur region jki
  call mm_jki(n, a, b, c)
  !augur end region
  t(5) = check(n, c)
  !augur region kji
  call mm_kji(n, a, b, c)
  !augur end region
  t(6) = check(n, c)
  print '(a,3es22.14)', ' MM6 ijk/jik/ikj ', t(1:3)
  print '(a,3es22.14)', ' MM6 kij/jki/kji ', t(4:6)
  print '(a,es12.4)', ' MM6 spread ', maxval(t) - minval(t)
end program mm6
