! One (size, stride) point of a strided sum: -D N=elements -D IS=stride -D NACC=total accesses
program stv
  implicit none
  integer, parameter :: nmax = N, is = IS, nrep = NACC / N
  double precision, allocatable :: a(:)
  double precision :: t
  integer :: i, ir, ioff
  allocate(a(nmax))
  do i = 1, nmax
    a(i) = dble(mod(i, 1000)) * 1.0d-3
  end do
  t = 0
  do ir = 1, nrep
    do ioff = 1, is
      do i = ioff, nmax, is
        t = t + a(i)
      end do
    end do
  end do
  print *, t
end program
