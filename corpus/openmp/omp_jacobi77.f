C=====================================================================
C     OMP_JACOBI77 - Jacobi relaxation for the 2-D Poisson equation
C     -lap(u) = f on a 1200 x 1200 grid in DOUBLE PRECISION, grids in
C     COMMON /GRID/, fixed-form Fortran 77 with C$OMP directives.  The
C     parallel loops are in subroutines that receive the COMMON grids
C     as adjustable dummy arrays and read the coefficients H and Q
C     from COMMON /COEF/ inside the parallel regions.  (Referencing a
C     COMMON member inside a parallel region makes gfortran 12 at -O0
C     reserve stack space for the whole block in the outlined
C     function: 35 MB for /GRID/, beyond the 8 MB stack.)  Each
C     sweep is a C$OMP PARALLEL DO over columns (continued with a
C     C$OMP& line that names the SHARED grids and a MAX reduction of
C     the update size); the copy-back is a second PARALLEL DO; every
C     NRES sweeps a residual 2-norm is formed with
C     C$OMP PARALLEL DO REDUCTION(+:RES).  The iteration count is
C     fixed, grid values do not depend on the thread count, and the
C     order-dependent residual sum is printed to 7 digits only.
C     Exercises: fixed-form C$OMP sentinels and C$OMP& continuation,
C       PRIVATE / SHARED clauses on adjustable dummy arrays, COMMON
C       scalars read in parallel loops, COMMON arrays as arguments,
C       REDUCTION(MAX:) and REDUCTION(+:) on DOUBLE PRECISION, 5-point
C       stencil on COMMON arrays, labelled DO loops (own CONTINUE per
C       parallel nest, shared CONTINUE in the serial checksum),
C       arithmetic IF, SQRT/ABS/MAX/SIN/COS.
C     Runtime class: stencil, memory-bound (3 x 11.5 MB = 35 MB of
C       COMMON, beyond the 32 MB L3).
C=====================================================================
      PROGRAM OMPJAC
      INTEGER N, NIT, NRES
      PARAMETER (N = 1200, NIT = 110, NRES = 10)
      DOUBLE PRECISION U(N,N), V(N,N), F(N,N)
      COMMON /GRID/ U, V, F
      DOUBLE PRECISION H, Q
      COMMON /COEF/ H, Q
      INTEGER I, J, IT, NR
      DOUBLE PRECISION RES, DMAX, CHK
C
      H = 1.0D0 / DBLE(N - 1)
      Q = 0.25D0
C     first touch of the COMMON grids in parallel
      CALL INIT(N, U, V, F)
      DO 20 I = 1, N
         U(I,N) = 1.0D0
         V(I,N) = 1.0D0
         U(N,I) = DBLE(I - 1) * H
         V(N,I) = DBLE(I - 1) * H
   20 CONTINUE
      IT = 0
      NR = 0
   30 IT = IT + 1
      CALL SWEEP(N, U, V, F, DMAX)
      IF (MOD(IT, NRES) .EQ. 0) THEN
         CALL RESID(N, U, F, RES)
         NR = NR + 1
      END IF
      IF (IT - NIT) 30, 40, 40
   40 CONTINUE
C     serial checksum of the grid (order fixed)
      CHK = 0.0D0
      DO 50 J = 1, N, 3
      DO 50 I = 1, N, 7
         CHK = CHK + U(I,J) * DBLE(MOD(I + J, 5) + 1)
   50 CONTINUE
      WRITE (*, 900) N, IT, NR
      WRITE (*, 910) RES, DMAX
      WRITE (*, 920) CHK, U(N/2,N/2)
  900 FORMAT (' OMP_JACOBI77 N=', I5, ' IT=', I6, ' RESIDUALS=', I4)
  910 FORMAT (' RES=', 1PE14.6, ' DMAX=', 1PE22.14)
  920 FORMAT (' CHK=', F20.12, ' UMID=', F18.14)
      END
C
C     one Jacobi sweep V <- f(U), then U <- V; DMAX = max |V - U|
      SUBROUTINE SWEEP(N, U, V, F, DMAX)
      INTEGER N
      DOUBLE PRECISION U(N,N), V(N,N), F(N,N), DMAX
      DOUBLE PRECISION H, Q
      COMMON /COEF/ H, Q
      INTEGER I, J
      DOUBLE PRECISION D
      DMAX = 0.0D0
C$OMP PARALLEL DO PRIVATE(I,J,D)
C$OMP& SHARED(U,V,F,N) REDUCTION(MAX:DMAX)
      DO 11 J = 2, N - 1
      DO 10 I = 2, N - 1
         V(I,J) = Q * (U(I-1,J) + U(I+1,J) + U(I,J-1) + U(I,J+1)
     &            + F(I,J))
         D = ABS(V(I,J) - U(I,J))
         DMAX = MAX(DMAX, D)
   10 CONTINUE
   11 CONTINUE
C$OMP END PARALLEL DO
C$OMP PARALLEL DO PRIVATE(I,J) SHARED(U,V,N)
      DO 21 J = 2, N - 1
      DO 20 I = 2, N - 1
         U(I,J) = V(I,J)
   20 CONTINUE
   21 CONTINUE
C$OMP END PARALLEL DO
      RETURN
      END
C
C     residual 2-norm of -lap(u) - f (scaled by h*h)
      SUBROUTINE RESID(N, U, F, RES)
      INTEGER N
      DOUBLE PRECISION U(N,N), F(N,N), RES
      INTEGER I, J
      DOUBLE PRECISION R
      RES = 0.0D0
C$OMP PARALLEL DO PRIVATE(I,J,R)
C$OMP& SHARED(U,F,N) REDUCTION(+:RES)
      DO 11 J = 2, N - 1
      DO 10 I = 2, N - 1
         R = U(I-1,J) + U(I+1,J) + U(I,J-1) + U(I,J+1) - 4.0D0*U(I,J)
     &       + F(I,J)
         RES = RES + R * R
   10 CONTINUE
   11 CONTINUE
C$OMP END PARALLEL DO
      RES = SQRT(RES)
      RETURN
      END
C
C     zero the grids and set the source term, in parallel (first touch)
      SUBROUTINE INIT(N, U, V, F)
      INTEGER N
      DOUBLE PRECISION U(N,N), V(N,N), F(N,N)
      DOUBLE PRECISION H, Q
      COMMON /COEF/ H, Q
      INTEGER I, J
C$OMP PARALLEL DO PRIVATE(I,J)
C$OMP& SHARED(U,V,F,N)
      DO 11 J = 1, N
      DO 10 I = 1, N
         U(I,J) = 0.0D0
         V(I,J) = 0.0D0
         F(I,J) = H * H * 20.0D0 * SIN(3.0D0 * DBLE(I) * H)
     &            * COS(2.0D0 * DBLE(J) * H)
   10 CONTINUE
   11 CONTINUE
C$OMP END PARALLEL DO
      RETURN
      END
