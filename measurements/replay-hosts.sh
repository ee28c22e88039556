# usage: [AUGUR=BIN] [PROFROOT=DIR] [MACHROOT=DIR] bash measurements/replay-hosts.sh TAG FLAG [SETS]
#   Every host of measurements/hosts.txt with runs at FLAG: its kept times priced on its machine
#   profile (MACHROOT/NAME-FLAG.toml instead, where that exists: a copy with a key measured since)
#   with the program profiles of PROFROOT/rc-SET-FLAG (both sets counted again by the binary under
#   test: `augur bench accuracy ... --replay RUNS --recount --save PROFROOT/rc-SET-FLAG`; without
#   PROFROOT, measurements/zen4-2026-12-01/SET-FLAG). Tables into /tmp/s65/replay-TAG/NAME-SET-FLAG.txt,
#   a summary line each on stdout. SETS: "real corpus" by default.
cd "$(dirname "$0")/.." || exit 1
A=${AUGUR:-target/release/augur}; TAG=$1; f=$2; SETS=${3:-"real corpus"}; OUT=/tmp/s65/replay-$TAG
[ -n "$TAG" ] && [ -n "$f" ] || { echo "usage: bash measurements/replay-hosts.sh TAG FLAG [SETS]" >&2; exit 2; }
mkdir -p "$OUT"
grep -v '^#' measurements/hosts.txt | while read -r name flags sets machine runs; do
  [[ ",$flags," == *",$f,"* ]] || continue
  for s in $SETS; do
    [[ ",$sets," == *",$s,"* ]] || continue
    P=$(readlink -f "${PROFROOT:-measurements/zen4-2026-12-01}/rc-$s-$f" 2>/dev/null || readlink -f measurements/zen4-2026-12-01/$s-$f)
    R=${runs//SET/$s}; R=${R//FLAG/$f}; M=${machine//FLAG/$f}
    [ -n "$MACHROOT" ] && [ -f "$MACHROOT/$name-$f.toml" ] && M=$MACHROOT/$name-$f.toml
    H=/tmp/s65/hyb-$TAG-$name-$s-$f; rm -rf "$H"; mkdir -p "$H"
    for t in "$R"/*.timing.json; do
      n=$(basename "$t" .timing.json)
      [ -f "$P/$n.profile.json" ] && ln -s "$P/$n.profile.json" "$H/" && ln -s "$(readlink -f "$t")" "$H/"
    done
    S=""; [ "$s" = real ] && S="--suite bench/real --sources /work/SOURCES --part all"
    # shellcheck disable=SC2086
    "$A" bench accuracy -m "$M" $S --replay "$H" > "$OUT/$name-$s-$f.txt" 2>&1
  done
done
for x in "$OUT"/*-"$f".txt; do
  printf "%-24s %s\n" "$(basename "$x" .txt)" "$(grep -E '^summary' "$x" | sed 's/summary over //; s/within 5%: [0-9]*%, //; s/, within 15%: [0-9]*%//') $(grep -E '^mean error' "$x" | sed 's/.*RMS error/RMS/; s/, max.*//')"
done
