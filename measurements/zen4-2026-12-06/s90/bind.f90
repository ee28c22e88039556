! bchain's cells made independent: each cell's block times the cell before it in the other array
module blkd
  implicit none
contains
  subroutine matvec_sub(a, v, r)
    real(8), intent(in) :: a(5,5), v(5)
    real(8), intent(inout) :: r(5)
    integer :: i, j
    do j = 1, 5
      do i = 1, 5
        r(i) = r(i) - a(i,j) * v(j)
      end do
    end do
  end subroutine
end module
program bind
  use blkd
  implicit none
  integer, parameter :: n = 40, sweeps = 40
  real(8), allocatable :: lhs(:,:,:,:,:), rhs(:,:,:,:), u(:,:,:,:)
  integer :: i, j, k, t
  allocate(lhs(5,5,n,n,n), rhs(5,n,n,n), u(5,n,n,n))
  lhs = 0.01d0
  rhs = 1.0d0
  u = 1.0d0
  do t = 1, sweeps
    do k = 1, n
      do j = 1, n
        do i = 2, n
          call matvec_sub(lhs(:,:,i,j,k), u(:,i-1,j,k), rhs(:,i,j,k))
        end do
      end do
    end do
  end do
  print *, sum(rhs)
end program
