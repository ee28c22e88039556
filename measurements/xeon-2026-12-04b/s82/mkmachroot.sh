# usage: bash measurements/xeon-2026-12-04b/s82/mkmachroot.sh DIR: writes into DIR the MACHROOT that
#   replay-hosts.sh takes with session 82's change: session 65's MACHROOT (mkmachroot.sh of s65),
#   then every host's -O0 profile with the stride sweep and TLB gathers of its -O2 profile of the same day
#   (optimized-rates.py), as `augur characterize` measures an -O0 profile since session 82.
set -e
cd /work/main; D=$1; mkdir -p "$D"
bash measurements/zen5-2026-12-02/s65/mkmachroot.sh "$D"
grep -v '^#' measurements/hosts.txt | while read -r name flags sets machine runs; do
  [[ ",$flags," == *",O0,"* ]] || continue
  m0=${machine//FLAG/O0}; m2=${machine//FLAG/O2}
  [ -f "$D/$name-O0.toml" ] && m0=$D/$name-O0.toml
  [ -f "$D/$name-O2.toml" ] && m2=$D/$name-O2.toml
  python3 measurements/xeon-2026-12-04b/s82/optimized-rates.py "$m0" "$m2" "$D/$name-O0.tmp" "$name-O2"
  mv "$D/$name-O0.tmp" "$D/$name-O0.toml"
done
