!=====================================================================
! matvec_cols_mpi.f90 - the MPI twin of matvec_seq.f90 distributed
! by columns instead (augur predict --distribute 'a(*,BLOCK)'): the
! columns 1..2400 of a and the elements of x and y split BLOCK-wise
! (2400/np each: np must divide 2400), each rank holding its columns
! of a (n x nloc) and its blocks of x and y. Each row's sum runs over
! the rank's own columns and is combined at once with MPI_Allreduce
! (one double: 2,400 per product, as owner-computes gives for the
! scalar reduced in the inner loop); the owner of y(i) keeps it; the
! sum of squares is combined once per iteration. Prints what the
! sequential program prints.
! Exercises: a scalar reduced over a split inner loop (many small
!   MPI_Allreduce), a distribution worse than its alternative.
!=====================================================================
program matvec_cols_mpi
  use mpi
  implicit none
  integer, parameter :: n = 2400, niters = 40
  real(8), allocatable :: a(:, :), x(:), y(:)
  real(8) :: s, part, nrm, gnrm, x1
  integer :: i, j, it, ierr, rank, np, b, j0, j1

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  if (mod(n, np) /= 0) then
    if (rank == 0) print '(a, i0)', 'matvec_cols_mpi: the rank count must divide ', n
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  b = n / np
  j0 = 1 + rank * b
  j1 = (rank + 1) * b
  allocate(a(n, j0:j1), x(j0:j1), y(j0:j1))
  do i = 1, n
    do j = j0, j1
      a(i, j) = 1.0d0 / (1.0d0 + abs(i - j)) + 1.0d-3 * mod(7 * i + 13 * j, 17)
    end do
  end do
  do j = j0, j1
    x(j) = 1.0d0
  end do
  gnrm = 0.0d0
  do it = 1, niters
    do i = 1, n
      part = 0.0d0
      do j = j0, j1
        part = part + a(i, j) * x(j)
      end do
      call MPI_Allreduce(part, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
      if (i >= j0 .and. i <= j1) y(i) = s
    end do
    nrm = 0.0d0
    do i = j0, j1
      nrm = nrm + y(i) * y(i)
    end do
    call MPI_Allreduce(nrm, gnrm, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    gnrm = sqrt(gnrm)
    do j = j0, j1
      x(j) = y(j) / gnrm
    end do
  end do
  x1 = x(j0)
  if (rank == 0) then
    print '(a, es16.8)', 'matvec eigenvalue estimate: ', gnrm
    print '(a, es16.8)', 'matvec x(1): ', x1
  end if
  call MPI_Finalize(ierr)
end program matvec_cols_mpi
