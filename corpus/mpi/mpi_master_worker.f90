!=====================================================================
! mpi_master_worker.f90 - A task farm of 5000 tasks. Task t sums the
! series -ln(1-x) = x + x**2/2 + x**3/3 + ... for
! x = 1 - 1/(100 + mod(37 t, 12000)) until a term drops below 1e-13,
! so its cost (2,213 to 213,677 terms) depends on the data.
! Rank 0 is the master: it deals one task to each worker (rank 1 ..
! np-1) with MPI_Send, then serves the workers in a fixed round-robin
! order: it waits with MPI_Recv for the result of that specific
! worker (no MPI_ANY_SOURCE / MPI_ANY_TAG), stores it, and sends the
! worker its next task, or the stop message once the tasks are used
! up. Task messages are two integers (kind, task) always sent with
! MPI tag 1: kind 1 = work, kind 2 = stop (the stop tag travels in
! the message because a worker may not receive with MPI_ANY_TAG).
! Results (value, number of terms) come back as two doubles with MPI
! tag 2. A slow task holds up the master even when other workers are
! already done. At np = 1 rank 0 does every task itself. The
! checksum is summed by the master in task order: identical at any
! np.
! Exercises: MPI_Send/MPI_Recv with a specific peer, message-driven
!   control flow, data-dependent task cost (a while loop of a
!   division-bound series), master idle while workers compute.
!=====================================================================
program master_worker
  use mpi
  implicit none
  integer, parameter :: ntasks = 5000
  integer, parameter :: kwork = 1, kstop = 2, tagtask = 1, tagres = 2
  integer :: ierr, rank, np, nw, w, t, nxt, active
  integer :: msg(2), st(MPI_STATUS_SIZE)
  integer, allocatable :: cur(:)
  real(8) :: res(ntasks), out(2), total
  integer(8) :: nterms(ntasks), tterms

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  nw = np - 1

  if (rank == 0) then
    if (nw == 0) then
      do t = 1, ntasks
        call task(t, out)
        res(t) = out(1)
        nterms(t) = nint(out(2), 8)
      end do
    else
      allocate(cur(nw))
      nxt = 1
      active = 0
      do w = 1, nw
        if (nxt <= ntasks) then
          msg = [kwork, nxt]
          cur(w) = nxt
          nxt = nxt + 1
          active = active + 1
        else
          msg = [kstop, 0]
          cur(w) = 0
        end if
        call MPI_Send(msg, 2, MPI_INTEGER, w, tagtask, MPI_COMM_WORLD, ierr)
      end do
      w = 1
      do while (active > 0)
        if (cur(w) > 0) then
          call MPI_Recv(out, 2, MPI_DOUBLE_PRECISION, w, tagres, MPI_COMM_WORLD, st, ierr)
          res(cur(w)) = out(1)
          nterms(cur(w)) = nint(out(2), 8)
          if (nxt <= ntasks) then
            msg = [kwork, nxt]
            cur(w) = nxt
            nxt = nxt + 1
          else
            msg = [kstop, 0]
            cur(w) = 0
            active = active - 1
          end if
          call MPI_Send(msg, 2, MPI_INTEGER, w, tagtask, MPI_COMM_WORLD, ierr)
        end if
        w = mod(w, nw) + 1
      end do
    end if
    total = 0
    tterms = 0
    do t = 1, ntasks
      total = total + res(t) * real(mod(t, 7) + 1, 8)
      tterms = tterms + nterms(t)
    end do
    print '(a,i0)', ' tasks       ', ntasks
    print '(a,i0)', ' total terms ', tterms
    print '(a,f24.12)', ' checksum    ', total
  else
    do
      call MPI_Recv(msg, 2, MPI_INTEGER, 0, tagtask, MPI_COMM_WORLD, st, ierr)
      if (msg(1) == kstop) exit
      call task(msg(2), out)
      call MPI_Send(out, 2, MPI_DOUBLE_PRECISION, 0, tagres, MPI_COMM_WORLD, ierr)
    end do
  end if
  call MPI_Finalize(ierr)

contains

  ! the series -ln(1-x) for the x of task t, summed until the term
  ! is below 1e-13; r(1) = sum, r(2) = number of terms
  subroutine task(t, r)
    integer, intent(in) :: t
    real(8), intent(out) :: r(2)
    real(8) :: x, p, term, s
    integer :: k
    x = 1.0d0 - 1.0d0 / real(100 + mod(37 * t, 12000), 8)
    p = 1
    s = 0
    k = 0
    do
      k = k + 1
      p = p * x
      term = p / real(k, 8)
      s = s + term
      if (term < 1.0d-13) exit
    end do
    r(1) = s
    r(2) = real(k, 8)
  end subroutine task

end program master_worker
