C=====================================================================
C     STRIDE77 - Strided access sweep in the manner of a cache
C     characterization: for each array size (32 KB, 1 MB, 8 MB and
C     64 MB of DOUBLE PRECISION, i.e. within L1, L2, L3 and beyond
C     the last-level cache) and each stride (1 to 1024 elements), the
C     first N elements of a COMMON array are summed with that stride,
C     all offsets in turn so that every element is read once per
C     repetition, and the sweep is repeated so that every (size,
C     stride) pair makes the same number of accesses.
C     Exercises: DO loops with variable non-unit step (LOIX/LOOX),
C       three loops sharing one terminal statement, DOUBLE PRECISION
C       load-and-add on a 64 MB COMMON array, function calls with the
C       array in COMMON, 2-D result table, DATA.
C     Runtime class: memory-bound (stride/size sweep, 64 MB).
C=====================================================================
      PROGRAM STRD77
      INTEGER NMAX, NSZ, NST, NACC
      PARAMETER (NMAX = 8388608, NSZ = 4, NST = 8, NACC = 8388608)
      DOUBLE PRECISION A(NMAX)
      COMMON /BIG/ A
      INTEGER ISZ(NSZ), IST(NST), I, K, L
      DOUBLE PRECISION SWEEP, S(NSZ, NST), TOT, DEV
      EXTERNAL SWEEP
      DATA ISZ /4096, 131072, 1048576, 8388608/
      DATA IST /1, 2, 4, 8, 16, 64, 256, 1024/
      DO 10 I = 1, NMAX
         A(I) = DBLE(MOD(I, 1000)) * 1.0D-3
   10 CONTINUE
      DO 20 K = 1, NSZ
      DO 20 L = 1, NST
         S(K,L) = SWEEP(ISZ(K), IST(L), NACC / ISZ(K))
   20 CONTINUE
C     every stride of one size sums the same numbers: report the total
C     and the largest relative deviation from stride 1
      TOT = 0.0D0
      DEV = 0.0D0
      DO 30 K = 1, NSZ
         DO 30 L = 1, NST
            TOT = TOT + S(K,L)
            DEV = MAX(DEV, ABS(S(K,L) - S(K,1)) / S(K,1))
   30 CONTINUE
      WRITE (*, 900) (S(K,1), K = 1, NSZ)
      WRITE (*, 910) TOT, DEV
  900 FORMAT (' STRIDE77 S=', 4(1PE20.12))
  910 FORMAT (' STRIDE77 TOTAL=', 1PE22.14, ' MAXDEV=', E10.2)
      END
C
C     NREP times: sum A(1..N) visiting it with stride IS, offset by
C     offset
      DOUBLE PRECISION FUNCTION SWEEP(N, IS, NREP)
      INTEGER N, IS, NREP
      DOUBLE PRECISION A(8388608)
      COMMON /BIG/ A
      INTEGER IR, IOFF, I
      DOUBLE PRECISION T
      T = 0.0D0
      DO 10 IR = 1, NREP
      DO 10 IOFF = 1, IS
      DO 10 I = IOFF, N, IS
         T = T + A(I)
   10 CONTINUE
      SWEEP = T
      RETURN
      END
