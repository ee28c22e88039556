C=====================================================================
C     BLOCKTRI77 - Implicit line sweeps of a five-equation system on a
C     3-D grid: for every (J,K) line along X, 5x5 coupling blocks are
C     formed from the state, the block-tridiagonal system is reduced
C     by block Gauss-Jordan elimination and solved back, and the
C     correction is added to the state. The state and the right-hand
C     side are 4-D arrays in COMMON; the line's blocks a 4-D work
C     array (5,5,3,0:NX+1).
C     Exercises: 5x5 block operations in called routines (a product
C       written out statement by statement, a matrix product in
C       loops, an elimination with a pivot divide), adjustable
C       dummy arrays of several dimensions, 4-D subscripts, fixed
C       form with continuation lines, DO with shared termination.
C     Runtime class: compute-bound, many short calls on small blocks.
C=====================================================================
      PROGRAM BLKT77
      INTEGER NX, NY, NZ, NSTEP
      PARAMETER (NX = 20, NY = 20, NZ = 20, NSTEP = 180)
      DOUBLE PRECISION U(5, 0:NX+1, 0:NY+1, 0:NZ+1)
      DOUBLE PRECISION RHS(5, NX, NY, NZ)
      COMMON /STATE/ U, RHS
      DOUBLE PRECISION S
      INTEGER I, J, K, M, IS
C
      DO 10 K = 0, NZ + 1
      DO 10 J = 0, NY + 1
      DO 10 I = 0, NX + 1
      DO 10 M = 1, 5
         U(M, I, J, K) = 1.0D0 + 0.01D0 * DBLE(M)
     &        + 0.001D0 * DBLE(MOD(I * 7 + J * 3 + K, 11))
   10 CONTINUE
      DO 100 IS = 1, NSTEP
         CALL RESID(NX, NY, NZ)
         DO 50 K = 1, NZ
         DO 50 J = 1, NY
            CALL LINE(NX, J, K)
   50    CONTINUE
         DO 60 K = 1, NZ
         DO 60 J = 1, NY
         DO 60 I = 1, NX
         DO 60 M = 1, 5
            U(M, I, J, K) = U(M, I, J, K) + RHS(M, I, J, K)
   60    CONTINUE
  100 CONTINUE
      S = 0.0D0
      DO 110 K = 1, NZ
      DO 110 J = 1, NY
      DO 110 I = 1, NX
         S = S + U(1, I, J, K) + U(5, I, J, K)
  110 CONTINUE
      WRITE (*, '(A, F16.8)') 'BLOCKTRI77 CHECKSUM ', S
      END
C
C     The right-hand side: a seven-point difference of the state.
      SUBROUTINE RESID(NX, NY, NZ)
      INTEGER NX, NY, NZ
      DOUBLE PRECISION U(5, 0:20+1, 0:20+1, 0:20+1)
      DOUBLE PRECISION RHS(5, 20, 20, 20)
      COMMON /STATE/ U, RHS
      INTEGER I, J, K, M
      DO 20 K = 1, NZ
      DO 20 J = 1, NY
      DO 20 I = 1, NX
      DO 20 M = 1, 5
         RHS(M, I, J, K) = 1.0D-3 * (U(M, I-1, J, K) + U(M, I+1, J, K)
     &        + U(M, I, J-1, K) + U(M, I, J+1, K) + U(M, I, J, K-1)
     &        + U(M, I, J, K+1) - 6.0D0 * U(M, I, J, K))
   20 CONTINUE
      END
C
C     One line along X at (J,K): blocks formed, reduced, solved back.
      SUBROUTINE LINE(NX, J, K)
      INTEGER NX, J, K
      DOUBLE PRECISION U(5, 0:20+1, 0:20+1, 0:20+1)
      DOUBLE PRECISION RHS(5, 20, 20, 20)
      COMMON /STATE/ U, RHS
      DOUBLE PRECISION BLK(5, 5, 3, 0:21)
      INTEGER I
      DO 10 I = 1, NX
         CALL JACOB(U(1, I-1, J, K), BLK(1, 1, 1, I), -1.0D0)
         CALL JACOB(U(1, I, J, K), BLK(1, 1, 2, I), 4.0D0)
         CALL JACOB(U(1, I+1, J, K), BLK(1, 1, 3, I), -1.0D0)
   10 CONTINUE
