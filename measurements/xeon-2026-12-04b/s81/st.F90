program st
  implicit none
  integer, parameter :: n = 1000, r = RR
  real(8), allocatable :: a(:,:), b(:,:)
  real(8) :: w(-r:r,-r:r), t0, t1, t
  integer :: i, j, ii, jj, it
  allocate(a(n,n), b(n,n))
  a = 1.0d-3; b = 0
  do jj = -r, r
    do ii = -r, r
      w(ii,jj) = 1.0d0/(1 + abs(ii) + abs(jj))
    end do
  end do
  call cpu_time(t0)
  do it = 1, 10
    do j = r, n-r-1
      do i = r, n-r-1
        do jj = -r, r
#ifdef SUM_PER_JJ
          t = 0
          do ii = -r, r
            t = t + w(ii,jj) * a(i+ii+1,j+jj+1)
          end do
          b(i+1,j+1) = b(i+1,j+1) + t
#else
          do ii = -r, r
            b(i+1,j+1) = b(i+1,j+1) + w(ii,jj) * a(i+ii+1,j+jj+1)
          end do
#endif
        end do
      end do
    end do
  end do
  call cpu_time(t1)
  print '(a,i2,f8.3,a)', 'r=', r, (t1-t0)/(10.0d0*(n-2*r)**2*(2*r+1)**2)*1d9/0.2668, ' cycles per inner iteration'
  print *, sum(b)
end program
