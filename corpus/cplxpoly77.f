C=====================================================================
C     CPLXPOLY77 - Newton's method for p(z) = z**5 - 1 on a grid of
C     starting points in the complex plane (basins of attraction),
C     in single COMPLEX, then Horner evaluation of a degree-12
C     polynomial with COMPLEX*16 coefficients along a circle.
C     Exercises: complex arithmetic (add, multiply, divide), CABS,
C       CMPLX/REAL/AIMAG coercions, DCMPLX, CONJG, complex exp,
C       integer/complex mixing, DO WHILE-style GOTO loop with
C       early exit, DATA for complex constants.
C     Runtime class: compute-bound (complex flops).
C=====================================================================
      PROGRAM CPOL77
      INTEGER NG, MAXIT, NPT, NDEG
      PARAMETER (NG = 600, MAXIT = 40, NPT = 1000000, NDEG = 12)
      COMPLEX Z, DZ, ROOTS(5)
      COMPLEX*16 COEF(0:NDEG), W, P, ACC
      INTEGER I, J, K, IT, NB(0:5), ITSUM
      REAL X, Y, PI
      DOUBLE PRECISION T, TWOPI
      DATA NB /6*0/
C
      PI = 4.0 * ATAN(1.0)
      DO 5 K = 1, 5
         ROOTS(K) = CMPLX(COS(2.0*PI*(K-1)/5.0), SIN(2.0*PI*(K-1)/5.0))
    5 CONTINUE
      ITSUM = 0
      DO 50 J = 1, NG
      DO 50 I = 1, NG
         X = -1.5 + 3.0 * REAL(I - 1) / REAL(NG - 1)
         Y = -1.5 + 3.0 * REAL(J - 1) / REAL(NG - 1)
         Z = CMPLX(X, Y)
         IT = 0
   10    IF (IT .GE. MAXIT) GOTO 30
         IF (CABS(Z) .LT. 1.0E-6) GOTO 30
         DZ = (Z**5 - (1.0, 0.0)) / (5.0 * Z**4)
         Z = Z - DZ
         IT = IT + 1
         IF (CABS(DZ) .LT. 1.0E-6) GOTO 30
         GOTO 10
   30    ITSUM = ITSUM + IT
         DO 40 K = 1, 5
            IF (CABS(Z - ROOTS(K)) .LT. 1.0E-3) THEN
               NB(K) = NB(K) + 1
               GOTO 50
            END IF
   40    CONTINUE
         NB(0) = NB(0) + 1
   50 CONTINUE
C     Horner evaluation with double complex coefficients
      DO 60 K = 0, NDEG
         COEF(K) = DCMPLX(1.0D0 / DBLE(K + 1), DBLE(MOD(K, 3)) - 1.0D0)
   60 CONTINUE
      TWOPI = 8.0D0 * DATAN(1.0D0)
      ACC = (0.0D0, 0.0D0)
      DO 80 I = 1, NPT
         T = TWOPI * DBLE(I) / DBLE(NPT)
         W = 0.9D0 * EXP(DCMPLX(0.0D0, T))
         P = COEF(NDEG)
         DO 70 K = NDEG - 1, 0, -1
            P = P * W + COEF(K)
   70    CONTINUE
         ACC = ACC + P * CONJG(W)
   80 CONTINUE
      WRITE (*, 900) NB, ITSUM
      WRITE (*, 910) DBLE(ACC), DIMAG(ACC)
  900 FORMAT (' CPLXPOLY77 BASINS', 6I7, ' ITERS', I9)
  910 FORMAT (' CPLXPOLY77 HORNER ', 2(1PE22.14))
      END
