program rmw
  implicit none
  integer(8), allocatable :: a(:)
  integer(8) :: n, st, m, j, r, reps, s, total
  integer :: iarg, kind
  real(8) :: t0, t1
  character(len=32) :: arg
  integer(8) :: sizes(6) = [24_8*1024, 256_8*1024, 1024_8*1024, 4096_8*1024, 16384_8*1024, 65536_8*1024]
  integer(8) :: strides(5) = [64_8, 576_8, 4160_8, 4480_8, 8256_8]
  integer :: is, isz
  allocate(a(65536*1024/8 + 1))
  a = 1
  do isz = 1, 6
  do is = 1, 5
    st = strides(is)/8; n = sizes(isz)/8
    m = n / st
    total = 200000000_8 / 4
    reps = max(1_8, total / m)
    write(*,'(i7,a,i6,a)', advance='no') sizes(isz)/1024, ' KiB stride', strides(is), ':'
    do kind = 1, 3
      s = 0
      call cpu_time(t0)
      do r = 1, reps
        select case (kind)
        case (1)
          do j = 0, m-1
            s = s + a(1 + j*st)
          end do
        case (2)
          do j = 0, m-1
            a(1 + j*st) = a(1 + j*st) + 1
          end do
        case (3)
          do j = 0, m-1
            a(1 + j*st) = r
          end do
        end select
      end do
      call cpu_time(t1)
      write(*,'(f8.3)', advance='no') (t1-t0)/dble(reps*m)*1d9
      if (s == 42) print *, s
    end do
    print *
  end do
  end do
  print *, sum(a(1:100))
end program
