# usage: predict-time.sh BIN_A BIN_B [PROGRAMS]: median wall time of `augur predict` (9 runs each,
# interleaved) on the recounted -O2 profiles in $PROFROOT/rc-real-O2 (default /tmp/s68)
R=${PROFROOT:-/tmp/s68}/rc-real-O2; M=/work/main/measurements/zen5-2026-12-02/zen5-O2.toml
for n in ${3:-bookleaf conman cloverleaf snap tealeaf}; do
  for i in 1 2 3 4 5 6 7 8 9; do for b in $1 $2; do
    s=$(date +%s%N); $b predict $R/$n.profile.json -m $M > /dev/null 2>&1; e=$(date +%s%N)
    echo "$n $b $(( (e - s) / 100000 ))"; done; done
done | python3 -c '
import sys,statistics as st,collections
d=collections.defaultdict(list)
for l in sys.stdin:
    n,b,t=l.split(); d[(n,b)].append(int(t)/10)
for (n,b),v in d.items(): print(f"{n:12s} {b:28s} median {st.median(v):6.1f} ms  (min {min(v):.1f})")'
