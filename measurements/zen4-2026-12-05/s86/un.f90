program un
  implicit none
  integer, parameter :: n = 1000, reps = 20
  real(8), allocatable :: a(:,:), b(:,:), w(:,:)
  integer :: i, j, rep
  real(8) :: t0, t1
  allocate(a(n,n), b(n,n), w(-2:2,-2:2))
  call random_number(a); call random_number(w); b = 0
  call cpu_time(t0)
  do rep = 1, reps
    do j = 2, n-3
      do i = 2, n-3
        b(i+1,j+1) = b(i+1,j+1) + w(-2,-2)*a(i+-2+1,j+-2+1) &
        + w(-1,-2)*a(i+-1+1,j+-2+1) &
        + w(0,-2)*a(i+0+1,j+-2+1) &
        + w(1,-2)*a(i+1+1,j+-2+1) &
        + w(2,-2)*a(i+2+1,j+-2+1) &
        + w(-2,-1)*a(i+-2+1,j+-1+1) &
        + w(-1,-1)*a(i+-1+1,j+-1+1) &
        + w(0,-1)*a(i+0+1,j+-1+1) &
        + w(1,-1)*a(i+1+1,j+-1+1) &
        + w(2,-1)*a(i+2+1,j+-1+1) &
        + w(-2,0)*a(i+-2+1,j+0+1) &
        + w(-1,0)*a(i+-1+1,j+0+1) &
        + w(0,0)*a(i+0+1,j+0+1) &
        + w(1,0)*a(i+1+1,j+0+1) &
        + w(2,0)*a(i+2+1,j+0+1) &
        + w(-2,1)*a(i+-2+1,j+1+1) &
        + w(-1,1)*a(i+-1+1,j+1+1) &
        + w(0,1)*a(i+0+1,j+1+1) &
        + w(1,1)*a(i+1+1,j+1+1) &
        + w(2,1)*a(i+2+1,j+1+1) &
        + w(-2,2)*a(i+-2+1,j+2+1) &
        + w(-1,2)*a(i+-1+1,j+2+1) &
        + w(0,2)*a(i+0+1,j+2+1) &
        + w(1,2)*a(i+1+1,j+2+1) &
        + w(2,2)*a(i+2+1,j+2+1)
      end do
    end do
  end do
  call cpu_time(t1)
  print '(a,f8.3,a,es12.4)', 'unrolled ns/point-weight', (t1-t0)/(reps*dble(n-4)**2*25)*1d9, ' ', sum(b)
end program
