program sw
  implicit none
  real(8), allocatable :: a(:)
  integer :: kb, n, reps, r, i
  real(8) :: s, t0, t1
  integer :: sizes(9) = [1024, 2048, 4096, 6144, 8192, 12288, 16384, 24576, 65536]
  integer :: q
  do q = 1, 9
    kb = sizes(q); n = kb*128; allocate(a(n)); a = 1
    reps = max(4, 400000/kb)
    s = 0
    call cpu_time(t0)
    do r = 1, reps
      do i = 1, n, 8
        s = s + a(i)
      end do
      a(1+mod(r,n)) = s
    end do
    call cpu_time(t1)
    print '(i7,a,f8.3,a)', kb, ' KiB ', (t1-t0)*1e9/(real(reps,8)*n/8), ' ns/line'
    deallocate(a)
  end do
end program
