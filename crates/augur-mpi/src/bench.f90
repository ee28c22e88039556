! augur's MPI network benchmark (augur characterize --mpi), run under mpirun -np P.
! Arguments: observations, seconds per observation, largest message in bytes,
! 1 to time the point-to-point experiments between ranks 0 and 1 (else collectives only).
! Rank 0 prints one line per observation:
!   AUGPP bytes seconds          one-way time of a ping-pong (half a round trip)
!   AUGGAP seconds               time per message of a stream of 1-byte sends (LogGP g)
!   AUGOS seconds                time of posting one 1-byte MPI_Isend (LogGP o, sender)
!   AUGOR seconds                time of one MPI_Recv of a message already arrived (o, receiver)
!   AUGCOLL name bytes seconds   one collective call, the slowest rank's time
!   AUGSELF bytes seconds        one MPI_Sendrecv of rank 0 to itself (a copy in memory)
! The number of repetitions per observation is calibrated by rank 0 and broadcast, so
! that every rank runs the same loops.
program augur_mpibench
  use mpi
  implicit none
  integer :: ierr, rank, np, nobs, maxb, ptp
  double precision :: obs_s
  character(len=64) :: arg
  character, allocatable :: sbuf(:), rbuf(:)
  double precision, allocatable :: dsend(:), drecv(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call get_command_argument(1, arg)
  read (arg, *) nobs
  call get_command_argument(2, arg)
  read (arg, *) obs_s
  call get_command_argument(3, arg)
  read (arg, *) maxb
  call get_command_argument(4, arg)
  read (arg, *) ptp
  allocate(sbuf(max(maxb, 1) * np), rbuf(max(maxb, 1) * np))
  allocate(dsend(max(maxb / 8, 1) * np), drecv(max(maxb / 8, 1) * np))
  sbuf = 'a'
  rbuf = 'b'
  dsend = 1.0d0
  drecv = 0.0d0
  if (ptp == 1 .and. np >= 2) then
    call size_sweep(1, 'AUGPP')
    call gap()
    call overhead(.false.)
    call overhead(.true.)
    call size_sweep(2, 'AUGSELF')
  end if
  call collectives()
  call MPI_Finalize(ierr)

contains

  ! Whether rank 0 saw `t` seconds or more; every rank gets the answer.
  logical function long_enough(t)
    double precision, intent(in) :: t
    integer :: flag, e
    flag = 0
    if (rank == 0 .and. t >= obs_s) flag = 1
    call MPI_Bcast(flag, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, e)
    long_enough = flag == 1
  end function long_enough

  subroutine pingpong(b, reps, t)
    integer, intent(in) :: b, reps
    double precision, intent(out) :: t
    integer :: r, e, st(MPI_STATUS_SIZE)
    double precision :: t0
    call MPI_Barrier(MPI_COMM_WORLD, e)
    t0 = MPI_Wtime()
    do r = 1, reps
      if (rank == 0) then
        call MPI_Send(sbuf, b, MPI_CHARACTER, 1, 1, MPI_COMM_WORLD, e)
        call MPI_Recv(rbuf, b, MPI_CHARACTER, 1, 2, MPI_COMM_WORLD, st, e)
      else if (rank == 1) then
        call MPI_Recv(rbuf, b, MPI_CHARACTER, 0, 1, MPI_COMM_WORLD, st, e)
        call MPI_Send(sbuf, b, MPI_CHARACTER, 0, 2, MPI_COMM_WORLD, e)
      end if
    end do
    t = MPI_Wtime() - t0
  end subroutine pingpong

  ! Every size from 0 to maxb: the repetitions calibrated to an observation's length,
  ! then nobs observations of kernel `which` (1: the ping-pong, one way per message, two
  ! per repetition; 2: a message to itself), each printed after `label`.
  subroutine size_sweep(which, label)
    integer, intent(in) :: which
    character(len=*), intent(in) :: label
    integer :: b, reps, o
    double precision :: t
    b = 0
    do while (b <= maxb)
      reps = 1
      do
        call kernel(which, b, reps, t)
        if (long_enough(t)) exit
        reps = reps * 2
      end do
      do o = 1, nobs
        call kernel(which, b, reps, t)
        if (rank == 0) print '(a,1x,i0,1x,es16.9)', label, b, t / (reps * (3 - which))
      end do
      b = next_size(b)
    end do
  end subroutine size_sweep

  subroutine kernel(which, b, reps, t)
    integer, intent(in) :: which, b, reps
    double precision, intent(out) :: t
    if (which == 1) then
      call pingpong(b, reps, t)
    else
      call self_message(b, reps, t)
    end if
  end subroutine kernel

  ! Rank 0 sends `b` bytes to itself `reps` times (the other ranks wait).
  subroutine self_message(b, reps, t)
    integer, intent(in) :: b, reps
    double precision, intent(out) :: t
    integer :: r, e, st(MPI_STATUS_SIZE)
    double precision :: t0
    call MPI_Barrier(MPI_COMM_WORLD, e)
    t0 = MPI_Wtime()
    if (rank == 0) then
      do r = 1, reps
        call MPI_Sendrecv(sbuf, b, MPI_CHARACTER, 0, 5, rbuf, b, MPI_CHARACTER, 0, 5, &
             MPI_COMM_WORLD, st, e)
      end do
    end if
    t = MPI_Wtime() - t0
  end subroutine self_message


  ! 0, 1, 2, 3, 4, 6, 8, 12, 16, ...: powers of two and halfway between.
  integer function next_size(b)
    integer, intent(in) :: b
    integer :: p
    if (b < 4) then
      next_size = b + 1
      return
    end if
    p = 1
    do while (p * 2 <= b)
      p = p * 2
    end do
    if (b == p) then
      next_size = p + p / 2
    else
      next_size = 2 * p
    end if
  end function next_size

  ! A stream of `reps` 1-byte messages from 0 to 1, then one reply.
  subroutine stream(reps, t)
    integer, intent(in) :: reps
    double precision, intent(out) :: t
    integer :: r, e, st(MPI_STATUS_SIZE)
    double precision :: t0
    call MPI_Barrier(MPI_COMM_WORLD, e)
    t0 = MPI_Wtime()
    if (rank == 0) then
      do r = 1, reps
        call MPI_Send(sbuf, 1, MPI_CHARACTER, 1, 3, MPI_COMM_WORLD, e)
      end do
      call MPI_Recv(rbuf, 0, MPI_CHARACTER, 1, 4, MPI_COMM_WORLD, st, e)
    else if (rank == 1) then
      do r = 1, reps
        call MPI_Recv(rbuf, 1, MPI_CHARACTER, 0, 3, MPI_COMM_WORLD, st, e)
      end do
      call MPI_Send(sbuf, 0, MPI_CHARACTER, 0, 4, MPI_COMM_WORLD, e)
    end if
    t = MPI_Wtime() - t0
  end subroutine stream

  subroutine gap()
    integer :: reps, o
    double precision :: t
    reps = 1
    do
      call stream(reps, t)
      if (long_enough(t)) exit
      reps = reps * 2
    end do
    do o = 1, nobs
      call stream(reps, t)
      if (rank == 0) print '(a,es16.9)', 'AUGGAP ', t / reps
    end do
  end subroutine gap

  ! Rank 0 posts `n` 1-byte MPI_Isend (rank 1 posted the receives first): the time of
  ! the posting loop alone.
  subroutine posts(n, t)
    integer, intent(in) :: n
    double precision, intent(out) :: t
    integer :: r, e, req(n), sts(MPI_STATUS_SIZE, n)
    double precision :: t0
    t = 0.0d0
    if (rank == 1) then
      do r = 1, n
        call MPI_Irecv(rbuf(r), 1, MPI_CHARACTER, 0, 5, MPI_COMM_WORLD, req(r), e)
      end do
    end if
    call MPI_Barrier(MPI_COMM_WORLD, e)
    if (rank == 0) then
      t0 = MPI_Wtime()
      do r = 1, n
        call MPI_Isend(sbuf(r), 1, MPI_CHARACTER, 1, 5, MPI_COMM_WORLD, req(r), e)
      end do
      t = MPI_Wtime() - t0
    end if
    if (rank <= 1) call MPI_Waitall(n, req, sts, e)
  end subroutine posts

  ! Rank 1 sends `n` 1-byte messages; after a barrier (they have arrived) rank 0 times
  ! the receives.
  subroutine arrived(n, t)
    integer, intent(in) :: n
    double precision, intent(out) :: t
    integer :: r, e, st(MPI_STATUS_SIZE)
    double precision :: t0
    t = 0.0d0
    if (rank == 1) then
      do r = 1, n
        call MPI_Send(sbuf(r), 1, MPI_CHARACTER, 0, 6, MPI_COMM_WORLD, e)
      end do
    end if
    call MPI_Barrier(MPI_COMM_WORLD, e)
    if (rank == 0) then
      t0 = MPI_Wtime()
      do r = 1, n
        call MPI_Recv(rbuf(r), 1, MPI_CHARACTER, 1, 6, MPI_COMM_WORLD, st, e)
      end do
      t = MPI_Wtime() - t0
    end if
  end subroutine arrived

  ! `nobs` observations of the send overhead (`receive` false: posting MPI_Isend) or
  ! the receive overhead (true: MPI_Recv of messages already there), per message.
  subroutine overhead(receive)
    logical, intent(in) :: receive
    integer :: o, n
    double precision :: t
    n = min(256, max(maxb, 1) * np)
    do o = 0, nobs
      if (receive) then
        call arrived(n, t)
      else
        call posts(n, t)
      end if
      if (rank == 0 .and. o > 0 .and. receive) print '(a,es16.9)', 'AUGOR ', t / n
      if (rank == 0 .and. o > 0 .and. .not. receive) print '(a,es16.9)', 'AUGOS ', t / n
    end do
  end subroutine overhead

  ! `reps` calls of collective `k` on `b` bytes per rank; the slowest rank's time.
  subroutine collective(k, b, reps, t)
    integer, intent(in) :: k, b, reps
    double precision, intent(out) :: t
    integer :: r, e, nd
    double precision :: t0, mine
    nd = b / 8
    call MPI_Barrier(MPI_COMM_WORLD, e)
    t0 = MPI_Wtime()
    do r = 1, reps
      select case (k)
      case (1)
        call MPI_Barrier(MPI_COMM_WORLD, e)
      case (2)
        call MPI_Bcast(sbuf, b, MPI_CHARACTER, 0, MPI_COMM_WORLD, e)
      case (3)
        call MPI_Reduce(dsend, drecv, nd, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, e)
      case (4)
        call MPI_Allreduce(dsend, drecv, nd, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, e)
      case (5)
        call MPI_Gather(sbuf, b, MPI_CHARACTER, rbuf, b, MPI_CHARACTER, 0, MPI_COMM_WORLD, e)
      case (6)
        call MPI_Scatter(sbuf, b, MPI_CHARACTER, rbuf, b, MPI_CHARACTER, 0, MPI_COMM_WORLD, e)
      case (7)
        call MPI_Allgather(sbuf, b, MPI_CHARACTER, rbuf, b, MPI_CHARACTER, MPI_COMM_WORLD, e)
      case (8)
        call MPI_Alltoall(sbuf, b, MPI_CHARACTER, rbuf, b, MPI_CHARACTER, MPI_COMM_WORLD, e)
      end select
    end do
    mine = MPI_Wtime() - t0
    call MPI_Reduce(mine, t, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD, e)
  end subroutine collective

  subroutine collectives()
    character(len=9), parameter :: names(8) = [character(len=9) :: 'barrier', 'bcast', &
        'reduce', 'allreduce', 'gather', 'scatter', 'allgather', 'alltoall']
    integer, parameter :: sizes(4) = [8, 1024, 65536, 1048576]
    integer :: k, s, b, reps, o
    double precision :: t
    do k = 1, 8
      do s = 1, 4
        b = sizes(s)
        if (k == 1) b = 0
        if (b > maxb) exit
        reps = 1
        do
          call collective(k, b, reps, t)
          if (long_enough(t)) exit
          reps = reps * 2
        end do
        do o = 1, nobs
          call collective(k, b, reps, t)
          if (rank == 0) print '(a,a,1x,i0,1x,es16.9)', 'AUGCOLL ', trim(names(k)), b, t / reps
        end do
        if (k == 1) exit
      end do
    end do
  end subroutine collectives
end program augur_mpibench
