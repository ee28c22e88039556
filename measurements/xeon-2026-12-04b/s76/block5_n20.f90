! block-tridiagonal-like work: 5x5 blocks times 5-vectors at every cell of a 3-D grid
module blk
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
program block5
  use blk
  implicit none
  integer, parameter :: n = 20, sweeps = 328
  real(8), allocatable :: lhs(:,:,:,:,:), u(:,:,:,:), rhs(:,:,:,:)
  integer :: i, j, k, t
  allocate(lhs(5,5,n,n,n), u(5,n,n,n), rhs(5,n,n,n))
  lhs = 0.01d0
  u = 1.0d0
  rhs = 0.0d0
  do t = 1, sweeps
    do k = 2, n
      do j = 1, n
        do i = 1, n
          call matvec_sub(lhs(:,:,i,j,k), u(:,i,j,k-1), rhs(:,i,j,k))
        end do
      end do
    end do
  end do
  print *, sum(rhs)
end program
