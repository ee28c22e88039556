C=====================================================================
C     COMMONLOC77 - The same smoothing / reduction kernels run twice:
C     once on arrays and scalars in COMMON blocks (global operands)
C     and once on local arrays and local scalars, so that the cost
C     of global versus local operands can be compared. Integer and
C     real variants of each.
C     Exercises: COMMON-global vs local REAL, DOUBLE PRECISION and
C       INTEGER loads/stores, labelled DO with shared CONTINUE,
C       SAVE of local arrays, PARAMETER, DATA.
C     Runtime class: compute/array-bound (cache resident).
C=====================================================================
      PROGRAM CMLC77
      INTEGER N, NREP
      PARAMETER (N = 20000, NREP = 2100)
      DOUBLE PRECISION GA(N), GB(N), GS
      REAL GR(N), GRS
      INTEGER GI(N), GIS
      COMMON /GLOB/ GA, GB, GS, GR, GRS, GI, GIS
      DOUBLE PRECISION L1, L2
      REAL R1, R2
      INTEGER I1, I2
      CALL GLOBK(NREP)
      L1 = GS
      R1 = GRS
      I1 = GIS
      CALL LOCK(NREP, L2, R2, I2)
      WRITE (*, 900) L1, L2, R1, R2, I1, I2
  900 FORMAT (' COMMONLOC77 ', 2(1PE20.12), 2E14.6, 2I12)
      END
C
      SUBROUTINE GLOBK(NREP)
      INTEGER NREP
      INTEGER N
      PARAMETER (N = 20000)
      DOUBLE PRECISION GA(N), GB(N), GS
      REAL GR(N), GRS
      INTEGER GI(N), GIS
      COMMON /GLOB/ GA, GB, GS, GR, GRS, GI, GIS
      INTEGER I, K
      DO 10 I = 1, N
         GA(I) = DBLE(MOD(I, 101)) * 0.01D0
         GB(I) = 0.0D0
         GR(I) = REAL(MOD(I, 53)) * 0.02
         GI(I) = MOD(I * 17, 1009)
   10 CONTINUE
      GS = 0.0D0
      GRS = 0.0
      GIS = 0
      DO 30 K = 1, NREP
         DO 20 I = 2, N - 1
            GB(I) = 0.25D0 * GA(I-1) + 0.5D0 * GA(I) + 0.25D0 * GA(I+1)
            GS = GS + GB(I) * 1.0D-6
            GR(I) = GR(I) * 0.999 + 0.001 * GR(I+1)
            GRS = GRS + GR(I) * 1.0E-6
            GI(I) = MOD(GI(I) + GI(I-1) + K, 1009)
            GIS = MOD(GIS + GI(I), 1000003)
   20    CONTINUE
         DO 30 I = 2, N - 1
            GA(I) = GB(I)
   30 CONTINUE
      RETURN
      END
C
      SUBROUTINE LOCK(NREP, S, RS, IS)
      INTEGER NREP, IS
      DOUBLE PRECISION S
      REAL RS
      INTEGER N
      PARAMETER (N = 20000)
      DOUBLE PRECISION A(N), B(N)
      REAL R(N)
      INTEGER IA(N)
      SAVE A, B, R, IA
      INTEGER I, K
      DOUBLE PRECISION SL
      REAL RL
      INTEGER IL
      DO 10 I = 1, N
         A(I) = DBLE(MOD(I, 101)) * 0.01D0
         B(I) = 0.0D0
         R(I) = REAL(MOD(I, 53)) * 0.02
         IA(I) = MOD(I * 17, 1009)
   10 CONTINUE
      SL = 0.0D0
      RL = 0.0
      IL = 0
      DO 30 K = 1, NREP
         DO 20 I = 2, N - 1
            B(I) = 0.25D0 * A(I-1) + 0.5D0 * A(I) + 0.25D0 * A(I+1)
            SL = SL + B(I) * 1.0D-6
            R(I) = R(I) * 0.999 + 0.001 * R(I+1)
            RL = RL + R(I) * 1.0E-6
            IA(I) = MOD(IA(I) + IA(I-1) + K, 1009)
            IL = MOD(IL + IA(I), 1000003)
   20    CONTINUE
         DO 30 I = 2, N - 1
            A(I) = B(I)
   30 CONTINUE
      S = SL
      RS = RL
      IS = IL
      RETURN
      END
