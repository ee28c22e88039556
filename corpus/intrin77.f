C=====================================================================
C     INTRIN77 - Intrinsic-function-heavy kernel: tabulates a set of
C     special-function-like expressions in single and double
C     precision and accumulates integrals by the trapezoidal rule.
C     Exercises: EXP, LOG, SIN, COS, TAN, SQRT, ABS, ATAN2, MOD, MAX
C       for REAL and DOUBLE PRECISION (generic and specific names
C       DEXP, DLOG, DSQRT, DSIN, DTAN, DABS), integer MAX/MOD/ABS,
C       two statement functions, REAL*8 declarations.
C     Runtime class: compute-bound (intrinsics).
C=====================================================================
      PROGRAM INTR77
      INTEGER NSTEP
      PARAMETER (NSTEP = 10000000)
      REAL*8 X, H, F1, F2, F3, S1, S2, S3, G
      REAL XS, HS, FS, SS, TS
      INTEGER I, IACC, J
C     statement functions
      REAL*8 GAUSS, SINC, Z
      GAUSS(Z) = DEXP(-0.5D0 * Z * Z) / DSQRT(8.0D0 * DATAN(1.0D0))
      SINC(Z) = DSIN(Z + 1.0D-9) / (Z + 1.0D-9)
C
      H = 10.0D0 / DBLE(NSTEP)
      S1 = 0.0D0
      S2 = 0.0D0
      S3 = 0.0D0
      IACC = 0
      DO 10 I = 0, NSTEP
         X = -5.0D0 + H * DBLE(I)
         F1 = GAUSS(X)
         F2 = SINC(X) * DLOG(1.0D0 + DABS(X))
         F3 = DTAN(0.3D0 * X / (1.0D0 + X * X))
     &        + ATAN2(X + 0.3D0, 1.5D0)
         G = 1.0D0
         IF (I .EQ. 0 .OR. I .EQ. NSTEP) G = 0.5D0
         S1 = S1 + G * F1
         S2 = S2 + G * F2
         S3 = S3 + G * F3
         J = MOD(I * 13, 101) - 50
         IACC = MAX(IACC, ABS(J)) + MOD(ABS(J), 3)
   10 CONTINUE
      S1 = S1 * H
      S2 = S2 * H
      S3 = S3 * H
C     single precision pass
      HS = 4.0 / REAL(NSTEP)
      SS = 0.0
      TS = 0.0
      DO 20 I = 1, NSTEP
         XS = 0.01 + HS * REAL(I)
         FS = EXP(-XS) * SQRT(XS) + LOG(XS) * SIN(XS)
         SS = SS + FS
         TS = MAX(TS, ABS(TAN(0.1 * XS) - COS(XS)))
   20 CONTINUE
      SS = SS * HS
      WRITE (*, 900) S1, S2, S3
      WRITE (*, 910) SS, TS, IACC
  900 FORMAT (' INTRIN77 D ', 3F20.14)
  910 FORMAT (' INTRIN77 S ', 2F14.6, I12)
      END
