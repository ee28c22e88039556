program wz2
  implicit none
  integer, parameter :: nw = 10000
  real :: tlay(nw), tintz(nw), geoid1(nw)
  real, allocatable :: wave(:,:)
  integer :: i, j, k
  integer(8) :: c0, c1, rate
  real(8) :: best
  allocate(wave(nw, nw))
  wave = 1.0
  best = 1d30
  do k = 1, 3
    call system_clock(c0, rate)
    do i = 1, nw
      tlay(i) = 0.0e0 ; tintz(i) = 0.0e0 ; geoid1(i) = 0.0e0
      do j = 1, nw
        wave(i,j) = 0.0e0
      end do
    end do
    call system_clock(c1)
    best = min(best, dble(c1 - c0) / rate)
    wave(k, k) = 1.0
  end do
  print '(a,f8.3,a,f7.3,a)', 'zeroing by rows: ', best * 1d3, ' ms, ', best / 1d8 * 1d9, ' ns an element'
  print *, sum(wave(1:10,1:10)), tlay(3), tintz(5), geoid1(7)
end program
