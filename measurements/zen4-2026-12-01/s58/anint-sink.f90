subroutine sink(y)
  real(8) :: y(*)
  if (y(1) < -1d300) print *, y(1)
end subroutine
