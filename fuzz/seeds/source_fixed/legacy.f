C     LEGACY: an F77 fixed-form example for augur.
C     Gauss-Seidel relaxation with COMMON blocks, labelled DO loops
C     sharing a terminal statement, a GOTO convergence loop and a
C     function call per point.
      PROGRAM LEGACY
      IMPLICIT DOUBLE PRECISION (A-H,O-Z)
      PARAMETER (N=200)
      COMMON /FIELD/ P(N,N), RHS(N,N)
      COMMON /CTRL/ OMEGA, TOL
      INTEGER ITER
      OMEGA = 1.5D0
      TOL = 1.0D-6
      DO 10 J = 1, N
      DO 10 I = 1, N
         P(I,J) = 0.0D0
         RHS(I,J) = SRC(I, J, N)
   10 CONTINUE
      ITER = 0
   20 CONTINUE
      ITER = ITER + 1
      CALL SWEEP(N, RESID)
      IF (RESID .GT. TOL .AND. ITER .LT. 50) GOTO 20
      WRITE (*, 100) ITER, RESID
  100 FORMAT (' LEGACY ITERATIONS', I5, ' RESIDUAL', 1PE12.4)
      END

      SUBROUTINE SWEEP(N, RESID)
      IMPLICIT DOUBLE PRECISION (A-H,O-Z)
      COMMON /FIELD/ P(200,200), RHS(200,200)
      COMMON /CTRL/ OMEGA, TOL
      RESID = 0.0D0
      DO 30 J = 2, N - 1
         DO 30 I = 2, N - 1
            OLD = P(I,J)
            P(I,J) = (1.0D0 - OMEGA) * OLD + OMEGA * 0.25D0 *
     &               (P(I-1,J) + P(I+1,J) + P(I,J-1) + P(I,J+1)
     &                - RHS(I,J))
            RESID = MAX(RESID, ABS(P(I,J) - OLD))
   30 CONTINUE
      RETURN
      END

      DOUBLE PRECISION FUNCTION SRC(I, J, N)
      INTEGER I, J, N
      SRC = 1.0D-3 * DBLE(MOD(I * J, 7) - 3) / DBLE(N)
      END
