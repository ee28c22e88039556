!=====================================================================
! lu_cyclic_mpi.f90 - the MPI twin of lu_cyclic_seq.f90: column j of
! the 1200 x 1200 matrix lives on rank mod(j - 1, np) (CYCLIC), each
! rank holding its columns in order. Step k: the owner of column k
! computes its multipliers, MPI_Bcast sends the whole column k (1200
! values) from it, every rank updates its columns beyond k. The
! determinant's log and the checksum are summed with one MPI_Allreduce
! each.
! Exercises: MPI_Bcast from a root that moves round the ranks.
!=====================================================================
program lu_cyclic_mpi
  use mpi
  implicit none
  integer, parameter :: n = 1200
  real(8), allocatable :: a(:, :)
  real(8) :: col(n), logdet, check, part(2)
  integer :: i, j, k, jl, ierr, rank, np, owner, nloc

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  nloc = 0
  do j = 1, n
    if (mod(j - 1, np) == rank) nloc = nloc + 1
  end do
  allocate(a(n, max(nloc, 1)))
  ! local column jl holds global column rank + 1 + (jl - 1) * np
  do jl = 1, nloc
    j = rank + 1 + (jl - 1) * np
    do i = 1, n
      a(i, jl) = 1.0d0 / real(1 + abs(i - j), 8) + real(mod(i * 3 + j * 5, 11), 8) * 1.0d-3
    end do
    a(j, jl) = a(j, jl) + real(n, 8)
  end do
  do k = 1, n - 1
    owner = mod(k - 1, np)
    if (owner == rank) then
      jl = (k - 1) / np + 1
      do i = k + 1, n
        a(i, jl) = a(i, jl) / a(k, jl)
      end do
      col = a(:, jl)
    end if
    call MPI_Bcast(col, n, MPI_DOUBLE_PRECISION, owner, MPI_COMM_WORLD, ierr)
    do jl = 1, nloc
      j = rank + 1 + (jl - 1) * np
      if (j <= k) cycle
      do i = k + 1, n
        a(i, jl) = a(i, jl) - col(i) * a(k, jl)
      end do
    end do
  end do
  part = 0.0d0
  do jl = 1, nloc
    j = rank + 1 + (jl - 1) * np
    part(1) = part(1) + log(abs(a(j, jl)))
    do i = 1, n
      part(2) = part(2) + a(i, jl) * real(mod(i + j, 7), 8)
    end do
  end do
  call MPI_Allreduce(part(1), logdet, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(part(2), check, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    print '(a, es16.8)', 'lu log|det|: ', logdet
    print '(a, es16.8)', 'lu checksum: ', check
  end if
  call MPI_Finalize(ierr)
end program lu_cyclic_mpi
