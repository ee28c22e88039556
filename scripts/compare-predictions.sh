#!/usr/bin/env bash
# Checks that two augur binaries predict the same, byte for byte: a refactoring must not
# change a single digit.
#
#   scripts/compare-predictions.sh OLD_AUGUR NEW_AUGUR [WORK_DIR]
#
# The shipped examples are analyzed once by each binary (one at a time; profiles compared
# without the fields that time augur itself and the page faults the OS counted, which
# differ between two runs of the same binary: 642 and 640 seen), then every profile (the examples' and, when
# ../shared/measurements/zen3 exists, the saved corpus runs) is predicted with both on
# every machine of machines/ and the Zen 3 profiles (`--json`, each overlap rule,
# `--branches`, every text breakdown), and `augur bench accuracy --replay` is run on the
# saved runs. Prints the differing files; exits 1 when there are any.
set -uo pipefail
cd "$(dirname "$0")/.."
command -v jq >/dev/null || { echo "compare-predictions: needs jq (apt-get install jq)" >&2; exit 2; }
[ $# -ge 2 ] || { echo "usage: $0 OLD_AUGUR NEW_AUGUR [WORK_DIR]" >&2; exit 2; }
old=$(realpath "$1"); new=$(realpath "$2")
work=${3:-$(mktemp -d -t augur-compare-XXXXXX)}
mkdir -p "$work"
zen3=../shared/measurements/zen3
timing='del(.run.first_touch_pages, .locality.seconds, .locality.peak_bytes, .locality.address_sampling.seconds, .locality.address_sampling.peak_bytes, .run.wall_seconds)'

analyze() { # BIN OUT
  mkdir -p "$2"
  "$1" analyze examples/heat2d.f90 --fflags -O2 -o "$2/heat2d.json" >"$2/heat2d.log" 2>&1
  "$1" analyze examples/legacy.f --fflags -O0 -o "$2/legacy.json" >"$2/legacy.log" 2>&1
  "$1" analyze examples/transposed.f90 --fflags -O2 --args 512 -o "$2/transposed.json" >"$2/transposed.log" 2>&1
}

predictions() { # BIN OUT
  local bin=$1 out=$2 m p name
  mkdir -p "$out"
  local machines=(machines/*.toml) profiles=("$work"/profiles-old/*.json)
  [ -d "$zen3" ] && machines+=("$zen3"/zen3-O2.toml "$zen3"/zen3-O0.toml) && profiles+=("$zen3"/corpus-O2/*.profile.json)
  for p in "${profiles[@]}"; do
    name=$(basename "$p" .json)
    for m in "${machines[@]}"; do
      "$bin" predict "$p" -m "$m" --json >"$out/$name.$(basename "$m" .toml).json" 2>&1
    done
    m=${machines[0]}
    for ov in max sum streams ecm none; do
      "$bin" predict "$p" -m "$m" --json --overlap $ov >"$out/$name.overlap-$ov.json" 2>&1
    done
    "$bin" predict "$p" -m "$m" --json --branches >"$out/$name.branches.json" 2>&1
    "$bin" predict "$p" -m "$m" --by abop,procedure,loop,line,block,region --top 50 >"$out/$name.txt" 2>&1
  done
  if [ -d "$zen3" ]; then
    for s in O2 O0; do
      "$bin" bench accuracy -m "$zen3/zen3-$s.toml" --replay "$zen3/corpus-$s" >"$out/replay-$s.txt" 2>&1
    done
    "$bin" bench accuracy -m "$zen3/zen3-O2.toml" --replay "$zen3/corpus-O2" --branches --overlap sum >"$out/replay-O2-branches-sum.txt" 2>&1
  fi
}

status=0
analyze "$old" "$work/profiles-old"
analyze "$new" "$work/profiles-new"
for f in "$work"/profiles-old/*.json; do
  n=$(basename "$f")
  if ! cmp -s <(jq -S "$timing" "$f") <(jq -S "$timing" "$work/profiles-new/$n"); then
    echo "profile differs: $n"; status=1
  fi
done
predictions "$old" "$work/old"
predictions "$new" "$work/new"
if ! diff -rq "$work/old" "$work/new"; then status=1; fi
echo "$(ls "$work/old" | wc -l) predictions and $(ls "$work"/profiles-old/*.json | wc -l) profiles compared in $work: $([ $status = 0 ] && echo identical || echo DIFFERENT)"
exit $status
