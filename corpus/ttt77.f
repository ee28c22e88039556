C=====================================================================
C     TTT77 - Game-tree search without recursion (FORTRAN 77 has
C     none): an explicit-stack depth-first walk of the complete
C     tic-tac-toe tree (549946 positions; 131184 X wins, 77904 O
C     wins, 46080 draws) with its minimax value, then a
C     depth-limited negamax alpha-beta search of 4 x 4 tic-tac-toe
C     (four in a row) with a line-count evaluation, by iterative
C     deepening from the empty board and from a few openings.
C     Exercises: integer compares and branches, GOTO-built loops,
C       explicit stacks indexed by depth, DATA tables of board
C       lines, block IF / ELSE IF chains, MAX/MIN on integers,
C       integer functions, COMMON counters.
C     Runtime class: branchy integer (game-tree search).
C=====================================================================
      PROGRAM TTT77
      INTEGER NWX, NWO, NDR, NNODE, IVAL
      INTEGER DMAX, D, IOP, ISC, ISUM
      PARAMETER (DMAX = 9)
      INTEGER NODES, NLEAF, NCUT
      COMMON /STATS/ NODES, NLEAF, NCUT
      INTEGER IOPEN(4)
      INTEGER ABSRCH
      EXTERNAL ABSRCH
      DATA IOPEN /0, 6, 1, 2/
      CALL ENUM3(NWX, NWO, NDR, NNODE, IVAL)
      WRITE (*, 900) NNODE, NWX, NWO, NDR, IVAL
      NODES = 0
      NLEAF = 0
      NCUT = 0
      ISUM = 0
      DO 20 IOP = 1, 4
         DO 10 D = 1, DMAX
            ISC = ABSRCH(IOPEN(IOP), D)
            ISUM = ISUM + ISC * D * IOP
   10    CONTINUE
   20 CONTINUE
      WRITE (*, 910) NODES, NLEAF, NCUT, ISUM
  900 FORMAT (' TTT77 3X3 NODES=', I8, ' XWIN=', I7, ' OWIN=', I7,
     &        ' DRAW=', I7, ' VALUE=', I3)
  910 FORMAT (' TTT77 4X4 NODES=', I9, ' LEAVES=', I9, ' CUTS=', I9,
     &        ' SUM=', I9)
      END
C
C     Complete tic-tac-toe tree. B(K): 0 empty, 1 X, 2 O. MV(L) is the
C     cell of the L-th move; BEST(L) the best value found so far for
C     the side to move after L moves (+1 win, 0 draw, -1 loss).
      SUBROUTINE ENUM3(NWX, NWO, NDR, NNODE, IVAL)
      INTEGER NWX, NWO, NDR, NNODE, IVAL
      INTEGER B(9), MV(10), BEST(0:9), D, K, V
      LOGICAL WIN3
      EXTERNAL WIN3
      DO 5 K = 1, 9
         B(K) = 0
    5 CONTINUE
      NWX = 0
      NWO = 0
      NDR = 0
      NNODE = 1
      D = 0
      MV(1) = 0
      BEST(0) = -2
C     try the next cell at level D+1
   10 K = MV(D + 1) + 1
   20 IF (K .GT. 9) GOTO 50
      IF (B(K) .NE. 0) THEN
         K = K + 1
         GOTO 20
      END IF
      MV(D + 1) = K
      B(K) = 2 - MOD(D + 1, 2)
      NNODE = NNODE + 1
      IF (WIN3(B, K)) THEN
         IF (B(K) .EQ. 1) THEN
            NWX = NWX + 1
         ELSE
            NWO = NWO + 1
         END IF
         V = 1
      ELSE IF (D + 1 .EQ. 9) THEN
         NDR = NDR + 1
         V = 0
      ELSE
C        descend
         D = D + 1
         BEST(D) = -2
         MV(D + 1) = 0
         GOTO 10
      END IF
C     terminal child: undo it and keep trying at this level
      B(K) = 0
      BEST(D) = MAX(BEST(D), V)
      GOTO 10
C     level exhausted: position after D moves is valued
   50 IF (D .EQ. 0) THEN
         IVAL = BEST(0)
         RETURN
      END IF
      V = -BEST(D)
      B(MV(D)) = 0
      D = D - 1
      BEST(D) = MAX(BEST(D), V)
      GOTO 10
      END
C
C     does the stone just put on cell K complete a line?
      LOGICAL FUNCTION WIN3(B, K)
      INTEGER B(9), K
      INTEGER L(3, 8), I, P
      DATA L /1,2,3, 4,5,6, 7,8,9, 1,4,7, 2,5,8, 3,6,9, 1,5,9, 3,5,7/
      P = B(K)
      WIN3 = .FALSE.
      DO 10 I = 1, 8
         IF (L(1,I) .NE. K .AND. L(2,I) .NE. K .AND. L(3,I) .NE. K)
     &      GOTO 10
         IF (B(L(1,I)) .EQ. P .AND. B(L(2,I)) .EQ. P .AND.
     &       B(L(3,I)) .EQ. P) THEN
            WIN3 = .TRUE.
            RETURN
         END IF
   10 CONTINUE
      RETURN
      END