C     Forward: eliminate the lower block, invert the diagonal one.
      CALL GJSOLVE(BLK(1, 1, 2, 1), BLK(1, 1, 3, 1), RHS(1, 1, J, K))
      DO 20 I = 2, NX
         CALL MVSUB(BLK(1, 1, 1, I), RHS(1, I-1, J, K),
     &        RHS(1, I, J, K))
         CALL MMSUB(BLK(1, 1, 1, I), BLK(1, 1, 3, I-1),
     &        BLK(1, 1, 2, I))
         CALL GJSOLVE(BLK(1, 1, 2, I), BLK(1, 1, 3, I),
     &        RHS(1, I, J, K))
   20 CONTINUE
C     Back: subtract the upper block times the next solution.
      DO 30 I = NX - 1, 1, -1
         CALL MVSUB(BLK(1, 1, 3, I), RHS(1, I+1, J, K),
     &        RHS(1, I, J, K))
   30 CONTINUE
      END
C
C     A coupling block from a state vector Q: a scaled identity plus a
C     rank-one term, so that the diagonal dominates.
      SUBROUTINE JACOB(Q, A, D)
      DOUBLE PRECISION Q(5), A(5, 5), D
      DOUBLE PRECISION R
      INTEGER M, N
      R = 0.02D0 / Q(1)
      DO 10 N = 1, 5
      DO 10 M = 1, 5
         A(M, N) = R * Q(M) * Q(N)
   10 CONTINUE
      DO 20 M = 1, 5
         A(M, M) = A(M, M) + D
   20 CONTINUE
      END
C
C     Y = Y - A*X, written out row by row.
      SUBROUTINE MVSUB(A, X, Y)
      DOUBLE PRECISION A(5, 5), X(5), Y(5)
      Y(1) = Y(1) - A(1,1)*X(1) - A(1,2)*X(2) - A(1,3)*X(3)
     &     - A(1,4)*X(4) - A(1,5)*X(5)
      Y(2) = Y(2) - A(2,1)*X(1) - A(2,2)*X(2) - A(2,3)*X(3)
     &     - A(2,4)*X(4) - A(2,5)*X(5)
      Y(3) = Y(3) - A(3,1)*X(1) - A(3,2)*X(2) - A(3,3)*X(3)
     &     - A(3,4)*X(4) - A(3,5)*X(5)
      Y(4) = Y(4) - A(4,1)*X(1) - A(4,2)*X(2) - A(4,3)*X(3)
     &     - A(4,4)*X(4) - A(4,5)*X(5)
      Y(5) = Y(5) - A(5,1)*X(1) - A(5,2)*X(2) - A(5,3)*X(3)
     &     - A(5,4)*X(4) - A(5,5)*X(5)
      END
C
C     C = C - A*B in loops.
      SUBROUTINE MMSUB(A, B, C)
      DOUBLE PRECISION A(5, 5), B(5, 5), C(5, 5)
      INTEGER I, J, L
      DO 10 J = 1, 5
      DO 10 L = 1, 5
      DO 10 I = 1, 5
         C(I, J) = C(I, J) - A(I, L) * B(L, J)
   10 CONTINUE
      END
C
C     Gauss-Jordan on the 5x5 block B (no pivoting: it is diagonally
C     dominant), applied to the block C and the vector R alongside.
      SUBROUTINE GJSOLVE(B, C, R)
      DOUBLE PRECISION B(5, 5), C(5, 5), R(5)
      DOUBLE PRECISION PIV, F
      INTEGER I, J, P
      DO 40 P = 1, 5
         PIV = 1.0D0 / B(P, P)
         DO 10 J = P + 1, 5
            B(P, J) = B(P, J) * PIV
   10    CONTINUE
         DO 15 J = 1, 5
            C(P, J) = C(P, J) * PIV
   15    CONTINUE
         R(P) = R(P) * PIV
         DO 30 I = 1, 5
            IF (I .EQ. P) GO TO 30
            F = B(I, P)
            DO 20 J = P + 1, 5
               B(I, J) = B(I, J) - F * B(P, J)
   20       CONTINUE
            DO 25 J = 1, 5
               C(I, J) = C(I, J) - F * C(P, J)
   25       CONTINUE
            R(I) = R(I) - F * R(P)
   30    CONTINUE
   40 CONTINUE
      END
