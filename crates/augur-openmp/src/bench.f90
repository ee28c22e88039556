! augur OpenMP micro-benchmarks (EPCC's method, Bull 1999): each construct wraps a
! reference delay; its overhead is the time per execution less the delay's.
! Arguments: threads, observations, target seconds per observation, delay
! seconds, schedule iterations per thread, a bit mask of the constructs to
! observe (bit k: the k-th after the reference), then the triad sizes in elements.
! Output: AUGDELAY s, AUGOBS name chunk seconds (per execution), AUGBW elements
! bytes_per_second.
program augur_ompbench
  use omp_lib
  implicit none
  integer :: nthreads, nobs, iters, dl, k, nsizes, i, seen
  integer(8) :: mask
  real(8) :: target, delay_s
  character(len=32) :: arg
  integer(8), allocatable :: sizes(:)
  ! The table of the spread atomic updates (64 lines of integers) and the order its
  ! slots are visited in (scrambled, so that the two threads rarely meet on a line).
  integer :: table(1024), slots(0:4095)
  ! The seed every thread puts in turn (`library_lock`).
  integer :: nseed
  integer, allocatable :: seedv(:)
  call get_command_argument(1, arg); read (arg, *) nthreads
  call get_command_argument(2, arg); read (arg, *) nobs
  call get_command_argument(3, arg); read (arg, *) target
  call get_command_argument(4, arg); read (arg, *) delay_s
  call get_command_argument(5, arg); read (arg, *) iters
  call get_command_argument(6, arg); read (arg, *) mask
  nsizes = command_argument_count() - 6
  allocate (sizes(nsizes))
  do i = 1, nsizes
    call get_command_argument(6 + i, arg); read (arg, *) sizes(i)
  end do
  call omp_set_num_threads(nthreads)
  call omp_set_dynamic(.false.)
  table = 0
  do i = 0, 4095
    slots(i) = 1 + int(mod(i * 2654435761_8, 1024_8))
  end do
  call random_seed(size=nseed)
  allocate (seedv(nseed))
  seedv = 8
  dl = calibrate(delay_s)
  write (*, '(a,1x,es14.6)') 'AUGDELAY', time_delay(dl, 2000) 
  do k = 1, nobs
    seen = 0
    call observe('reference', 0, 1)
    call observe('parallel', 0, 2)
    call observe('do', 0, 3)
    call observe('parallel_do', 0, 4)
    call observe('barrier', 0, 5)
    call observe('single', 0, 6)
    call observe('critical', 0, 7)
    call observe('lock', 0, 8)
    call observe('atomic', 0, 9)
    call observe('reduction', 0, 10)
    call observe('static', 0, 11)
    call observe('static_chunk', 1, 12)
    call observe('dynamic', 1, 13)
    call observe('dynamic', 4, 13)
    call observe('dynamic', 16, 13)
    call observe('dynamic', 64, 13)
    call observe('guided', 1, 14)
    call observe('guided', 4, 14)
    call observe('guided', 16, 14)
    call observe('false_sharing', 0, 15)
    call observe('atomic_table', 0, 16)
    call observe('library_lock', 0, 17)
  end do
  do i = 1, nsizes
    call triad(sizes(i))
  end do
contains
  ! Delay iterations taking about `seconds`.
  integer function calibrate(seconds)
    real(8), intent(in) :: seconds
    integer :: n
    real(8) :: t
    n = 1
    do
      t = time_delay(n, 200)
      if (t >= seconds .or. n > 1000000) exit
      n = n * 2
    end do
    calibrate = max(1, int(n * seconds / t))
  end function

  real(8) function time_delay(n, reps)
    integer, intent(in) :: n, reps
    integer :: j
    real(8) :: t0
    t0 = omp_get_wtime()
    do j = 1, reps
      call augur_delay(n)
    end do
    time_delay = (omp_get_wtime() - t0) / reps
  end function

  ! One observation of test `which`: enough executions for `target` seconds.
  subroutine observe(name, chunk, which)
    character(len=*), intent(in) :: name
    integer, intent(in) :: chunk, which
    integer :: inner
    real(8) :: t
    if (which > 1) then
      seen = seen + 1
      if (.not. btest(mask, seen - 1)) return
    end if
    inner = 8
    if (which == 15) then
      ! Calibrated on the slower of its two loops (the difference may be nil).
      t = store_time(1, inner)
    else
      t = run(which, chunk, inner)
    end if
    inner = max(8, int(inner * target / max(t * inner, 1d-9) / 1))
    inner = ((inner + nthreads - 1) / nthreads) * nthreads
    t = run(which, chunk, inner)
    write (*, '(a,1x,a,1x,i0,1x,es14.6)') 'AUGOBS', name, chunk, t
  end subroutine

  ! Seconds per execution of test `which`, over `inner` executions.
  real(8) function run(which, chunk, inner)
    integer, intent(in) :: which, chunk, inner
    integer :: j, i, n
    real(8) :: t0, x
    integer(omp_lock_kind) :: lck
    x = 0
    n = iters * nthreads
    call omp_init_lock(lck)
    t0 = omp_get_wtime()
    select case (which)
    case (1)
      do j = 1, inner
        call augur_delay(dl)
      end do
    case (2)
      do j = 1, inner
!$omp parallel
        call augur_delay(dl)
!$omp end parallel
      end do
    case (3)
!$omp parallel private(j, i)
      do j = 1, inner
!$omp do
        do i = 1, nthreads
          call augur_delay(dl)
        end do
!$omp end do
      end do
!$omp end parallel
    case (4)
      do j = 1, inner
!$omp parallel do private(i)
        do i = 1, nthreads
          call augur_delay(dl)
        end do
      end do
    case (5)
!$omp parallel private(j)
      do j = 1, inner
        call augur_delay(dl)
!$omp barrier
      end do
!$omp end parallel
    case (6)
!$omp parallel private(j)
      do j = 1, inner
!$omp single
        call augur_delay(dl)
!$omp end single
      end do
!$omp end parallel
    case (7)
!$omp parallel private(j)
      do j = 1, inner / nthreads
!$omp critical
        call augur_delay(dl)
!$omp end critical
      end do
!$omp end parallel
    case (8)
!$omp parallel private(j)
      do j = 1, inner / nthreads
        call omp_set_lock(lck)
        call augur_delay(dl)
        call omp_unset_lock(lck)
      end do
!$omp end parallel
    case (9)
!$omp parallel private(j)
      do j = 1, inner / nthreads
!$omp atomic
        x = x + 1
      end do
!$omp end parallel
    case (10)
      do j = 1, inner
!$omp parallel reduction(+:x)
        call augur_delay(dl)
        x = x + 1
!$omp end parallel
      end do
    case (11)
!$omp parallel private(j, i)
      do j = 1, inner
!$omp do schedule(static)
        do i = 1, n
          call augur_delay(dl)
        end do
!$omp end do
      end do
!$omp end parallel
    case (12)
!$omp parallel private(j, i)
      do j = 1, inner
!$omp do schedule(static, chunk)
        do i = 1, n
          call augur_delay(dl)
        end do
!$omp end do
      end do
!$omp end parallel
    case (13)
!$omp parallel private(j, i)
      do j = 1, inner
!$omp do schedule(dynamic, chunk)
        do i = 1, n
          call augur_delay(dl)
        end do
!$omp end do
      end do
!$omp end parallel
    case (14)
!$omp parallel private(j, i)
      do j = 1, inner
!$omp do schedule(guided, chunk)
        do i = 1, n
          call augur_delay(dl)
        end do
!$omp end do
      end do
!$omp end parallel
    case (16)
      ! EPCC's atomic with its delay, on a slot of a table instead of one variable.
!$omp parallel private(j, i)
      i = omp_get_thread_num() * 1531
      do j = 1, inner / nthreads
        call augur_delay(dl)
        i = iand(i + 1, 4095)
!$omp atomic
        table(slots(i)) = table(slots(i)) + 1
      end do
!$omp end parallel
    case (17)
      ! The run-time library's one lock: RANDOM_SEED(PUT=) by every thread in turn
      ! (libgfortran's generator mutex), per reseed on the wall clock.
!$omp parallel private(j)
      do j = 1, inner / nthreads
        call random_seed(put=seedv)
      end do
!$omp end parallel
    case (15)
      ! Per store: each thread's word in one line with the others', less in a line
      ! of its own (not a delay: the store's own time cancels).
      x = store_time(16, inner)
      t0 = omp_get_wtime()
      x = store_time(1, inner) - x
      t0 = omp_get_wtime() - x * inner
    end select
    run = (omp_get_wtime() - t0) / inner
    call omp_destroy_lock(lck)
    if (x < 0) print *, x
  end function

  ! Seconds per store of a thread storing `inner` times into its own word of a shared
  ! array, the words `stride` apart (VOLATILE: every store is made, each after a load).
  real(8) function store_time(stride, inner)
    integer, intent(in) :: stride, inner
    integer(8), volatile, allocatable :: w(:)
    integer :: j, t
    real(8) :: t0
    allocate (w(0:stride * nthreads + 8))
    w = 0
    t0 = omp_get_wtime()
!$omp parallel private(j, t)
    t = omp_get_thread_num() * stride
    do j = 1, inner
      w(t) = w(t) + 1
    end do
!$omp end parallel
    store_time = (omp_get_wtime() - t0) / inner
    deallocate (w)
  end function

  ! STREAM's triad over arrays of `n` elements with the team, first touched by it.
  subroutine triad(n)
    integer(8), intent(in) :: n
    real(8), allocatable :: a(:), b(:), c(:)
    integer(8) :: i
    integer :: reps, k
    real(8) :: t0, t, best
    allocate (a(n), b(n), c(n))
!$omp parallel do schedule(static)
    do i = 1, n
      a(i) = 0; b(i) = 1; c(i) = 2
    end do
    reps = 1
    do
      t0 = omp_get_wtime()
      call triad_reps(a, b, c, n, reps)
      t = omp_get_wtime() - t0
      if (t > target .or. reps > 1000000) exit
      reps = reps * 2
    end do
    best = huge(1d0)
    do k = 1, 5
      t0 = omp_get_wtime()
      call triad_reps(a, b, c, n, reps)
      best = min(best, (omp_get_wtime() - t0) / reps)
    end do
    write (*, '(a,1x,i0,1x,es14.6,1x,es14.6)') 'AUGBW', n, 24d0 * n / best, a(n / 2)
  end subroutine

  ! `reps` triads in one region: a static schedule gives each thread the same block
  ! every time, so no barrier is needed between them (none is timed).
  subroutine triad_reps(a, b, c, n, reps)
    integer(8), intent(in) :: n
    integer, intent(in) :: reps
    real(8), intent(inout) :: a(n)
    real(8), intent(in) :: b(n), c(n)
    integer(8) :: i
    integer :: r
!$omp parallel private(r)
    do r = 1, reps
!$omp do schedule(static)
      do i = 1, n
        a(i) = b(i) + 0.5d0 * c(i)
      end do
!$omp end do nowait
    end do
!$omp end parallel
  end subroutine
end program augur_ompbench
