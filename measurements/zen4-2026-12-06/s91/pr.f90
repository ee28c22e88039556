! burkardt_prime_mpi's trial division at one rank, timed alone: n = 1, 2, 4, ..., 131072.
program pr
  implicit none
  integer :: n, i, j, prime, total
  integer(8) :: iters
  real(8) :: t0, t1
  iters = 0; total = 0
  call cpu_time(t0)
  n = 1
  do while (n <= 131072)
    do i = 2, n
      prime = 1
      do j = 2, i - 1
        iters = iters + 1
        if (mod(i, j) == 0) then
          prime = 0
          exit
        end if
      end do
      total = total + prime
    end do
    n = n * 2
  end do
  call cpu_time(t1)
  print '(f8.3,a,i0,a,f7.3,a)', t1 - t0, ' s; ', iters, ' iterations; ', (t1 - t0) / iters * 1d9, ' ns each'
  print *, total
end program pr
