module nbm
  implicit none
  integer, parameter :: n = 128
  real(8) :: x(3,n), xdot(3,n), body(n), firr(3), fd(3)
contains
  subroutine nbint(i)
    integer, intent(in) :: i
    real(8) :: xi(3), xidot(3), dv(3), a1, a2, a3, rij2, dr2i, dr3i, drdv
    integer :: j, k
    do k = 1, 3
      xi(k) = x(k,i); xidot(k) = xdot(k,i); firr(k) = 0; fd(k) = 0
    end do
    do j = 1, n
      if (j == i) cycle
      a1 = x(1,j) - xi(1); a2 = x(2,j) - xi(2); a3 = x(3,j) - xi(3)
      dv(1) = xdot(1,j) - xidot(1); dv(2) = xdot(2,j) - xidot(2); dv(3) = xdot(3,j) - xidot(3)
      rij2 = a1*a1 + a2*a2 + a3*a3
#ifdef NODIV
      dr2i = rij2
#else
      dr2i = 1.0/rij2
#endif
#ifdef NOSQRT
      dr3i = body(j)*dr2i*dr2i
#else
      dr3i = body(j)*dr2i*sqrt(dr2i)
#endif
      drdv = 3.0*(a1*dv(1) + a2*dv(2) + a3*dv(3))*dr2i
      firr(1) = firr(1) + a1*dr3i
      firr(2) = firr(2) + a2*dr3i
      firr(3) = firr(3) + a3*dr3i
      fd(1) = fd(1) + (dv(1) - a1*drdv)*dr3i
      fd(2) = fd(2) + (dv(2) - a2*drdv)*dr3i
      fd(3) = fd(3) + (dv(3) - a3*drdv)*dr3i
    end do
  end subroutine
end module
program main
  use nbm
  implicit none
  integer :: i, r, nrep
  integer(8) :: c0, c1, rate
  real(8) :: s, best, t
  call random_number(x); call random_number(xdot); call random_number(body)
  nrep = 4000
  best = 1d9; s = 0
  do r = 1, 7
    call system_clock(c0, rate)
    do i = 1, nrep
      call nbint(mod(i,n)+1)
      s = s + firr(1)
    end do
    call system_clock(c1)
    t = real(c1-c0,8)/rate/(nrep*(n-1))*1d9
    best = min(best, t)
    print '(f8.3)', t
  end do
  print '(a,f8.3,a,es12.4)', 'best ns/iter ', best, '  ', s
end program
