!=====================================================================
! mpi_fft_transpose.f90 - Spectral smoothing of a 768 x 768
! complex(8) field, 8 repetitions. Each repetition is a forward 2-D
! FFT, a multiplication by a Gaussian filter in frequency space and
! the inverse 2-D FFT. The field is split by columns (768/np columns
! per rank; np must divide 768, e.g. 1, 2, 3, 4, 6, 8). A 2-D FFT is
! 1-D FFTs of the local columns, a global transpose and 1-D FFTs of
! the new local columns. The transpose packs one nl x nl block per
! destination, exchanges the blocks with one MPI_Alltoall (768**2/np**2
! complex values per pair) and unpacks them transposed. The 1-D FFT is
! a recursive mixed-radix (2 and 3, 768 = 2**8 * 3) decimation in time
! with a table of twiddle factors; the inverse uses conjugation.
! Every value is computed by the same operations at any np; only the
! final sums are rounded differently.
! Exercises: MPI_Alltoall of large blocks (two per 2-D transform),
!   pack/transpose loops, recursion, complex(8) arithmetic;
!   compute-bound FFTs between memory-bound transposes.
!=====================================================================
program fft_transpose
  use mpi
  implicit none
  integer, parameter :: n = 768, nrep = 8
  integer :: ierr, rank, np, nl, i, j, k1, k2, rep
  complex(8), allocatable :: a(:,:), b(:,:), sbuf(:,:,:), rbuf(:,:,:), tw(:), tmp(:)
  real(8), allocatable :: filt(:,:)
  real(8) :: part(3), tot(3), pi

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  if (mod(n, np) /= 0) then
    if (rank == 0) print '(a,i0)', ' np must divide ', n
    call MPI_Finalize(ierr)
    stop
  end if
  nl = n / np
  allocate(a(n, nl), b(n, nl), sbuf(nl, nl, 0:np-1), rbuf(nl, nl, 0:np-1))
  allocate(tw(0:n-1), tmp(0:n-1), filt(n, nl))
  pi = 4.0d0 * atan(1.0d0)
  do i = 0, n - 1
    tw(i) = cmplx(cos(2 * pi * i / n), -sin(2 * pi * i / n), 8)
  end do
  ! field: a(i, j) is column rank*nl + j of the global matrix
  do j = 1, nl
    do i = 1, n
      a(i, j) = cmplx(real(mod(i * 7 + (rank * nl + j) * 3, 29), 8) / 29.0d0, &
                      real(mod(i + (rank * nl + j) * 11, 13), 8) / 13.0d0 - 0.5d0, 8)
    end do
  end do
  ! filter in the transposed layout: b(k2, j) has frequencies
  ! k1 = rank*nl + j - 1 (first dimension) and k2 - 1 (second)
  do j = 1, nl
    k1 = wrap(rank * nl + j - 1)
    do i = 1, n
      k2 = wrap(i - 1)
      filt(i, j) = exp(-real(k1 * k1 + k2 * k2, 8) / 20000.0d0)
    end do
  end do

  do rep = 1, nrep
    ! forward: columns, transpose, columns
    call fft_cols(a, .false.)
    call transpose(a, b)
    call fft_cols(b, .false.)
    do j = 1, nl
      do i = 1, n
        b(i, j) = b(i, j) * filt(i, j)
      end do
    end do
    ! inverse: columns, transpose back, columns
    call fft_cols(b, .true.)
    call transpose(b, a)
    call fft_cols(a, .true.)
  end do

  part = 0
  do j = 1, nl
    do i = 1, n
      part(1) = part(1) + real(a(i, j), 8)
      part(2) = part(2) + aimag(a(i, j))
      part(3) = part(3) + abs(a(i, j))**2 * real(mod(i + rank * nl + j, 5), 8)
    end do
  end do
  call MPI_Allreduce(part, tot, 3, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    print '(a,es20.12)', ' sum re   ', tot(1)
    print '(a,es20.12)', ' sum im   ', tot(2)
    print '(a,es20.12)', ' weighted ', tot(3)
  end if
  call MPI_Finalize(ierr)

contains

  ! signed frequency of index k in 0..n-1
  integer function wrap(k)
    integer, intent(in) :: k
    wrap = k
    if (k > n / 2) wrap = k - n
  end function wrap

  ! 1-D FFT (or inverse, normalised) of every local column of c
  subroutine fft_cols(c, inverse)
    complex(8), intent(inout) :: c(:,:)
    logical, intent(in) :: inverse
    integer :: jj
    do jj = 1, nl
      if (inverse) c(:, jj) = conjg(c(:, jj))
      call fftr(n, 1, c(:, jj), 0, tmp, 0)
      if (inverse) then
        c(:, jj) = conjg(tmp) / real(n, 8)
      else
        c(:, jj) = tmp
      end if
    end do
  end subroutine fft_cols

  ! y(iy:iy+m-1) = DFT of x(ix), x(ix+s), ..., x(ix+(m-1)s), m = 2**a 3**b
  recursive subroutine fftr(m, s, x, ix, y, iy)
    integer, intent(in) :: m, s, ix, iy
    complex(8), intent(in) :: x(0:)
    complex(8), intent(inout) :: y(0:)
    complex(8) :: t0, t1, t2, w3, w3b
    integer :: p, h, k, ws
    if (m == 1) then
      y(iy) = x(ix)
      return
    end if
    if (mod(m, 2) == 0) then
      p = 2
    else
      p = 3
    end if
    h = m / p
    call fftr(h, s * p, x, ix, y, iy)
    call fftr(h, s * p, x, ix + s, y, iy + h)
    if (p == 3) call fftr(h, s * p, x, ix + 2 * s, y, iy + 2 * h)
    ws = n / m
    if (p == 2) then
      do k = 0, h - 1
        t0 = y(iy + k)
        t1 = y(iy + h + k) * tw(k * ws)
        y(iy + k) = t0 + t1
        y(iy + h + k) = t0 - t1
      end do
    else
      w3 = tw(n / 3)
      w3b = tw(2 * (n / 3))
      do k = 0, h - 1
        t0 = y(iy + k)
        t1 = y(iy + h + k) * tw(k * ws)
        t2 = y(iy + 2 * h + k) * tw(2 * k * ws)
        y(iy + k) = t0 + t1 + t2
        y(iy + h + k) = t0 + t1 * w3 + t2 * w3b
        y(iy + 2 * h + k) = t0 + t1 * w3b + t2 * w3
      end do
    end if
  end subroutine fftr

  ! global transpose: c (columns of M) -> d (columns of M^T)
  subroutine transpose(c, d)
    complex(8), intent(in) :: c(:,:)
    complex(8), intent(out) :: d(:,:)
    integer :: ii, jj, q
    do q = 0, np - 1
      do jj = 1, nl
        do ii = 1, nl
          sbuf(ii, jj, q) = c(q * nl + ii, jj)
        end do
      end do
    end do
    call MPI_Alltoall(sbuf, nl * nl, MPI_DOUBLE_COMPLEX, rbuf, nl * nl, MPI_DOUBLE_COMPLEX, &
         MPI_COMM_WORLD, ierr)
    do q = 0, np - 1
      do jj = 1, nl
        do ii = 1, nl
          d(q * nl + jj, ii) = rbuf(ii, jj, q)
        end do
      end do
    end do
  end subroutine transpose

end program fft_transpose
