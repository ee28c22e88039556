subroutine sink(y)
  real :: y(*)
end subroutine
