# usage: [AUGUR=BIN] [KEEP=DIR] validate.sh PROFILE [CASE...]
#   Session 57's syrk and mm1000 kernels (../../../zen5-2026-11-30/s57/kernels) at other sizes,
#   most of them a power of two (each row walk in one page-offset class), and gemmt (mm1000
#   with B transposed: both operands walked along rows): each case timed with `augur
#   validate --runs 3` on PROFILE, one after the other; prints predicted, measured and error.
M=$(readlink -f "$1"); shift
A=$(readlink -f "${AUGUR:-/work/main/target/release/augur}")
K=$(readlink -f "$(dirname "$0")/../../../zen5-2026-11-30/s57/kernels")
C=${*:-syrk512 syrk1024 syrk1000 gemmt512 gemmt1024 gemmt1000 mm512 mm768}
W=${KEEP:-$(mktemp -d)}; mkdir -p "$W"; T=$(mktemp -d)
for c in $C; do
  n=${c//[a-z]/}
  case $c in
    syrk*) sed "s/n = 800, k = 600/n = $n, k = 400/" "$K/syrk.f90" > "$T/$c.f90" ;;
    gemmt*) sed "s/n = 700/n = $n/; s/b(k,j)/b(j,k)/" "$K/mm1000.f90" > "$T/$c.f90" ;;
    mm*) sed "s/n = 700/n = $n/" "$K/mm1000.f90" > "$T/$c.f90" ;;
    *) echo "unknown case $c" >&2; continue ;;
  esac
  $A validate -m "$M" --runs 3 -o "$W/$c.json" "$T/$c.f90" > "$W/$c.out" 2>&1
  printf "%-10s %s\n" "$c" "$(grep -A3 'predicted vs measured' "$W/$c.out" | grep -E '^\s+(predicted|measured|error)' | awk '{print $2,$3}' | tr '\n' ' ')"
done
rm -rf "$T"; [ -n "$KEEP" ] || rm -rf "$W"
