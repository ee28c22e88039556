#!/bin/sh
# programs-table.sh - the corpus programs characterized and ranked on the machines/
# library (docs/PROGRAMS.md): analyzes each program (a counting run, cheap), then runs
# `augur compare programs` and `augur rank` on the profiles.
#
# usage: scripts/programs-table.sh [OUTDIR]   (profiles and clusters.svg go to OUTDIR,
#        default a temporary directory); env: AUGUR (default target/release/augur, else
#        target/debug/augur), PROGRAMS (corpus files, space separated).
set -eu
HERE=$(cd "$(dirname "$0")/.." && pwd)
AUGUR=${AUGUR:-}
if [ -z "$AUGUR" ]; then
    if [ -x "$HERE/target/release/augur" ]; then AUGUR="$HERE/target/release/augur"
    else AUGUR="$HERE/target/debug/augur"; fi
fi
OUT=${1:-$(mktemp -d "${TMPDIR:-/tmp}/augur-programs.XXXXXX")}
mkdir -p "$OUT"
PROGRAMS=${PROGRAMS:-"sieve77.f gcdhash77.f ttt77.f cplxpoly77.f intrin77.f lufact77.f stream77.f mcpi77.f mandel.f90 fft.f90 cg.f90 boxmuller.f90 spline.f90 strings.f90"}
profiles=""
for p in $PROGRAMS; do
    name=${p%.*}
    (cd "$HERE/corpus" && "$AUGUR" analyze "$p" -o "$OUT/$name.json" >/dev/null 2>"$OUT/$name.log") \
        || { echo "analyze $p failed: see $OUT/$name.log" >&2; exit 1; }
    profiles="$profiles $OUT/$name.json"
done
machines=""
for m in "$HERE"/machines/*.toml; do machines="$machines -m $m"; done
cd "$OUT"
echo '$ augur compare programs' $PROGRAMS '(profiles)' '-m (every machines/ profile)' "--clusters clusters.svg"
# shellcheck disable=SC2086
"$AUGUR" compare programs $profiles $machines --clusters "$OUT/clusters.svg" | sed "s|$OUT/||g"
echo
echo '$ augur rank (the same profiles and machines) --reference gfortran12-O0-epyc-2core'
# shellcheck disable=SC2086
"$AUGUR" rank $profiles $machines --reference "$HERE/machines/gfortran12-O0-epyc-2core.toml" | sed "s|$HERE/||g"
