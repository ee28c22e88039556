# usage: bash measurements/zen5-2026-12-03/s69/forwarded-calls.sh : builds each kernel below with gfortran -O2
# and prints the median of 3 runs in ns per inner iteration (a quiet machine: nothing else timing).
# nA-nG: the Newton loop of corpus/cplxpoly77.f (at most 11 iterations a point, 600x600 points; A with its
# two CABS exits as in cplxpoly77, B without the first, C with neither, D with |z|^2 tested inline, E
# `s = s + cabs(dz)`, F a never-taken IF on cabs(dz), G two of them); nH/nI: `z = z*c + d` with and without
# `s = s + cabs(z)` (complex(4)); nH8/nI8 the same in complex(8) (passed in two registers); nJ/nK six updates
# of z before the call; nL/nM `s = s + cabs(cmplx(x(i),y(i)))` against `s = s + x(i)*y(i)`.
T=$(mktemp -d); trap 'rm -rf $T' EXIT; cd $T
newton() { # $1 name, $2 first test, $3 second test
cat > $1.f <<SRC
      PROGRAM NEWT
      INTEGER NG, MAXIT
      PARAMETER (NG = 600, MAXIT = 11)
      COMPLEX Z, DZ
      INTEGER I, J, IT, ITSUM
      REAL X, Y, S
      ITSUM = 0
      S = 0
      DO 50 J = 1, NG
      DO 50 I = 1, NG
         X = -1.5 + 3.0 * REAL(I - 1) / REAL(NG - 1)
         Y = -1.5 + 3.0 * REAL(J - 1) / REAL(NG - 1)
         Z = CMPLX(X, Y)
         IT = 0
   10    IF (IT .GE. MAXIT) GOTO 30
         $2
         DZ = (Z**5 - (1.0, 0.0)) / (5.0 * Z**4)
         Z = Z - DZ
         IT = IT + 1
         $3
         GOTO 10
   30    ITSUM = ITSUM + IT
         S = S + REAL(Z)
   50 CONTINUE
      PRINT *, ITSUM, S
      END
SRC
}
newton nA "IF (CABS(Z) .LT. 1.0E-6) GOTO 30" "IF (CABS(DZ) .LT. 1.0E-6) GOTO 30"
newton nB "CONTINUE" "IF (CABS(DZ) .LT. 1.0E-6) GOTO 30"
newton nC "CONTINUE" "CONTINUE"
newton nD "IF (REAL(Z)**2+AIMAG(Z)**2 .LT. 1.0E-12) GOTO 30" "IF (REAL(DZ)**2+AIMAG(DZ)**2 .LT. 1.0E-12) GOTO 30"
newton nE "CONTINUE" "S = S + CABS(DZ)"
newton nF "CONTINUE" "IF (CABS(DZ) .LT. -1.0) GOTO 30"
newton nG "IF (CABS(Z) .LT. -1.0) GOTO 30" "IF (CABS(DZ) .LT. -1.0) GOTO 30"
recur() { # $1 name, $2 kind, $3 updates of z (statements one after another), $4 the use of z
local updates=$(for k in $(seq $3); do printf '    z = z*c + d\\n'; done)
cat > $1.f90 <<SRC
program r
  implicit none
  integer :: i, j
  complex($2) :: z, c, d
  real($2) :: s
  c = (0.6, 0.7); d = (0.01, 0.02); z = (0.1, 0.1); s = 0
  do j = 1, 10
  do i = 1, 4000000
$(printf "$updates")
    s = s + $4
  end do
  end do
  print *, s, z
end program r
SRC
}
recur nH 4 1 "abs(z)"; recur nI 4 1 "real(z)"; recur nH8 8 1 "abs(z)"; recur nI8 8 1 "real(z)"
recur nJ 4 6 "abs(z)"; recur nK 4 6 "real(z)"
pair() { # $1 name, $2 the term
cat > $1.f90 <<SRC
program l
  implicit none
  integer :: i, j
  real :: x(4096), y(4096), s
  call random_number(x); call random_number(y)
  s = 0
  do j = 1, 10000
  do i = 1, 4096
    s = s + $2
  end do
  end do
  print *, s
end program l
SRC
}
pair nL "cabs(cmplx(x(i), y(i)))"; pair nM "x(i)*y(i)"
for src in n*.f n*.f90; do gfortran -O2 -o ${src%.*} $src 2>/dev/null || echo "${src%.*}: does not build"; done
for v in nA nB nC nD nE nF nG nH nI nJ nK nH8 nI8 nL nM; do
  case $v in nA|nB|nC|nD|nE|nF|nG) n=$(./$v | awk '{print $1}');; nL|nM) n=40960000;; *) n=40000000;; esac
  ts=""; for r in 1 2 3; do s=$(date +%s%N); ./$v >/dev/null; e=$(date +%s%N); ts="$ts $((e - s))"; done
  med=$(echo $ts | tr ' ' '\n' | sort -n | sed -n 2p)
  printf "%-4s %8.2f ns an iteration (%d iterations)\n" $v $(echo "$med / $n" | bc -l) $n
done
