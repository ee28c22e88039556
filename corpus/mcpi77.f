C=====================================================================
C     MCPI77 - Monte Carlo estimates (pi by dart throwing, the volume
C     of a 4-D unit ball, and an exp(-x**2) integral) driven by a
C     64-bit linear congruential generator written in INTEGER*8.
C     Exercises: INTEGER*8 multiply/add/MOD/division (no overflow:
C       modulus 2**40, multiplier below 2**23), conversion
C       INTEGER*8 -> DOUBLE PRECISION, DATA statements, function
C       calls returning REAL*8, EXP, SQRT.
C     Runtime class: compute-bound, call-bound (one call per draw).
C=====================================================================
      PROGRAM MCPI77
      INTEGER*8 NDRAW
      PARAMETER (NDRAW = 18000000)
      INTEGER*8 STATE, K, NIN2, NIN4
      DOUBLE PRECISION X, Y, Z, W, RAND8, SEXP, PI2, V4, EST
      EXTERNAL RAND8
      DATA STATE /20261122_8/
      DATA NIN2, NIN4 /0_8, 0_8/
C
      SEXP = 0.0D0
      DO 10 K = 1, NDRAW
         X = RAND8(STATE)
         Y = RAND8(STATE)
         IF (X * X + Y * Y .LE. 1.0D0) NIN2 = NIN2 + 1
         Z = RAND8(STATE)
         W = RAND8(STATE)
         IF (X*X + Y*Y + Z*Z + W*W .LE. 1.0D0) NIN4 = NIN4 + 1
         SEXP = SEXP + EXP(-X * X) * SQRT(1.0D0 + Z)
   10 CONTINUE
      PI2 = 4.0D0 * DBLE(NIN2) / DBLE(NDRAW)
      V4 = 16.0D0 * DBLE(NIN4) / DBLE(NDRAW)
      EST = SEXP / DBLE(NDRAW)
      WRITE (*, 900) NIN2, NIN4, PI2, V4, EST
  900 FORMAT (' MCPI77 ', 2I10, 3F16.10)
      END
C
      DOUBLE PRECISION FUNCTION RAND8(STATE)
C     x' = (a x + c) mod 2**40; a < 2**23 so a*x never overflows
      INTEGER*8 STATE, A, C, M
      PARAMETER (A = 5677773_8, C = 3037000493_8)
      PARAMETER (M = 1099511627776_8)
      STATE = MOD(A * STATE + C, M)
      RAND8 = DBLE(STATE / 256_8) / DBLE(M / 256_8)
      RETURN
      END
