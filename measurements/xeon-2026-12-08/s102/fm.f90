! fmod in a loop of independent calls: the quotient's branch random or always the same
program fm
  implicit none
  integer, parameter :: n = 512, reps = 200000
  real(8) :: x(n), y(n), d, t0, t1
  integer :: r, i, m
  character(24) :: what(4) = [character(24) :: 'random q 0/1 (x in 1..2)', 'always q 1 (x in 1.1..2)', &
       'always q 0 (x < 1.1)', 'q 1..3, random']
  call random_number(x)
  read '(f3.1)', d   ! 1.1 from the input, unknown to the compiler
  do m = 1, 4
    call random_number(x)
    select case (m)
    case (1); x = 1 + x
    case (2); x = 1.1d0 + 0.9d0 * x
    case (3); x = 1.05d0 * x
    case (4); x = 1.1d0 + 3.3d0 * x
    end select
    call cpu_time(t0)
    do r = 1, reps
      do i = 1, n
        y(i) = mod(x(i), d)
      end do
      x(mod(r, n) + 1) = x(mod(r, n) + 1) + y(n) * 1d-30
    end do
    call cpu_time(t1)
    print '(a, f8.3, a)', what(m), (t1 - t0) / (dble(n) * reps) * 1d9, ' ns a call'
  end do
end program
