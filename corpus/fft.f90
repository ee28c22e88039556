!=====================================================================
! fft.f90 - Iterative radix-2 complex FFT (bit-reversal permutation
! plus butterflies with precomputed twiddles), forward and inverse,
! used to convolve two real sequences; repeated several times.
! Verifies the round trip and compares with a direct O(n^2) DFT of
! a short prefix.
! Exercises: complex(8) multiply/add, cmplx/conjg/real/aimag, exp of
!   complex, integer bit manipulation by division and mod, ishft-free
!   bit reversal, DO with variable step (butterfly span), module
!   procedures, allocatable arrays, array syntax, sum/maxval.
! Runtime class: compute-bound (complex), strided access.
!=====================================================================
module fft_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: pi = 3.14159265358979323846_dp
contains
  integer function bitrev(i, nbits)
    integer, intent(in) :: i, nbits
    integer :: k, v
    v = i
    bitrev = 0
    do k = 1, nbits
      bitrev = 2 * bitrev + mod(v, 2)
      v = v / 2
    end do
  end function bitrev

  subroutine fft(a, n, nbits, isign)
    integer, intent(in) :: n, nbits, isign
    complex(dp), intent(inout) :: a(0:n-1)
    complex(dp) :: t, w, wstep
    integer :: i, j, m, half, k
    do i = 0, n - 1
      j = bitrev(i, nbits)
      if (j > i) then
        t = a(i); a(i) = a(j); a(j) = t
      end if
    end do
    m = 2
    do while (m <= n)
      half = m / 2
      wstep = exp(cmplx(0.0_dp, isign * 2.0_dp * pi / m, dp))
      w = (1.0_dp, 0.0_dp)
      do k = 0, half - 1
        do i = k, n - 1, m
          t = w * a(i + half)
          a(i + half) = a(i) - t
          a(i) = a(i) + t
        end do
        w = w * wstep
      end do
      m = 2 * m
    end do
    if (isign > 0) a = a / real(n, dp)
  end subroutine fft
end module fft_mod

program fftconv
  use fft_mod
  implicit none
  integer, parameter :: nbits = 16, n = 2**nbits, nrep = 6, ndft = 64
  complex(dp), allocatable :: x(:), y(:), x0(:)
  real(dp) :: err, chk, d
  complex(dp) :: s
  integer :: i, k, rep

  allocate(x(0:n-1), y(0:n-1), x0(0:n-1))
  chk = 0.0_dp
  err = 0.0_dp
  do rep = 1, nrep
    do i = 0, n - 1
      x(i) = cmplx(sin(0.001_dp * i * rep) + mod(i, 17) * 0.01_dp, 0.0_dp, dp)
      y(i) = cmplx(exp(-0.0005_dp * i), 0.0_dp, dp)
    end do
    x0 = x
    call fft(x, n, nbits, -1)
    ! direct DFT of a few bins to check the forward transform
    do k = 0, ndft - 1
      s = (0.0_dp, 0.0_dp)
      do i = 0, n - 1, 1
        s = s + x0(i) * exp(cmplx(0.0_dp, -2.0_dp * pi * mod(i * k, n) / n, dp))
      end do
      err = max(err, abs(s - x(k)) / n)
    end do
    call fft(y, n, nbits, -1)
    x = x * y
    call fft(x, n, nbits, +1)
    chk = chk + sum(real(x)) + maxval(abs(aimag(x)))
  end do
  d = sum(abs(x(0:99)))
  print '(a,es22.14,a,es10.2,a,es18.10)', ' FFT chk=', chk, ' err=', err, ' head=', d
end program fftconv
