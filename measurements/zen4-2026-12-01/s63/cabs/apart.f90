module m
  complex(4) :: xc41(513)
  real(4) :: yr41(513)
end module
subroutine k(reps)
  use m
  integer(8) :: reps, r
  integer :: i
  do r = 1, reps
    do i = 1, 512
      yr41(i) = abs(xc41(i))
    end do
    call sink(yr41)
  end do
end subroutine
