#!/usr/bin/env bash
# Builds nb.f90 and its variants (without the square root, the divide, both; the sums in
# registers instead of the caller's arrays) in a temporary directory with gfortran -O2 and
# prints each one's ns an inner iteration, three runs each (CPU time).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
cd "$w"
cp "$here/nb.f90" nb.f90
nosqrt='s/dr3i = body(j)\*dr2i\*sqrt(dr2i)/dr3i = body(j)*dr2i*dr2i/'
nodiv='s/dr2i = 1.0\/rij2/dr2i = rij2/'
sed "$nosqrt" nb.f90 > nosqrt.f90
sed "$nodiv" nb.f90 > nodiv.f90
sed "$nosqrt; $nodiv" nb.f90 > neither.f90
# The six sums in scalars (registers), stored into the caller's arrays after the loop.
registers() {
  python3 - "$1" "$2" <<'PY'
import sys
s = open(sys.argv[1]).read()
s = s.replace("  real(8) :: xi(3)", "  real(8) :: f1, f2, f3, g1, g2, g3\n  real(8) :: xi(3)", 1)
s = s.replace("  do j = 1, nmass\n", "  f1 = 0; f2 = 0; f3 = 0; g1 = 0; g2 = 0; g3 = 0\n  do j = 1, nmass\n", 1)
for k in "123":
    s = s.replace(f"firr({k}) = firr({k}) +", f"f{k} = f{k} +").replace(f"fd({k}) = fd({k}) +", f"g{k} = g{k} +")
s = s.replace("  end do\nend subroutine", "  end do\n  firr = [f1, f2, f3]; fd = [g1, g2, g3]\nend subroutine", 1)
open(sys.argv[2], "w").write(s)
PY
}
registers nb.f90 nbreg.f90
registers neither.f90 neitherreg.f90
for v in nb nbreg nosqrt nodiv neither neitherreg; do
  gfortran -O2 "$v.f90" -o "$v"
  printf "%-11s" "$v"
  for _ in 1 2 3; do printf " %s" "$(./"$v" | awk '{print $2}')"; done
  echo
done
