! ns per touched line: runs of R lines, a gap of G*R lines after each, over an array of
! MB megabytes swept REPS times (8 accumulators: the adds do not bound it)
program runs4
  implicit none
  integer :: total, run, gap, i, j, rep, nrun, reps, mb, im
  integer, parameter :: sizes(3) = [2, 4, 64]
  real(8), allocatable :: a(:)
  integer(8) :: c0, c1, rate
  real(8) :: t, s1,s2,s3,s4,s5,s6,s7,s8, touched
  do im = 1, 3
  mb = sizes(im)
  total = mb * 131072
  allocate(a(total)); a = 1
  reps = max(3, 512 / mb)
  do gap = 0, 1
  do run = 1, 7
    nrun = 8 * 2**(run-1)            ! doubles per run: 1..64 lines
    s1=0;s2=0;s3=0;s4=0;s5=0;s6=0;s7=0;s8=0
    touched = 0
    do j = 1, total - nrun + 1, nrun*(1+gap)
      touched = touched + nrun / 8
    end do
    call system_clock(c0, rate)
    do rep = 1, reps
      do j = 1, total - nrun + 1, nrun*(1+gap)
        do i = j, j + nrun - 1, 8
          s1=s1+a(i); s2=s2+a(i+1); s3=s3+a(i+2); s4=s4+a(i+3)
          s5=s5+a(i+4); s6=s6+a(i+5); s7=s7+a(i+6); s8=s8+a(i+7)
        end do
      end do
    end do
    call system_clock(c1)
    t = real(c1-c0,8)/rate
    print '(a,i3,a,i2,a,i4,a,f8.3,a,g10.3)', 'MB', mb, ' gap', gap, ' run_lines', nrun/8, &
      ' ns/line', t*1d9/(reps*touched), ' s', s1+s2+s3+s4+s5+s6+s7+s8
  end do
  end do
  deallocate(a)
  end do
end program
