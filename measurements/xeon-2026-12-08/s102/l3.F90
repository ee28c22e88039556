! read bandwidth from the level that holds a region of NB doubles (4 independent sums),
! and the same read under one add chain
program l3
  implicit none
  integer :: nb, reps, j, k, m
  real(8), allocatable :: z(:)
  real(8) :: s1, s2, s3, s4, t0, t1
  integer :: sizes(4) = [4000, 120000, 490000, 8000000]
  do m = 1, 4
    nb = sizes(m); reps = max(1, 400000000 / nb)
    allocate(z(nb)); call random_number(z)
    s1 = 0; s2 = 0; s3 = 0; s4 = 0
    call cpu_time(t0)
    do j = 1, reps
      do k = 1, nb, 4
        s1 = s1 + z(k); s2 = s2 + z(k+1); s3 = s3 + z(k+2); s4 = s4 + z(k+3)
      end do
      z(mod(j,nb)+1) = s1 * 1d-20
    end do
    call cpu_time(t1)
    print '(i9,a,f7.3,a,f7.2)', nb*8/1024, ' KiB 4 sums ns/el ', &
      (t1-t0)/(dble(nb)*reps)*1d9, ' GB/s ', 8d0*nb*reps/(t1-t0)/1d9
    s1 = 0
    call cpu_time(t0)
    do j = 1, reps
      do k = 1, nb
        s1 = s1 + z(k)
      end do
      z(mod(j,nb)+1) = s1 * 1d-20
    end do
    call cpu_time(t1)
    print '(i9,a,f7.3,a,g10.3)', nb*8/1024, ' KiB 1 chain ', (t1-t0)/(dble(nb)*reps)*1d9, ' ns/elem', s1+s2+s3+s4
    deallocate(z)
  end do
end program
