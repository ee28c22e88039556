! cost per access of row sums across columns: a(ld, ncols) real(8), rows 1..16 in pairs
program far
  implicit none
  integer :: ld, nc, i, j, k, k2, reps
  real(8), allocatable :: a(:,:)
  real(8) :: s, s2, best, t
  integer(8) :: c0, c1, rate
  character(32) :: arg
  call get_command_argument(1, arg); read(arg, *) ld
  call get_command_argument(2, arg); read(arg, *) nc
  allocate(a(ld, nc))
  a = 1.0d-3
  reps = max(1, int(2d7 / (16d0 * nc)))
  best = 1d30
  do k = 1, 5
    call system_clock(c0, rate)
    s = 0; s2 = 0
    do k2 = 1, reps
      do i = 1, 16, 2
        do j = 1, nc
          s = s + a(i, j)
          s2 = s2 + a(i+1, j)
        end do
      end do
    end do
    call system_clock(c1)
    best = min(best, dble(c1 - c0) / rate / (dble(reps) * 8 * nc) * 1d9)
  end do
  print '(a,i7,a,f6.2,a,i6,a,f8.3,a,g10.3)', 'stride B', ld*8, ' pages', ld*8/4096d0, ' cols', nc, ' ns', best, ' ', &
    s+s2
end program
