!=====================================================================
! mpi_cg.f90 - Conjugate gradients on the 5-point Laplacian of a
! 1000 x 1000 grid (zero Dirichlet edges, matrix-free stencil) with a
! fixed right-hand side, exactly 160 iterations from x = 0 (no
! convergence test, so the work is the same at every np). The grid
! rows are split among the ranks (remainder rows to the first ranks).
! Each iteration exchanges one row of the search direction with each
! neighbouring rank by MPI_Sendrecv (even ranks talk upwards first,
! odd ranks downwards first; the global edges are skipped by
! if-tests), applies the stencil, and needs two global dot products
! (MPI_Allreduce of one double each) around the three vector
! updates. 160 iterations are far from convergence (the residual's
! 2-norm is not monotone in CG and ends above its start). The dot
! products are rounded differently at each np, so the printed norms
! agree to about 10 digits.
! Exercises: MPI_Sendrecv of 8 KB rows with parity ordering, two
!   latency-bound MPI_Allreduce per iteration, memory-bound vector
!   updates and stencil.
!=====================================================================
program cg
  use mpi
  implicit none
  integer, parameter :: nx = 1000, ny = 1000, niter = 160
  integer :: ierr, rank, np, nloc, j0, it, i, j
  real(8), allocatable :: x(:,:), r(:,:), p(:,:), q(:,:)
  real(8) :: rr, rrnew, pq, alpha, beta, loc, sx(2), tx(2), rr0

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  nloc = ny / np
  j0 = rank * nloc + min(rank, mod(ny, np))
  if (rank < mod(ny, np)) nloc = nloc + 1

  allocate(x(nx, nloc), r(nx, nloc), q(nx, nloc), p(0:nx+1, 0:nloc+1))
  p = 0
  x = 0
  do j = 1, nloc
    do i = 1, nx
      r(i, j) = real(mod(3 * i + 5 * (j0 + j), 23), 8) / 23.0d0 - 0.4d0
      p(i, j) = r(i, j)
    end do
  end do
  rr = dot(r, r)
  rr0 = rr

  do it = 1, niter
    call halo(p)
    do j = 1, nloc
      do i = 1, nx
        q(i, j) = 4.0d0 * p(i, j) - p(i-1, j) - p(i+1, j) - p(i, j-1) - p(i, j+1)
      end do
    end do
    loc = 0
    do j = 1, nloc
      do i = 1, nx
        loc = loc + p(i, j) * q(i, j)
      end do
    end do
    call MPI_Allreduce(loc, pq, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    alpha = rr / pq
    do j = 1, nloc
      do i = 1, nx
        x(i, j) = x(i, j) + alpha * p(i, j)
        r(i, j) = r(i, j) - alpha * q(i, j)
      end do
    end do
    rrnew = dot(r, r)
    beta = rrnew / rr
    rr = rrnew
    do j = 1, nloc
      do i = 1, nx
        p(i, j) = r(i, j) + beta * p(i, j)
      end do
    end do
  end do

  sx = 0
  do j = 1, nloc
    do i = 1, nx
      sx(1) = sx(1) + x(i, j)
      sx(2) = sx(2) + x(i, j)**2
    end do
  end do
  call MPI_Allreduce(sx, tx, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    print '(a,es18.10)', ' |r0|     ', sqrt(rr0)
    print '(a,es18.10)', ' |r|      ', sqrt(rr)
    print '(a,es18.10)', ' sum x    ', tx(1)
    print '(a,es18.10)', ' |x|      ', sqrt(tx(2))
  end if
  call MPI_Finalize(ierr)

contains

  ! global dot product of two distributed vectors
  real(8) function dot(a, b)
    real(8), intent(in) :: a(:,:), b(:,:)
    real(8) :: s
    integer :: ii, jj
    s = 0
    do jj = 1, nloc
      do ii = 1, nx
        s = s + a(ii, jj) * b(ii, jj)
      end do
    end do
    call MPI_Allreduce(s, dot, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end function dot

  ! exchange the edge rows of a with the ranks above and below
  subroutine halo(a)
    real(8), intent(inout) :: a(0:, 0:)
    integer :: phase
    integer :: st(MPI_STATUS_SIZE)
    do phase = 0, 1
      if (mod(rank + phase, 2) == 0) then
        if (rank < np - 1) &
          call MPI_Sendrecv(a(1, nloc), nx, MPI_DOUBLE_PRECISION, rank + 1, 1, &
               a(1, nloc+1), nx, MPI_DOUBLE_PRECISION, rank + 1, 2, MPI_COMM_WORLD, st, ierr)
      else
        if (rank > 0) &
          call MPI_Sendrecv(a(1, 1), nx, MPI_DOUBLE_PRECISION, rank - 1, 2, &
               a(1, 0), nx, MPI_DOUBLE_PRECISION, rank - 1, 1, MPI_COMM_WORLD, st, ierr)
      end if
    end do
  end subroutine halo

end program cg
