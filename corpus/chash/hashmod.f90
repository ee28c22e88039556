!=====================================================================
! chash/hashmod.f90 - module (compile first): ISO_C_BINDING
! interfaces to the C helpers in timer.c and a chained hash table
! (head array + next links) of integer keys with counts.
!=====================================================================
module hashmod
  use iso_c_binding, only: c_int32_t, c_double
  implicit none
  interface
    function augur_wtime() bind(C, name='augur_wtime') result(t)
      import :: c_double
      real(c_double) :: t
    end function augur_wtime
    function augur_mix32(key) bind(C, name='augur_mix32') result(h)
      import :: c_int32_t
      integer(c_int32_t), value :: key
      integer(c_int32_t) :: h
    end function augur_mix32
  end interface
  integer, parameter :: nbucket = 2**16, maxent = 2**20
  integer :: head(nbucket), nxt(maxent), keys(maxent), cnt(maxent)
  integer :: nent = 0
contains
  subroutine table_reset()
    head = 0
    nent = 0
  end subroutine table_reset

  integer function bucket(key)
    integer, intent(in) :: key
    bucket = iand(int(augur_mix32(int(key, c_int32_t))), nbucket - 1) + 1
  end function bucket

  subroutine add(key)
    integer, intent(in) :: key
    integer :: b, e
    b = bucket(key)
    e = head(b)
    do while (e /= 0)
      if (keys(e) == key) then
        cnt(e) = cnt(e) + 1
        return
      end if
      e = nxt(e)
    end do
    nent = nent + 1
    keys(nent) = key
    cnt(nent) = 1
    nxt(nent) = head(b)
    head(b) = nent
  end subroutine add

  integer function lookup(key)
    integer, intent(in) :: key
    integer :: e
    e = head(bucket(key))
    lookup = 0
    do while (e /= 0)
      if (keys(e) == key) then
        lookup = cnt(e)
        return
      end if
      e = nxt(e)
    end do
  end function lookup
end module hashmod
