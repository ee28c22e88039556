!=====================================================================
! mixed/consts.f90 - module (compile first) for the mixed F77/F90
! program: kinds, sizes and the shared COMMON block layout declared
! once for the free-form side.
!=====================================================================
module consts
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nx = 160, ny = 160
  ! the same COMMON block is declared in the fixed-form files
  real(dp) :: psi(nx, ny), omg(nx, ny)
  integer :: niter
  common /field/ psi, omg, niter
end module consts
