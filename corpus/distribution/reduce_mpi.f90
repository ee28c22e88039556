!=====================================================================
! reduce_mpi.f90 - the MPI twin of reduce_seq.f90: the elements
! 1..240000 of x, y and z split BLOCK-wise over the ranks
! (ceil(240000/np) each, the last rank the rest), each rank holding
! its blocks. Each iteration: the partial dot product, sum of squares
! and maximum of the own elements, each followed by its MPI_Allreduce
! (MPI_SUM, MPI_SUM, MPI_MAX), then the own updates of z and y.
! Prints what the sequential program prints.
! Exercises: three MPI_Allreduce per iteration, MPI_MAX among them.
!=====================================================================
program reduce_mpi
  use mpi
  implicit none
  integer, parameter :: n = 240000, niters = 400
  real(8), allocatable :: x(:), y(:), z(:)
  real(8) :: dot, nrm, mx, gdot, gnrm, gmx
  integer :: i, it, ierr, rank, np, b, i0, i1

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  b = (n + np - 1) / np
  i0 = 1 + rank * b
  i1 = min(n, (rank + 1) * b)
  allocate(x(i0:i1), y(i0:i1), z(i0:i1))
  do i = i0, i1
    x(i) = sin(0.001d0 * i)
    y(i) = cos(0.002d0 * i)
    z(i) = 1.0d0 + 0.5d0 * sin(0.003d0 * i)
  end do
  gdot = 0.0d0
  gnrm = 0.0d0
  gmx = 0.0d0
  do it = 1, niters
    dot = 0.0d0
    do i = i0, i1
      dot = dot + x(i) * y(i)
    end do
    call MPI_Allreduce(dot, gdot, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    nrm = 0.0d0
    do i = i0, i1
      nrm = nrm + z(i) * z(i)
    end do
    call MPI_Allreduce(nrm, gnrm, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    mx = 0.0d0
    do i = i0, i1
      mx = max(mx, abs(y(i)))
    end do
    call MPI_Allreduce(mx, gmx, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
    do i = i0, i1
      z(i) = z(i) + 1.0d-3 * (gdot / gnrm) * x(i) - 1.0d-3 * y(i) / gmx
    end do
    do i = i0, i1
      y(i) = 0.999d0 * y(i) + 1.0d-3 * z(i)
    end do
  end do
  if (rank == 0) then
    print '(a, es16.8)', 'reduce dot product x.y: ', gdot
    print '(a, es16.8)', 'reduce sum of squares of z: ', gnrm
    print '(a, es16.8)', 'reduce largest |y(i)|: ', gmx
  end if
  call MPI_Finalize(ierr)
end program reduce_mpi
