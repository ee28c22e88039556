! Transposed copies at one leading dimension (first argument): ns per element
! of a strided store (b(j,i) = a(i,j)) and of a strided load (b(i,j) = a(j,i)).
! A power-of-two leading dimension puts a whole column in a few cache sets
! (scripts/conflicts.sh runs it over several sizes; docs/ACCURACY.md).
program transposed
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer :: n, i, j, k, nrep, stat
  real(dp), allocatable :: a(:,:), b(:,:)
  integer(8) :: t0, t1, rate
  real(dp) :: tstore, tload
  character(len=16) :: arg
  call get_command_argument(1, arg)
  read (arg, *, iostat=stat) n
  if (stat /= 0 .or. n < 2) then
    print '(a)', 'usage: transposed N (leading dimension, at least 2)'
    stop 1
  end if
  nrep = max(1, int(4d7 / (dble(n) * n)))
  allocate(a(n,n), b(n,n))
  a = 1
  b = 0
  call system_clock(t0, rate)
  do k = 1, nrep
    do j = 1, n
      do i = 1, n
        b(j,i) = a(i,j)
      end do
    end do
  end do
  call system_clock(t1)
  tstore = 1d9 * (t1 - t0) / real(rate, dp) / (dble(nrep) * n * n)
  call system_clock(t0, rate)
  do k = 1, nrep
    do j = 1, n
      do i = 1, n
        b(i,j) = a(j,i)
      end do
    end do
  end do
  call system_clock(t1)
  tload = 1d9 * (t1 - t0) / real(rate, dp) / (dble(nrep) * n * n)
  print '(i6,2f10.3,es12.3)', n, tstore, tload, b(2,3)
end program transposed
