!=====================================================================
! redblack_seq.f90 - red-black Gauss-Seidel relaxation of Laplace's
! equation on an 800 x 800 interior grid (the edge j = n+1 held at 1,
! the other edges at 0), 500 sweeps, each a red half-sweep then a
! black one over the points of that colour, and the sum of the
! interior values taken once after the sweeps. Sequential, with an HPF
! directive that distributes the columns of u BLOCK-wise: gfortran
! reads it as a comment. Its MPI twin is redblack_mpi.f90 (the same
! columns per rank, the same halos and reduction).
! Exercises: owner-computes split of two in-place 2-D nests with a
!   stride-2 inner loop whose start depends on the outer index, a
!   shift of one column each way before each nest, a reduction after
!   the time loop.
!=====================================================================
program redblack_seq
  implicit none
  integer, parameter :: n = 800, nsweeps = 500
  real(8) :: u(0:n+1, 0:n+1)
!HPF$ DISTRIBUTE u(*, BLOCK)
  real(8) :: s
  integer :: i, j, it

  do j = 0, n + 1
    do i = 0, n + 1
      u(i, j) = 0.0d0
    end do
  end do
  do i = 0, n + 1
    u(i, n + 1) = 1.0d0
  end do
  do it = 1, nsweeps
    do j = 1, n
      do i = 1 + mod(j + 1, 2), n, 2
        u(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
      end do
    end do
    do j = 1, n
      do i = 1 + mod(j, 2), n, 2
        u(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
      end do
    end do
  end do
  s = 0.0d0
  do j = 1, n
    do i = 1, n
      s = s + u(i, j)
    end do
  end do
  print '(a, es16.8)', 'redblack sum of the interior: ', s
end program redblack_seq
