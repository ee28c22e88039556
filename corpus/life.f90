#ifndef NSIZE
#define NSIZE 512
#endif
!=====================================================================
! life.f90 - Conway's Game of Life on a 512 x 512 torus stored as a
! logical array, neighbour counts with explicit periodic indices
! and with CSHIFT on an integer copy for a cross-check every 50
! generations. The main program ends with STOP 0.
! Exercises: logical arrays and .and./.or./.not., merge, count,
!   integer neighbour sums, mod-based periodic indexing, cshift,
!   any/all, DO loops with EXIT on a still life, STOP 0.
! Runtime class: branchy, integer, array-bound.
!=====================================================================
program life
  implicit none
  integer, parameter :: n = NSIZE, ngen = 400
  logical, allocatable :: g(:,:), h(:,:)
  integer, allocatable :: ig(:,:), nb(:,:)
  integer :: i, j, gen, c, im, ip, jm, jp, mism, pop
  integer :: seed

  allocate(g(n,n), h(n,n), ig(n,n), nb(n,n))
  seed = 1
  do j = 1, n
    do i = 1, n
      seed = int(mod(int(seed, 8) * 16807_8, 2147483647_8))
      g(i,j) = mod(seed, 100) < 31
    end do
  end do
  mism = 0
  do gen = 1, ngen
    do j = 1, n
      jm = mod(j - 2 + n, n) + 1
      jp = mod(j, n) + 1
      do i = 1, n
        im = mod(i - 2 + n, n) + 1
        ip = mod(i, n) + 1
        c = 0
        if (g(im,jm)) c = c + 1
        if (g(i ,jm)) c = c + 1
        if (g(ip,jm)) c = c + 1
        if (g(im,j )) c = c + 1
        if (g(ip,j )) c = c + 1
        if (g(im,jp)) c = c + 1
        if (g(i ,jp)) c = c + 1
        if (g(ip,jp)) c = c + 1
        h(i,j) = (c == 3) .or. (g(i,j) .and. c == 2)
      end do
    end do
    if (mod(gen, 50) == 0) then
      ig = merge(1, 0, g)
      nb = cshift(ig, 1, 1) + cshift(ig, -1, 1) + cshift(ig, 1, 2) + cshift(ig, -1, 2) &
         + cshift(cshift(ig, 1, 1), 1, 2) + cshift(cshift(ig, 1, 1), -1, 2) &
         + cshift(cshift(ig, -1, 1), 1, 2) + cshift(cshift(ig, -1, 1), -1, 2)
      mism = mism + count(h .neqv. ((nb == 3) .or. (g .and. nb == 2)))
    end if
    if (all(g .eqv. h)) exit
    g = h
  end do
  pop = count(g)
  print '(a,i5,a,i8,a,i6)', ' LIFE gen=', min(gen, ngen), ' pop=', pop, ' mismatch=', mism
  stop 0
end program life
