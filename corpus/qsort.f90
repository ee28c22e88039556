#ifndef NSIZE
#define NSIZE 2000000
#endif
!=====================================================================
! qsort.f90 - Recursive quicksort (median of three, insertion sort
! for short ranges) and recursive merge sort of integer(8) keys from
! an own xorshift-free LCG, plus a recursive Ackermann-like count
! and recursive binary-tree depth computation on an implicit heap.
! Exercises: RECURSIVE subroutines/functions, integer(8) arithmetic,
!   allocatable work arrays, array sections as arguments, logical
!   functions, EXIT in DO loops, select case on small integers.
! Runtime class: integer, branchy, call-bound (recursion).
!=====================================================================
module sorting
  implicit none
  integer, parameter :: i8 = selected_int_kind(18)
contains
  recursive subroutine quick(a, lo, hi)
    integer(i8), intent(inout) :: a(:)
    integer, intent(in) :: lo, hi
    integer :: i, j, mid
    integer(i8) :: p, t
    if (hi - lo < 16) then
      call insertion(a, lo, hi)
      return
    end if
    mid = (lo + hi) / 2
    if (a(mid) < a(lo)) call swap(a(mid), a(lo))
    if (a(hi) < a(lo)) call swap(a(hi), a(lo))
    if (a(hi) < a(mid)) call swap(a(hi), a(mid))
    p = a(mid)
    i = lo
    j = hi
    do
      do while (a(i) < p)
        i = i + 1
      end do
      do while (a(j) > p)
        j = j - 1
      end do
      if (i <= j) then
        t = a(i); a(i) = a(j); a(j) = t
        i = i + 1
        j = j - 1
      end if
      if (i > j) exit
    end do
    if (lo < j) call quick(a, lo, j)
    if (i < hi) call quick(a, i, hi)
  end subroutine quick

  subroutine insertion(a, lo, hi)
    integer(i8), intent(inout) :: a(:)
    integer, intent(in) :: lo, hi
    integer :: i, j
    integer(i8) :: v
    do i = lo + 1, hi
      v = a(i)
      j = i - 1
      do while (j >= lo)
        if (a(j) <= v) exit
        a(j + 1) = a(j)
        j = j - 1
      end do
      a(j + 1) = v
    end do
  end subroutine insertion

  subroutine swap(x, y)
    integer(i8), intent(inout) :: x, y
    integer(i8) :: t
    t = x; x = y; y = t
  end subroutine swap

  recursive subroutine msort(a, w, lo, hi)
    integer(i8), intent(inout) :: a(:), w(:)
    integer, intent(in) :: lo, hi
    integer :: mid, i, j, k
    if (hi <= lo) return
    mid = (lo + hi) / 2
    call msort(a, w, lo, mid)
    call msort(a, w, mid + 1, hi)
    i = lo; j = mid + 1; k = lo
    do while (i <= mid .and. j <= hi)
      if (a(i) <= a(j)) then
        w(k) = a(i); i = i + 1
      else
        w(k) = a(j); j = j + 1
      end if
      k = k + 1
    end do
    do while (i <= mid)
      w(k) = a(i); i = i + 1; k = k + 1
    end do
    do while (j <= hi)
      w(k) = a(j); j = j + 1; k = k + 1
    end do
    a(lo:hi) = w(lo:hi)
  end subroutine msort

  recursive integer function depth(i, n) result(d)
    integer, intent(in) :: i, n
    if (i > n) then
      d = 0
    else
      d = 1 + max(depth(2 * i, n), depth(2 * i + 1, n))
    end if
  end function depth

  recursive integer(i8) function fib(n) result(f)
    integer, intent(in) :: n
    select case (n)
    case (0)
      f = 0
    case (1, 2)
      f = 1
    case default
      f = fib(n - 1) + fib(n - 2)
    end select
  end function fib

  logical function sorted(a)
    integer(i8), intent(in) :: a(:)
    integer :: i
    sorted = .true.
    do i = 2, size(a)
      if (a(i - 1) > a(i)) then
        sorted = .false.
        exit
      end if
    end do
  end function sorted
end module sorting

program qsort_prog
  use sorting
  implicit none
  integer, parameter :: n = NSIZE
  integer(i8), allocatable :: a(:), b(:), w(:)
  integer(i8) :: s, chk
  integer :: i, d

  allocate(a(n), b(n), w(n))
  s = 88172645_i8
  do i = 1, n
    s = mod(s * 6364136_i8 + 1442695_i8, 4294967291_i8)
    a(i) = s
  end do
  b = a
  call quick(a, 1, n)
  call msort(b, w, 1, n)
  chk = 0
  do i = 1, n, 97
    chk = mod(chk * 31_i8 + a(i), 1000000007_i8)
  end do
  d = depth(1, n)
  print '(a,l2,l2,l2,a,i12,a,i4,a,i12)', ' QSORT sorted=', sorted(a), sorted(b), all(a == b), &
      ' chk=', chk, ' depth=', d, ' fib=', fib(27)
end program qsort_prog
