C=====================================================================
C     mixed/relax.f - fixed-form F77 part of the mixed program:
C     successive over-relaxation for psi given the vorticity, and a
C     vorticity transport step, both on the COMMON block /FIELD/
C     shared with the free-form module consts.f90.
C     Exercises: COMMON shared across source forms, labelled DO,
C       arithmetic IF for the convergence test, DOUBLE PRECISION.
C=====================================================================
      SUBROUTINE SOR(OMEGA, TOL, MAXS)
      INTEGER NX, NY
      PARAMETER (NX = 160, NY = 160)
      DOUBLE PRECISION PSI(NX, NY), OMG(NX, NY)
      INTEGER NITER
      COMMON /FIELD/ PSI, OMG, NITER
      DOUBLE PRECISION OMEGA, TOL, H2, R, RMAX
      INTEGER MAXS, I, J, IT
      H2 = 1.0D0 / DBLE((NX - 1) * (NX - 1))
      IT = 0
   10 IT = IT + 1
      RMAX = 0.0D0
      DO 20 J = 2, NY - 1
      DO 20 I = 2, NX - 1
         R = 0.25D0 * (PSI(I-1,J) + PSI(I+1,J) + PSI(I,J-1)
     &       + PSI(I,J+1) + H2 * OMG(I,J)) - PSI(I,J)
         PSI(I,J) = PSI(I,J) + OMEGA * R
         IF (DABS(R) .GT. RMAX) RMAX = DABS(R)
   20 CONTINUE
      NITER = NITER + 1
      IF (IT .GE. MAXS) RETURN
      IF (RMAX - TOL) 30, 30, 10
   30 RETURN
      END
C
      SUBROUTINE ADVECT(DT)
      INTEGER NX, NY
      PARAMETER (NX = 160, NY = 160)
      DOUBLE PRECISION PSI(NX, NY), OMG(NX, NY)
      INTEGER NITER
      COMMON /FIELD/ PSI, OMG, NITER
      DOUBLE PRECISION DT, U, V, H, W(NX, NY)
      INTEGER I, J
      H = 1.0D0 / DBLE(NX - 1)
      DO 10 J = 1, NY
      DO 10 I = 1, NX
         W(I,J) = OMG(I,J)
   10 CONTINUE
      DO 20 J = 2, NY - 1
      DO 20 I = 2, NX - 1
         U = (PSI(I,J+1) - PSI(I,J-1)) / (2.0D0 * H)
         V = -(PSI(I+1,J) - PSI(I-1,J)) / (2.0D0 * H)
         OMG(I,J) = W(I,J) - DT * (U * (W(I+1,J) - W(I-1,J))
     &            + V * (W(I,J+1) - W(I,J-1))) / (2.0D0 * H)
     &            + DT * 1.0D-3 * (W(I+1,J) + W(I-1,J) + W(I,J+1)
     &            + W(I,J-1) - 4.0D0 * W(I,J)) / (H * H)
   20 CONTINUE
      RETURN
      END
