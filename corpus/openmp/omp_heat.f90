!=====================================================================
! omp_heat.f90 - Explicit 2-D heat equation on a 1200 x 1200 grid with
! a fixed hot boundary edge and a pulsing point source, nsteps time
! steps, the whole time loop INSIDE one parallel region:
!   !$omp do          5-point update from level old into level new
!                     (implicit barrier at END DO),
!   !$omp single      swap the two time levels (shared index cur),
!                     add the source, record a probe value (implicit
!                     barrier at END SINGLE publishes cur to all),
!   every kn steps    !$omp do REDUCTION(+:sq) of the squared
!                     change, its square root kept by a SINGLE.
! Grid values are computed by the same expression in any thread
! count; the reduced norms are order dependent in the last bits and
! are printed rounded to 6 decimals (nint(x * 1e6) of numbers of size
! about 1e-2 to 1e2); the final grid checksum is summed serially.
! Exercises: a time loop inside !$omp parallel, !$omp do with implicit
!   barriers, !$omp single for the serial step work, shared level
!   index read after a barrier, REDUCTION(+:) inside the region on a
!   shared variable reset in a SINGLE, 3-D array u(0:n+1,0:n+1,0:1).
! Runtime class: stencil, array-bound (2 x 11.6 MB static array,
!   L3-resident).
!=====================================================================
program omp_heat
  implicit none
  integer, parameter :: dp = kind(1.0d0), i8 = selected_int_kind(18)
  integer, parameter :: n = 1200, nsteps = 190, kn = 20
  real(dp), parameter :: alpha = 0.24_dp
  real(dp), save :: u(0:n+1, 0:n+1, 0:1)
  real(dp) :: sq, d, nsum, probe, normlast
  integer :: i, j, step, cur, old, new, nnorm
  integer(i8) :: chk

  cur = 0
  sq = 0.0_dp
  nsum = 0.0_dp
  probe = 0.0_dp
  normlast = 0.0_dp
  nnorm = 0

!$omp parallel private(i, j, step, old, new, d)
  ! parallel first touch
!$omp do
  do j = 0, n + 1
    do i = 0, n + 1
      u(i, j, 0) = 0.0_dp
      u(i, j, 1) = 0.0_dp
    end do
  end do
!$omp end do
!$omp single
  u(0, :, 0) = 1.0_dp
  u(0, :, 1) = 1.0_dp
!$omp end single

  do step = 1, nsteps
    old = cur
    new = 1 - cur
!$omp do
    do j = 1, n
      do i = 1, n
        u(i, j, new) = u(i, j, old) + alpha * (u(i-1, j, old) + u(i+1, j, old) &
                     + u(i, j-1, old) + u(i, j+1, old) - 4.0_dp * u(i, j, old))
      end do
    end do
!$omp end do
!$omp single
    cur = new
    u(2*n/3, n/3, cur) = u(2*n/3, n/3, cur) + 0.5_dp * real(mod(step, 7), dp)
    probe = probe + u(2*n/3 + 2, n/3 + 1, cur) + u(3, n/2, cur)
!$omp end single
    if (mod(step, kn) == 0) then
!$omp single
      sq = 0.0_dp
!$omp end single
!$omp do reduction(+:sq)
      do j = 1, n
        do i = 1, n
          d = u(i, j, new) - u(i, j, old)
          sq = sq + d * d
        end do
      end do
!$omp end do
!$omp single
      normlast = sqrt(sq)
      nsum = nsum + normlast
      nnorm = nnorm + 1
!$omp end single
    end if
  end do
!$omp end parallel

  chk = 0_i8
  do j = 1, n
    do i = 1, n
      chk = chk + nint(u(i, j, cur) * 1.0e6_dp, i8)
    end do
  end do

  print '(a,i0,a,i0,a,i0)', ' OMP_HEAT n=', n, ' nsteps=', nsteps, ' norms=', nnorm
  print '(a,i0,a,i0)', ' grid sum*1e6=', chk, ' probe*1e6=', nint(probe * 1.0e6_dp, i8)
  print '(a,i0,a,i0)', ' norm sum*1e6=', nint(nsum * 1.0e6_dp, i8), ' last norm*1e6=', nint(normlast * 1.0e6_dp, i8)
end program omp_heat
