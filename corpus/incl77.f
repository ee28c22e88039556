C=====================================================================
C     INCL77 - Particles on springs in 3-D (each particle coupled to
C     its ring neighbours and to the 7th next one) integrated with
C     velocity Verlet. All sizes and the particle COMMON block come
C     from the Fortran INCLUDE file incl77.inc.
C     Exercises: INCLUDE, COMMON-global double arithmetic, 2-D arrays
C       with a small first dimension (3), MOD for ring indexing,
C       SQRT, subroutine calls without arguments.
C     Runtime class: compute-bound, COMMON-heavy.
C=====================================================================
      PROGRAM INCL77
      INCLUDE 'incl77.inc'
      INTEGER I, K, IS
      DOUBLE PRECISION DT, EKIN
      DT = 1.0D-2
      DO 10 I = 1, NB
         POS(1,I) = COS(6.283185307D0 * DBLE(I) / DBLE(NB))
         POS(2,I) = SIN(6.283185307D0 * DBLE(I) / DBLE(NB))
         POS(3,I) = 0.01D0 * DBLE(MOD(I, 13))
         DO 10 K = 1, 3
            VEL(K,I) = 0.0D0
   10 CONTINUE
      CALL FORCES
      DO 100 IS = 1, NSTEP
         DO 20 I = 1, NB
         DO 20 K = 1, 3
            VEL(K,I) = VEL(K,I) + 0.5D0 * DT * ACC(K,I)
            POS(K,I) = POS(K,I) + DT * VEL(K,I)
   20    CONTINUE
         CALL FORCES
         DO 30 I = 1, NB
         DO 30 K = 1, 3
            VEL(K,I) = VEL(K,I) + 0.5D0 * DT * ACC(K,I)
   30    CONTINUE
  100 CONTINUE
      EKIN = 0.0D0
      DO 110 I = 1, NB
         EKIN = EKIN + VEL(1,I)**2 + VEL(2,I)**2 + VEL(3,I)**2
  110 CONTINUE
      WRITE (*, 900) EKIN * 0.5D0, EPOT, EKIN * 0.5D0 + EPOT
  900 FORMAT (' INCL77 EKIN=', 1PE20.12, ' EPOT=', E20.12,
     &        ' ETOT=', E20.12)
      END
C
      SUBROUTINE FORCES
      INCLUDE 'incl77.inc'
      INTEGER I, J, K, M, NBR(3)
      DOUBLE PRECISION D(3), R, F, RL
      DATA NBR /1, 2, 7/
      RL = 0.05D0
      EPOT = 0.0D0
      DO 10 I = 1, NB
      DO 10 K = 1, 3
         ACC(K,I) = 0.0D0
   10 CONTINUE
      DO 40 I = 1, NB
         DO 40 M = 1, 3
            J = MOD(I - 1 + NBR(M), NB) + 1
            DO 20 K = 1, 3
               D(K) = POS(K,J) - POS(K,I)
   20       CONTINUE
            R = SQRT(D(1)**2 + D(2)**2 + D(3)**2)
            F = (R - RL * DBLE(NBR(M))) / MAX(R, 1.0D-12)
            EPOT = EPOT + 0.5D0 * (R - RL * DBLE(NBR(M)))**2
            DO 30 K = 1, 3
               ACC(K,I) = ACC(K,I) + F * D(K)
               ACC(K,J) = ACC(K,J) - F * D(K)
   30       CONTINUE
   40 CONTINUE
      RETURN
      END
