!=====================================================================
! cg.f90 - Conjugate gradient solution of a sparse symmetric
! positive definite system: the 2-D 5-point Laplacian plus a
! diagonal shift on a 400 x 400 grid, stored in compressed sparse
! row (CSR) form. Matrix-vector products use indirect column
! indices; vector updates use array syntax and dot_product.
! Exercises: derived type holding allocatable CSR arrays, indirect
!   loads x(col(k)), dot_product, sqrt, array syntax axpy,
!   DO WHILE convergence loop with EXIT, module procedures.
! Runtime class: memory/array-bound (indirect, ~16 MB).
!=====================================================================
module sparse
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  type :: csr
    integer :: n, nnz
    integer, allocatable :: rowptr(:), col(:)
    real(dp), allocatable :: val(:)
  end type csr
contains
  subroutine build_laplace(a, m, shift)
    type(csr), intent(out) :: a
    integer, intent(in) :: m
    real(dp), intent(in) :: shift
    integer :: i, j, r, k
    a%n = m * m
    allocate(a%rowptr(a%n + 1), a%col(5 * a%n), a%val(5 * a%n))
    k = 0
    do j = 1, m
      do i = 1, m
        r = i + (j - 1) * m
        a%rowptr(r) = k + 1
        if (j > 1) call put(r - m, -1.0_dp)
        if (i > 1) call put(r - 1, -1.0_dp)
        call put(r, 4.0_dp + shift)
        if (i < m) call put(r + 1, -1.0_dp)
        if (j < m) call put(r + m, -1.0_dp)
      end do
    end do
    a%rowptr(a%n + 1) = k + 1
    a%nnz = k
  contains
    subroutine put(c, v)
      integer, intent(in) :: c
      real(dp), intent(in) :: v
      k = k + 1
      a%col(k) = c
      a%val(k) = v
    end subroutine put
  end subroutine build_laplace

  subroutine matvec(a, x, y)
    type(csr), intent(in) :: a
    real(dp), intent(in) :: x(:)
    real(dp), intent(out) :: y(:)
    integer :: r, k
    real(dp) :: s
    do r = 1, a%n
      s = 0.0_dp
      do k = a%rowptr(r), a%rowptr(r + 1) - 1
        s = s + a%val(k) * x(a%col(k))
      end do
      y(r) = s
    end do
  end subroutine matvec
end module sparse

program cg
  use sparse
  implicit none
  integer, parameter :: m = 400, maxit = 600
  type(csr) :: a
  real(dp), allocatable :: x(:), b(:), r(:), p(:), q(:)
  real(dp) :: rho, rho0, alpha, beta, tol, res
  integer :: it, i

  call build_laplace(a, m, 0.01_dp)
  allocate(x(a%n), b(a%n), r(a%n), p(a%n), q(a%n))
  do i = 1, a%n
    b(i) = sin(0.01_dp * i) + 1.0_dp
  end do
  x = 0.0_dp
  r = b
  p = r
  rho = dot_product(r, r)
  rho0 = rho
  tol = 1.0e-20_dp * rho0
  it = 0
  do while (it < maxit)
    it = it + 1
    call matvec(a, p, q)
    alpha = rho / dot_product(p, q)
    x = x + alpha * p
    r = r - alpha * q
    beta = dot_product(r, r)
    if (beta < tol) exit
    p = r + (beta / rho) * p
    rho = beta
  end do
  call matvec(a, x, q)
  res = sqrt(sum((q - b)**2))
  print '(a,i5,a,i8,a,es12.4,a,es22.14)', ' CG it=', it, ' nnz=', a%nnz, ' res=', res, ' xsum=', sum(x)
end program cg
