C=====================================================================
C     GCDHASH77 - Euclid's GCD over many integer pairs from an LCG,
C     followed by insertion of the results into an open-addressing
C     hash table (linear probing), then look-ups.
C     Exercises: integer arithmetic, MOD, integer division, GOTO-built
C       loops, computed GOTO (dispatch on MOD(K,4)), arithmetic IF,
C       INTEGER function calls, DATA statement, COMMON table.
C     Runtime class: integer, branchy, call-bound (GCD per pair).
C=====================================================================
      PROGRAM GCDH77
      INTEGER NPAIR, TSIZE
      PARAMETER (NPAIR = 4500000, TSIZE = 65537)
      INTEGER TKEY(TSIZE), TCNT(TSIZE)
      COMMON /HTAB/ TKEY, TCNT
      INTEGER IGCD, NEXTR, IHASH
      EXTERNAL IGCD, NEXTR, IHASH
      INTEGER SEED, K, A, B, G, NHIT, NMISS, NCOLL, ISUM, KIND
      INTEGER IBIN(4)
      DATA IBIN /4*0/
      DATA SEED /12345/
C
      DO 5 K = 1, TSIZE
         TKEY(K) = -1
         TCNT(K) = 0
    5 CONTINUE
      NCOLL = 0
      ISUM = 0
      DO 100 K = 1, NPAIR
         A = MOD(NEXTR(SEED), 100000) + 1
         B = MOD(NEXTR(SEED), 100000) + 1
         G = IGCD(A, B)
         ISUM = MOD(ISUM + G, 1000000007)
C        classify the pair with a computed GOTO
         KIND = MOD(A + B, 4) + 1
         GOTO (10, 20, 30, 40), KIND
   10    IBIN(1) = IBIN(1) + G
         GOTO 50
   20    IBIN(2) = IBIN(2) + 1
         GOTO 50
   30    IBIN(3) = IBIN(3) + MOD(A, 7)
         GOTO 50
   40    IBIN(4) = IBIN(4) + MOD(B, 5)
   50    CONTINUE
         CALL INSERT(MOD(A / G + B / G, 60000), NCOLL)
  100 CONTINUE
C     look-ups of a fresh key stream
      NHIT = 0
      NMISS = 0
      DO 200 K = 1, NPAIR / 2
         A = MOD(NEXTR(SEED), 150000)
         IF (IHASH(A) .GT. 0) THEN
            NHIT = NHIT + 1
         ELSE
            NMISS = NMISS + 1
         END IF
  200 CONTINUE
      WRITE (*, 900) ISUM, NCOLL, NHIT, NMISS, IBIN
  900 FORMAT (' GCDHASH77 SUM=', I11, ' COLL=', I10, ' HIT=', I8,
     &        ' MISS=', I8, ' BINS=', 4I10)
      END
C
      INTEGER FUNCTION IGCD(IA, IB)
      INTEGER IA, IB, X, Y, R
      X = IA
      Y = IB
   10 IF (Y .EQ. 0) GOTO 20
      R = MOD(X, Y)
      X = Y
      Y = R
      GOTO 10
   20 IGCD = X
      RETURN
      END
C
      INTEGER FUNCTION NEXTR(SEED)
C     Park-Miller minimal standard generator, Schrage factorisation
      INTEGER SEED, HI, LO
      HI = SEED / 127773
      LO = MOD(SEED, 127773)
      SEED = 16807 * LO - 2836 * HI
      IF (SEED) 10, 10, 20
   10 SEED = SEED + 2147483647
   20 NEXTR = SEED
      RETURN
      END
C
      SUBROUTINE INSERT(KEY, NCOLL)
      INTEGER KEY, NCOLL
      INTEGER TKEY(65537), TCNT(65537)
      COMMON /HTAB/ TKEY, TCNT
      INTEGER H, NPROBE
      H = MOD(KEY * 7 + KEY / 13, 65537) + 1
      NPROBE = 0
   10 IF (TKEY(H) .EQ. KEY) GOTO 30
      IF (TKEY(H) .EQ. -1) GOTO 20
      NCOLL = NCOLL + 1
      NPROBE = NPROBE + 1
      H = H + 1
      IF (H .GT. 65537) H = 1
C     table full: drop the key (keeps the loop bounded)
      IF (NPROBE .GT. 65537) RETURN
      GOTO 10
   20 TKEY(H) = KEY
   30 TCNT(H) = TCNT(H) + 1
      RETURN
      END
C
      INTEGER FUNCTION IHASH(KEY)
      INTEGER KEY
      INTEGER TKEY(65537), TCNT(65537)
      COMMON /HTAB/ TKEY, TCNT
      INTEGER H, NPROBE
      H = MOD(KEY * 7 + KEY / 13, 65537) + 1
      NPROBE = 0
   10 IF (TKEY(H) .EQ. KEY) THEN
         IHASH = TCNT(H)
         RETURN
      END IF
      IF (TKEY(H) .EQ. -1 .OR. NPROBE .GT. 64) THEN
         IHASH = 0
         RETURN
      END IF
      NPROBE = NPROBE + 1
      H = MOD(H, 65537) + 1
      GOTO 10
      END
