!=====================================================================
! transpose_seq.f90 - the pattern of a 2-D FFT: a recurrence down
! every column of a 1024 x 1024 array, a transpose into b, the same
! recurrence down b's columns, a transpose back (scaled), 10 times;
! a checksum printed. Sequential, with HPF directives distributing
! the columns of a and of b BLOCK-wise: each transpose is then an
! all-to-all redistribution. Its MPI twin is transpose_mpi.f90.
! Exercises: column-local work, transposes between two distributed
!   arrays (an all-to-all of n/P x n/P blocks).
!=====================================================================
program transpose_seq
  implicit none
  integer, parameter :: n = 1024, nrep = 10
  real(8) :: a(n, n), b(n, n)
!HPF$ DISTRIBUTE a(*, BLOCK)
!HPF$ DISTRIBUTE b(*, BLOCK)
  real(8) :: check
  integer :: i, j, it

  do j = 1, n
    do i = 1, n
      a(i, j) = real(mod(i * 7 + j * 3, 17), 8) / 17.0d0
    end do
  end do
  do it = 1, nrep
    do j = 1, n
      do i = 2, n
        a(i, j) = a(i, j) + 0.5d0 * a(i - 1, j)
      end do
    end do
    do j = 1, n
      do i = 1, n
        b(i, j) = a(j, i)
      end do
    end do
    do j = 1, n
      do i = 2, n
        b(i, j) = b(i, j) + 0.5d0 * b(i - 1, j)
      end do
    end do
    do j = 1, n
      do i = 1, n
        a(i, j) = 0.25d0 * b(j, i)
      end do
    end do
  end do
  check = 0.0d0
  do j = 1, n
    do i = 1, n
      check = check + a(i, j) * real(mod(i + 2 * j, 5), 8)
    end do
  end do
  print '(a, es16.8)', 'transpose checksum: ', check
end program transpose_seq
