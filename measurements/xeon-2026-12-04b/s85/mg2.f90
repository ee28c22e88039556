program mg2
  implicit none
  integer, parameter :: n = 1000000, reps = 20
  integer(8), allocatable :: a(:), b(:), w(:)
  logical(1), allocatable :: r(:)
  integer :: i, j, k, rr
  integer(8) :: s
  real(8) :: t0, t1
  allocate(a(n+1), b(n+1), w(2*n), r(2*n))
  s = 12345
  do i = 1, n+1
    a(i) = i; b(i) = i
  end do
  do k = 1, 2*n
    s = mod(s * 6364136_8 + 1442695_8, 4294967291_8)
    r(k) = iand(ishft(s, -7), 1_8) == 1
  end do
  call cpu_time(t0)
  do rr = 1, reps
    i = 1; j = 1; k = 1
    do while (i <= n .and. j <= n)
      if (r(k)) then
        w(k) = a(i); i = i + 1
      else
        w(k) = b(j); j = j + 1
      end if
      k = k + 1
    end do
    call sink(w, k)
  end do
  call cpu_time(t1)
  print '(a,f8.3,a,i9)', 'ns/elem', (t1-t0)/(reps*dble(k-1))*1d9, ' k', k
end program
subroutine sink(w, k)
  integer(8) :: w(*)
  integer :: k
  if (w(1) == -99) print *, k
end subroutine
