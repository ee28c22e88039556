program k5
  ! integer work: a histogram-free hash mix in L1
  integer, parameter :: n = 1000
  integer :: ia(n), i, r, k
  do i = 1, n
    ia(i) = i
  end do
  k = 0
  do r = 1, 300000
    do i = 1, n
      k = k + ia(i) * 3 + ishft(ia(i), -2)
    end do
    ia(1) = iand(k, 255)
  end do
  print *, k
end program
