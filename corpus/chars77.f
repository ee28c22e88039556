C=====================================================================
C     CHARS77 - Character processing in FORTRAN 77: records are built
C     by internal WRITE and concatenation ('K00042;NAME=...;V=...'),
C     then parsed back with INDEX, substrings and internal READ; names
C     are upper-cased and reversed character by character, a pattern
C     is counted with INDEX, and keys are compared with LLT/LGT and
C     relational operators to find the smallest and largest.
C     Exercises: CHARACTER*n variables and arrays, CHARACTER*(*)
C       dummies, character function, // concatenation, substrings
C       S(I:J), INDEX, LEN, ICHAR/CHAR, LLT/LGT, .EQ./.LT. on
C       strings, internal WRITE and READ with FORMAT, blank fill.
C     Runtime class: character and formatted-I/O bound.
C=====================================================================
      PROGRAM CHAR77
      INTEGER NREC, NPASS
      PARAMETER (NREC = 2000, NPASS = 120)
      CHARACTER*40 REC(NREC)
      CHARACTER*12 NAME, UPNAME, RNAME
      CHARACTER*12 KMIN, KMAX
      CHARACTER*8 SYL(8)
      CHARACTER*1 C
      INTEGER I, J, K, P1, P2, P3, ID, ISUM, ICS, NPAT, IP
      INTEGER NCNT, IPASS
      REAL V, VSUM
      INTEGER IHASH
      EXTERNAL IHASH
      DATA SYL /'ka', 'ri', 'mo', 'tes', 'lu', 'van', 'o', 'zen'/
      ISUM = 0
      ICS = 0
      VSUM = 0.0
      NPAT = 0
      KMIN = 'zzzzzzzzzzzz'
      KMAX = ' '
      DO 100 IPASS = 1, NPASS
C        build the records
         DO 20 I = 1, NREC
            K = MOD(I * 7 + IPASS * 13, 64)
            NAME = SYL(MOD(K, 8) + 1)(1:LEN_TRIM(SYL(MOD(K, 8) + 1)))
     &             // SYL(K / 8 + 1)
            WRITE (REC(I), 900) I + IPASS, NAME,
     &            REAL(MOD(I * 37, 1000)) * 0.125 + REAL(IPASS)
   20    CONTINUE
C        parse them back
         DO 40 I = 1, NREC
            P1 = INDEX(REC(I), ';')
            P2 = INDEX(REC(I), '=')
            P3 = INDEX(REC(I)(P1 + 1:), ';') + P1
            READ (REC(I)(2:P1 - 1), '(I5)') ID
            NAME = REC(I)(P2 + 1:P3 - 1)
            READ (REC(I)(P3 + 3:), '(F10.3)') V
            ISUM = ISUM + ID
            VSUM = VSUM + V
C           upper case and reverse the name
            UPNAME = ' '
            RNAME = ' '
            NCNT = LEN_TRIM(NAME)
            DO 30 J = 1, NCNT
               C = NAME(J:J)
               IF (LGE(C, 'a') .AND. LLE(C, 'z')) THEN
                  UPNAME(J:J) = CHAR(ICHAR(C) - 32)
               ELSE
                  UPNAME(J:J) = C
               END IF
               RNAME(NCNT + 1 - J:NCNT + 1 - J) = C
   30       CONTINUE
            IF (LLT(RNAME, KMIN)) KMIN = RNAME
            IF (UPNAME .GT. KMAX) KMAX = UPNAME
            ICS = MOD(ICS * 31 + IHASH(UPNAME // '/' // RNAME), 999983)
C           count occurrences of 'o' syllables by INDEX scanning
            IP = 1
   35       K = INDEX(REC(I)(IP:), 'o')
            IF (K .GT. 0) THEN
               NPAT = NPAT + 1
               IP = IP + K
               IF (IP .LE. 40) GOTO 35
            END IF
   40    CONTINUE
  100 CONTINUE
      WRITE (*, 910) ISUM, VSUM, NPAT, ICS
      WRITE (*, 920) KMIN, KMAX, REC(NREC)
  900 FORMAT ('K', I5.5, ';NAME=', A, ';V=', F10.3)
  910 FORMAT (' CHARS77 IDSUM=', I10, ' VSUM=', F16.3, ' NPAT=', I8,
     &        ' HASH=', I8)
  920 FORMAT (' CHARS77 MIN=', A, ' MAX=', A, ' LAST=', A)
      END
C
C     polynomial hash of the characters of S (trailing blanks count)
      INTEGER FUNCTION IHASH(S)
      CHARACTER*(*) S
      INTEGER I, H
      H = 7
      DO 10 I = 1, LEN(S)
         H = MOD(H * 131 + ICHAR(S(I:I)), 1000003)
   10 CONTINUE
      IHASH = H
      RETURN
      END
