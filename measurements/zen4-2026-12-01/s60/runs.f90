! Per-line cost of runs of K lines then a jump: the first K lines of each column of an
! LD x N real(8) array (columns 2K lines long), one element a line read into four
! independent sums (no chain binds). gfortran -O2: ./runs K LD N
program runs
  implicit none
  integer :: k, ld, n, p, passes, j, rep
  real(8), allocatable :: a(:,:)
  real(8) :: s(4), best, t
  integer(8) :: c0, c1, rate
  character(32) :: arg
  call get_command_argument(1, arg); read(arg, *) k
  call get_command_argument(2, arg); read(arg, *) ld
  call get_command_argument(3, arg); read(arg, *) n
  allocate(a(ld, n))
  a = 1.0d-3
  passes = max(1, int(3.0d7 / (dble(k) * n)))
  best = 1d30
  s = 0
  do rep = 1, 5
    call system_clock(c0, rate)
    do p = 1, passes
      do j = 1, n
        call lines(a(1, j), k, s)
      end do
    end do
    call system_clock(c1)
    t = dble(c1 - c0) / rate / (dble(passes) * n * k) * 1d9
    best = min(best, t)
  end do
  print '(a,i5,a,f8.1,a,f8.3,a,g10.3)', 'lines/run', k, ' MiB', dble(ld) * n * 8 / 2**20, &
    ' ns/line', best, ' chk', sum(s)
contains
  subroutine lines(x, k, s)
    integer, intent(in) :: k
    real(8), intent(in) :: x(*)
    real(8), intent(inout) :: s(4)
    integer :: i
    do i = 0, k - 4, 4
      s(1) = s(1) + x(8 * i + 1)
      s(2) = s(2) + x(8 * i + 9)
      s(3) = s(3) + x(8 * i + 17)
      s(4) = s(4) + x(8 * i + 25)
    end do
    do i = 4 * (k / 4), k - 1
      s(1) = s(1) + x(8 * i + 1)
    end do
  end subroutine
end program
