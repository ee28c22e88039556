program k6
  ! a physics-like loop body: several statements, temporaries, a divide and a square root
  integer, parameter :: n = 500
  real(8) :: x(n), y(n), z(n), f(n), e
  real(8) :: dx, dy, r2, rinv
  integer :: i, r
  do i = 1, n
    x(i) = i * 1.0d-3; y(i) = 1.0d0 + i * 2.0d-3; z(i) = 0
  end do
  e = 0
  do r = 1, 100000
    do i = 1, n
      dx = x(i) - 0.5d0
      dy = y(i) - 0.25d0
      r2 = dx*dx + dy*dy + 1.0d-2
      rinv = 1.0d0 / sqrt(r2)
      f(i) = dx * rinv * rinv * rinv
      z(i) = z(i) + f(i) * 1.0d-9
    end do
  end do
  print *, z(7)
end program
