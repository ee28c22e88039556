#ifndef NSIZE
#define NSIZE 384
#endif
C=====================================================================
C     JACOBI77 - Jacobi relaxation for the 2-D Poisson equation on a
C     square grid in single precision, grids kept in COMMON, with a
C     residual norm every 10 sweeps.
C     Exercises: REAL (single) arithmetic on COMMON-global arrays,
C       5-point stencil address computation, labelled DO with shared
C       CONTINUE, SQRT and ABS (single), MAX, arithmetic IF for the
C       convergence test, swap of roles by copying.
C     Runtime class: compute/array-bound (2 x 1 MB, cache resident).
C=====================================================================
      PROGRAM JACOB7
      INTEGER N, MAXIT
      PARAMETER (N = NSIZE, MAXIT = 1900)
      REAL U(N,N), V(N,N), F(N,N)
      COMMON /GRID/ U, V, F
      INTEGER I, J, IT
      REAL H, RES, DMAX, CHK
C
      H = 1.0 / REAL(N - 1)
      DO 10 J = 1, N
      DO 10 I = 1, N
         U(I,J) = 0.0
         V(I,J) = 0.0
         F(I,J) = H * H * SIN(3.0 * REAL(I) * H) * COS(2.0*REAL(J)*H)
   10 CONTINUE
      DO 20 I = 1, N
         U(I,N) = 1.0
         V(I,N) = 1.0
   20 CONTINUE
      IT = 0
   30 IT = IT + 1
      CALL SWEEP(N, DMAX)
      IF (MOD(IT, 10) .EQ. 0) THEN
         CALL RESID(N, RES)
      END IF
      IF (IT - MAXIT) 30, 40, 40
   40 CONTINUE
      CHK = 0.0
      DO 50 J = 1, N, 7
      DO 50 I = 1, N, 5
         CHK = CHK + U(I,J)
   50 CONTINUE
      WRITE (*, 900) IT, RES, DMAX, CHK
  900 FORMAT (' JACOBI77 IT=', I5, ' RES=', E14.6, ' DMAX=', E14.6,
     &        ' CHK=', F14.6)
      END
C
      SUBROUTINE SWEEP(N, DMAX)
      INTEGER N
      REAL DMAX
      REAL U(384,384), V(384,384), F(384,384)
      COMMON /GRID/ U, V, F
      INTEGER I, J
      REAL D
      DMAX = 0.0
      DO 10 J = 2, N - 1
      DO 10 I = 2, N - 1
         V(I,J) = 0.25 * (U(I-1,J) + U(I+1,J) + U(I,J-1) + U(I,J+1)
     &            - F(I,J))
         D = ABS(V(I,J) - U(I,J))
         DMAX = MAX(DMAX, D)
   10 CONTINUE
      DO 20 J = 2, N - 1
      DO 20 I = 2, N - 1
         U(I,J) = V(I,J)
   20 CONTINUE
      RETURN
      END
C
      SUBROUTINE RESID(N, RES)
      INTEGER N
      REAL RES
      REAL U(384,384), V(384,384), F(384,384)
      COMMON /GRID/ U, V, F
      INTEGER I, J
      REAL R
      RES = 0.0
      DO 10 J = 2, N - 1
      DO 10 I = 2, N - 1
         R = U(I-1,J) + U(I+1,J) + U(I,J-1) + U(I,J+1) - 4.0*U(I,J)
     &       - F(I,J)
         RES = RES + R * R
   10 CONTINUE
      RES = SQRT(RES)
      RETURN
      END
