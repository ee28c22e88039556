# usage: [AUGUR=BIN] validate.sh PROFILE [KERNEL...]
#   times each kernel (written here, session 57) with `augur validate --runs 3` on PROFILE,
#   one after the other, and prints predicted, measured and error per kernel
#   (KEEP=DIR keeps each kernel's profile and output there).
M=$(readlink -f "$1"); shift
A=$(readlink -f "${AUGUR:-/work/main/target/release/augur}")
cd "$(dirname "$0")" || exit 1
K=${*:-trisolve seidel floyd covar lunopiv adi gramschmidt syrk rs4096 rs4000 rs1000 st1000 mm1000 cholesky backsub restrict3d block5 lcg ssor3d bchain rkstages}
W=${KEEP:-$(mktemp -d)}; mkdir -p $W
for p in $K; do
  case $p in
    rs4096) src="-D N=4096 -D REPS=6 rowsum.F90" ;;
    rs4000) src="-D N=4000 -D REPS=6 rowsum.F90" ;;
    rs1000) src="-D N=1000 -D REPS=120 rowsum.F90" ;;
    rkstages) src="rkstages.f" ;;
    *) src="$p.f90" ;;
  esac
  # shellcheck disable=SC2086
  $A validate -m "$M" --runs 3 -o "$W/$p.json" $src > "$W/$p.out" 2>&1
  printf "%-12s %s\n" "$p" "$(grep -A3 'predicted vs measured' "$W/$p.out" | grep -E '^\s+(predicted|measured|error)' | awk '{print $2,$3}' | tr '\n' ' ')"
done
[ -n "$KEEP" ] || rm -rf "$W"
