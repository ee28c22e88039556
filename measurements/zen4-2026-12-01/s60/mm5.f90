module blk
  implicit none
contains
  subroutine mmsub(a, b, c)
    real(8), intent(in) :: a(5,5), b(5,5)
    real(8), intent(inout) :: c(5,5)
    integer :: i, j, l
    do j = 1, 5
      do l = 1, 5
        do i = 1, 5
          c(i,j) = c(i,j) - a(i,l) * b(l,j)
        end do
      end do
    end do
  end subroutine
  subroutine matvec_sub(a, v, r)
    real(8), intent(in) :: a(5,5), v(5)
    real(8), intent(inout) :: r(5)
    integer :: i, j
    do j = 1, 5
      do i = 1, 5
        r(i) = r(i) - a(i,j) * v(j)
      end do
    end do
  end subroutine
end module
program mm5
  use blk
  implicit none
  integer, parameter :: nb = 64
  real(8) :: a(5,5,nb), b(5,5,nb), c(5,5,nb), r(5,nb), v(5,nb)
  integer :: i, t, reps
  integer(8) :: c0, c1, rate
  real(8) :: t1, t2
  character(16) :: arg
  reps = 200000
  a = 0.001d0; b = 0.002d0; c = 1; r = 1; v = 0.5d0
  call system_clock(c0, rate)
  do t = 1, reps
    do i = 1, nb
      call mmsub(a(:,:,i), b(:,:,i), c(:,:,i))
    end do
  end do
  call system_clock(c1)
  t1 = dble(c1 - c0) / rate / (dble(reps) * nb * 25) * 1d9
  call system_clock(c0, rate)
  do t = 1, reps * 5
    do i = 1, nb
      call matvec_sub(a(:,:,i), v(:,i), r(:,i))
    end do
  end do
  call system_clock(c1)
  t2 = dble(c1 - c0) / rate / (dble(reps) * 5 * nb * 5) * 1d9
  print '(a,f7.3,a,f7.3)', 'ns per L iteration: mmsub ', t1, '  matvec_sub ', t2
  print *, sum(c), sum(r)
end program
