!=====================================================================
! lu_cyclic_seq.f90 - LU factorization without pivoting of a 1200 x 1200
! diagonally dominant matrix (right-looking, column k's multipliers
! then the trailing update), the determinant's log and a checksum of
! the factors printed. Sequential, with HPF directives dealing the
! columns of a CYCLIC-wise over the processors (the load stays even
! as the trailing matrix shrinks). Its MPI twin is lu_cyclic_mpi.f90.
! Exercises: CYCLIC columns, the owner of column k computing its
!   multipliers, a broadcast of column k per step, a triangular nest.
!=====================================================================
program lu_cyclic_seq
  implicit none
  integer, parameter :: n = 1200
  real(8) :: a(n, n)
!HPF$ DISTRIBUTE a(*, CYCLIC)
  real(8) :: logdet, check
  integer :: i, j, k

  do j = 1, n
    do i = 1, n
      a(i, j) = 1.0d0 / real(1 + abs(i - j), 8) + real(mod(i * 3 + j * 5, 11), 8) * 1.0d-3
    end do
  end do
  do j = 1, n
    a(j, j) = a(j, j) + real(n, 8)
  end do
  do k = 1, n - 1
    do i = k + 1, n
      a(i, k) = a(i, k) / a(k, k)
    end do
    do j = k + 1, n
      do i = k + 1, n
        a(i, j) = a(i, j) - a(i, k) * a(k, j)
      end do
    end do
  end do
  logdet = 0.0d0
  check = 0.0d0
  do j = 1, n
    logdet = logdet + log(abs(a(j, j)))
    do i = 1, n
      check = check + a(i, j) * real(mod(i + j, 7), 8)
    end do
  end do
  print '(a, es16.8)', 'lu log|det|: ', logdet
  print '(a, es16.8)', 'lu checksum: ', check
end program lu_cyclic_seq
