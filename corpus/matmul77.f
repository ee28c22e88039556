#ifndef NSIZE
#define NSIZE 560
#endif
C=====================================================================
C     MATMUL77 - Dense matrix multiply C = A*B in three loop orders
C     (IJK dot-product form, JKI axpy column form, KIJ row form), all
C     on DOUBLE PRECISION arrays held in a COMMON block.
C     Exercises: COMMON-global double arithmetic, 2-D array address
C       computation, nested labelled DO loops sharing one CONTINUE
C       (DO 10 I / DO 10 J), unit and non-unit stride access, calls
C       with no arguments (data passed through COMMON).
C     Runtime class: compute-bound (L3 resident, 3 x 2.5 MB).
C=====================================================================
      PROGRAM MATM77
      INTEGER N
      PARAMETER (N = NSIZE)
      DOUBLE PRECISION A(N,N), B(N,N), C(N,N)
      COMMON /MATS/ A, B, C
      DOUBLE PRECISION S1, S2, S3, TRACE
      EXTERNAL TRACE
      CALL INITM
      CALL MULIJK
      S1 = TRACE(N)
      CALL MULJKI
      S2 = TRACE(N)
      CALL MULKIJ
      S3 = TRACE(N)
      WRITE (*, 900) S1, S2, S3
  900 FORMAT (' MATMUL77 TRACES ', 3(1PE22.14))
      END
C
      SUBROUTINE INITM
      INTEGER N
      PARAMETER (N = NSIZE)
      DOUBLE PRECISION A(N,N), B(N,N), C(N,N)
      COMMON /MATS/ A, B, C
      INTEGER I, J
      DO 10 J = 1, N
      DO 10 I = 1, N
         A(I,J) = DBLE(MOD(I*7 + J*3, 17)) / 16.0D0 - 0.5D0
         B(I,J) = DBLE(MOD(I*5 + J*11, 13)) / 12.0D0 + 0.25D0
   10 CONTINUE
      RETURN
      END
C
      SUBROUTINE MULIJK
      INTEGER N
      PARAMETER (N = NSIZE)
      DOUBLE PRECISION A(N,N), B(N,N), C(N,N)
      COMMON /MATS/ A, B, C
      INTEGER I, J, K
      DOUBLE PRECISION S
      DO 20 I = 1, N
      DO 20 J = 1, N
         S = 0.0D0
         DO 10 K = 1, N
            S = S + A(I,K) * B(K,J)
   10    CONTINUE
         C(I,J) = S
   20 CONTINUE
      RETURN
      END
C
      SUBROUTINE MULJKI
      INTEGER N
      PARAMETER (N = NSIZE)
      DOUBLE PRECISION A(N,N), B(N,N), C(N,N)
      COMMON /MATS/ A, B, C
      INTEGER I, J, K
      DOUBLE PRECISION T
      DO 30 J = 1, N
         DO 10 I = 1, N
            C(I,J) = 0.0D0
   10    CONTINUE
         DO 30 K = 1, N
            T = B(K,J)
            DO 30 I = 1, N
               C(I,J) = C(I,J) + A(I,K) * T
   30 CONTINUE
      RETURN
      END
C
      SUBROUTINE MULKIJ
      INTEGER N
      PARAMETER (N = NSIZE)
      DOUBLE PRECISION A(N,N), B(N,N), C(N,N)
      COMMON /MATS/ A, B, C
      INTEGER I, J, K
      DOUBLE PRECISION R
      DO 5 J = 1, N
      DO 5 I = 1, N
    5 C(I,J) = 0.0D0
      DO 30 K = 1, N
      DO 30 I = 1, N
         R = A(I,K)
         DO 20 J = 1, N
            C(I,J) = C(I,J) + R * B(K,J)
   20    CONTINUE
   30 CONTINUE
      RETURN
      END
C
      DOUBLE PRECISION FUNCTION TRACE(N)
      INTEGER N
      DOUBLE PRECISION A(560,560), B(560,560), C(560,560)
      COMMON /MATS/ A, B, C
      INTEGER I, J
      TRACE = 0.0D0
      DO 10 I = 1, N
         TRACE = TRACE + C(I,I)
   10 CONTINUE
C     fold in one off-diagonal stripe so every entry matters a bit
      DO 20 J = 1, N, 3
         TRACE = TRACE + 1.0D-3 * C(1,J) + 1.0D-3 * C(J,N)
   20 CONTINUE
      RETURN
      END
