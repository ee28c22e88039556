C=====================================================================
C     CMPLX77 - Complex arithmetic and complex intrinsics in COMPLEX
C     and COMPLEX*16 (DOUBLE COMPLEX): the frequency response of a
C     damped oscillator chain (single), partial sums of the Riemann
C     zeta function on the critical line through EXP/LOG (double),
C     a square-root / conjugate iteration, and the identity
C     SIN**2 + COS**2 = 1 checked on a grid of complex points.
C     Exercises: complex add/multiply/divide, Z**I and Z**W, ABS,
C       EXP, LOG, SQRT, SIN, COS, CONJG/DCONJG of COMPLEX and
C       COMPLEX*16, CMPLX/DCMPLX, REAL/AIMAG/DBLE/DIMAG, complex
C       comparison (.EQ./.NE.), complex COMMON, complex DATA.
C     Runtime class: compute-bound (complex intrinsics).
C=====================================================================
      PROGRAM CPLX77
      INTEGER NW, NZ, NIT, NG
      PARAMETER (NW = 2000000, NZ = 6000, NIT = 3000000, NG = 1100)
      COMPLEX HSUM
      COMPLEX*16 ZSUM, ZIT, ZID
      DOUBLE PRECISION AMAX, PH
      CALL RESP(NW, HSUM, PH)
      CALL ZETA(NZ, ZSUM, AMAX)
      CALL ITER(NIT, ZIT)
      CALL IDENT(NG, ZID)
      WRITE (*, 900) REAL(HSUM), AIMAG(HSUM), PH
      WRITE (*, 910) DBLE(ZSUM), DIMAG(ZSUM), AMAX
      WRITE (*, 920) ZIT, ZID
  900 FORMAT (' CMPLX77 H=', 2(1PE16.8), ' PHASE=', E18.10)
  910 FORMAT (' CMPLX77 ZETA=', 2(1PE22.14), ' MAXABS=', E18.10)
  920 FORMAT (' CMPLX77 IT=', 2(1PE22.14), ' ID=', 2(1PE12.4))
      END
C
C     H(iw) = 1 / ((iw)**2 + 2 zeta w0 (iw) + w0**2) for a chain of
C     three oscillators, single precision; magnitude and phase sums.
      SUBROUTINE RESP(NW, HSUM, PH)
      INTEGER NW
      COMPLEX HSUM
      DOUBLE PRECISION PH
      COMPLEX S, H, D, ONE
      REAL W0(3), ZE(3), W
      INTEGER I, K
      DATA W0 /1.0, 2.5, 7.0/, ZE /0.05, 0.2, 0.7/
      DATA ONE /(1.0, 0.0)/
      HSUM = (0.0, 0.0)
      PH = 0.0D0
      DO 20 I = 1, NW
         W = 1.0E-4 + 10.0 * REAL(I) / REAL(NW)
         S = CMPLX(0.0, W)
         H = ONE
         DO 10 K = 1, 3
            D = S**2 + 2.0 * ZE(K) * W0(K) * S + W0(K)**2
            H = H / D
   10    CONTINUE
         IF (H .NE. ONE) THEN
            HSUM = HSUM + H * CONJG(H) / (1.0 + ABS(H))
         END IF
         PH = PH + DBLE(ATAN2(AIMAG(H), REAL(H)))
   20 CONTINUE
      RETURN
      END
C
C     Partial sums of zeta(1/2 + i t) = sum n**(-s), by EXP(-s LOG n)
C     and by the power operator, on a grid of heights t.
      SUBROUTINE ZETA(NZ, ZSUM, AMAX)
      INTEGER NZ
      COMPLEX*16 ZSUM
      DOUBLE PRECISION AMAX
      COMPLEX*16 CZ
      COMMON /CZC/ CZ(6000)
      COMPLEX*16 S, T, U
      INTEGER J, N, NTERM
      PARAMETER (NTERM = 150)
      ZSUM = (0.0D0, 0.0D0)
      AMAX = 0.0D0
      DO 30 J = 1, NZ
         S = DCMPLX(0.5D0, 10.0D0 + 0.05D0 * DBLE(J))
         T = (0.0D0, 0.0D0)
         DO 10 N = 1, NTERM
            T = T + EXP(-S * LOG(DCMPLX(DBLE(N), 0.0D0)))
   10    CONTINUE
         U = (0.0D0, 0.0D0)
         DO 20 N = 1, NTERM, 2
            U = U + DCMPLX(DBLE(N), 0.0D0)**(-S)
   20    CONTINUE
         CZ(J) = T - U
         AMAX = MAX(AMAX, ABS(T))
   30 CONTINUE
      DO 40 J = 1, NZ
         ZSUM = ZSUM + CZ(J) * DCONJG(CZ(NZ + 1 - J)) / DBLE(NZ)
   40 CONTINUE
      RETURN
      END
C
C     z <- sqrt(z) * conjg(c) + c / (1 + z**3), double complex
      SUBROUTINE ITER(NIT, ZIT)
      INTEGER NIT
      COMPLEX*16 ZIT
      COMPLEX*16 Z, C, ZNEW
      INTEGER I, NSAME
      Z = (0.3D0, 0.2D0)
      C = (0.45D0, -0.31D0)
      NSAME = 0
      DO 10 I = 1, NIT
         ZNEW = SQRT(Z) * DCONJG(C) + C / (1.0D0 + Z**3)
         IF (ZNEW .EQ. Z) NSAME = NSAME + 1
         Z = ZNEW
         IF (MOD(I, 1000) .EQ. 0) C = C * (0.9999D0, 0.0001D0)
   10 CONTINUE
      ZIT = Z + DCMPLX(DBLE(NSAME), 0.0D0)
      RETURN
      END
C
C     max |sin(z)**2 + cos(z)**2 - 1| and |exp(log(z)) - z| on a grid,
C     single and double complex
      SUBROUTINE IDENT(NG, ZID)
      INTEGER NG
      COMPLEX*16 ZID
      COMPLEX Z1
      COMPLEX*16 Z2
      REAL E1
      DOUBLE PRECISION E2, X, Y
      INTEGER I, J
      E1 = 0.0
      E2 = 0.0D0
      DO 20 J = 1, NG
         Y = -2.0D0 + 4.0D0 * DBLE(J) / DBLE(NG)
         DO 10 I = 1, NG
            X = -2.0D0 + 4.0D0 * DBLE(I) / DBLE(NG)
            Z1 = CMPLX(REAL(X), REAL(Y))
            Z2 = DCMPLX(X, Y)
            E1 = MAX(E1, ABS(SIN(Z1)**2 + COS(Z1)**2 - 1.0))
            E2 = MAX(E2, ABS(EXP(LOG(Z2)) - Z2))
   10    CONTINUE
   20 CONTINUE
      ZID = DCMPLX(DBLE(E1), E2)
      RETURN
      END
