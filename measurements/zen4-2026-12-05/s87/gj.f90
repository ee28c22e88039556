! Gauss-Jordan's inner loop `do j = p+1, 5` entered for p = 1..5, i /= p (trips 4,4,4,4,3,...,0):
! mode 0 in that order (the branches before the loop decide its trips), mode 1 the same
! trips in a random order (a table of 2^20 of them).
program gj
  implicit none
  integer, parameter :: m = 1048576, n = 40000000
  integer, allocatable :: ps(:)
  real(8) :: b(5,5), f
  integer :: mode, k, j, p, i, e, seed
  character(len=8) :: arg
  integer(8) :: c0, c1, rate
  call get_command_argument(1, arg); read(arg,*) mode
  allocate(ps(m))
  k = 0
  do while (k < m)
    do p = 1, 5
      do i = 1, 5
        if (i == p) cycle
        k = k + 1
        if (k <= m) ps(k) = p
      end do
    end do
  end do
  if (mode == 1) then
    seed = 7
    do k = m, 2, -1
      seed = ieor(seed, ishft(seed, 13)); seed = ieor(seed, ishft(seed, -17)); seed = ieor(seed, ishft(seed, 5))
      j = 1 + mod(abs(seed), k)
      e = ps(k); ps(k) = ps(j); ps(j) = e
    end do
  end if
  call random_number(b)
  f = 1.0d-9
  call system_clock(c0, rate)
  do k = 1, n
    p = ps(iand(k, m-1) + 1)
    do j = p + 1, 5
      b(2, j) = b(2, j) - f * b(p, j)
    end do
  end do
  call system_clock(c1)
  print '(a,i2,a,f8.3,a,es12.4)', 'mode', mode, ' ns/entry', real(c1-c0)/rate/n*1e9, ' ', sum(b)
end program
