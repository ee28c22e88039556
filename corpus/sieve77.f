C=====================================================================
C     SIEVE77 - Sieve of Eratosthenes, repeated NREP times, with a
C     count of primes, twin primes and a weighted checksum.
C     Exercises: integer arithmetic, LOGICAL array stores, GOTO-built
C       outer loop, arithmetic IF, labelled DO with non-unit step
C       (striking out multiples), MOD, PARAMETER, FORMAT output.
C     Runtime class: integer, branchy, moderate memory (2 MB array).
C=====================================================================
      PROGRAM SIEVE7
      INTEGER N, NREP
      PARAMETER (N = 2000000, NREP = 70)
      LOGICAL ISP(N)
      INTEGER I, J, IREP, NPR, NTWIN, LAST
      INTEGER ISUM
C
      ISUM = 0
      DO 100 IREP = 1, NREP
         DO 10 I = 1, N
   10    ISP(I) = .TRUE.
         ISP(1) = .FALSE.
         I = 2
C        GOTO-built loop: while I*I <= N
   20    IF (I*I - N) 30, 30, 50
   30    IF (.NOT. ISP(I)) GOTO 40
         DO 35 J = I*I, N, I
            ISP(J) = .FALSE.
   35    CONTINUE
   40    I = I + 1
         GOTO 20
   50    CONTINUE
C        count primes and twins
         NPR = 0
         NTWIN = 0
         LAST = -10
         DO 60 I = 2, N
            IF (.NOT. ISP(I)) GOTO 60
            NPR = NPR + 1
            IF (I - LAST .EQ. 2) NTWIN = NTWIN + 1
            LAST = I
            ISUM = MOD(ISUM * 31 + MOD(I, 1000) + IREP, 1000003)
   60    CONTINUE
  100 CONTINUE
      WRITE (*, 900) N, NPR, NTWIN, ISUM
  900 FORMAT (' SIEVE77 N=', I8, ' PRIMES=', I8, ' TWINS=', I7,
     &        ' CHECK=', I8)
      END
