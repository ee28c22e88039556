!=====================================================================
! mpi_overlap.f90 - Communication hidden behind computation: a
! periodic 1-D array of 2,162,160 doubles is split among the ranks
! (remainders to the first ranks; every rank needs at least 262,144
! points, which holds up to np = 8) and updated 200 times by
! v(g) = 0.5 u(g) + 0.3 u(g-1) + 0.2 u(g-262144). Each step a rank
! posts MPI_Irecv of its 2 MiB left halo (the last 262,144 points of
! the rank on its left) and MPI_Isend of its own last 262,144 points
! to the rank on its right, updates its interior points (which need
! no halo) while the messages travel, waits for each request with
! MPI_Wait and then updates its first 262,144 points from the halo.
! At np = 1 the rank sends to and receives from itself. The two
! arrays swap roles every step. Every value is the same at any np,
! only the final sums are rounded differently.
! Exercises: MPI_Isend/MPI_Irecv of 2 MiB messages, MPI_Wait per
!   request, overlap of communication with a memory-bound loop,
!   MPI_Allreduce of the checksum.
!=====================================================================
program overlap
  use mpi
  implicit none
  integer, parameter :: n = 2162160, w = 262144, nsteps = 200
  integer :: ierr, rank, np, nloc, i0, left, right, step, c, o, i
  integer :: rreq, sreq
  real(8), allocatable :: a(:,:)
  real(8) :: part(2), tot(2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  nloc = n / np
  i0 = rank * nloc + min(rank, mod(n, np))
  if (rank < mod(n, np)) nloc = nloc + 1
  if (n / np < w) then
    if (rank == 0) print '(a)', ' too many ranks: each needs 262144 points'
    call MPI_Finalize(ierr)
    stop
  end if
  left = mod(rank - 1 + np, np)
  right = mod(rank + 1, np)

  ! a(:, c) is the current array, a(:, 1-c) the next; 1-w..0 is the halo
  allocate(a(1-w:nloc, 0:1))
  a = 0
  do i = 1, nloc
    a(i, 0) = real(mod((i0 + i) * 37, 1009), 8) / 1009.0d0 &
              + real(mod((i0 + i) / 5000, 17), 8)
  end do

  c = 0
  do step = 1, nsteps
    o = 1 - c
    call MPI_Irecv(a(1-w, c), w, MPI_DOUBLE_PRECISION, left, 5, MPI_COMM_WORLD, rreq, ierr)
    call MPI_Isend(a(nloc-w+1, c), w, MPI_DOUBLE_PRECISION, right, 5, MPI_COMM_WORLD, sreq, ierr)
    do i = w + 1, nloc
      a(i, o) = 0.5d0 * a(i, c) + 0.3d0 * a(i-1, c) + 0.2d0 * a(i-w, c)
    end do
    call MPI_Wait(rreq, MPI_STATUS_IGNORE, ierr)
    call MPI_Wait(sreq, MPI_STATUS_IGNORE, ierr)
    do i = 1, w
      a(i, o) = 0.5d0 * a(i, c) + 0.3d0 * a(i-1, c) + 0.2d0 * a(i-w, c)
    end do
    c = o
  end do

  part = 0
  do i = 1, nloc
    part(1) = part(1) + a(i, c)**2
    part(2) = part(2) + a(i, c) * real(mod(i0 + i, 7), 8)
  end do
  call MPI_Allreduce(part, tot, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    print '(a,es20.12)', ' sum sq   ', tot(1)
    print '(a,es20.12)', ' weighted ', tot(2)
  end if
  call MPI_Finalize(ierr)
end program overlap