C
C     Negamax alpha-beta on 4 x 4 (four in a row), depth limit DLIM,
C     from the empty board or after X's opening move IOPEN (0: none).
C     Levels L = 0..DLIM: position after L moves of the search.
      INTEGER FUNCTION ABSRCH(IOPEN, DLIM)
      INTEGER IOPEN, DLIM
      INTEGER NODES, NLEAF, NCUT
      COMMON /STATS/ NODES, NLEAF, NCUT
      INTEGER INF, IWIN
      PARAMETER (INF = 1000000, IWIN = 100000)
      INTEGER B(16), MV(17), IA(0:16), IB(0:16), BEST(0:16)
      INTEGER ORD(16), D, J, K, V, ME, D0
      LOGICAL WIN4
      INTEGER IEVAL4
      EXTERNAL WIN4, IEVAL4
      DATA ORD /6, 7, 10, 11, 1, 4, 13, 16, 2, 3, 5, 8, 9, 12, 14, 15/
      DO 5 K = 1, 16
         B(K) = 0
    5 CONTINUE
      D0 = 0
      IF (IOPEN .GT. 0) THEN
         B(IOPEN) = 1
         D0 = 1
      END IF
C     D counts moves made by the search; the side to move after D
C     search moves is ME = 1 (X) or 2 (O)
      D = 0
      IA(0) = -INF
      IB(0) = INF
      BEST(0) = -INF
      MV(1) = 0
C     next candidate (index J into ORD) at level D+1
   10 J = MV(D + 1) + 1
   20 IF (J .GT. 16) GOTO 50
      K = ORD(J)
      IF (B(K) .NE. 0) THEN
         J = J + 1
         GOTO 20
      END IF
      MV(D + 1) = J
      ME = 1 + MOD(D + D0, 2)
      B(K) = ME
      NODES = NODES + 1
      IF (WIN4(B, K)) THEN
         V = IWIN - D
      ELSE IF (D + D0 + 1 .EQ. 16) THEN
         V = 0
      ELSE IF (D + 1 .EQ. DLIM) THEN
         NLEAF = NLEAF + 1
         V = IEVAL4(B, ME)
      ELSE
C        descend with the negated window
         D = D + 1
         IA(D) = -IB(D - 1)
         IB(D) = -IA(D - 1)
         BEST(D) = -INF
         MV(D + 1) = 0
         GOTO 10
      END IF
      B(K) = 0
C     child value V for the side to move at level D
   30 BEST(D) = MAX(BEST(D), V)
      IA(D) = MAX(IA(D), V)
      IF (IA(D) .GE. IB(D)) THEN
         NCUT = NCUT + 1
         GOTO 50
      END IF
      GOTO 10
C     level D finished (exhausted or cut off)
   50 IF (D .EQ. 0) THEN
         ABSRCH = BEST(0)
         RETURN
      END IF
      V = -BEST(D)
      B(ORD(MV(D))) = 0
      D = D - 1
      GOTO 30
      END
C
C     four in a row through cell K on the 4 x 4 board?
      LOGICAL FUNCTION WIN4(B, K)
      INTEGER B(16), K
      INTEGER L(4, 10), I, P
      DATA L /1,2,3,4, 5,6,7,8, 9,10,11,12, 13,14,15,16,
     &        1,5,9,13, 2,6,10,14, 3,7,11,15, 4,8,12,16,
     &        1,6,11,16, 4,7,10,13/
      P = B(K)
      WIN4 = .FALSE.
      DO 10 I = 1, 10
         IF (B(L(1,I)) .NE. P) GOTO 10
         IF (B(L(2,I)) .NE. P) GOTO 10
         IF (B(L(3,I)) .NE. P) GOTO 10
         IF (B(L(4,I)) .NE. P) GOTO 10
         WIN4 = .TRUE.
         RETURN
   10 CONTINUE
      RETURN
      END
C
C     static value for player ME: lines held by one side only score
C     1, 4, 16 or 64 by the number of stones
      INTEGER FUNCTION IEVAL4(B, ME)
      INTEGER B(16), ME
      INTEGER L(4, 10), I, J, NX, NO, W(0:4), S
      DATA L /1,2,3,4, 5,6,7,8, 9,10,11,12, 13,14,15,16,
     &        1,5,9,13, 2,6,10,14, 3,7,11,15, 4,8,12,16,
     &        1,6,11,16, 4,7,10,13/
      DATA W /0, 1, 4, 16, 64/
      S = 0
      DO 20 I = 1, 10
         NX = 0
         NO = 0
         DO 10 J = 1, 4
            IF (B(L(J,I)) .EQ. 1) THEN
               NX = NX + 1
            ELSE IF (B(L(J,I)) .EQ. 2) THEN
               NO = NO + 1
            END IF
   10    CONTINUE
         IF (NO .EQ. 0) THEN
            S = S + W(NX)
         ELSE IF (NX .EQ. 0) THEN
            S = S - W(NO)
         END IF
   20 CONTINUE
      IF (ME .EQ. 2) S = -S
      IEVAL4 = S
      RETURN
      END
