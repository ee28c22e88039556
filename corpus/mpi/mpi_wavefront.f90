!=====================================================================
! mpi_wavefront.f90 - Lexicographic Gauss-Seidel sweeps of a Poisson
! problem on a 1200 x 1200 grid (fixed edges, fixed source), 120
! sweeps, pipelined over the ranks. Each rank owns a block of rows
! (remainder rows to the first ranks); a row is contiguous in memory.
! A point needs the new values of its left and upper neighbours, so
! within a sweep a rank works through the columns in 12 chunks of
! 100: it receives the chunk of the new last row of the rank above
! (MPI_Recv), updates the chunk in all of its rows and sends the
! chunk of its own last row to the rank below (MPI_Send). Once the
! pipeline has filled, all ranks work on different chunks at once.
! At the start of a sweep every rank sends its old first row to the
! rank above, which receives it as its lower halo before its own
! chunks (the chain of blocking sends ends at rank 0, so it cannot
! deadlock). The updates are those of the serial sweep in the same
! order of dependences: every value is the same at any np, only the
! final sums (MPI_Reduce) are rounded differently.
! Exercises: MPI_Send/MPI_Recv pipeline (800-byte chunks), pipeline
!   fill and drain, a recurrence-bound (latency-bound) stencil,
!   MPI_Reduce to rank 0.
!=====================================================================
program wavefront
  use mpi
  implicit none
  integer, parameter :: nr = 1200, m = 1200, nsweeps = 120, cw = 100
  integer :: ierr, rank, np, nloc, i0, sweep, jlo, jhi, i, j
  integer :: st(MPI_STATUS_SIZE)
  real(8), allocatable :: u(:,:), f(:,:)
  real(8) :: part(2), tot(2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  nloc = nr / np
  i0 = rank * nloc + min(rank, mod(nr, np))
  if (rank < mod(nr, np)) nloc = nloc + 1

  ! u(j, i): column j, local row i (global row i0 + i)
  allocate(u(0:m+1, 0:nloc+1), f(m, nloc))
  u = 0
  do i = 0, nloc + 1
    u(0, i) = real(i0 + i, 8) / real(nr + 1, 8)
    u(m+1, i) = 1.0d0 - u(0, i)
  end do
  if (rank == 0) then
    do j = 0, m + 1
      u(j, 0) = real(mod(j, 40), 8) / 40.0d0
    end do
  end if
  do i = 1, nloc
    do j = 1, m
      f(j, i) = 1.0d-3 * real(mod(j * 5 + (i0 + i) * 3, 19) - 9, 8)
    end do
  end do

  do sweep = 1, nsweeps
    ! lower halo: the old first row of the rank below
    if (rank > 0) &
      call MPI_Send(u(1, 1), m, MPI_DOUBLE_PRECISION, rank - 1, 2, MPI_COMM_WORLD, ierr)
    if (rank < np - 1) &
      call MPI_Recv(u(1, nloc+1), m, MPI_DOUBLE_PRECISION, rank + 1, 2, MPI_COMM_WORLD, st, ierr)
    do jlo = 1, m, cw
      jhi = min(jlo + cw - 1, m)
      if (rank > 0) &
        call MPI_Recv(u(jlo, 0), jhi - jlo + 1, MPI_DOUBLE_PRECISION, rank - 1, 1, &
             MPI_COMM_WORLD, st, ierr)
      do i = 1, nloc
        do j = jlo, jhi
          u(j, i) = 0.25d0 * (u(j-1, i) + u(j+1, i) + u(j, i-1) + u(j, i+1) + f(j, i))
        end do
      end do
      if (rank < np - 1) &
        call MPI_Send(u(jlo, nloc), jhi - jlo + 1, MPI_DOUBLE_PRECISION, rank + 1, 1, &
             MPI_COMM_WORLD, ierr)
    end do
  end do

  part = 0
  do i = 1, nloc
    do j = 1, m
      part(1) = part(1) + u(j, i)
      part(2) = part(2) + u(j, i) * real(mod(j + 2 * (i0 + i), 11), 8)
    end do
  end do
  call MPI_Reduce(part, tot, 2, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    print '(a,es20.12)', ' sum u    ', tot(1)
    print '(a,es20.12)', ' weighted ', tot(2)
  end if
  call MPI_Finalize(ierr)
end program wavefront
