!=====================================================================
! matvec_seq.f90 - power iteration with a dense 2400 x 2400 matrix
! a(i,j) = 1/(1+|i-j|) + 1.0d-3*mod(7i+13j, 17), 40 iterations from
! x = 1: y = a x, nrm = |y|, x = y/nrm; the last nrm (the dominant
! eigenvalue estimate) and x(1) printed. Sequential, with HPF
! directives that distribute the rows of a and the vectors x and y
! BLOCK-wise: gfortran reads them as comments. Its MPI twin is
! matvec_mpi.f90 (the same rows per rank, the same gather and
! reduction).
! Exercises: owner-computes split of a matrix-vector nest along its
!   outer loop, the whole vector gathered before the nest, a private
!   scalar in the nest, a sum reduction and an owned update after it.
!=====================================================================
program matvec_seq
  implicit none
  integer, parameter :: n = 2400, niters = 40
  real(8) :: a(n, n), x(n), y(n)
!HPF$ DISTRIBUTE a(BLOCK, *)
!HPF$ DISTRIBUTE x(BLOCK)
!HPF$ DISTRIBUTE y(BLOCK)
  real(8) :: s, nrm
  integer :: i, j, it

  do i = 1, n
    do j = 1, n
      a(i, j) = 1.0d0 / (1.0d0 + abs(i - j)) + 1.0d-3 * mod(7 * i + 13 * j, 17)
    end do
  end do
  do i = 1, n
    x(i) = 1.0d0
  end do
  nrm = 0.0d0
  do it = 1, niters
    do i = 1, n
      s = 0.0d0
      do j = 1, n
        s = s + a(i, j) * x(j)
      end do
      y(i) = s
    end do
    nrm = 0.0d0
    do i = 1, n
      nrm = nrm + y(i) * y(i)
    end do
    nrm = sqrt(nrm)
    do i = 1, n
      x(i) = y(i) / nrm
    end do
  end do
  print '(a, es16.8)', 'matvec eigenvalue estimate: ', nrm
  print '(a, es16.8)', 'matvec x(1): ', x(1)
end program matvec_seq
