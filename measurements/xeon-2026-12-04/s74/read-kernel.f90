subroutine augread(n, a, c)
  implicit none
  integer(8), intent(in) :: n
  real(8), intent(in) :: a(n)
  real(8), intent(inout) :: c(n)
  real(8) :: s1, s2, s3, s4, s5, s6, s7, s8
  integer(8) :: i
  s1 = 0; s2 = 0; s3 = 0; s4 = 0; s5 = 0; s6 = 0; s7 = 0; s8 = 0
  do i = 1, n - 7, 8
    s1 = s1 + a(i); s2 = s2 + a(i+1); s3 = s3 + a(i+2); s4 = s4 + a(i+3)
    s5 = s5 + a(i+4); s6 = s6 + a(i+5); s7 = s7 + a(i+6); s8 = s8 + a(i+7)
  end do
  c(1) = c(1) + ((s1 + s2) + (s3 + s4)) + ((s5 + s6) + (s7 + s8))
end subroutine
subroutine augtriad(n, a, b, c, q)
  integer(8), intent(in) :: n
  real(8), intent(inout) :: a(n), b(n), c(n)
  real(8), intent(in) :: q
  a = b + q * c
end subroutine
