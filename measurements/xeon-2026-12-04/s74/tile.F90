program tile
  implicit none
  integer, parameter :: m = 2600, n = 2300, nrep = 6
  real(8), allocatable :: a(:,:)
  real(8) :: s
  integer :: i, j, ii, jj, r
  allocate(a(m,n))
  do j = 1, n
    do i = 1, m
      a(i,j) = i + 1d-4*j
    end do
  end do
  s = 0
  do r = 1, nrep
    call tsum(a, m, n, NB, s)
  end do
  print *, s
contains
  subroutine tsum(a, m, n, nb, s)
    integer, intent(in) :: m, n, nb
    real(8), intent(in) :: a(m,n)
    real(8), intent(inout) :: s
    integer :: i, j, ii, jj
    do jj = 1, n, nb
      do ii = 1, m, nb
        do j = jj, min(jj+nb-1, n)
          do i = ii, min(ii+nb-1, m)
            s = s + a(i,j)
          end do
        end do
      end do
    end do
  end subroutine
end program
