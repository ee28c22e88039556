program wb
  implicit none
  integer :: n, rep, i, reps, mode
  real(8), allocatable :: a(:), b(:)
  real(8) :: s, t0, t1, best
  character(16) :: arg
  call get_command_argument(1, arg); read(arg,*) n
  call get_command_argument(2, arg); read(arg,*) mode
  allocate(a(n), b(n)); a = 1; b = 2
  reps = max(3, int(4d8 / n))
  best = 1d30; s = 0
  do rep = 1, 5
    call cpu_time(t0)
    do i = 1, reps
      call kern(a, b, n, mode, s)
    end do
    call cpu_time(t1)
    best = min(best, (t1 - t0) / reps / (n / 8d0) * 1d9)
  end do
  print '(a,i10,a,i2,a,f8.3,a,g10.3)', 'n', n, ' mode', mode, ' ns/line', best, ' ', s + a(n/2) + b(n/3)
contains
  subroutine kern(a, b, n, mode, s)
    integer :: n, mode, i
    real(8) :: a(n), b(n), s
    select case (mode)
    case (0)
      do i = 1, n
        s = s + a(i)
      end do
    case (1)
      do i = 1, n
        a(i) = a(i) * 1.0000001d0
      end do
    case (2)
      do i = 1, n
        b(i) = a(i)
      end do
    case (3)
      do i = 1, n
        s = s + a(i) + b(i)
      end do
    end select
  end subroutine
end program
