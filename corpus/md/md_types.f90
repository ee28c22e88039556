!=====================================================================
! md/md_types.f90 - module (compile first) for the multi-file
! molecular-dynamics program: kinds, system parameters, the particle
! derived type and the cell-list storage.
!=====================================================================
module md_types
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nside = 14              ! particles per lattice side
  integer, parameter :: npart = nside**3        ! 2744 particles
  real(dp), parameter :: density = 0.8_dp, rcut = 2.5_dp, dt = 0.004_dp
  type :: particles
    real(dp), allocatable :: x(:,:), v(:,:), f(:,:)
    real(dp) :: box, epot, ekin
  end type particles
  integer :: ncell                               ! cells per side
  integer, allocatable :: head(:), next(:)
end module md_types
