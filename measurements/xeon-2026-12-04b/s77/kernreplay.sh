# usage: bash measurements/xeon-2026-12-04b/s77/kernreplay.sh AUGUR MACHINE TABLE OUTDIR
#   The kernels of measurements/zen5-2026-11-30/s57/kernels analyzed again by AUGUR (profiles kept
#   in OUTDIR, analyzed once) and predicted on MACHINE, against the times a `validate.sh` TABLE
#   measured (its columns: kernel, predicted, measured, error): no timing run.
A=$(readlink -f "$1"); M=$(readlink -f "$2"); T=$(readlink -f "$3"); O=$4; mkdir -p "$O"; O=$(readlink -f "$O")
cd "$(dirname "$0")/../../zen5-2026-11-30/s57/kernels" || exit 1
secs() { awk -v v="$1" -v u="$2" 'BEGIN { if (u == "ms") v /= 1e3; if (u == "us") v /= 1e6; print v }'; }
while read -r p pv pu mv mu _; do
  case $p in
    rs4096) src="-D N=4096 -D REPS=6 rowsum.F90" ;;
    rs4000) src="-D N=4000 -D REPS=6 rowsum.F90" ;;
    rs1000) src="-D N=1000 -D REPS=120 rowsum.F90" ;;
    *) src="$p.f90" ;;
  esac
  # shellcheck disable=SC2086
  [ -f "$O/$p.profile.json" ] || "$A" analyze -o "$O/$p.profile.json" $src > "$O/$p.analyze.out" 2>&1
  new=$("$A" predict "$O/$p.profile.json" -m "$M" --json 2>/dev/null |
    python3 -c "import json,sys; print(json.load(sys.stdin)['programs'][0]['predictions'][0]['total']['seconds'])")
  python3 -c "
m, o, p = $(secs "$mv" "$mu"), $(secs "$pv" "$pu"), $new
print(f'{\"$p\":12s} measured {m*1e3:9.3f} ms  before {o*1e3:9.3f} ({(o-m)/m*100:+6.1f}%)  now {p*1e3:9.3f} ({(p-m)/m*100:+6.1f}%)')"
done < "$T"
