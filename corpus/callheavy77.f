C=====================================================================
C     CALLHEAVY77 - Function-call-heavy program: a chain of tiny
C     REAL, DOUBLE PRECISION, INTEGER and COMPLEX functions and
C     subroutines (argument passing by reference, scalar results),
C     used to integrate a polynomial-rational function and to walk a
C     Collatz-like integer recurrence. Ends with STOP executed inside
C     subroutine FINISH (the main program never reaches its END).
C     Exercises: procedure calls with 1..6 arguments, function results
C       of all four types, EXTERNAL functions passed as arguments,
C       STOP in a subroutine.
C     Runtime class: call-bound.
C=====================================================================
      PROGRAM CALLH7
      INTEGER N
      PARAMETER (N = 25000000)
      DOUBLE PRECISION F1, F2, QUAD, S1, S2
      REAL FS, TS
      INTEGER INEXT, I, K, L, ISTEP
      COMPLEX CROT, Z
      EXTERNAL F1, F2, QUAD, FS, INEXT, CROT
      S1 = QUAD(F1, 0.0D0, 2.0D0, N)
      S2 = QUAD(F2, -1.0D0, 1.0D0, N)
      TS = 0.0
      DO 10 I = 1, N
         TS = TS + FS(REAL(I) * 1.0E-5)
   10 CONTINUE
      ISTEP = 0
      DO 30 K = 1, 100000
         L = K
   20    IF (L .EQ. 1) GOTO 30
         L = INEXT(L)
         ISTEP = ISTEP + 1
         GOTO 20
   30 CONTINUE
      Z = (1.0, 0.0)
      DO 40 I = 1, N
         Z = CROT(Z, 1.0E-3)
   40 CONTINUE
      CALL FINISH(S1, S2, TS, ISTEP, Z)
      END
C
      DOUBLE PRECISION FUNCTION QUAD(F, A, B, N)
C     composite Simpson rule, one call of F per node
      DOUBLE PRECISION F, A, B, H, S
      INTEGER N, I
      EXTERNAL F
      H = (B - A) / DBLE(2 * N)
      S = F(A) + F(B)
      DO 10 I = 1, 2 * N - 1
         IF (MOD(I, 2) .EQ. 1) THEN
            S = S + 4.0D0 * F(A + DBLE(I) * H)
         ELSE
            S = S + 2.0D0 * F(A + DBLE(I) * H)
         END IF
   10 CONTINUE
      QUAD = S * H / 3.0D0
      RETURN
      END
C
      DOUBLE PRECISION FUNCTION F1(X)
      DOUBLE PRECISION X, SQR, POLY
      EXTERNAL SQR, POLY
      F1 = POLY(X, 1.0D0, -2.0D0, 0.5D0) / (1.0D0 + SQR(X))
      RETURN
      END
C
      DOUBLE PRECISION FUNCTION F2(X)
      DOUBLE PRECISION X, SQR
      EXTERNAL SQR
      F2 = SQR(SQR(X)) - SQR(X) + 1.0D0
      RETURN
      END
C
      DOUBLE PRECISION FUNCTION SQR(X)
      DOUBLE PRECISION X
      SQR = X * X
      RETURN
      END
C
      DOUBLE PRECISION FUNCTION POLY(X, C0, C1, C2)
      DOUBLE PRECISION X, C0, C1, C2
      POLY = C0 + X * (C1 + X * C2)
      RETURN
      END
C
      REAL FUNCTION FS(X)
      REAL X, HALF
      EXTERNAL HALF
      FS = HALF(X) * X - HALF(1.0 - X)
      RETURN
      END
C
      REAL FUNCTION HALF(X)
      REAL X
      HALF = 0.5 * X
      RETURN
      END
C
      INTEGER FUNCTION INEXT(L)
      INTEGER L, IEVEN
      EXTERNAL IEVEN
      IF (IEVEN(L) .EQ. 1) THEN
         INEXT = L / 2
      ELSE
         INEXT = 3 * L + 1
      END IF
      RETURN
      END
C
      INTEGER FUNCTION IEVEN(L)
      INTEGER L
      IEVEN = 1 - MOD(L, 2)
      RETURN
      END
C
      COMPLEX FUNCTION CROT(Z, T)
      COMPLEX Z
      REAL T
      CALL CMUL(Z, CMPLX(COS(T), SIN(T)), CROT)
      RETURN
      END
C
      SUBROUTINE CMUL(A, B, C)
      COMPLEX A, B, C
      C = A * B
      RETURN
      END
C
      SUBROUTINE FINISH(S1, S2, TS, ISTEP, Z)
      DOUBLE PRECISION S1, S2
      REAL TS
      INTEGER ISTEP
      COMPLEX Z
      WRITE (*, 900) S1, S2, TS, ISTEP, REAL(Z), AIMAG(Z)
  900 FORMAT (' CALLHEAVY77 ', 2F18.12, E14.6, I12, 2F10.5)
      STOP
      END
