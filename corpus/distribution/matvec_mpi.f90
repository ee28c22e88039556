!=====================================================================
! matvec_mpi.f90 - the MPI twin of matvec_seq.f90: the rows 1..2400
! of a and the elements of x and y split BLOCK-wise over the ranks
! (2400/np each: np must divide 2400), each rank holding its rows of
! a (nloc x n), its blocks of x and y and a full copy xfull of x.
! Each iteration: MPI_Allgather of the blocks of x into xfull, the
! matrix-vector product of the own rows, MPI_Allreduce of the sum of
! squares, the own update of x. Prints what the sequential program
! prints.
! Exercises: MPI_Allgather before a nest, MPI_Allreduce per iteration.
!=====================================================================
program matvec_mpi
  use mpi
  implicit none
  integer, parameter :: n = 2400, niters = 40
  real(8), allocatable :: a(:, :), x(:), y(:), xfull(:)
  real(8) :: s, nrm, gnrm, x1
  integer :: i, j, it, ierr, rank, np, b, i0, i1

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  if (mod(n, np) /= 0) then
    if (rank == 0) print '(a, i0)', 'matvec_mpi: the rank count must divide ', n
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  b = (n + np - 1) / np
  i0 = 1 + rank * b
  i1 = min(n, (rank + 1) * b)
  allocate(a(i0:i1, n), x(i0:i1), y(i0:i1), xfull(n))
  do i = i0, i1
    do j = 1, n
      a(i, j) = 1.0d0 / (1.0d0 + abs(i - j)) + 1.0d-3 * mod(7 * i + 13 * j, 17)
    end do
  end do
  do i = i0, i1
    x(i) = 1.0d0
  end do
  gnrm = 0.0d0
  do it = 1, niters
    call MPI_Allgather(x, b, MPI_DOUBLE_PRECISION, xfull, b, MPI_DOUBLE_PRECISION, &
                       MPI_COMM_WORLD, ierr)
    do i = i0, i1
      s = 0.0d0
      do j = 1, n
        s = s + a(i, j) * xfull(j)
      end do
      y(i) = s
    end do
    nrm = 0.0d0
    do i = i0, i1
      nrm = nrm + y(i) * y(i)
    end do
    call MPI_Allreduce(nrm, gnrm, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    gnrm = sqrt(gnrm)
    do i = i0, i1
      x(i) = y(i) / gnrm
    end do
  end do
  x1 = x(i0)
  if (rank == 0) then
    print '(a, es16.8)', 'matvec eigenvalue estimate: ', gnrm
    print '(a, es16.8)', 'matvec x(1): ', x1
  end if
  call MPI_Finalize(ierr)
end program matvec_mpi
