#ifndef NSIZE
#define NSIZE 1000
#endif
C=====================================================================
C     TRIDIAG77 - Implicit (backward Euler) time stepping of the 1-D
C     heat equation; each step solves a tridiagonal system with the
C     Thomas algorithm in a separate subroutine. Diagnostics use
C     strided sums over odd / even points.
C     Exercises: DOUBLE PRECISION local arithmetic, subroutine calls
C       with many array arguments, DO with negative step (back
C       substitution), DO with step 2 and 3, adjustable arrays
C       (dimension passed as argument), division.
C     Runtime class: call-bound / compute (small arrays, many calls).
C=====================================================================
      PROGRAM TRID77
      INTEGER N, NSTEP
      PARAMETER (N = NSIZE, NSTEP = 56000)
      DOUBLE PRECISION A(N), B(N), C(N), D(N), U(N), W(N)
      DOUBLE PRECISION R, DT, DX, SODD, SEVEN, S3
      INTEGER I, IS
C
      DX = 1.0D0 / DBLE(N + 1)
      DT = 1.0D-5
      R = DT / (DX * DX)
      DO 10 I = 1, N
         U(I) = DSIN(3.14159265358979D0 * DBLE(I) * DX)
     &        + 0.1D0 * DBLE(MOD(I, 7))
   10 CONTINUE
      DO 100 IS = 1, NSTEP
         CALL SETUP(N, R, A, B, C, D, U)
         CALL THOMAS(N, A, B, C, D, U, W)
  100 CONTINUE
      SODD = 0.0D0
      SEVEN = 0.0D0
      S3 = 0.0D0
      DO 110 I = 1, N, 2
         SODD = SODD + U(I)
  110 CONTINUE
      DO 120 I = 2, N, 2
         SEVEN = SEVEN + U(I)
  120 CONTINUE
      DO 130 I = N, 1, -3
         S3 = S3 + U(I) * DBLE(I)
  130 CONTINUE
      WRITE (*, 900) SODD, SEVEN, S3
  900 FORMAT (' TRIDIAG77 ', 3(1PE22.14))
      END
C
      SUBROUTINE SETUP(N, R, A, B, C, D, U)
      INTEGER N
      DOUBLE PRECISION R, A(N), B(N), C(N), D(N), U(N)
      INTEGER I
      DO 10 I = 1, N
         A(I) = -R
         B(I) = 1.0D0 + 2.0D0 * R
         C(I) = -R
         D(I) = U(I)
   10 CONTINUE
      A(1) = 0.0D0
      C(N) = 0.0D0
      RETURN
      END
C
      SUBROUTINE THOMAS(N, A, B, C, D, X, W)
C     solves A(i) x(i-1) + B(i) x(i) + C(i) x(i+1) = D(i)
      INTEGER N
      DOUBLE PRECISION A(N), B(N), C(N), D(N), X(N), W(N)
      INTEGER I
      DOUBLE PRECISION M
      W(1) = C(1) / B(1)
      X(1) = D(1) / B(1)
      DO 10 I = 2, N
         M = B(I) - A(I) * W(I-1)
         W(I) = C(I) / M
         X(I) = (D(I) - A(I) * X(I-1)) / M
   10 CONTINUE
      DO 20 I = N - 1, 1, -1
         X(I) = X(I) - W(I) * X(I+1)
   20 CONTINUE
      RETURN
      END
