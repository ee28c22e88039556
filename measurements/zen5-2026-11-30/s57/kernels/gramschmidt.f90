! modified Gram-Schmidt QR of a tall matrix
program mgs
  implicit none
  integer, parameter :: m = 2000, n = 400
  real(8), allocatable :: a(:,:), r(:,:)
  real(8) :: nrm, s
  integer :: i, j, k
  allocate(a(m,n), r(n,n))
  do j = 1, n
    do i = 1, m
      a(i,j) = 1.0d0 / real(i + 2*j, 8) + merge(1.0d0, 0.0d0, i == j)
    end do
  end do
  r = 0
  do k = 1, n
    nrm = 0
    do i = 1, m
      nrm = nrm + a(i,k) * a(i,k)
    end do
    r(k,k) = sqrt(nrm)
    do i = 1, m
      a(i,k) = a(i,k) / r(k,k)
    end do
    do j = k + 1, n
      s = 0
      do i = 1, m
        s = s + a(i,k) * a(i,j)
      end do
      r(k,j) = s
      do i = 1, m
        a(i,j) = a(i,j) - a(i,k) * s
      end do
    end do
  end do
  print *, sum(r)
end program
