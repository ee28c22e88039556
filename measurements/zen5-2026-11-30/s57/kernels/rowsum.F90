! Row sums along the non-contiguous dimension: -D N=... -D REPS=... (rs4096: 4096, 6; rs4000: 4000, 6; rs1000: 1000, 120)
program rowsum
  implicit none
  integer, parameter :: n = N, reps = REPS
  real(8), allocatable :: a(:,:), r(:)
  real(8) :: s, tot
  integer :: i, j, k
  allocate(a(n,n), r(n))
  do j = 1, n
    do i = 1, n
      a(i,j) = 1.0d0 / real(i + j, 8)
    end do
  end do
  tot = 0
  do k = 1, reps
    do i = 1, n
      s = 0
      do j = 1, n
        s = s + a(i,j)
      end do
      r(i) = s * k
    end do
    tot = tot + sum(r)
  end do
  print *, tot
end program rowsum
