!=====================================================================
! mpi_pingpong.f90 - Communication only: ranks 0 and 1 bounce a
! message back and forth with blocking MPI_Send/MPI_Recv, for four
! sizes: 8 B (100,000 round trips), 1 KiB (40,000), 64 KiB (2,000)
! and 1 MiB (200). Before each send rank 0 adds 1 to the first
! element and rank 1 adds 0.5 to the last, so the message that comes
! back depends on every trip; rank 0 sums the buffer after each size.
! Ranks 2 and above only join the final MPI_Barrier.
! At np = 1 rank 0 plays both sides: each round trip is two
! MPI_Sendrecv calls of rank 0 to itself (out into a second buffer,
! rank 1's update, and back), the same number of messages of the
! same sizes; the checksum is the same as at np >= 2.
! Exercises: latency-bound (8 B, 1 KiB) and bandwidth-bound (64 KiB
!   eager/rendezvous, 1 MiB) point-to-point messages, idle ranks,
!   MPI_Sendrecv to self; almost no computation.
!=====================================================================
program pingpong
  use mpi
  implicit none
  integer, parameter :: nsizes = 4, maxn = 131072
  integer, parameter :: counts(nsizes) = [1, 128, 8192, 131072]
  integer, parameter :: reps(nsizes) = [100000, 40000, 2000, 200]
  integer :: ierr, rank, np, s, r, cnt, i
  integer :: st(MPI_STATUS_SIZE)
  real(8), allocatable :: buf(:), back(:)
  real(8) :: check

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  allocate(buf(maxn), back(maxn))
  do i = 1, maxn
    buf(i) = real(mod(i, 10), 8)
  end do
  back = 0
  check = 0

  do s = 1, nsizes
    cnt = counts(s)
    if (np == 1) then
      do r = 1, reps(s)
        buf(1) = buf(1) + 1
        call MPI_Sendrecv(buf, cnt, MPI_DOUBLE_PRECISION, 0, s, back, cnt, &
             MPI_DOUBLE_PRECISION, 0, s, MPI_COMM_WORLD, st, ierr)
        back(cnt) = back(cnt) + 0.5d0
        call MPI_Sendrecv(back, cnt, MPI_DOUBLE_PRECISION, 0, s, buf, cnt, &
             MPI_DOUBLE_PRECISION, 0, s, MPI_COMM_WORLD, st, ierr)
      end do
    else if (rank == 0) then
      do r = 1, reps(s)
        buf(1) = buf(1) + 1
        call MPI_Send(buf, cnt, MPI_DOUBLE_PRECISION, 1, s, MPI_COMM_WORLD, ierr)
        call MPI_Recv(buf, cnt, MPI_DOUBLE_PRECISION, 1, s, MPI_COMM_WORLD, st, ierr)
      end do
    else if (rank == 1) then
      do r = 1, reps(s)
        call MPI_Recv(buf, cnt, MPI_DOUBLE_PRECISION, 0, s, MPI_COMM_WORLD, st, ierr)
        buf(cnt) = buf(cnt) + 0.5d0
        call MPI_Send(buf, cnt, MPI_DOUBLE_PRECISION, 0, s, MPI_COMM_WORLD, ierr)
      end do
    end if
    if (rank == 0) then
      do i = 1, cnt
        check = check + buf(i) * real(mod(i, 3) + 1, 8)
      end do
    end if
  end do

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,f22.3)', ' checksum ', check
  call MPI_Finalize(ierr)
end program pingpong
