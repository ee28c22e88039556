#!/usr/bin/env bash
# The optimization-detection table for today's compilers side by side: runs
# `augur characterize --optimizations` for gfortran at -O0, -O1, -O2, -O3 and
# -O3 -march=native and for flang-19 at -O0 and -O2 (each in its own profile under
# OUT, default target/optimizations), then prints the Markdown table of
# `augur optimizations` (the one in docs/OPTIMIZATIONS.md).
#
#   scripts/optimizations-table.sh [--repeat N] [--quick] [OUT]
#
# With --repeat N each setting is detected N times and the table marks the
# ratings that changed between runs. Run it on a quiet machine: the verdicts are
# timings. About a minute per setting (--repeat multiplies it).
set -euo pipefail
cd "$(dirname "$0")/.."
repeat=1
quick=()
out=target/optimizations
while [ $# -gt 0 ]; do
    case "$1" in
        --repeat) repeat="$2"; shift 2 ;;
        --quick) quick=(--quick); shift ;;
        *) out="$1"; shift ;;
    esac
done
mkdir -p "$out"
# AUGUR=path/to/augur uses that binary instead of building the release one.
if [ -z "${AUGUR:-}" ]; then
    cargo build --release -q -p augur
fi
augur="${AUGUR:-target/release/augur}"
flang=""
for f in flang-19 flang-new-19; do
    if command -v "$f" >/dev/null; then flang="$f"; break; fi
done
settings=("gfortran|-O0" "gfortran|-O1" "gfortran|-O2" "gfortran|-O3" "gfortran|-O3 -march=native")
if [ -n "$flang" ]; then
    settings+=("$flang|-O0" "$flang|-O2")
else
    echo "optimizations-table: no flang-19 (scripts/setup.sh installs it); gfortran only" >&2
fi
machines=()
for s in "${settings[@]}"; do
    fc="${s%%|*}"
    flags="${s#*|}"
    name="$fc$(echo "$flags" | tr -d ' =')"
    file="$out/$name.toml"
    rm -f "$file"
    "$augur" characterize --optimizations "${quick[@]}" --repeat "$repeat" \
        --fc "$fc" --fflags="$flags" -o "$file" >"$out/$name.txt"
    machines+=(-m "$file")
done
echo "Host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs; $(date -u +%Y-%m-%d)"
echo
"$augur" optimizations "${machines[@]}"
