!=====================================================================
! reduce_seq.f90 - reduction-heavy vector loops on three vectors of
! 240000 elements, 400 iterations; each iteration a dot product x.y,
! the sum of squares of z, the largest |y(i)|, then two updates that
! use them: z from x and y, y from z. The last dot product, sum of
! squares and maximum printed. Sequential, with HPF directives that
! distribute x BLOCK-wise (y and z aligned with x): gfortran reads
! them as comments. Its MPI twin is reduce_mpi.f90 (the same elements
! per rank, the same reductions).
! Exercises: owner-computes split of single loops, three reductions
!   (two sums and a maximum) per iteration, each after its own loop,
!   owned updates that use the reduced scalars.
!=====================================================================
program reduce_seq
  implicit none
  integer, parameter :: n = 240000, niters = 400
  real(8) :: x(n), y(n), z(n)
!HPF$ DISTRIBUTE x(BLOCK)
!HPF$ ALIGN y(i) WITH x(i)
!HPF$ ALIGN z(i) WITH x(i)
  real(8) :: dot, nrm, mx
  integer :: i, it

  do i = 1, n
    x(i) = sin(0.001d0 * i)
    y(i) = cos(0.002d0 * i)
    z(i) = 1.0d0 + 0.5d0 * sin(0.003d0 * i)
  end do
  dot = 0.0d0
  nrm = 0.0d0
  mx = 0.0d0
  do it = 1, niters
    dot = 0.0d0
    do i = 1, n
      dot = dot + x(i) * y(i)
    end do
    nrm = 0.0d0
    do i = 1, n
      nrm = nrm + z(i) * z(i)
    end do
    mx = 0.0d0
    do i = 1, n
      mx = max(mx, abs(y(i)))
    end do
    do i = 1, n
      z(i) = z(i) + 1.0d-3 * (dot / nrm) * x(i) - 1.0d-3 * y(i) / mx
    end do
    do i = 1, n
      y(i) = 0.999d0 * y(i) + 1.0d-3 * z(i)
    end do
  end do
  print '(a, es16.8)', 'reduce dot product x.y: ', dot
  print '(a, es16.8)', 'reduce sum of squares of z: ', nrm
  print '(a, es16.8)', 'reduce largest |y(i)|: ', mx
end program reduce_seq
