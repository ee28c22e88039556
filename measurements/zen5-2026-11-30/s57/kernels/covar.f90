! covariance matrix of m variables over n observations
program covar
  implicit none
  integer, parameter :: n = 1400, m = 600
  real(8), allocatable :: dat(:,:), cov(:,:), mean(:)
  real(8) :: s
  integer :: i, j, k
  allocate(dat(n,m), cov(m,m), mean(m))
  do j = 1, m
    do i = 1, n
      dat(i,j) = real(mod(i*j, 101), 8) / 101.0d0
    end do
  end do
  do j = 1, m
    mean(j) = sum(dat(:,j)) / n
    dat(:,j) = dat(:,j) - mean(j)
  end do
  do j = 1, m
    do i = 1, j
      s = 0
      do k = 1, n
        s = s + dat(k,i) * dat(k,j)
      end do
      cov(i,j) = s / (n - 1)
      cov(j,i) = cov(i,j)
    end do
  end do
  print *, sum(cov)
end program
