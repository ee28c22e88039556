#!/usr/bin/env bash
# What optimization does to programs (Saavedra-Barrera's tables 4.6 and 4.7, predicted):
# analyzes the corpus programs that need no input or size (gfortran -O3, the setting
# whose optimization report the predictions then use), then prints
# `augur compare compilers` over the four gfortran 12 settings of the Zen 4 library
# profiles (-O0 the base) and the per-loop explanation of one program
# (`augur predict -m ... --by loop`). The speedups are predicted: nothing is timed
# (the analysis runs each program once, instrumented, to count).
#
#   scripts/speedup-table.sh [--program NAME] [OUT]
#
# OUT (default target/speedup) keeps the program profiles; a profile already there is
# reused.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/speedup
explain=lufact77
while [ $# -gt 0 ]; do
    case "$1" in
        --program) explain="$2"; shift 2 ;;
        *) out="$1"; shift ;;
    esac
done
mkdir -p "$out"
# AUGUR=path/to/augur uses that binary instead of building the release one.
if [ -z "${AUGUR:-}" ]; then
    cargo build --release -q -p augur
fi
augur="${AUGUR:-target/release/augur}"
programs=(lufact77.f cg.f90 spline.f90 fft.f90 gather.f90 mandel.f90 interp.f90
    stream77.f boxmuller.f90 sieve77.f stride77.f trcopy77.f intrin77.f cplxpoly77.f
    arrays.f90 permute77.f callheavy77.f kinds.f90)
profiles=()
for p in "${programs[@]}"; do
    name="${p%.*}"
    prof="$out/$name.json"
    if [ ! -s "$prof" ]; then
        "$augur" analyze "corpus/$p" --fflags "-O3" -o "$prof" >"$out/$name.log" 2>&1 \
            || { echo "speedup-table: $p did not analyze (see $out/$name.log)" >&2; continue; }
    fi
    profiles+=("$prof")
done
machines=(-m gfortran12-O0-epyc-zen4-2core -m gfortran12-O1-epyc-zen4-2core
    -m gfortran12-O2-epyc-zen4-2core -m gfortran12-O3-epyc-zen4-2core)
echo "Machine profiles: the gfortran 12 settings of the library, measured on a 2-vCPU AMD EPYC"
echo "KVM guest, family 25 model 17 (Zen 4); the speedups are predicted, not measured."
echo
"$augur" compare compilers "${profiles[@]}" "${machines[@]}"
echo
"$augur" predict "$out/$explain.json" "${machines[@]}" --by loop --top 3 2>/dev/null
