! linear-congruential random numbers in double precision (46-bit modulus split in halves),
! each step waiting on the last, accumulated into a histogram of pairs
program lcg
  implicit none
  integer, parameter :: npairs = 4000000
  real(8), parameter :: r23 = 0.5d0**23, t23 = 2.0d0**23, r46 = r23*r23, t46 = t23*t23
  real(8) :: seed, a, x1, x2, a1, a2, t1, t2, t3, z
  real(8) :: u, v
  integer :: i, hist(0:9), b
  seed = 271828183.0d0
  a = 1220703125.0d0
  hist = 0
  do i = 1, npairs
    t1 = r23 * a
    a1 = aint(t1)
    a2 = a - t23 * a1
    t1 = r23 * seed
    x1 = aint(t1)
    x2 = seed - t23 * x1
    t1 = a1 * x2 + a2 * x1
    t2 = aint(r23 * t1)
    z = t1 - t23 * t2
    t3 = t23 * z + a2 * x2
    t2 = aint(r46 * t3)
    seed = t3 - t46 * t2
    u = r46 * seed
    v = u * u
    b = min(9, int(10.0d0 * v))
    hist(b) = hist(b) + 1
  end do
  print *, hist, seed
end program
