!=====================================================================
! redblack_mpi.f90 - the MPI twin of redblack_seq.f90: the columns
! 0..801 split BLOCK-wise over the ranks (ceil(802/np) each, the last
! rank the rest), each rank holding its columns and one halo column
! each side. Each sweep: before the red half-sweep and again before
! the black one, two MPI_Sendrecv of a whole column (0..n+1) to each
! side (MPI_PROC_NULL beyond the ends); each half-sweep over the owned
! interior columns. After the sweeps the local sum of the interior
! and one MPI_Allreduce of it. Prints what the sequential program
! prints.
! Exercises: MPI_Sendrecv with MPI_PROC_NULL twice per sweep, one
!   MPI_Allreduce after the time loop.
!=====================================================================
program redblack_mpi
  use mpi
  implicit none
  integer, parameter :: n = 800, nsweeps = 500
  real(8), allocatable :: u(:, :)
  real(8) :: s, gs
  integer :: i, j, it, ierr, rank, np, b, jlo0, jhi0, jlo, jhi, left, right
  integer :: status(MPI_STATUS_SIZE)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  b = (n + 2 + np - 1) / np
  jlo0 = rank * b
  jhi0 = min(n + 1, (rank + 1) * b - 1)
  jlo = max(1, jlo0)
  jhi = min(n, jhi0)
  left = rank - 1
  right = rank + 1
  if (rank == 0) left = MPI_PROC_NULL
  if (rank == np - 1) right = MPI_PROC_NULL
  allocate(u(0:n+1, jlo0-1:jhi0+1))
  do j = jlo0 - 1, jhi0 + 1
    do i = 0, n + 1
      u(i, j) = 0.0d0
    end do
  end do
  if (n + 1 >= jlo0 .and. n + 1 <= jhi0) then
    do i = 0, n + 1
      u(i, n + 1) = 1.0d0
    end do
  end if
  do it = 1, nsweeps
    call MPI_Sendrecv(u(0, jlo0), n + 2, MPI_DOUBLE_PRECISION, left, 1, &
                      u(0, jhi0 + 1), n + 2, MPI_DOUBLE_PRECISION, right, 1, &
                      MPI_COMM_WORLD, status, ierr)
    call MPI_Sendrecv(u(0, jhi0), n + 2, MPI_DOUBLE_PRECISION, right, 2, &
                      u(0, jlo0 - 1), n + 2, MPI_DOUBLE_PRECISION, left, 2, &
                      MPI_COMM_WORLD, status, ierr)
    do j = jlo, jhi
      do i = 1 + mod(j + 1, 2), n, 2
        u(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
      end do
    end do
    call MPI_Sendrecv(u(0, jlo0), n + 2, MPI_DOUBLE_PRECISION, left, 1, &
                      u(0, jhi0 + 1), n + 2, MPI_DOUBLE_PRECISION, right, 1, &
                      MPI_COMM_WORLD, status, ierr)
    call MPI_Sendrecv(u(0, jhi0), n + 2, MPI_DOUBLE_PRECISION, right, 2, &
                      u(0, jlo0 - 1), n + 2, MPI_DOUBLE_PRECISION, left, 2, &
                      MPI_COMM_WORLD, status, ierr)
    do j = jlo, jhi
      do i = 1 + mod(j, 2), n, 2
        u(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
      end do
    end do
  end do
  s = 0.0d0
  do j = jlo, jhi
    do i = 1, n
      s = s + u(i, j)
    end do
  end do
  call MPI_Allreduce(s, gs, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    print '(a, es16.8)', 'redblack sum of the interior: ', gs
  end if
  call MPI_Finalize(ierr)
end program redblack_mpi
