! multigrid restriction and prolongation on 3-D grids (stride-2 subscripts)
program restrict3d
  implicit none
  integer, parameter :: n = 128, m = n / 2, cycles = 60
  real(8), allocatable :: f(:,:,:), c(:,:,:)
  integer :: i, j, k, t
  integer(8) :: t0, t1, t2, rate, s1, s2, b1, b2
  s1=0; s2=0; b1=huge(b1); b2=huge(b2)
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
    call system_clock(t0, rate)
    do k = 1, m
      do j = 1, m
        do i = 1, m
          c(i,j,k) = 0.5d0 * f(2*i,2*j,2*k) + 0.0625d0 * (f(2*i-1,2*j,2*k) + f(2*i+1,2*j,2*k) &
               + f(2*i,2*j-1,2*k) + f(2*i,2*j+1,2*k) + f(2*i,2*j,2*k-1) + f(2*i,2*j,2*k+1))
        end do
      end do
    end do
    call system_clock(t1)
    do k = 1, m
      do j = 1, m
        do i = 1, m
          f(2*i,2*j,2*k) = f(2*i,2*j,2*k) + 0.1d0 * c(i,j,k)
          f(2*i-1,2*j,2*k) = f(2*i-1,2*j,2*k) + 0.05d0 * (c(i,j,k) + c(i-1,j,k))
        end do
      end do
    end do
    call system_clock(t2)
    s1=s1+t1-t0; s2=s2+t2-t1; b1=min(b1,t1-t0); b2=min(b2,t2-t1)
  end do
  print *, sum(c), f(n/2,n/2,n/2)
  print '(a,4f10.3)', 'ms restrict sum, prolong sum, restrict min, prolong min ', 1d3*s1/rate, 1d3*s2/rate, 1d3*b1/rate, 1d3*b2/rate
end program
