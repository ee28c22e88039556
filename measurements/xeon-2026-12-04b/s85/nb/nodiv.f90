program nb
  implicit none
  integer, parameter :: n = 128
  real(8) :: x(3,n), xdot(3,n), body(n), firr(3), fd(3)
  integer :: i, rep, nrep
  real(8) :: t0, t1, s
  do i = 1, n
    x(:,i) = [sin(1.0d0*i), cos(2.0d0*i), sin(3.0d0*i)] * 10
    xdot(:,i) = [cos(1.5d0*i), sin(2.5d0*i), cos(0.5d0*i)]
    body(i) = 1.0d0 / n
  end do
  nrep = 400000
  s = 0
  call cpu_time(t0)
  do rep = 1, nrep
    i = mod(rep, n) + 1
    call force(i, n, x, xdot, body, firr, fd)
    s = s + firr(1) + fd(2)
  end do
  call cpu_time(t1)
  print '(a,f8.3,a,es12.4)', 'ns/iter', (t1-t0)/(dble(nrep)*(n-1))*1d9, ' s', s
end program
subroutine force(i, nmass, x, xdot, body, firr, fd)
  implicit none
  integer :: i, nmass, j, k
  real(8) :: x(3,*), xdot(3,*), body(*), firr(3), fd(3)
  real(8) :: xi(3), xidot(3), dv(3), a1, a2, a3, rij2, dr2i, dr3i, drdv
  do k = 1, 3
    xi(k) = x(k,i); xidot(k) = xdot(k,i); firr(k) = 0; fd(k) = 0
  end do
  do j = 1, nmass
    if (j .eq. i) cycle
    a1 = x(1,j) - xi(1)
    a2 = x(2,j) - xi(2)
    a3 = x(3,j) - xi(3)
    dv(1) = xdot(1,j) - xidot(1)
    dv(2) = xdot(2,j) - xidot(2)
    dv(3) = xdot(3,j) - xidot(3)
    rij2 = a1*a1 + a2*a2 + a3*a3
    dr2i = rij2
    dr3i = body(j)*dr2i*sqrt(dr2i)
    drdv = 3.0*(a1*dv(1) + a2*dv(2) + a3*dv(3))*dr2i
    firr(1) = firr(1) + a1*dr3i
    firr(2) = firr(2) + a2*dr3i
    firr(3) = firr(3) + a3*dr3i
    fd(1) = fd(1) + (dv(1) - a1*drdv)*dr3i
    fd(2) = fd(2) + (dv(2) - a2*drdv)*dr3i
    fd(3) = fd(3) + (dv(3) - a3*drdv)*dr3i
  end do
end subroutine
