!=====================================================================
! boxmuller.f90 - Gaussian random variates by the Box-Muller
! transform from an own 64-bit LCG (no random_number), used for a
! Monte Carlo option-pricing style estimate (geometric Brownian
! motion paths) and moment statistics of the samples.
! Exercises: integer(8) LCG with modulo, log, sqrt, sin, cos, exp,
!   max, real(8) accumulation, pure elemental function, module
!   state variable (save), intent(inout) arguments.
! Runtime class: compute-bound (intrinsics), call-bound.
!=====================================================================
module rng
  implicit none
  integer, parameter :: dp = kind(1.0d0), i8 = selected_int_kind(18)
  integer(i8), save :: state = 987654321_i8
  logical, save :: have_spare = .false.
  real(dp), save :: spare
contains
  real(dp) function uniform()
    state = modulo(state * 2862933_i8 + 1013904223_i8, 2147483648_i8)
    uniform = (real(state, dp) + 0.5_dp) / 2147483648.0_dp
  end function uniform

  real(dp) function gauss()
    real(dp) :: u1, u2, r
    real(dp), parameter :: twopi = 6.283185307179586_dp
    if (have_spare) then
      have_spare = .false.
      gauss = spare
      return
    end if
    u1 = uniform()
    u2 = uniform()
    r = sqrt(-2.0_dp * log(u1))
    gauss = r * cos(twopi * u2)
    spare = r * sin(twopi * u2)
    have_spare = .true.
  end function gauss

  elemental real(dp) function payoff(s, k)
    real(dp), intent(in) :: s, k
    payoff = max(s - k, 0.0_dp)
  end function payoff
end module rng

program boxmuller
  use rng
  implicit none
  integer, parameter :: npath = 800000, nstep = 24
  real(dp), parameter :: s0 = 100.0_dp, strike = 105.0_dp, r = 0.03_dp, sigma = 0.25_dp, t = 1.0_dp
  real(dp) :: dt, s, z, m1, m2, m3, m4, price, drift, vol, smax
  real(dp) :: last(8)
  integer :: p, k, nz

  dt = t / nstep
  drift = (r - 0.5_dp * sigma**2) * dt
  vol = sigma * sqrt(dt)
  m1 = 0; m2 = 0; m3 = 0; m4 = 0; price = 0; nz = 0
  smax = 0.0_dp
  do p = 1, npath
    s = s0
    do k = 1, nstep
      z = gauss()
      m1 = m1 + z
      m2 = m2 + z * z
      m3 = m3 + z**3
      m4 = m4 + z**4
      s = s * exp(drift + vol * z)
      smax = max(smax, s)
    end do
    price = price + payoff(s, strike)
    if (s < strike) nz = nz + 1
    last(mod(p, 8) + 1) = s
  end do
  k = npath * nstep
  price = exp(-r * t) * price / npath
  print '(a,4f12.6)', ' BOXMULLER moments ', m1 / k, m2 / k, m3 / k, m4 / k
  print '(a,f12.6,a,i8,a,f12.4,a,f12.4)', ' BOXMULLER price=', price, ' otm=', nz, &
      ' smax=', smax, ' tail=', sum(payoff(last, strike))
end program boxmuller
