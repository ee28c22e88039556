!=====================================================================
! mpi_hybrid.f90 - MPI ranks with OpenMP threads inside (hybrid): a
! periodic 1-D chain of 1,200,000 points split evenly among the ranks,
! 40 steps. Each step a rank swaps one boundary value with each
! neighbour (MPI_Sendrecv, outside any parallel region: the program
! asks MPI_THREAD_FUNNELED), then its threads update its points with
! an !$omp parallel do (static schedule, reduction of the step's sum):
! each point takes a short series of transcendental functions, so the
! work is compute-bound and splits evenly over threads and ranks; rank
! 0 sums the steps' totals with MPI_Reduce at the end.
! Run as OMP_NUM_THREADS=T mpirun -np P: the checksum is the same at
! every P and T (each point's value does not depend on the split; the
! sums differ only in rounding, printed to 6 digits).
! Exercises: MPI_Init_thread, MPI_Sendrecv, MPI_Reduce, !$omp parallel
!   do with reduction inside each rank: augur prices each rank's
!   segments with the OpenMP model at T threads.
!=====================================================================
program hybrid
  use mpi
  implicit none
  integer, parameter :: n = 1200000, nsteps = 40
  integer :: ierr, provided, rank, np, nloc, left, right, step, i
  integer :: st(MPI_STATUS_SIZE)
  real(8), allocatable :: u(:)
  real(8) :: s, total, grand, x

  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  nloc = n / np
  allocate(u(0:nloc+1))
  do i = 1, nloc
    u(i) = real(mod(i + rank * nloc, 1000), 8) / 1000.0d0
  end do
  left = mod(rank - 1 + np, np)
  right = mod(rank + 1, np)
  total = 0
  do step = 1, nsteps
    call MPI_Sendrecv(u(nloc), 1, MPI_DOUBLE_PRECISION, right, 1, u(0), 1, &
         MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, st, ierr)
    call MPI_Sendrecv(u(1), 1, MPI_DOUBLE_PRECISION, left, 2, u(nloc+1), 1, &
         MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, st, ierr)
    s = 0
    !$omp parallel do schedule(static) private(x) reduction(+:s)
    do i = 1, nloc
      x = 0.5d0 * u(i) + 0.25d0 * (u(i-1) + u(i+1))
      x = sin(x) + 0.5d0 * cos(2.0d0 * x) + 0.1d0 * exp(-x * x)
      s = s + x
    end do
    !$omp end parallel do
    total = total + s / n
  end do
  call MPI_Reduce(total, grand, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,f14.6)', ' checksum ', grand
  call MPI_Finalize(ierr)
end program hybrid
