! mulkij with the matrices in COMMON, as corpus/matmul77.f has them
      SUBROUTINE MULKIJ
      INTEGER N
      PARAMETER (N = NN)
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
      PROGRAM MKC
      INTEGER N
      PARAMETER (N = NN)
      DOUBLE PRECISION A(N,N), B(N,N), C(N,N)
      COMMON /MATS/ A, B, C
      INTEGER I, J, T0, T1, RATE
      DO 10 J = 1, N
      DO 10 I = 1, N
      A(I,J) = 1.0D0 / (I + J)
   10 B(I,J) = 2.0D0 / (I + 2*J)
      CALL SYSTEM_CLOCK(T0, RATE)
      CALL MULKIJ
      CALL SYSTEM_CLOCK(T1)
      PRINT '(A,I6,A,F8.3,A,F8.3,A)', ' n=', N, ' time=', DBLE(T1-T0)/RATE*1D3, ' ms, ',
     &  DBLE(T1-T0)/RATE*1D9/DBLE(N)**3, ' ns/iter'
      IF (C(1,1) .LT. -1D0) PRINT *, C(1,1)
      END
