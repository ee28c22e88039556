! a longer chain (s = s*c + x*y: multiply then add) with the same loads
program w
  implicit none
  integer, parameter :: n = 700, reps = 1400
  real(8), allocatable :: x(:,:), y(:), z(:)
  real(8) :: s, t0, t1, c
  integer :: i, j, k
  allocate(x(n,n), y(n), z(n))
  call random_number(x); call random_number(y); call random_number(z)
  c = 0.999d0
  s = 0
  call cpu_time(t0)
  do j = 1, reps
    i = mod(j, n) + 1
    do k = 1, n
      s = s * c + z(k) * y(k)
    end do
    z(i) = s * 1d-9
  end do
  call cpu_time(t1)
  print '(a,f8.3,a,g12.4)', 'long chain L1 hit  ', (t1-t0)/(dble(n)*reps)*1d9, ' ns', s
  s = 0
  call cpu_time(t0)
  do j = 1, reps
    i = mod(j, n) + 1
    do k = 1, n
      s = s * c + x(i,k) * y(k)
    end do
  end do
  call cpu_time(t1)
  print '(a,f8.3,a,g12.4)', 'long chain strided ', (t1-t0)/(dble(n)*reps)*1d9, ' ns', s
  s = 0
  call cpu_time(t0)
  do j = 1, reps
    i = mod(j, n) + 1
    do k = 1, n
      s = s + x(i,k) * y(k) + x(i+1, k)
    end do
  end do
  call cpu_time(t1)
  print '(a,f8.3,a,g12.4)', 'short chain two loads same line ', (t1-t0)/(dble(n)*reps)*1d9, ' ns', s
end program
