!=====================================================================
! transpose_mpi.f90 - the MPI twin of transpose_seq.f90: the columns
! of a and b split in equal blocks of n/np (np must divide 1024);
! each transpose packs, for every rank q, the rows of q's columns
! out of the local columns, MPI_Alltoall swaps the n/np x n/np
! blocks, and the receiver unpacks them transposed. The checksum is
! summed with MPI_Allreduce.
! Exercises: MPI_Alltoall of blocks, pack and unpack loops.
!=====================================================================
program transpose_mpi
  use mpi
  implicit none
  integer, parameter :: n = 1024, nrep = 10
  real(8), allocatable :: a(:, :), b(:, :), sbuf(:), rbuf(:)
  real(8) :: check, part
  integer :: i, j, it, ierr, rank, np, m, j0

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  if (mod(n, np) /= 0) then
    if (rank == 0) print '(a)', 'transpose_mpi: the rank count must divide 1024'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  m = n / np
  j0 = rank * m
  allocate(a(n, m), b(n, m), sbuf(n * m), rbuf(n * m))
  do j = 1, m
    do i = 1, n
      a(i, j) = real(mod(i * 7 + (j0 + j) * 3, 17), 8) / 17.0d0
    end do
  end do
  do it = 1, nrep
    call recur(a)
    call transpose(a, b, 1.0d0)
    call recur(b)
    call transpose(b, a, 0.25d0)
  end do
  part = 0.0d0
  do j = 1, m
    do i = 1, n
      part = part + a(i, j) * real(mod(i + 2 * (j0 + j), 5), 8)
    end do
  end do
  call MPI_Allreduce(part, check, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, es16.8)', 'transpose checksum: ', check
  call MPI_Finalize(ierr)

contains

  subroutine recur(x)
    real(8), intent(inout) :: x(:, :)
    integer :: ii, jj
    do jj = 1, m
      do ii = 2, n
        x(ii, jj) = x(ii, jj) + 0.5d0 * x(ii - 1, jj)
      end do
    end do
  end subroutine recur

  ! y(i, j) = s * x(j, i) for my columns j of y: the block for rank q
  ! holds x(q's columns, my columns) laid out by (row of q, my column).
  subroutine transpose(x, y, s)
    real(8), intent(in) :: x(:, :)
    real(8), intent(out) :: y(:, :)
    real(8), intent(in) :: s
    integer :: q, ii, jj, k
    k = 0
    do q = 0, np - 1
      do jj = 1, m
        do ii = 1, m
          k = k + 1
          sbuf(k) = x(q * m + ii, jj)
        end do
      end do
    end do
    call MPI_Alltoall(sbuf, m * m, MPI_DOUBLE_PRECISION, rbuf, m * m, &
                      MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
    ! from rank q: x(j0 + ii, q*m + jj) for my column ii, q's column jj
    k = 0
    do q = 0, np - 1
      do jj = 1, m
        do ii = 1, m
          k = k + 1
          y(q * m + jj, ii) = s * rbuf(k)
        end do
      end do
    end do
  end subroutine transpose
end program transpose_mpi
