      PROGRAM LUL2
C     LU's column update over a trailing matrix of KS..N (held by L2
C     when N-KS is small), repeated NREP times.
      INTEGER LDA, N, KS, NREP
      PARAMETER (LDA = 1460, N = 1450, KS = 1000, NREP = 40)
      DOUBLE PRECISION A(LDA,N), T, S
      INTEGER I, J, K, R
      DO 10 J = 1, N
      DO 10 I = 1, LDA
         A(I,J) = 1.0D-6 * DBLE(MOD(I*J, 13))
   10 CONTINUE
      DO 60 R = 1, NREP
      DO 50 K = KS, N - 1
         DO 40 J = K + 1, N
            T = A(K,J)
            DO 30 I = K + 1, N
               A(I,J) = A(I,J) - A(I,K) * T
   30       CONTINUE
   40    CONTINUE
   50 CONTINUE
   60 CONTINUE
      S = 0.0D0
      DO 70 I = 1, N
         S = S + A(I,N)
   70 CONTINUE
      WRITE (*, *) S
      END
