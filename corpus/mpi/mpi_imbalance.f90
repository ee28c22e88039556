!=====================================================================
! mpi_imbalance.f90 - Deliberately unbalanced work: 24 steps, each
! processes the same 150,000 items (item k runs 40 + mod(k, 61)
! steps of a Park-Miller generator seeded from k and the step, in
! integer(8) arithmetic). The items are split in contiguous ranges
! with a triangular split: rank r gets a share (r+1) / (1+2+...+np)
! of them, so the last rank has the most work and rank 0 the least.
! Every step ends with MPI_Barrier and an MPI_Reduce of the ranks'
! integer sums to rank 0: the lightly loaded ranks wait at the
! barrier for the heaviest one. Integer sums are exact, so the
! checksum is the same at any np.
! Exercises: load imbalance (the step time is the slowest rank's),
!   MPI_Barrier, MPI_Reduce of an integer(8), integer mod/multiply
!   recurrence (latency-bound, call-free).
!=====================================================================
program imbalance
  use mpi
  implicit none
  integer, parameter :: nitems = 150000, nsteps = 24
  integer(8), parameter :: pm = 2147483647_8
  integer :: ierr, rank, np, step, k, it, lo, hi
  integer(8) :: x, loc, tot, check, nwork

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  ! items lo+1 .. hi: boundaries nitems * r(r+1) / (np(np+1))
  lo = int(int(nitems, 8) * rank * (rank + 1) / (int(np, 8) * (np + 1)))
  hi = int(int(nitems, 8) * (rank + 1) * (rank + 2) / (int(np, 8) * (np + 1)))

  check = 0
  nwork = 0
  do step = 1, nsteps
    loc = 0
    do k = lo + 1, hi
      x = 1 + mod(int(k, 8) * 7919_8 + int(step, 8) * 104729_8, pm - 1)
      do it = 1, 40 + mod(k, 61)
        x = mod(16807_8 * x, pm)
      end do
      loc = loc + x
      nwork = nwork + 1
    end do
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Reduce(loc, tot, 1, MPI_INTEGER8, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    if (rank == 0) check = mod(check * 31 + tot, 1000000007_8)
  end do
  call MPI_Reduce(nwork, tot, 1, MPI_INTEGER8, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    print '(a,i0)', ' items done ', tot
    print '(a,i0)', ' checksum   ', check
  end if
  call MPI_Finalize(ierr)
end program imbalance
