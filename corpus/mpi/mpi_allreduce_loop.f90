!=====================================================================
! mpi_allreduce_loop.f90 - Communication only: rounds of collective
! operations on small and medium buffers, with a cheap update of the
! data between two calls so that each call depends on the one before.
! 1. MPI_Allreduce, MPI_MAX of one integer(8) (8 B), 30,000 times;
!    MPI_SUM of 16, 128, 1024 and 8192 doubles (128 B, 1 KiB, 8 KiB,
!    64 KiB), 20,000, 10,000, 3,000 and 600 times. Rank r
!    contributes (r+1) x, and the sum is divided by 1+2+...+np.
! 2. MPI_Bcast of 1024 doubles (8 KiB) from a root that moves round
!    the ranks, 3,000 times; the root updates the data first.
! 3. MPI_Scatter of 3072 doubles from rank 0 (3072/np per rank), an
!    update of each piece, MPI_Gather back to rank 0; 1,500 times.
! 4. MPI_Allgather of 3072/np doubles per rank, then every rank
!    computes its next piece from the whole array; 1,500 times.
! All values are integers below 2**20 held in doubles (or integer(8)),
! so every sum is exact and the checksum is the same at any np.
! np must divide 3072 (1, 2, 3, 4, 6, 8, ...).
! Exercises: latency- and bandwidth-bound MPI_Allreduce (MPI_SUM on
!   doubles, MPI_MAX on integer(8)), MPI_Bcast with a moving root,
!   MPI_Scatter/MPI_Gather, MPI_Allgather; almost no computation.
!=====================================================================
program allreduce_loop
  use mpi
  implicit none
  integer, parameter :: nsz = 4, lg = 3072
  integer, parameter :: cnts(nsz) = [16, 128, 1024, 8192]
  integer, parameter :: reps(nsz) = [20000, 10000, 3000, 600]
  integer, parameter :: nrep8 = 30000, nbc = 3000, nbcast = 1024, nsg = 1500, nag = 1500
  integer :: ierr, rank, np, s, k, i, cnt, nl, root, gi
  integer(8) :: iv, imax, check
  real(8) :: x(8192), sx(8192), b(nbcast), g(lg), piece(lg), h(lg), tri

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  if (mod(lg, np) /= 0) then
    if (rank == 0) print '(a,i0)', ' np must divide ', lg
    call MPI_Finalize(ierr)
    stop
  end if
  nl = lg / np
  tri = real(np, 8) * real(np + 1, 8) / 2
  check = 0

  ! 1a. 8-byte MPI_MAX: only rank 0 contributes the full value
  iv = 12345
  do k = 1, nrep8
    imax = iv - rank
    call MPI_Allreduce(imax, iv, 1, MPI_INTEGER8, MPI_MAX, MPI_COMM_WORLD, ierr)
    iv = iand(iv * 3 + k, 1048575_8)
  end do
  check = check + iv

  ! 1b. sums of 16 .. 8192 doubles
  do i = 1, 8192
    x(i) = real(mod(i * 13, 1000), 8)
  end do
  do s = 1, nsz
    cnt = cnts(s)
    do k = 1, reps(s)
      do i = 1, cnt
        sx(i) = x(i) * (rank + 1)
      end do
      call MPI_Allreduce(sx, x, cnt, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
      do i = 1, cnt
        x(i) = wrap(3 * (x(i) / tri) + i + k)
      end do
    end do
    check = check + int(sum(x(1:cnt)), 8)
  end do

  ! 2. broadcasts from a moving root
  do i = 1, nbcast
    b(i) = real(mod(i * 7, 101), 8)
  end do
  do k = 1, nbc
    root = mod(k, np)
    if (rank == root) then
      do i = 1, nbcast
        b(i) = wrap(5 * b(i) + k)
      end do
    end if
    call MPI_Bcast(b, nbcast, MPI_DOUBLE_PRECISION, root, MPI_COMM_WORLD, ierr)
  end do
  check = check + int(sum(b), 8)

  ! 3. scatter, update, gather
  do i = 1, lg
    g(i) = real(mod(i * 11, 257), 8)
  end do
  do k = 1, nsg
    call MPI_Scatter(g, nl, MPI_DOUBLE_PRECISION, piece, nl, MPI_DOUBLE_PRECISION, 0, &
         MPI_COMM_WORLD, ierr)
    do i = 1, nl
      gi = rank * nl + i
      piece(i) = wrap(7 * piece(i) + gi + k)
    end do
    call MPI_Gather(piece, nl, MPI_DOUBLE_PRECISION, g, nl, MPI_DOUBLE_PRECISION, 0, &
         MPI_COMM_WORLD, ierr)
  end do
  if (rank == 0) check = check + int(sum(g), 8)

  ! 4. allgather, next piece from the whole array
  do i = 1, lg
    h(i) = real(mod(i * 5, 61), 8)
  end do
  do k = 1, nag
    do i = 1, nl
      gi = rank * nl + i
      piece(i) = wrap(h(gi) + 2 * h(lg + 1 - gi) + k)
    end do
    call MPI_Allgather(piece, nl, MPI_DOUBLE_PRECISION, h, nl, MPI_DOUBLE_PRECISION, &
         MPI_COMM_WORLD, ierr)
  end do
  check = check + int(sum(h), 8)

  if (rank == 0) print '(a,i0)', ' checksum ', check
  call MPI_Finalize(ierr)

contains

  ! a non-negative whole number modulo 2**20
  real(8) function wrap(v)
    real(8), intent(in) :: v
    wrap = real(iand(int(v, 8), 1048575_8), 8)
  end function wrap

end program allreduce_loop
