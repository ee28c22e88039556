!=====================================================================
! stencil2d_mpi.f90 - the MPI twin of stencil2d_seq.f90: the ranks
! form a px x py grid as MPI_Dims_create gives it (rank = cx*py + cy),
! the rows 0..501 split BLOCK-wise over px (ceil(502/px) each) and the
! columns 0..501 over py, each rank holding its block and one halo
! layer each side. Each sweep: a row halo (strided, packed into
! buffers over the owned columns, boundary columns included) with the
! axis-0 neighbours, then a column halo (contiguous over the owned
! rows) with the axis-1 neighbours, each as two MPI_Sendrecv
! (MPI_PROC_NULL beyond the ends); the relaxation over the owned
! interior points, MPI_Allreduce of the summed change, the copy back.
! Prints what the sequential program prints.
! Exercises: MPI_Dims_create, MPI_Sendrecv of packed strided rows and
!   of contiguous columns with MPI_PROC_NULL, MPI_Allreduce per sweep.
!=====================================================================
program stencil2d_mpi
  use mpi
  implicit none
  integer, parameter :: n = 500, nsweeps = 600
  real(8), allocatable :: u(:, :), unew(:, :), f(:, :), sbuf(:), rbuf(:)
  real(8) :: diff, gdiff, total, h2
  integer :: i, j, it, ierr, rank, np, px, py, cx, cy, bi, bj
  integer :: ilo0, ihi0, jlo0, jhi0, ilo, ihi, jlo, jhi
  integer :: down, up, left, right, ni, nj
  integer :: dims(2), status(MPI_STATUS_SIZE)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  dims = 0
  call MPI_Dims_create(np, 2, dims, ierr)
  px = dims(1)
  py = dims(2)
  cx = rank / py
  cy = mod(rank, py)
  bi = (n + 2 + px - 1) / px
  bj = (n + 2 + py - 1) / py
  ilo0 = cx * bi
  ihi0 = min(n + 1, (cx + 1) * bi - 1)
  jlo0 = cy * bj
  jhi0 = min(n + 1, (cy + 1) * bj - 1)
  ilo = max(1, ilo0)
  ihi = min(n, ihi0)
  jlo = max(1, jlo0)
  jhi = min(n, jhi0)
  ni = ihi0 - ilo0 + 1
  nj = jhi0 - jlo0 + 1
  down = rank - py
  up = rank + py
  left = rank - 1
  right = rank + 1
  if (cx == 0) down = MPI_PROC_NULL
  if (cx == px - 1) up = MPI_PROC_NULL
  if (cy == 0) left = MPI_PROC_NULL
  if (cy == py - 1) right = MPI_PROC_NULL
  allocate(u(ilo0-1:ihi0+1, jlo0-1:jhi0+1), unew(ilo0-1:ihi0+1, jlo0-1:jhi0+1))
  allocate(f(ilo0-1:ihi0+1, jlo0-1:jhi0+1))
  allocate(sbuf(jlo0:jhi0), rbuf(jlo0:jhi0))
  h2 = 1.0d0 / real((n + 1) * (n + 1), 8)
  do j = jlo0 - 1, jhi0 + 1
    do i = ilo0 - 1, ihi0 + 1
      u(i, j) = 0.0d0
      unew(i, j) = 0.0d0
      f(i, j) = 0.0d0
    end do
  end do
  do j = jlo0, jhi0
    do i = ilo0, ihi0
      f(i, j) = (real(mod(i * 7 + j * 13, 31), 8) / 31.0d0 - 0.5d0) * h2
    end do
  end do
  if (n + 1 >= jlo0 .and. n + 1 <= jhi0) then
    do i = ilo0, ihi0
      u(i, n + 1) = 1.0d0
      unew(i, n + 1) = 1.0d0
    end do
  end if
  total = 0.0d0
  do it = 1, nsweeps
    ! dimension-1 halo: rows, strided, packed over the owned columns
    do j = jlo0, jhi0
      sbuf(j) = u(ilo0, j)
    end do
    call MPI_Sendrecv(sbuf, nj, MPI_DOUBLE_PRECISION, down, 1, &
                      rbuf, nj, MPI_DOUBLE_PRECISION, up, 1, &
                      MPI_COMM_WORLD, status, ierr)
    if (up /= MPI_PROC_NULL) then
      do j = jlo0, jhi0
        u(ihi0 + 1, j) = rbuf(j)
      end do
    end if
    do j = jlo0, jhi0
      sbuf(j) = u(ihi0, j)
    end do
    call MPI_Sendrecv(sbuf, nj, MPI_DOUBLE_PRECISION, up, 2, &
                      rbuf, nj, MPI_DOUBLE_PRECISION, down, 2, &
                      MPI_COMM_WORLD, status, ierr)
    if (down /= MPI_PROC_NULL) then
      do j = jlo0, jhi0
        u(ilo0 - 1, j) = rbuf(j)
      end do
    end if
    ! dimension-2 halo: columns, contiguous over the owned rows
    call MPI_Sendrecv(u(ilo0, jlo0), ni, MPI_DOUBLE_PRECISION, left, 1, &
                      u(ilo0, jhi0 + 1), ni, MPI_DOUBLE_PRECISION, right, 1, &
                      MPI_COMM_WORLD, status, ierr)
    call MPI_Sendrecv(u(ilo0, jhi0), ni, MPI_DOUBLE_PRECISION, right, 2, &
                      u(ilo0, jlo0 - 1), ni, MPI_DOUBLE_PRECISION, left, 2, &
                      MPI_COMM_WORLD, status, ierr)
    diff = 0.0d0
    do j = jlo, jhi
      do i = ilo, ihi
        unew(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1) - f(i, j))
        diff = diff + abs(unew(i, j) - u(i, j))
      end do
    end do
    call MPI_Allreduce(diff, gdiff, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    do j = jlo, jhi
      do i = ilo, ihi
        u(i, j) = unew(i, j)
      end do
    end do
    total = total + gdiff
  end do
  if (rank == 0) then
    print '(a, es16.8)', 'stencil2d change summed over sweeps: ', total
  end if
  call MPI_Finalize(ierr)
end program stencil2d_mpi
