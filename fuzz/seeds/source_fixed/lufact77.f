C=====================================================================
C     LUFACT77 - Gaussian elimination with partial pivoting of a
C     diagonally weighted N x N matrix (right-looking, column form),
C     forward/back substitution for several right-hand sides and a
C     residual check against the original matrix.
C     Exercises: DOUBLE PRECISION, triangular loop nests (DO K+1..N),
C       pivot search with DABS and IF, row interchange, INTEGER
C       pivot vector, negative-step back substitution, subroutine
C       calls with adjustable 2-D arrays (leading dimension LDA).
C     Runtime class: compute-bound (triangular loops).
C=====================================================================
      PROGRAM LUF77
      INTEGER LDA, N, NRHS
      PARAMETER (LDA = 1460, N = 1450, NRHS = 4)
      DOUBLE PRECISION A(LDA,N), A0(LDA,N), B(LDA,NRHS), X(LDA)
      INTEGER IPIV(N)
      INTEGER I, J, K, INFO
      DOUBLE PRECISION RMAX, R, XSUM
C
      DO 10 J = 1, N
      DO 10 I = 1, N
         A(I,J) = DBLE(MOD(I * J + 3 * I + J, 29)) / 29.0D0 - 0.5D0
         IF (I .EQ. J) A(I,J) = A(I,J) + 0.01D0 * DBLE(N)
         A0(I,J) = A(I,J)
   10 CONTINUE
      DO 20 K = 1, NRHS
      DO 20 I = 1, N
         B(I,K) = DBLE(K) + DBLE(MOD(I, 11)) * 0.1D0
   20 CONTINUE
      CALL LUDEC(A, LDA, N, IPIV, INFO)
      IF (INFO .NE. 0) WRITE (*, *) 'SINGULAR AT ', INFO
      RMAX = 0.0D0
      XSUM = 0.0D0
      DO 60 K = 1, NRHS
         DO 30 I = 1, N
            X(I) = B(I,K)
   30    CONTINUE
         CALL LUSOLV(A, LDA, N, IPIV, X)
C        residual of the original system
         DO 50 I = 1, N
            R = -B(I,K)
            DO 40 J = 1, N
               R = R + A0(I,J) * X(J)
   40       CONTINUE
            RMAX = MAX(RMAX, DABS(R))
            XSUM = XSUM + X(I)
   50    CONTINUE
   60 CONTINUE
      WRITE (*, 900) N, XSUM, RMAX .LT. 1.0D-8
  900 FORMAT (' LUFACT77 N=', I5, ' XSUM=', 1PE22.14, ' RESOK=', L2)
      END
C
      SUBROUTINE LUDEC(A, LDA, N, IPIV, INFO)
      INTEGER LDA, N, IPIV(N), INFO
      DOUBLE PRECISION A(LDA,N)
      INTEGER I, J, K, P
      DOUBLE PRECISION T, BIG
      INFO = 0
      DO 100 K = 1, N - 1
         P = K
         BIG = DABS(A(K,K))
         DO 10 I = K + 1, N
            IF (DABS(A(I,K)) .GT. BIG) THEN
               BIG = DABS(A(I,K))
               P = I
            END IF
   10    CONTINUE
         IPIV(K) = P
         IF (BIG .EQ. 0.0D0) THEN
            INFO = K
            GOTO 100
         END IF
         IF (P .NE. K) THEN
            DO 20 J = 1, N
               T = A(K,J)
               A(K,J) = A(P,J)
               A(P,J) = T
   20       CONTINUE
         END IF
         DO 30 I = K + 1, N
            A(I,K) = A(I,K) / A(K,K)
   30    CONTINUE
         DO 50 J = K + 1, N
            T = A(K,J)
            DO 40 I = K + 1, N
               A(I,J) = A(I,J) - A(I,K) * T
   40       CONTINUE
   50    CONTINUE
  100 CONTINUE
      IPIV(N) = N
      RETURN
      END
C
      SUBROUTINE LUSOLV(A, LDA, N, IPIV, X)
      INTEGER LDA, N, IPIV(N)
      DOUBLE PRECISION A(LDA,N), X(N)
      INTEGER I, J, P
      DOUBLE PRECISION T
      DO 10 I = 1, N - 1
         P = IPIV(I)
         IF (P .NE. I) THEN
            T = X(I)
            X(I) = X(P)
            X(P) = T
         END IF
   10 CONTINUE
C     L y = b  (unit lower)
      DO 30 J = 1, N - 1
         DO 20 I = J + 1, N
            X(I) = X(I) - A(I,J) * X(J)
   20    CONTINUE
   30 CONTINUE
C     U x = y
      DO 50 J = N, 1, -1
         X(J) = X(J) / A(J,J)
         DO 40 I = 1, J - 1
            X(I) = X(I) - A(I,J) * X(J)
   40    CONTINUE
   50 CONTINUE
      RETURN
      END
