!=====================================================================
! mpi_ring.f90 - Ten rounds of a ring: each rank computes (rank r runs
! its inner loop 50 + 10 r times), posts MPI_Isend of 800 bytes to the
! next rank and MPI_Irecv from the previous one, waits for both
! (MPI_Waitall), then one MPI_Allreduce. Communication-only at this
! size: the job's time is its launch.
! Exercises: MPI_Isend/MPI_Irecv/MPI_Waitall, MPI_IN_PLACE,
!   MPI_STATUSES_IGNORE, unequal work per rank.
!=====================================================================
program ring
  use mpi
  implicit none
  integer :: ierr, rank, np, i, k, req(2)
  real(8) :: a(100), b(100), s
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  a = rank
  s = 0
  do i = 1, 10
    do k = 1, 50 + 10 * rank
      s = s + a(k) * k
    end do
    call MPI_Isend(a, 100, MPI_DOUBLE_PRECISION, mod(rank+1, np), 7, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Irecv(b, 100, MPI_DOUBLE_PRECISION, mod(rank+np-1, np), 7, MPI_COMM_WORLD, req(2), ierr)
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
    a = a + b * 0.5d0
  end do
  call MPI_Allreduce(MPI_IN_PLACE, a, 100, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print *, a(1), s
  call MPI_Finalize(ierr)
end program
