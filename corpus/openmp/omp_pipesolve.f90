!=====================================================================
! omp_pipesolve.f90 - A lower-triangular solve of a 3-D 7-point
!  operator, pipelined over threads plane by plane.
!  x(i,j,k) = (b(i,j,k) + cx*x(i-1,j,k) + cy*x(i,j-1,k)
!              + cz*x(i,j,k-1)) / d        for k = 2..nz, j, i in order
!  Each thread owns a block of j; for plane k it first waits until the
!  thread below has finished plane k (its flag isync(me-1) is set), then
!  clears that flag; after the plane it waits until its own flag was
!  cleared by the thread above and sets it.  The waits are DO WHILE
!  loops around an !$omp flush of the flags, in two small subroutines,
!  as hand-written pipelined solvers do.  The order of every update is
!  the serial one, so the result does not depend on the thread count.
! Exercises: busy-wait synchronization in called subroutines, a
!   pipeline of nz planes, !$omp do schedule(static) nowait inside a
!   parallel region, flags passed through a module.
! Runtime class: FP add/mul chain along i, 3-D arrays of 14 MB.
!=====================================================================
module pipe_flags
  implicit none
  integer, parameter :: maxthreads = 64
  integer :: isync(0:maxthreads-1)
end module pipe_flags

subroutine wait_below(me)
  use pipe_flags
  implicit none
  integer, intent(in) :: me
  if (me > 0) then
    do while (isync(me - 1) == 0)
!$omp flush(isync)
    end do
    isync(me - 1) = 0
!$omp flush(isync)
  end if
end subroutine wait_below

subroutine signal_above(me, last)
  use pipe_flags
  implicit none
  integer, intent(in) :: me, last
  if (me < last) then
    do while (isync(me) == 1)
!$omp flush(isync)
    end do
    isync(me) = 1
!$omp flush(isync)
  end if
end subroutine signal_above

program omp_pipesolve
!$ use omp_lib
  use pipe_flags
  implicit none
  integer, parameter :: nx = 120, ny = 120, nz = 120, nrep = 36
  real(8), parameter :: cx = 0.3d0, cy = 0.25d0, cz = 0.2d0, d = 1.8d0
  real(8), allocatable :: x(:,:,:), b(:,:,:)
  integer :: i, j, k, rep, me, last
  real(8) :: s

  allocate(x(0:nx, 0:ny, 0:nz), b(nx, ny, nz))
  do k = 1, nz
    do j = 1, ny
      do i = 1, nx
        b(i, j, k) = dble(mod(i * 7 + j * 3 + k, 11)) * 0.1d0
      end do
    end do
  end do
  x = 0.0d0
  isync = 0
!$omp parallel default(shared) private(i, j, k, rep, me, last)
  me = 0
  last = 0
!$ me = omp_get_thread_num()
!$ last = omp_get_num_threads() - 1
  do rep = 1, nrep
    do k = 1, nz
      call wait_below(me)
!$omp flush(x)
!$omp do schedule(static)
      do j = 1, ny
        do i = 1, nx
          x(i, j, k) = (b(i, j, k) + cx * x(i - 1, j, k) + cy * x(i, j - 1, k) &
                        + cz * x(i, j, k - 1)) / d
        end do
      end do
!$omp end do nowait
!$omp flush(x)
      call signal_above(me, last)
    end do
!$omp barrier
  end do
!$omp end parallel
  s = 0.0d0
  do k = 1, nz
    do j = 1, ny
      do i = 1, nx
        s = s + x(i, j, k)
      end do
    end do
  end do
  print '(a, f20.10)', 'pipesolve checksum ', s
end program omp_pipesolve
