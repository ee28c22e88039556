! bchain with the 5x5 block product written in the line's loop (no call)
program binl
  implicit none
  integer, parameter :: n = 40, sweeps = 40
  real(8), allocatable :: lhs(:,:,:,:,:), rhs(:,:,:,:)
  integer :: i, j, k, t, ii, jj
  allocate(lhs(5,5,n,n,n), rhs(5,n,n,n))
  lhs = 0.01d0
  rhs = 1.0d0
  do t = 1, sweeps
    do k = 1, n
      do j = 1, n
        do i = 2, n
          do jj = 1, 5
            do ii = 1, 5
              rhs(ii,i,j,k) = rhs(ii,i,j,k) - lhs(ii,jj,i,j,k) * rhs(jj,i-1,j,k)
            end do
          end do
        end do
      end do
    end do
  end do
  print *, sum(rhs)
end program
