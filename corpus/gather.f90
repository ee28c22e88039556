!=====================================================================
! gather.f90 - Indirect gather and scatter-add over large arrays:
! a real(8) data array of 16M elements (128 MB) indexed through a
! pseudo-random permutation-like integer index array (64 MB), far
! larger than the last-level cache, so nearly every access misses.
! Also a sequential pass over the same data for contrast.
! Exercises: allocatable arrays, indirect addressing x(idx(i)),
!   scatter y(idx(i)) = y(idx(i)) + ..., integer LCG for indices,
!   array syntax initialisation, sum, modulo, integer(8) checksum.
! Runtime class: memory-bound (latency-bound random access).
!=====================================================================
program gather
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: n = 16 * 1024 * 1024, ng = 6 * 1024 * 1024, nrep = 2
  real(dp), allocatable :: x(:), y(:)
  integer, allocatable :: idx(:)
  integer :: i, rep
  integer(8) :: s
  real(dp) :: g, seqsum

  allocate(x(n), y(n), idx(ng))
  do i = 1, n
    x(i) = real(mod(i, 1009), dp) * 1.0e-3_dp
  end do
  y = 0.0_dp
  s = 12345_8
  do i = 1, ng
    s = modulo(s * 1103515245_8 + 12345_8, 2147483648_8)
    idx(i) = int(modulo(s, int(n, 8))) + 1
  end do
  g = 0.0_dp
  do rep = 1, nrep
    ! gather
    do i = 1, ng
      g = g + x(idx(i))
    end do
    ! scatter-add
    do i = 1, ng
      y(idx(i)) = y(idx(i)) + 0.5_dp * x(i)
    end do
  end do
  ! sequential streaming pass
  seqsum = 0.0_dp
  do i = 1, n
    seqsum = seqsum + x(i) * 0.25_dp + y(i)
  end do
  print '(a,es22.14,a,es22.14,a,es22.14)', ' GATHER g=', g, ' ysum=', sum(y), ' seq=', seqsum
end program gather
