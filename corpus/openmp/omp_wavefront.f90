!=====================================================================
! omp_wavefront.f90 - A Gauss-Seidel sweep pipelined over threads that
!  wait for each other by spinning on shared flags.
!  Each thread owns a band of rows i of u(0:n+1,0:n+1) and walks the
!  columns j in order; before column j it waits until the thread above
!  has published column j of this sweep (ready(me-1) >= stamp), by a
!  DO WHILE loop that only re-reads the flag after an !$omp flush; after
!  its column it publishes its own.  A barrier ends each sweep.  The
!  update order is the serial one, so the result does not depend on the
!  thread count.
! Exercises: busy-wait synchronization (flush in a DO WHILE), a pipeline
!   fill of one column block per thread, omp_get_thread_num under !$.
! Runtime class: memory in L2 per thread, FP add/mul, 1.2e8 updates.
!=====================================================================
program omp_wavefront
!$ use omp_lib
  implicit none
  integer, parameter :: n = 1000, nsweep = 120, maxthreads = 64
  real(8), allocatable :: u(:,:)
  integer :: ready(0:maxthreads-1)
  integer :: me, nt, band, ilo, ihi, i, j, it, stamp
  real(8) :: s

  allocate(u(0:n+1, 0:n+1))
  u = 0.0d0
  u(0, :) = 1.0d0
  u(:, 0) = 0.5d0
  ready = 0
!$omp parallel default(shared) private(me, nt, band, ilo, ihi, i, j, it, stamp)
  me = 0
  nt = 1
!$ me = omp_get_thread_num()
!$ nt = omp_get_num_threads()
  band = (n + nt - 1) / nt
  ilo = 1 + me * band
  ihi = min(n, ilo + band - 1)
  do it = 1, nsweep
    do j = 1, n
      stamp = (it - 1) * n + j
      if (me > 0) then
        do while (ready(me - 1) < stamp)
!$omp flush(ready)
        end do
!$omp flush(u)
      end if
      do i = ilo, ihi
        u(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
      end do
!$omp flush(u)
      ready(me) = stamp
!$omp flush(ready)
    end do
!$omp barrier
  end do
!$omp end parallel
  s = 0.0d0
  do j = 1, n
    do i = 1, n
      s = s + u(i, j)
    end do
  end do
  print '(a, f20.10)', 'wavefront checksum ', s
end program omp_wavefront
