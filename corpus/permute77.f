C=====================================================================
C     PERMUTE77 - Indirect access through a random permutation of
C     4M elements (Fisher-Yates shuffle driven by a Park-Miller
C     generator in Schrage's overflow-free form): a gather
C     Y(I) = X(P(I)), a scatter Y(P(I)) = Y(P(I)) + X(I), the
C     inverse permutation, and a dependent pointer chase around a
C     single random cycle built by Sattolo's algorithm (each load
C     address comes from the previous load). Arrays: two 32 MB
C     DOUBLE PRECISION and two 16 MB INTEGER, beyond the L3 cache.
C     Exercises: indirect subscripts X(P(I)), scatter stores,
C       integer LCG with MOD and integer division, element swaps,
C       dependent loads, COMMON arrays, integer checks of a
C       permutation.
C     Runtime class: memory-bound (random gather/scatter, latency).
C=====================================================================
      PROGRAM PERM77
      INTEGER NP, NREP
      PARAMETER (NP = 4194304, NREP = 3)
      DOUBLE PRECISION X(NP), Y(NP)
      INTEGER P(NP), Q(NP)
      COMMON /ARR/ X, Y, P, Q
      INTEGER I, J, K, IR, ISEED, IRNDPM, NBAD, ICYC
      DOUBLE PRECISION G, S, C
      EXTERNAL IRNDPM
      ISEED = 20261122
      DO 10 I = 1, NP
         X(I) = DBLE(MOD(I, 4099)) * 1.0D-3
         Y(I) = 0.0D0
         P(I) = I
   10 CONTINUE
C     Fisher-Yates shuffle of P
      DO 20 I = NP, 2, -1
         J = MOD(IRNDPM(ISEED), I) + 1
         K = P(I)
         P(I) = P(J)
         P(J) = K
   20 CONTINUE
C     gathers and scatters
      G = 0.0D0
      DO 50 IR = 1, NREP
         DO 30 I = 1, NP
            Y(I) = X(P(I))
   30    CONTINUE
         G = G + Y(IR) + Y(NP - IR)
         DO 40 I = 1, NP
            Y(P(I)) = Y(P(I)) + 0.5D0 * X(I)
   40    CONTINUE
         G = G + Y(1) + Y(NP / 2)
   50 CONTINUE
C     inverse permutation and check
      DO 60 I = 1, NP
         Q(P(I)) = I
   60 CONTINUE
      NBAD = 0
      DO 70 I = 1, NP
         IF (P(Q(I)) .NE. I) NBAD = NBAD + 1
   70 CONTINUE
C     Sattolo: one cycle through all elements, stored in Q as successor
      DO 80 I = 1, NP
         Q(I) = I
   80 CONTINUE
      DO 90 I = NP, 2, -1
         J = MOD(IRNDPM(ISEED), I - 1) + 1
         K = Q(I)
         Q(I) = Q(J)
         Q(J) = K
   90 CONTINUE
C     dependent pointer chase around the cycle
      S = 0.0D0
      J = 1
      ICYC = 0
      DO 100 I = 1, NP
         J = Q(J)
         S = S + X(J)
         IF (J .EQ. 1) ICYC = ICYC + 1
  100 CONTINUE
      C = 0.0D0
      DO 110 I = 1, NP, 1024
         C = C + Y(I)
  110 CONTINUE
      WRITE (*, 900) G, C, NBAD
      WRITE (*, 910) S, ICYC, J, ISEED
  900 FORMAT (' PERMUTE77 G=', 1PE22.14, ' C=', E22.14, ' NBAD=', I4)
  910 FORMAT (' PERMUTE77 CHASE=', 1PE22.14, ' CYCLES=', I3,
     &        ' END=', I9, ' SEED=', I11)
      END
C
C     Park-Miller minimal standard generator, Schrage's method:
C     ISEED <- 16807 * ISEED mod (2**31 - 1) without overflow
      INTEGER FUNCTION IRNDPM(ISEED)
      INTEGER ISEED, IA, IM, IQ, IRR, K
      PARAMETER (IA = 16807, IM = 2147483647, IQ = 127773, IRR = 2836)
      K = ISEED / IQ
      ISEED = IA * (ISEED - K * IQ) - IRR * K
      IF (ISEED .LT. 0) ISEED = ISEED + IM
      IRNDPM = ISEED
      RETURN
      END
