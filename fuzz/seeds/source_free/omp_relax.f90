! omp_relax.f90 - augur's OpenMP example: Jacobi relaxation of a 2-D grid with
! a PARALLEL DO per sweep and a reduction of the change, then a triangular
! pass (row i costs i) under a static schedule, whose imbalance the per-thread
! counts show, and the same pass under a dynamic schedule.
program omp_relax
!$ use omp_lib
  implicit none
  integer, parameter :: n = 700, sweeps = 400
  real(8), allocatable :: u(:, :), v(:, :)
  real(8) :: change, tri
  integer :: i, j, k, nthreads
  allocate (u(n, n), v(n, n))
  nthreads = 1
!$ nthreads = omp_get_max_threads()
!$omp parallel do private(i)
  do j = 1, n
    do i = 1, n
      u(i, j) = 0
      if (i == 1 .or. j == 1) u(i, j) = 1
    end do
  end do
!$omp end parallel do
  v = u
  do k = 1, sweeps
    change = 0
!$omp parallel do private(i) reduction(max:change)
    do j = 2, n - 1
      do i = 2, n - 1
        v(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
        change = max(change, abs(v(i, j) - u(i, j)))
      end do
    end do
!$omp end parallel do
    u = v
  end do
  tri = 0
!$omp parallel do private(j) reduction(+:tri) schedule(static)
  do i = 1, n
    do j = 1, i
      tri = tri + u(j, i) * u(i, j)
    end do
  end do
!$omp end parallel do
!$omp parallel do private(j) reduction(+:tri) schedule(dynamic, 8)
  do i = 1, n
    do j = 1, i
      tri = tri + u(j, i)
    end do
  end do
!$omp end parallel do
  if (nthreads < 1) stop 1
  print '(a,f12.8,a,f16.6)', ' change ', change, ' tri ', tri
end program omp_relax
