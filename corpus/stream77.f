C=====================================================================
C     STREAM77 - Memory-bandwidth kernels (copy, scale, add, triad and
C     a strided gather pass) over three REAL*8 arrays of 8M elements
C     (64 MB each, 192 MB total, far beyond the last-level cache),
C     all held in one COMMON block.
C     Exercises: COMMON-global double loads/stores, unit-stride DO
C       loops, non-unit stride (step 16) loop, simple arithmetic.
C     Runtime class: memory-bound.
C=====================================================================
      PROGRAM STRM77
      INTEGER NN, NREP
      PARAMETER (NN = 8388608, NREP = 10)
      REAL*8 A(NN), B(NN), C(NN)
      COMMON /BIG/ A, B, C
      REAL*8 Q, SA, SB, SC, SS
      INTEGER I, K, IS
C
      DO 10 I = 1, NN
         A(I) = 1.0D0 + DBLE(MOD(I, 97)) * 1.0D-3
         B(I) = 2.0D0
         C(I) = 0.0D0
   10 CONTINUE
      Q = 0.75D0
      DO 100 K = 1, NREP
C        copy
         DO 20 I = 1, NN
            C(I) = A(I)
   20    CONTINUE
C        scale
         DO 30 I = 1, NN
            B(I) = Q * C(I)
   30    CONTINUE
C        add
         DO 40 I = 1, NN
            C(I) = A(I) + B(I)
   40    CONTINUE
C        triad
         DO 50 I = 1, NN
            A(I) = B(I) + Q * C(I)
   50    CONTINUE
C        strided read-modify-write, one element per cache line pair
         DO 60 IS = K, NN, 16
            B(IS) = B(IS) + 1.0D-6 * A(IS)
   60    CONTINUE
  100 CONTINUE
      SA = 0.0D0
      SB = 0.0D0
      SC = 0.0D0
      DO 110 I = 1, NN
         SA = SA + A(I)
         SB = SB + B(I)
         SC = SC + C(I)
  110 CONTINUE
      SS = SA + SB + SC
      WRITE (*, 900) SA, SB, SC, SS
  900 FORMAT (' STREAM77 ', 4(1PE20.12))
      END
