! Per-line cost of reading runs of m contiguous doubles (the first m rows of each column)
! of an ld x n array: runs of m/8 lines, then a jump of ld*8 bytes.
program runs
  implicit none
  integer :: m, ld, n, p, passes, i, j, k
  real(8), allocatable :: a(:,:)
  real(8) :: s1, s2, best, t
  integer(8) :: c0, c1, rate
  character(32) :: arg
  call get_command_argument(1, arg); read(arg, *) m
  call get_command_argument(2, arg); read(arg, *) ld
  call get_command_argument(3, arg); read(arg, *) n
  allocate(a(ld, n))
  do j = 1, n
    do i = 1, ld
      a(i, j) = 1.0d0 / (i + j)
    end do
  end do
  passes = max(1, int(4.0d8 / (dble(m) * n)))
  best = 1d30
  do k = 1, 5
    call system_clock(c0, rate)
    s1 = 0; s2 = 0
    do p = 1, passes
      do j = 1, n
        s1 = s1 + colsum(a(1, j), m)
      end do
      if (s1 < -1d300) print *, s2
    end do
    call system_clock(c1)
    t = dble(c1 - c0) / rate / (dble(passes) * n * m / 8) * 1d9
    best = min(best, t)
  end do
  print '(a,i6,a,i7,a,f8.1,a,f8.3,a,g12.4)', 'lines/run', m / 8, ' pitch lines', ld / 8, &
    ' MiB array', dble(ld) * n * 8 / 2**20, ' ns/line', best, ' chk', s1 + s2
contains
  real(8) function colsum(x, m)
    integer, intent(in) :: m
    real(8), intent(in) :: x(m)
    integer :: i
    colsum = 0
    do i = 1, m
      colsum = colsum + x(i)
    end do
  end function
end program
