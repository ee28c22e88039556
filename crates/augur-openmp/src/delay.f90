! The reference delay of augur's OpenMP benchmarks, compiled apart so that no
! construct around it can be optimized into it.
subroutine augur_delay(n)
  implicit none
  integer, intent(in) :: n
  integer :: i
  real(8) :: a
  real(8), volatile, save :: sink = 0
  a = 0
  do i = 0, n - 1
    a = a + i
  end do
  sink = a
end subroutine augur_delay
