!=====================================================================
! jacobi2d_seq.f90 - 2-D Jacobi relaxation of Laplace's equation on a
! 600 x 600 interior grid (the top edge held at 1, the others at 0),
! 1000 sweeps, the summed change of every sweep kept. Sequential, with
! HPF directives that distribute the columns of u BLOCK-wise (unew
! aligned with u): gfortran reads them as comments. Its MPI twin is
! jacobi2d_mpi.f90 (the same columns per rank, the same halos and
! reduction).
! Exercises: owner-computes split of a 2-D nest along its outer loop,
!   a shift of one column each way, a reduction after the nest.
!=====================================================================
program jacobi2d_seq
  implicit none
  integer, parameter :: n = 600, nsweeps = 1000
  real(8) :: u(0:n+1, 0:n+1), unew(0:n+1, 0:n+1)
!HPF$ PROCESSORS procs(2)
!HPF$ DISTRIBUTE u(*, BLOCK) ONTO procs
!HPF$ ALIGN unew(i, j) WITH u(i, j)
  real(8) :: diff, total
  integer :: i, j, it

  do j = 0, n + 1
    do i = 0, n + 1
      u(i, j) = 0.0d0
      unew(i, j) = 0.0d0
    end do
  end do
  do i = 0, n + 1
    u(i, n + 1) = 1.0d0
    unew(i, n + 1) = 1.0d0
  end do
  total = 0.0d0
  do it = 1, nsweeps
    diff = 0.0d0
    do j = 1, n
      do i = 1, n
        unew(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
        diff = diff + abs(unew(i, j) - u(i, j))
      end do
    end do
    do j = 1, n
      do i = 1, n
        u(i, j) = unew(i, j)
      end do
    end do
    total = total + diff
  end do
  print '(a, es16.8)', 'jacobi2d change summed over sweeps: ', total
end program jacobi2d_seq
