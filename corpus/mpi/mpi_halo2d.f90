!=====================================================================
! mpi_halo2d.f90 - 2-D Jacobi relaxation of a Poisson problem on a
! 1000 x 1000 interior grid (Dirichlet edges: 1 on the top edge
! rising with x, 0 elsewhere; a fixed source term), 400 sweeps. The
! grid is split into px x py blocks (px*py = np, px the largest
! divisor of np with px*px <= np: 1x1, 1x2, 1x3, 2x2), block sizes
! with remainders spread over the first blocks. Neighbours are
! computed by hand from the block coordinates; at the edges of the
! global grid the exchange is skipped by if-tests (no MPI_PROC_NULL).
! Each sweep exchanges one halo line with each existing neighbour
! with MPI_Irecv/MPI_Isend and one MPI_Waitall: the y-neighbours get
! contiguous rows, the x-neighbours get strided columns that are
! packed into (and unpacked from) buffers by loops. Every 10th sweep
! the squared change is summed over all ranks (MPI_Allreduce).
! Each point's value does not depend on np; only the final sums are
! rounded differently.
! Exercises: hand-made 2-D decomposition, MPI_Isend/MPI_Irecv/
!   MPI_Waitall with a variable number of requests, pack/unpack
!   loops, MPI_Allreduce of one double; memory-bound stencil.
!=====================================================================
program halo2d
  use mpi
  implicit none
  integer, parameter :: n = 1000, nsweeps = 400
  integer :: ierr, rank, np, px, py, rx, ry, i0, j0, nx, ny
  integer :: west, east, south, north, sweep
  real(8), allocatable :: u(:,:), v(:,:), f(:,:)
  real(8), allocatable :: sendw(:), recvw(:), sende(:), recve(:)
  real(8) :: h2, resg, part(2), tot(2)
  integer :: i, j

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)

  ! process grid: px the largest divisor of np not above sqrt(np)
  px = 1
  do i = 1, np
    if (i * i > np) exit
    if (mod(np, i) == 0) px = i
  end do
  py = np / px
  rx = mod(rank, px)
  ry = rank / px
  call block(n, px, rx, i0, nx)
  call block(n, py, ry, j0, ny)
  west = -1; east = -1; south = -1; north = -1
  if (rx > 0) west = rank - 1
  if (rx < px - 1) east = rank + 1
  if (ry > 0) south = rank - px
  if (ry < py - 1) north = rank + px

  allocate(u(0:nx+1, 0:ny+1), v(0:nx+1, 0:ny+1), f(nx, ny))
  allocate(sendw(ny), recvw(ny), sende(ny), recve(ny))
  h2 = 1.0d0 / real(n + 1, 8)**2
  u = 0
  ! Dirichlet values on the global top edge (j = n+1): x / (n+1)
  if (north < 0) then
    do i = 0, nx + 1
      u(i, ny+1) = real(i0 + i, 8) / real(n + 1, 8)
    end do
  end if
  v = u
  do j = 1, ny
    do i = 1, nx
      f(i, j) = real(mod((i0 + i) * 7 + (j0 + j) * 13, 31), 8) / 31.0d0 - 0.5d0
    end do
  end do

  resg = 0
  do sweep = 1, nsweeps, 2
    call exchange(u)
    call relax(u, v, mod(sweep, 10) == 0)
    call exchange(v)
    call relax(v, u, mod(sweep + 1, 10) == 0)
  end do

  part = 0
  do j = 1, ny
    do i = 1, nx
      part(1) = part(1) + u(i, j)
      part(2) = part(2) + u(i, j) * real(mod(i0 + i + 3 * (j0 + j), 17), 8)
    end do
  end do
  call MPI_Allreduce(part, tot, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    print '(a,i0,a,i0)', ' process grid ', px, ' x ', py
    print '(a,es20.12)', ' sum u      ', tot(1)
    print '(a,es20.12)', ' weighted   ', tot(2)
    print '(a,es14.6)', ' last change ', resg
  end if
  call MPI_Finalize(ierr)

contains

  ! first index (offset) and length of block k of n points split in p
  subroutine block(n, p, k, off, len)
    integer, intent(in) :: n, p, k
    integer, intent(out) :: off, len
    len = n / p
    off = k * len + min(k, mod(n, p))
    if (k < mod(n, p)) len = len + 1
  end subroutine block

  ! halo exchange of a with the existing neighbours
  subroutine exchange(a)
    real(8), intent(inout) :: a(0:, 0:)
    integer :: req(8), nreq, k
    nreq = 0
    if (west >= 0) then
      do k = 1, ny
        sendw(k) = a(1, k)
      end do
      call MPI_Irecv(recvw(1), ny, MPI_DOUBLE_PRECISION, west, 1, MPI_COMM_WORLD, req(nreq+1), ierr)
      call MPI_Isend(sendw(1), ny, MPI_DOUBLE_PRECISION, west, 2, MPI_COMM_WORLD, req(nreq+2), ierr)
      nreq = nreq + 2
    end if
    if (east >= 0) then
      do k = 1, ny
        sende(k) = a(nx, k)
      end do
      call MPI_Irecv(recve(1), ny, MPI_DOUBLE_PRECISION, east, 2, MPI_COMM_WORLD, req(nreq+1), ierr)
      call MPI_Isend(sende(1), ny, MPI_DOUBLE_PRECISION, east, 1, MPI_COMM_WORLD, req(nreq+2), ierr)
      nreq = nreq + 2
    end if
    if (south >= 0) then
      call MPI_Irecv(a(1, 0), nx, MPI_DOUBLE_PRECISION, south, 3, MPI_COMM_WORLD, req(nreq+1), ierr)
      call MPI_Isend(a(1, 1), nx, MPI_DOUBLE_PRECISION, south, 4, MPI_COMM_WORLD, req(nreq+2), ierr)
      nreq = nreq + 2
    end if
    if (north >= 0) then
      call MPI_Irecv(a(1, ny+1), nx, MPI_DOUBLE_PRECISION, north, 4, MPI_COMM_WORLD, req(nreq+1), ierr)
      call MPI_Isend(a(1, ny), nx, MPI_DOUBLE_PRECISION, north, 3, MPI_COMM_WORLD, req(nreq+2), ierr)
      nreq = nreq + 2
    end if
    if (nreq > 0) call MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE, ierr)
    if (west >= 0) then
      do k = 1, ny
        a(0, k) = recvw(k)
      end do
    end if
    if (east >= 0) then
      do k = 1, ny
        a(nx+1, k) = recve(k)
      end do
    end if
  end subroutine exchange

  ! one Jacobi sweep a -> b; with check, the global squared change
  subroutine relax(a, b, check)
    real(8), intent(in) :: a(0:, 0:)
    real(8), intent(inout) :: b(0:, 0:)
    logical, intent(in) :: check
    real(8) :: d, s
    integer :: ii, jj
    do jj = 1, ny
      do ii = 1, nx
        b(ii, jj) = 0.25d0 * (a(ii-1, jj) + a(ii+1, jj) + a(ii, jj-1) + a(ii, jj+1) &
                    + h2 * f(ii, jj))
      end do
    end do
    if (check) then
      s = 0
      do jj = 1, ny
        do ii = 1, nx
          d = b(ii, jj) - a(ii, jj)
          s = s + d * d
        end do
      end do
      call MPI_Allreduce(s, resg, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    end if
  end subroutine relax

end program halo2d
