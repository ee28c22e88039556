!=====================================================================
! stencil2d_seq.f90 - 5-point Jacobi relaxation of a Poisson problem
! on a 500 x 500 interior grid (the edge j = n+1 held at 1, the other
! edges at 0, a small deterministic source f), 600 sweeps, the summed
! change of every sweep kept. Sequential, with HPF directives that
! distribute u BLOCK-wise in both dimensions (unew and f aligned with
! u): gfortran reads them as comments. Its MPI twin is
! stencil2d_mpi.f90 (the same 2-D blocks per rank, the same halos and
! reduction).
! Exercises: owner-computes split of a 2-D nest along both loops, a
!   shift of one row and one column each way (a strided and a
!   contiguous halo), a reduction after the nest.
!=====================================================================
program stencil2d_seq
  implicit none
  integer, parameter :: n = 500, nsweeps = 600
  real(8) :: u(0:n+1, 0:n+1), unew(0:n+1, 0:n+1), f(0:n+1, 0:n+1)
!HPF$ DISTRIBUTE u(BLOCK, BLOCK)
!HPF$ ALIGN unew(i, j) WITH u(i, j)
!HPF$ ALIGN f(i, j) WITH u(i, j)
  real(8) :: diff, total, h2
  integer :: i, j, it

  h2 = 1.0d0 / real((n + 1) * (n + 1), 8)
  do j = 0, n + 1
    do i = 0, n + 1
      u(i, j) = 0.0d0
      unew(i, j) = 0.0d0
      f(i, j) = (real(mod(i * 7 + j * 13, 31), 8) / 31.0d0 - 0.5d0) * h2
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
        unew(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1) - f(i, j))
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
  print '(a, es16.8)', 'stencil2d change summed over sweeps: ', total
end program stencil2d_seq
