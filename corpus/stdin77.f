C=====================================================================
C     STDIN77 - Reads its problem description from standard input
C     (number of grid rows/columns, iteration count, print stride)
C     and runs a Gauss-Seidel style cellular smoothing of an integer
C     height field with integer arithmetic only, plus a REAL
C     histogram of the result.
C     Exercises: list-directed READ from unit 5, adjustable arrays
C       sized by input (passed to a subroutine), integer division,
C       MOD, MIN/MAX, REAL conversion, DO with step from input.
C     stdin: stdin77.in  (e.g. "500 400 30 / 37").
C     Runtime class: integer, array-bound.
C=====================================================================
      PROGRAM STDI77
      INTEGER MAXW
      PARAMETER (MAXW = 1000000)
      INTEGER IW(MAXW)
      INTEGER NR, NC, NIT, ISTR
      READ (5, *) NR, NC, NIT
      READ (5, *) ISTR
      IF (NR * NC .GT. MAXW) THEN
         WRITE (*, *) 'PROBLEM TOO LARGE'
         STOP 1
      END IF
      CALL SMOOTH(IW, NR, NC, NIT, ISTR)
      END
C
      SUBROUTINE SMOOTH(H, NR, NC, NIT, ISTR)
      INTEGER NR, NC, NIT, ISTR
      INTEGER H(NR, NC)
      INTEGER I, J, IT, S, ISUM, IMN, IMX
      REAL HIST(10), RANGE
      DO 10 J = 1, NC
      DO 10 I = 1, NR
         H(I,J) = MOD(I * 7919 + J * 104729, 1000)
   10 CONTINUE
      DO 30 IT = 1, NIT
         DO 20 J = 2, NC - 1
         DO 20 I = 2, NR - 1
            S = 4 * H(I,J) + H(I-1,J) + H(I+1,J) + H(I,J-1) + H(I,J+1)
            H(I,J) = S / 8 + MOD(S, 8) / 4
   20    CONTINUE
   30 CONTINUE
      ISUM = 0
      IMN = H(1,1)
      IMX = H(1,1)
      DO 40 J = 1, NC
      DO 40 I = 1, NR
         ISUM = MOD(ISUM + H(I,J) * MOD(I + J, 17), 1000003)
         IMN = MIN(IMN, H(I,J))
         IMX = MAX(IMX, H(I,J))
   40 CONTINUE
      DO 45 I = 1, 10
         HIST(I) = 0.0
   45 CONTINUE
      RANGE = REAL(MAX(IMX - IMN, 1))
      DO 50 J = 1, NC, ISTR
      DO 50 I = 1, NR
         S = 1 + INT(9.999 * REAL(H(I,J) - IMN) / RANGE)
         HIST(S) = HIST(S) + 1.0
   50 CONTINUE
      WRITE (*, 900) NR, NC, NIT, ISUM, IMN, IMX
      WRITE (*, 910) HIST
  900 FORMAT (' STDIN77 ', 3I6, ' SUM=', I9, ' MIN=', I5, ' MAX=', I5)
  910 FORMAT (' STDIN77 HIST ', 10F8.0)
      RETURN
      END
