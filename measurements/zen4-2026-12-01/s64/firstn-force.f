      PROGRAM FK
      IMPLICIT REAL*8 (A-H,O-Z)
      PARAMETER (NMAX=256)
      COMMON/NBODY/ BODY(NMAX),X(3,NMAX),F(3,NMAX)
      COMMON/NAMES/ N,ICL,JCL
      COMMON/PARAMS/ EPS2
      INTEGER*8 C0,C1,CR
      N = 128
      EPS2 = 1.0D-4
      DO 1 I = 1,N
      BODY(I) = 1.0D0/N
      DO 1 K = 1,3
      X(K,I) = SIN(DBLE(I*3+K))
    1 CONTINUE
      CALL SYSTEM_CLOCK(C0,CR)
      DO 100 IT = 1,4000
      CALL FORCE
  100 CONTINUE
      CALL SYSTEM_CLOCK(C1,CR)
      T = DBLE(C1-C0)/DBLE(CR)
      WRITE(*,'(F8.4,1X,F8.3,1X,E12.5)') T, T/(4000.0D0*N*(N-1))*1D9,
     &  F(1,1)+F(2,5)
      END
      SUBROUTINE FORCE
      IMPLICIT REAL*8 (A-H,O-Z)
      PARAMETER (NMAX=256)
      COMMON/NBODY/ BODY(NMAX),X(3,NMAX),F(3,NMAX)
      COMMON/NAMES/ N,ICL,JCL
      COMMON/PARAMS/ EPS2
      REAL*4 A(3)
      RM2 = 100.0
      DO 50 I = 1,N
      DO 2 K = 1,3
          F(K,I) = 0.0
    2 CONTINUE
      DO 10 J = 1,N
          IF (J.EQ.I) GO TO 10
          DO 5 K = 1,3
              A(K) = X(K,J) - X(K,I)
    5     CONTINUE
          RIJ2 = A(1)*A(1) + A(2)*A(2) + A(3)*A(3) + EPS2
          IF (RIJ2.LT.RM2) THEN
              RM2 = RIJ2
              ICL = I
              JCL = J
          END IF
          A8 = BODY(J)/(RIJ2*SQRTX(RIJ2))
          DO 8 K = 1,3
              F(K,I) = F(K,I) + A(K)*A8
    8     CONTINUE
   10 CONTINUE
   50 CONTINUE
      END
