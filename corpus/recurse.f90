!=====================================================================
! recurse.f90 - Recursion-heavy program: N-queens counted by
! recursive backtracking, Ackermann's function A(3, n), Towers of
! Hanoi with a checksum over the moves, adaptive Simpson quadrature
! by a recursive function, and a binary search tree of pointers
! built, summed and freed by recursive procedures.
! Exercises: RECURSIVE subroutines and functions with RESULT, deep
!   call chains (Ackermann depth ~4000), logical arrays passed down
!   the recursion, derived type with POINTER components, ALLOCATE /
!   DEALLOCATE of tree nodes, ASSOCIATED, integer(8) counters,
!   double precision function arguments.
! Runtime class: call-bound (recursion).
!=====================================================================
module rec_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0), i8 = selected_int_kind(18)
  type node
    integer :: key
    integer :: cnt
    type(node), pointer :: left => null()
    type(node), pointer :: right => null()
  end type node
  integer(i8) :: ncalls = 0
contains
  recursive subroutine queens(n, row, cols, d1, d2, nsol)
    integer, intent(in) :: n, row
    logical, intent(inout) :: cols(n), d1(2 * n - 1), d2(2 * n - 1)
    integer, intent(inout) :: nsol
    integer :: c
    if (row > n) then
      nsol = nsol + 1
      return
    end if
    do c = 1, n
      if (cols(c) .or. d1(row + c - 1) .or. d2(row - c + n)) cycle
      cols(c) = .true.
      d1(row + c - 1) = .true.
      d2(row - c + n) = .true.
      call queens(n, row + 1, cols, d1, d2, nsol)
      cols(c) = .false.
      d1(row + c - 1) = .false.
      d2(row - c + n) = .false.
    end do
  end subroutine queens

  recursive function ack(m, n) result(r)
    integer, intent(in) :: m, n
    integer :: r
    ncalls = ncalls + 1
    if (m == 0) then
      r = n + 1
    else if (n == 0) then
      r = ack(m - 1, 1)
    else
      r = ack(m - 1, ack(m, n - 1))
    end if
  end function ack

  recursive subroutine hanoi(n, from, to, via, moves, chk)
    integer, intent(in) :: n, from, to, via
    integer(i8), intent(inout) :: moves, chk
    if (n == 0) return
    call hanoi(n - 1, from, via, to, moves, chk)
    moves = moves + 1
    chk = modulo(chk * 7_i8 + int(from * 3 + to, i8) + int(n, i8), 1000000007_i8)
    call hanoi(n - 1, via, to, from, moves, chk)
  end subroutine hanoi

  real(dp) function f(x)
    real(dp), intent(in) :: x
    f = sqrt(abs(x)) * cos(7.0_dp * x) + 1.0_dp / (1.0_dp + 25.0_dp * x * x)
  end function f

  recursive function asimp(a, b, fa, fm, fb, whole, tol, depth) result(s)
    real(dp), intent(in) :: a, b, fa, fm, fb, whole, tol
    integer, intent(in) :: depth
    real(dp) :: s, m, lm, rm, flm, frm, left, right
    m = 0.5_dp * (a + b)
    lm = 0.5_dp * (a + m)
    rm = 0.5_dp * (m + b)
    flm = f(lm)
    frm = f(rm)
    left = (m - a) / 6.0_dp * (fa + 4.0_dp * flm + fm)
    right = (b - m) / 6.0_dp * (fm + 4.0_dp * frm + fb)
    if (depth <= 0 .or. abs(left + right - whole) <= 15.0_dp * tol) then
      s = left + right + (left + right - whole) / 15.0_dp
    else
      s = asimp(a, m, fa, flm, fm, left, 0.5_dp * tol, depth - 1) &
        + asimp(m, b, fm, frm, fb, right, 0.5_dp * tol, depth - 1)
    end if
  end function asimp

  recursive subroutine insert(t, key)
    type(node), pointer :: t
    integer, intent(in) :: key
    if (.not. associated(t)) then
      allocate(t)
      t%key = key
      t%cnt = 1
    else if (key < t%key) then
      call insert(t%left, key)
    else if (key > t%key) then
      call insert(t%right, key)
    else
      t%cnt = t%cnt + 1
    end if
  end subroutine insert

  recursive function height(t) result(h)
    type(node), pointer :: t
    integer :: h
    if (.not. associated(t)) then
      h = 0
    else
      h = 1 + max(height(t%left), height(t%right))
    end if
  end function height

  recursive function wsum(t, depth) result(s)
    type(node), pointer :: t
    integer, intent(in) :: depth
    integer(i8) :: s
    if (.not. associated(t)) then
      s = 0
    else
      s = int(t%key, i8) * t%cnt * depth + wsum(t%left, depth + 1) + wsum(t%right, depth + 1)
    end if
  end function wsum

  recursive subroutine freetree(t)
    type(node), pointer :: t
    if (.not. associated(t)) return
    call freetree(t%left)
    call freetree(t%right)
    deallocate(t)
  end subroutine freetree
end module rec_mod

program recurse
  use rec_mod
  implicit none
  integer, parameter :: nq = 11, nack = 9, nhan = 23, nkey = 500000
  logical :: cols(nq), d1(2 * nq - 1), d2(2 * nq - 1)
  integer :: nsol, a, i, h, rep
  integer(i8) :: moves, chk, ws, s
  real(dp) :: q, fa, fm, fb
  type(node), pointer :: root

  nsol = 0
  do rep = 1, 3
    cols = .false.
    d1 = .false.
    d2 = .false.
    call queens(nq - 3 + rep, 1, cols, d1, d2, nsol)
  end do
  a = ack(3, nack)
  moves = 0
  chk = 1
  call hanoi(nhan, 1, 3, 2, moves, chk)
  q = 0.0_dp
  do i = 1, 120
    fa = f(-1.0_dp)
    fb = f(1.0_dp + 0.01_dp * i)
    fm = f(0.005_dp * i)
    q = q + asimp(-1.0_dp, 1.0_dp + 0.01_dp * i, fa, fm, fb, &
      (2.0_dp + 0.01_dp * i) / 6.0_dp * (fa + 4.0_dp * fm + fb), 1.0e-10_dp, 40)
  end do
  root => null()
  s = 987654321_i8
  do i = 1, nkey
    s = modulo(s * 48271_i8, 2147483647_i8)
    call insert(root, int(modulo(s, 1000000_i8)))
  end do
  h = height(root)
  ws = wsum(root, 1)
  call freetree(root)
  print '(a,i8,a,i6,a,i12)', ' RECURSE queens=', nsol, ' ack=', a, ' calls=', ncalls
  print '(a,i10,a,i12,a,f20.14)', ' RECURSE hanoi=', moves, ' chk=', chk, ' simpson=', q
  print '(a,i4,a,i20,a,l2)', ' RECURSE height=', h, ' wsum=', ws, ' freed=', .not. associated(root)
end program recurse
