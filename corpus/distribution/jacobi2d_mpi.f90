!=====================================================================
! jacobi2d_mpi.f90 - the MPI twin of jacobi2d_seq.f90: the columns
! 1..600 split BLOCK-wise over the ranks (ceil(600/np) each, the last
! rank the rest), each rank holding its columns and one halo column
! each side. Each sweep: one MPI_Sendrecv of a column to each side
! (MPI_PROC_NULL beyond the ends), the relaxation, MPI_Allreduce of
! the summed change, the copy back. Prints what the sequential
! program prints.
! Exercises: MPI_Sendrecv with MPI_PROC_NULL, MPI_Allreduce per sweep.
!=====================================================================
program jacobi2d_mpi
  use mpi
  implicit none
  integer, parameter :: n = 600, nsweeps = 1000
  real(8), allocatable :: u(:, :), unew(:, :)
  real(8) :: diff, gdiff, total
  integer :: i, j, it, ierr, rank, np, b, jlo, jhi, left, right
  integer :: status(MPI_STATUS_SIZE)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  b = (n + 2 + np - 1) / np
  jlo = max(1, rank * b)
  jhi = min(n, (rank + 1) * b - 1)
  left = rank - 1
  right = rank + 1
  if (rank == 0) left = MPI_PROC_NULL
  if (rank == np - 1) right = MPI_PROC_NULL
  allocate(u(0:n+1, jlo-1:jhi+1), unew(0:n+1, jlo-1:jhi+1))
  do j = jlo - 1, jhi + 1
    do i = 0, n + 1
      u(i, j) = 0.0d0
      unew(i, j) = 0.0d0
    end do
  end do
  if (jhi + 1 == n + 1) then
    do i = 0, n + 1
      u(i, n + 1) = 1.0d0
      unew(i, n + 1) = 1.0d0
    end do
  end if
  total = 0.0d0
  do it = 1, nsweeps
    call MPI_Sendrecv(u(0, jhi), n + 2, MPI_DOUBLE_PRECISION, right, 1, &
                      u(0, jlo - 1), n + 2, MPI_DOUBLE_PRECISION, left, 1, &
                      MPI_COMM_WORLD, status, ierr)
    call MPI_Sendrecv(u(0, jlo), n + 2, MPI_DOUBLE_PRECISION, left, 2, &
                      u(0, jhi + 1), n + 2, MPI_DOUBLE_PRECISION, right, 2, &
                      MPI_COMM_WORLD, status, ierr)
    diff = 0.0d0
    do j = jlo, jhi
      do i = 1, n
        unew(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
        diff = diff + abs(unew(i, j) - u(i, j))
      end do
    end do
    call MPI_Allreduce(diff, gdiff, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    do j = jlo, jhi
      do i = 1, n
        u(i, j) = unew(i, j)
      end do
    end do
    total = total + gdiff
  end do
  if (rank == 0) then
    print '(a, es16.8)', 'jacobi2d change summed over sweeps: ', total
  end if
  call MPI_Finalize(ierr)
end program jacobi2d_mpi
