C=====================================================================
C     TRCOPY77 - Transposed copy B = TRANSPOSE(A) of a 2600 x 2300
C     DOUBLE PRECISION matrix (48 MB per matrix, 96 MB in all, far
C     beyond the last-level cache) in three ways: reading A by
C     columns (contiguous reads, writes to B with stride 2300),
C     writing B by columns (strided reads, contiguous writes), and in
C     40 x 40 tiles; a plain contiguous copy-and-scale gives the
C     streaming reference. Each pass checks part of the result.
C     Exercises: 2-D array addressing with unit and large strides,
C       tiled loop nests with MIN in the bounds and step 40 (LOIX),
C       adjustable array dummies, subroutine calls, DOUBLE stores.
C     Runtime class: memory-bound (strided, TLB, 96 MB).
C=====================================================================
      PROGRAM TRCP77
      INTEGER M, N, NREP
      PARAMETER (M = 2600, N = 2300, NREP = 10)
      DOUBLE PRECISION A(M, N), B(N, M)
      COMMON /MATS/ A, B
      DOUBLE PRECISION CHK(4), TCHK
      EXTERNAL TCHK
      INTEGER I, J, IR
      DO 10 J = 1, N
      DO 10 I = 1, M
         A(I,J) = DBLE(I) + 1.0D-4 * DBLE(J)
   10 CONTINUE
      DO 20 I = 1, 4
         CHK(I) = 0.0D0
   20 CONTINUE
      DO 30 IR = 1, NREP
         CALL TRCOL(A, B, M, N)
         CHK(1) = CHK(1) + TCHK(A, B, M, N, IR)
         CALL TRROW(A, B, M, N)
         CHK(2) = CHK(2) + TCHK(A, B, M, N, IR + 1)
         CALL TRTILE(A, B, M, N, 40)
         CHK(3) = CHK(3) + TCHK(A, B, M, N, IR + 2)
         CALL SCOPY(A, B, M * N, 1.0D0 + 1.0D-3 * DBLE(IR))
         CHK(4) = CHK(4) + B(IR, IR) + B(N, M)
   30 CONTINUE
      WRITE (*, 900) CHK
  900 FORMAT (' TRCOPY77 CHK=', 4(1PE22.14))
      END
C
C     A read by columns, B written with stride N
      SUBROUTINE TRCOL(A, B, M, N)
      INTEGER M, N, I, J
      DOUBLE PRECISION A(M, N), B(N, M)
      DO 10 J = 1, N
      DO 10 I = 1, M
         B(J,I) = A(I,J)
   10 CONTINUE
      RETURN
      END
C
C     B written by columns, A read with stride M
      SUBROUTINE TRROW(A, B, M, N)
      INTEGER M, N, I, J
      DOUBLE PRECISION A(M, N), B(N, M)
      DO 10 I = 1, M
      DO 10 J = 1, N
         B(J,I) = A(I,J)
   10 CONTINUE
      RETURN
      END
C
C     tiles of NB x NB
      SUBROUTINE TRTILE(A, B, M, N, NB)
      INTEGER M, N, NB, I, J, II, JJ
      DOUBLE PRECISION A(M, N), B(N, M)
      DO 10 JJ = 1, N, NB
      DO 10 II = 1, M, NB
      DO 10 J = JJ, MIN(JJ + NB - 1, N)
      DO 10 I = II, MIN(II + NB - 1, M)
         B(J,I) = A(I,J)
   10 CONTINUE
      RETURN
      END
C
C     contiguous copy with scaling, as a one-dimensional array
      SUBROUTINE SCOPY(A, B, NN, S)
      INTEGER NN, I
      DOUBLE PRECISION A(NN), B(NN), S
      DO 10 I = 1, NN
         B(I) = S * A(I)
   10 CONTINUE
      RETURN
      END
C
C     sample of B against A, then spoil B so the next pass must work
      DOUBLE PRECISION FUNCTION TCHK(A, B, M, N, K)
      INTEGER M, N, K, I, J
      DOUBLE PRECISION A(M, N), B(N, M), T
      T = 0.0D0
      DO 10 I = K, M, 97
      DO 10 J = 1, N, 31
         T = T + B(J,I) - 0.5D0 * A(I,J)
         B(J,I) = -1.0D0
   10 CONTINUE
      TCHK = T
      RETURN
      END
