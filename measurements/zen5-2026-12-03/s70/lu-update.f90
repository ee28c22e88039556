program lu
  implicit none
  integer :: lda, n, k, j, i, r, ks
  double precision, allocatable :: a(:,:)
  double precision :: t, tt
  integer(8) :: t0, t1, tr, cnt
  character(len=8) :: arg
  call get_command_argument(1, arg); read(arg,*) lda
  call get_command_argument(2, arg); read(arg,*) ks
  n = 1450
  allocate(a(lda, n))
  do j = 1, n
    do i = 1, lda
      a(i,j) = 1d-6 * mod(i*j, 13)
    end do
  end do
  cnt = 0
  call system_clock(t0, tr)
  do r = 1, 3
  do k = ks, min(ks + 200, n-1)
    do j = k + 1, n
      t = a(k, j)
      do i = k + 1, n
        a(i,j) = a(i,j) - a(i,k) * t
      end do
    end do
    cnt = cnt + int(n-k,8)*int(n-k,8)
  end do
  end do
  call system_clock(t1)
  tt = real(t1-t0,8)/tr
  print '(a,i6,a,i6,a,f8.3,a,es10.3)', 'lda', lda, ' k from', ks, ' ns/iter', tt/cnt*1d9, ' sum', sum(a(:,n))
end program
