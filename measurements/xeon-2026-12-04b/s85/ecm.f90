! c(i) = f(a(i)) + g(b(i)) + h(d(i)) with W extra multiply-adds per stream element:
! time per element for arrays in L1 (n small) and in L2 (n large), same instructions.
program ecm
  implicit none
  integer :: n, reps, w, r, i, k
  real(8), allocatable :: a(:), b(:), d(:), c(:)
  real(8) :: t0, t1, x, y, z
  character(len=32) :: arg
  call get_command_argument(1, arg); read(arg,*) n
  call get_command_argument(2, arg); read(arg,*) w
  reps = max(1, 200000000 / n)
  allocate(a(n), b(n), d(n), c(n))
  do i = 1, n
    a(i) = 1.0d0 + 1.0d-9*i; b(i) = 2.0d0 - 1.0d-9*i; d(i) = 0.5d0 + 1.0d-10*i
  end do
  c = 0
  call cpu_time(t0)
  do r = 1, reps
    do i = 1, n
      x = a(i); y = b(i); z = d(i)
      do k = 1, w
        x = x * 0.999999d0 + 1.0d-7
        y = y * 0.999999d0 + 1.0d-7
        z = z * 0.999999d0 + 1.0d-7
      end do
      c(i) = c(i) + x + y + z
    end do
    call sink(c, r)
  end do
  call cpu_time(t1)
  print '(i9,i3,f9.4)', n, w, (t1 - t0) / (dble(reps) * n) * 1d9
end program
subroutine sink(c, r)
  real(8) :: c(*)
  integer :: r
  if (c(1) < -1d300) print *, r
end subroutine
