!=====================================================================
! mandel.f90 - Mandelbrot and Julia set escape-time counts on a
! complex(8) grid, with a smooth-colouring log/log correction and a
! per-row histogram.
! Exercises: complex(kind=dp) arithmetic, abs/real/aimag/cmplx
!   coercions, DO WHILE with compound condition, EXIT, CYCLE,
!   log of real(dp), integer histogram, module with parameters,
!   internal function after CONTAINS.
! Runtime class: compute-bound, branchy (data-dependent trip counts).
!=====================================================================
module mandel_params
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nx = 1400, ny = 1000, maxit = 256
end module mandel_params

program mandel
  use mandel_params
  implicit none
  integer :: i, j, it, total, inside
  integer :: hist(0:maxit)
  real(dp) :: x, y, smooth
  complex(dp) :: c, z

  hist = 0
  total = 0
  inside = 0
  smooth = 0.0_dp
  do j = 1, ny
    y = -1.25_dp + 2.5_dp * real(j - 1, dp) / real(ny - 1, dp)
    do i = 1, nx
      x = -2.2_dp + 3.0_dp * real(i - 1, dp) / real(nx - 1, dp)
      c = cmplx(x, y, kind=dp)
      ! skip the main cardioid cheaply
      if (in_cardioid(x, y)) then
        inside = inside + 1
        hist(maxit) = hist(maxit) + 1
        cycle
      end if
      z = (0.0_dp, 0.0_dp)
      it = 0
      do while (it < maxit .and. real(z)**2 + aimag(z)**2 <= 4.0_dp)
        z = z * z + c
        it = it + 1
      end do
      hist(it) = hist(it) + 1
      total = total + it
      if (it < maxit) smooth = smooth + it + 1 - log(log(abs(z))) / log(2.0_dp)
    end do
  end do
  ! Julia set for a fixed parameter, early EXIT form
  c = (-0.8_dp, 0.156_dp)
  do j = 1, ny
    do i = 1, nx
      z = cmplx(-1.6_dp + 3.2_dp * (i - 1) / (nx - 1), -1.0_dp + 2.0_dp * (j - 1) / (ny - 1), dp)
      do it = 1, maxit
        z = z * z + c
        if (abs(z) > 2.0_dp) exit
      end do
      total = total + min(it, maxit)
    end do
  end do
  print '(a,i12,a,i9,a,f18.4)', ' MANDEL total=', total, ' inside=', inside, ' smooth=', smooth
  print '(a,4i9)', ' MANDEL hist ', hist(1), hist(2), hist(10), hist(maxit)
contains
  logical function in_cardioid(x, y)
    real(dp), intent(in) :: x, y
    real(dp) :: q
    q = (x - 0.25_dp)**2 + y * y
    in_cardioid = q * (q + (x - 0.25_dp)) <= 0.25_dp * y * y
  end function in_cardioid
end program mandel
