# usage: bash measurements/xeon-2026-12-04b/s78/side-by-side.sh AUGUR PROFILE OUTDIR
#   Two phases of `augur characterize` alone and side by side, alternated twice: the memory
#   experiments (A: alone) with the AbOp experiments (B: alone; C: both at once), then the stream
#   costs (A) with the in-core kernels (B), each into a copy of PROFILE; then
#   `python3 side-by-side.py OUTDIR` compares the entries.
A=$(readlink -f "$1"); P=$(readlink -f "$2"); O=$3; mkdir -p "$O"; cd "$O" || exit 1
OPS=$(python3 -c "import tomllib; p=tomllib.load(open('$P','rb')); print(','.join(k for k,v in p['abop'].items() if v.get('status')=='measured'))")
t() { s=$(date +%s.%N); "$@"; echo "$(date +%s.%N) - $s" | bc; }
for r in 1 2; do
  cp "$P" memA$r.toml; echo "memory alone $(t "$A" characterize --memory -o memA$r.toml 2>/dev/null >/dev/null)"
  cp "$P" opsB$r.toml; echo "AbOps alone $(t "$A" characterize --only "$OPS" -o opsB$r.toml 2>/dev/null >/dev/null)"
  cp "$P" memC$r.toml; cp "$P" opsC$r.toml; s=$(date +%s.%N)
  "$A" characterize --memory -o memC$r.toml >/dev/null 2>&1 &
  "$A" characterize --only "$OPS" -o opsC$r.toml >/dev/null 2>&1; wait
  echo "both $(echo "$(date +%s.%N) - $s" | bc)"
done
for r in 1 2; do
  cp "$P" strA$r.toml; echo "stream alone $(t "$A" stream --machine strA$r.toml 2>/dev/null >/dev/null)"
  cp "$P" incB$r.toml; echo "in-core alone $(t "$A" characterize --incore -o incB$r.toml 2>/dev/null >/dev/null)"
  cp "$P" strC$r.toml; cp "$P" incC$r.toml; s=$(date +%s.%N)
  "$A" stream --machine strC$r.toml >/dev/null 2>&1 &
  "$A" characterize --incore -o incC$r.toml >/dev/null 2>&1; wait
  echo "both $(echo "$(date +%s.%N) - $s" | bc)"
done
