!=====================================================================
! bits.f90 - Integer bit tricks done arithmetically (mod / division by
! powers of two) and with the bit intrinsics: population counts,
! parity, bit reversal, Gray code round trips, a 32-bit FNV-style
! hash kept in integer(8) with modulo, and a Fenwick tree on the
! result (lowbit via iand(i, -i)).
! Exercises: integer(8) and default integer arithmetic, mod and
!   integer division, iand/ieor/ishft/btest/popcnt, select case,
!   loops with step -1, integer functions (call heavy).
! Runtime class: integer, call-bound.
!=====================================================================
module bitlib
  implicit none
  integer, parameter :: i8 = selected_int_kind(18)
contains
  integer function popc_div(x)
    integer, intent(in) :: x
    integer :: v
    v = x
    popc_div = 0
    do while (v > 0)
      popc_div = popc_div + mod(v, 2)
      v = v / 2
    end do
  end function popc_div

  integer function parity(x)
    integer, intent(in) :: x
    parity = mod(popc_div(x), 2)
  end function parity

  integer function rev16(x)
    integer, intent(in) :: x
    integer :: k, v
    v = x
    rev16 = 0
    do k = 15, 0, -1
      if (mod(v, 2) == 1) rev16 = rev16 + 2**k
      v = v / 2
    end do
  end function rev16

  integer function gray(x)
    integer, intent(in) :: x
    gray = ieor(x, ishft(x, -1))
  end function gray

  integer function ungray(g)
    integer, intent(in) :: g
    integer :: s
    ungray = g
    s = ishft(g, -1)
    do while (s /= 0)
      ungray = ieor(ungray, s)
      s = ishft(s, -1)
    end do
  end function ungray

  integer(i8) function fnv(h, byte)
    integer(i8), intent(in) :: h
    integer, intent(in) :: byte
    fnv = modulo(ieor(h, int(byte, i8)) * 16777619_i8, 4294967296_i8)
  end function fnv
end module bitlib

program bits
  use bitlib
  implicit none
  integer, parameter :: n = 65536 * 160, nfen = 65536
  integer :: i, k, p1, p2, par, rv, bad, cls(0:3)
  integer(i8) :: h, fen(nfen), q
  integer :: j

  p1 = 0; p2 = 0; par = 0; rv = 0; bad = 0; cls = 0
  h = 2166136261_i8
  do i = 1, n
    k = mod(mod(i, 65536) * 25173 + 13849 + i / 65536, 65536)
    p1 = p1 + popc_div(k)
    p2 = p2 + popcnt(k)
    par = par + parity(k)
    rv = mod(rv + rev16(k), 1000003)
    if (ungray(gray(k)) /= k) bad = bad + 1
    select case (iand(k, 3))
    case (0)
      cls(0) = cls(0) + 1
    case (1)
      cls(1) = cls(1) + merge(1, 0, btest(k, 5))
    case (2, 3)
      cls(iand(k, 3)) = cls(iand(k, 3)) + k / 4096
    end select
    h = fnv(h, mod(k, 256))
    h = fnv(h, k / 256)
  end do
  ! Fenwick tree: point updates and prefix queries
  fen = 0
  do i = 1, nfen
    j = i
    do while (j <= nfen)
      fen(j) = fen(j) + mod(i * 7, 13)
      j = j + iand(j, -j)
    end do
  end do
  q = 0
  do i = nfen, 1, -3
    j = i
    do while (j > 0)
      q = q + fen(j)
      j = j - iand(j, -j)
    end do
  end do
  print '(a,3i10,a,i8,a,i3)', ' BITS pop=', p1, p2, par, ' rev=', rv, ' bad=', bad
  print '(a,4i10,a,i12,a,i14)', ' BITS cls=', cls, ' h=', h, ' fen=', q
end program bits
