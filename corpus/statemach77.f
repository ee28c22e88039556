C=====================================================================
C     STATEMACH77 - A finite-state lexer run over a pseudo-random
C     character stream: classifies characters (letter, digit, blank,
C     operator, other) and drives a 5-state machine that counts
C     identifiers, integers, reals and operators.
C     Exercises: CHARACTER*1 arrays, ICHAR/CHAR, computed GOTO on the
C       state, IF-ELSE IF chains, GOTO-heavy control flow, integer
C       LCG with MOD, COMMON counters.
C     Runtime class: branchy.
C=====================================================================
      PROGRAM STAT77
      INTEGER NCH, NREP
      PARAMETER (NCH = 2000000, NREP = 34)
      CHARACTER*1 BUF(NCH)
      INTEGER NID, NINT, NREAL, NOP, NERR, LMAX
      COMMON /CNT/ NID, NINT, NREAL, NOP, NERR, LMAX
      INTEGER I, IREP, ISEED, R, C
      CHARACTER*16 ALPHA
      DATA ALPHA /'+-*/=() ;.,abxy'/
C
      NID = 0
      NINT = 0
      NREAL = 0
      NOP = 0
      NERR = 0
      LMAX = 0
      ISEED = 7
      DO 10 I = 1, NCH
         ISEED = MOD(ISEED * 1103 + 12345, 65521)
         R = MOD(ISEED, 64)
         IF (R .LT. 16) THEN
            BUF(I) = ALPHA(R+1:R+1)
         ELSE IF (R .LT. 36) THEN
            BUF(I) = CHAR(ICHAR('a') + MOD(R, 26))
         ELSE IF (R .LT. 52) THEN
            BUF(I) = CHAR(ICHAR('0') + MOD(R, 10))
         ELSE IF (R .LT. 60) THEN
            BUF(I) = ' '
         ELSE
            BUF(I) = '#'
         END IF
   10 CONTINUE
      DO 20 IREP = 1, NREP
         CALL LEX(BUF, NCH)
   20 CONTINUE
      C = NID + 3 * NINT + 5 * NREAL + 7 * NOP + 11 * NERR
      WRITE (*, 900) NID, NINT, NREAL, NOP, NERR, LMAX, C
  900 FORMAT (' STATEMACH77 ID=', I9, ' INT=', I9, ' REAL=', I8,
     &        ' OP=', I9, ' ERR=', I8, ' LMAX=', I4, ' C=', I11)
      END
C
      INTEGER FUNCTION KCLASS(CH)
C     1 = letter, 2 = digit, 3 = blank, 4 = operator, 5 = dot, 6 = other
      CHARACTER*1 CH
      INTEGER IC
      IC = ICHAR(CH)
      IF (IC .GE. ICHAR('a') .AND. IC .LE. ICHAR('z')) THEN
         KCLASS = 1
      ELSE IF (IC .GE. ICHAR('0') .AND. IC .LE. ICHAR('9')) THEN
         KCLASS = 2
      ELSE IF (CH .EQ. ' ') THEN
         KCLASS = 3
      ELSE IF (CH .EQ. '.') THEN
         KCLASS = 5
      ELSE IF (INDEX('+-*/=(),;', CH) .GT. 0) THEN
         KCLASS = 4
      ELSE
         KCLASS = 6
      END IF
      RETURN
      END
C
      SUBROUTINE LEX(BUF, N)
      INTEGER N
      CHARACTER*1 BUF(N)
      INTEGER NID, NINT, NREAL, NOP, NERR, LMAX
      COMMON /CNT/ NID, NINT, NREAL, NOP, NERR, LMAX
      INTEGER KCLASS
      EXTERNAL KCLASS
      INTEGER I, ISTATE, K, LEN
C     states: 1 start, 2 in identifier, 3 in integer, 4 in fraction,
C             5 error recovery
      ISTATE = 1
      LEN = 0
      I = 0
  100 I = I + 1
      IF (I .GT. N) GOTO 900
      K = KCLASS(BUF(I))
      GOTO (110, 120, 130, 140, 150), ISTATE
C     --- start state
  110 GOTO (111, 112, 100, 114, 115, 116), K
  111 ISTATE = 2
      LEN = 1
      GOTO 100
  112 ISTATE = 3
      LEN = 1
      GOTO 100
  114 NOP = NOP + 1
      GOTO 100
  115 ISTATE = 4
      LEN = 1
      GOTO 100
  116 NERR = NERR + 1
      ISTATE = 5
      GOTO 100
C     --- identifier
  120 IF (K .EQ. 1 .OR. K .EQ. 2) THEN
         LEN = LEN + 1
         GOTO 100
      END IF
      NID = NID + 1
      LMAX = MAX(LMAX, LEN)
      ISTATE = 1
      I = I - 1
      GOTO 100
C     --- integer literal
  130 IF (K .EQ. 2) THEN
         LEN = LEN + 1
         GOTO 100
      ELSE IF (K .EQ. 5) THEN
         ISTATE = 4
         LEN = LEN + 1
         GOTO 100
      END IF
      NINT = NINT + 1
      ISTATE = 1
      I = I - 1
      GOTO 100
C     --- fraction
  140 IF (K .EQ. 2) THEN
         LEN = LEN + 1
         GOTO 100
      END IF
      NREAL = NREAL + 1
      ISTATE = 1
      I = I - 1
      GOTO 100
C     --- error recovery: skip to a blank
  150 IF (K .EQ. 3) ISTATE = 1
      GOTO 100
  900 CONTINUE
      RETURN
      END
