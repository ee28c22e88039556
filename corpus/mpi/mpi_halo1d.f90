!=====================================================================
! mpi_halo1d.f90 - A 1-D three-point smoothing of 2,000,000 doubles
! split evenly among the ranks, 60 steps: each step exchanges one
! halo value with each neighbour (MPI_Sendrecv, periodic), smooths
! its part and reduces the sum of squares (MPI_Allreduce).
! Exercises: MPI_Sendrecv both ways, MPI_Allreduce of one double,
!   a compute-bound rank (the exchange is 8 bytes).
!=====================================================================
program halo
  use mpi
  implicit none
  integer, parameter :: n = 2000000, nsteps = 60
  integer :: ierr, rank, np, left, right, step, i, nloc
  real(8), allocatable :: u(:), v(:)
  real(8) :: s, tot
  integer :: st(MPI_STATUS_SIZE)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  nloc = n / np
  allocate(u(0:nloc+1), v(0:nloc+1))
  do i = 0, nloc + 1
    u(i) = real(mod(i + rank * nloc, 97), 8) / 97.0d0
  end do
  left = mod(rank - 1 + np, np)
  right = mod(rank + 1, np)
  do step = 1, nsteps
    call MPI_Sendrecv(u(nloc), 1, MPI_DOUBLE_PRECISION, right, 1, u(0), 1, &
         MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, st, ierr)
    call MPI_Sendrecv(u(1), 1, MPI_DOUBLE_PRECISION, left, 2, u(nloc+1), 1, &
         MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, st, ierr)
    do i = 1, nloc
      v(i) = 0.25d0 * u(i-1) + 0.5d0 * u(i) + 0.25d0 * u(i+1)
    end do
    s = 0
    do i = 1, nloc
      u(i) = v(i)
      s = s + v(i) * v(i)
    end do
    call MPI_Allreduce(s, tot, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  if (rank == 0) print '(a,f20.10)', ' total ', tot
  call MPI_Finalize(ierr)
end program halo
