#ifndef NSIZE
#define NSIZE 1000000
#endif
C=====================================================================
C     SORT77 - Integer sorting: Shell sort (gap sequence 3h+1) and
C     heapsort of pseudo-random keys, insertion sort of short runs,
C     followed by a verification pass and a binary-search phase.
C     Exercises: integer compares and moves, GOTO-built loops (sift
C       down, insertion), arithmetic IF in the binary search, integer
C       division by 2 and 3, labelled DO with non-unit step, array
C       copy, INTEGER FUNCTION.
C     Runtime class: integer, branchy.
C=====================================================================
      PROGRAM SORT77
      INTEGER N, NSRCH
      PARAMETER (N = NSIZE, NSRCH = 3000000)
      INTEGER KEY(N), WRK(N)
      INTEGER I, ISEED, NBAD, NFOUND, IPOS, IBSRCH, ICHK
      EXTERNAL IBSRCH
C
      ISEED = 4711
      DO 10 I = 1, N
         ISEED = MOD(ISEED * 1366 + 150889, 714025)
         KEY(I) = ISEED
         WRK(I) = ISEED
   10 CONTINUE
      CALL SHELL(KEY, N)
      CALL HEAPS(WRK, N)
      NBAD = 0
      DO 20 I = 2, N
         IF (KEY(I-1) .GT. KEY(I)) NBAD = NBAD + 1
         IF (KEY(I) .NE. WRK(I)) NBAD = NBAD + 1
   20 CONTINUE
C     insertion sort of reversed blocks of 64
      DO 40 I = 1, N - 63, 64
         CALL REVERS(WRK(I), 64)
         CALL INSORT(WRK(I), 64)
   40 CONTINUE
      NFOUND = 0
      ICHK = 0
      DO 50 I = 1, NSRCH
         ISEED = MOD(ISEED * 1366 + 150889, 714025)
         IPOS = IBSRCH(KEY, N, ISEED)
         IF (IPOS .GT. 0) THEN
            NFOUND = NFOUND + 1
            ICHK = MOD(ICHK + IPOS, 999983)
         END IF
   50 CONTINUE
      WRITE (*, 900) NBAD, KEY(1), KEY(N/2), KEY(N), NFOUND, ICHK,
     &               WRK(N/3)
  900 FORMAT (' SORT77 BAD=', I6, ' KEYS=', 3I8, ' FOUND=', I8,
     &        ' CHK=', I8, ' W=', I8)
      END
C
      SUBROUTINE SHELL(A, N)
      INTEGER N, A(N)
      INTEGER H, I, J, V
      H = 1
   10 IF (H .GE. N / 3) GOTO 20
      H = 3 * H + 1
      GOTO 10
   20 IF (H .LT. 1) RETURN
      DO 40 I = H + 1, N
         V = A(I)
         J = I
   30    IF (J .LE. H) GOTO 35
         IF (A(J-H) .LE. V) GOTO 35
         A(J) = A(J-H)
         J = J - H
         GOTO 30
   35    A(J) = V
   40 CONTINUE
      H = H / 3
      GOTO 20
      END
C
      SUBROUTINE HEAPS(A, N)
      INTEGER N, A(N)
      INTEGER L, IR, I, J, T
      DO 10 L = N / 2, 1, -1
         CALL SIFT(A, L, N)
   10 CONTINUE
      DO 20 IR = N, 2, -1
         T = A(1)
         A(1) = A(IR)
         A(IR) = T
         CALL SIFT(A, 1, IR - 1)
   20 CONTINUE
      RETURN
      END
C
      SUBROUTINE SIFT(A, L, IR)
      INTEGER L, IR, A(IR)
      INTEGER I, J, V
      V = A(L)
      I = L
      J = 2 * L
   10 IF (J .GT. IR) GOTO 30
      IF (J .LT. IR) THEN
         IF (A(J) .LT. A(J+1)) J = J + 1
      END IF
      IF (V .GE. A(J)) GOTO 30
      A(I) = A(J)
      I = J
      J = 2 * J
      GOTO 10
   30 A(I) = V
      RETURN
      END
C
      SUBROUTINE REVERS(A, N)
      INTEGER N, A(N)
      INTEGER I, T
      DO 10 I = 1, N / 2
         T = A(I)
         A(I) = A(N + 1 - I)
         A(N + 1 - I) = T
   10 CONTINUE
      RETURN
      END
C
      SUBROUTINE INSORT(A, N)
      INTEGER N, A(N)
      INTEGER I, J, V
      DO 20 I = 2, N
         V = A(I)
         J = I - 1
   10    IF (J .LT. 1) GOTO 15
         IF (A(J) .LE. V) GOTO 15
         A(J+1) = A(J)
         J = J - 1
         GOTO 10
   15    A(J+1) = V
   20 CONTINUE
      RETURN
      END
C
      INTEGER FUNCTION IBSRCH(A, N, V)
      INTEGER N, A(N), V
      INTEGER LO, HI, MID
      LO = 1
      HI = N
   10 IF (LO .GT. HI) GOTO 30
      MID = (LO + HI) / 2
      IF (A(MID) - V) 20, 40, 25
   20 LO = MID + 1
      GOTO 10
   25 HI = MID - 1
      GOTO 10
   30 IBSRCH = 0
      RETURN
   40 IBSRCH = MID
      RETURN
      END
