! multigrid restriction and prolongation on 3-D grids (stride-2 subscripts)
program restrict3d
  implicit none
  integer, parameter :: n = 128, m = n / 2, cycles = 60
  real(8), allocatable :: f(:,:,:), c(:,:,:)
  integer :: i, j, k, t
  integer(8) :: c0,c1,c2,c3,rate
  real(8) :: t1=0,t2=0
  allocate(f(0:n+1,0:n+1,0:n+1), c(0:m+1,0:m+1,0:m+1))
  do k = 0, n + 1
    do j = 0, n + 1
      do i = 0, n + 1
        f(i,j,k) = real(mod(i + 3*j + 7*k, 11), 8)
      end do
    end do
  end do
  c = 0
  do t = 1, cycles
    call system_clock(c0,rate)
    do k = 1, m
      do j = 1, m
        do i = 1, m
          c(i,j,k) = 0.5d0 * f(2*i,2*j,2*k) + 0.0625d0 * (f(2*i-1,2*j,2*k) + f(2*i+1,2*j,2*k) &
               + f(2*i,2*j-1,2*k) + f(2*i,2*j+1,2*k) + f(2*i,2*j,2*k-1) + f(2*i,2*j,2*k+1))
        end do
      end do
    end do
    call system_clock(c1)
    do k = 1, m
      do j = 1, m
        do i = 1, m
          f(2*i,2*j,2*k) = f(2*i,2*j,2*k) + 0.1d0 * c(i,j,k)
          f(2*i-1,2*j,2*k) = f(2*i-1,2*j,2*k) + 0.05d0 * (c(i,j,k) + c(i-1,j,k))
        end do
      end do
    end do
    call system_clock(c2)
    t1=t1+real(c1-c0,8)/rate; t2=t2+real(c2-c1,8)/rate
  end do
  print *, 'nest1',t1,'nest2',t2
  print *, sum(c), f(n/2,n/2,n/2)
end program
