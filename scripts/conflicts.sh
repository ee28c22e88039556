#!/usr/bin/env bash
# Transposed copies at power-of-two and nearby leading dimensions: the cost of
# set conflicts on this machine (ns per element), as a Markdown table.
# Usage: scripts/conflicts.sh [FC] [FFLAGS]   (default gfortran -O2)
set -euo pipefail
fc=${1:-gfortran}
fflags=${2:--O2}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v "$fc" >/dev/null || { echo "conflicts.sh: $fc not found (scripts/setup.sh installs it)" >&2; exit 1; }
# shellcheck disable=SC2086
"$fc" $fflags "$here/examples/transposed.f90" -o "$tmp/transposed"
sizes=(500 512 1000 1024 2000 2048 4000 4096)
store=(); load=()
for n in "${sizes[@]}"; do
  read -r _ s l _ < <("$tmp/transposed" "$n")
  store+=("$s"); load+=("$l")
done
row() { local IFS='|'; echo "| $1 |${*:2}|"; }
row "leading dimension" "${sizes[@]}"
echo "|---|$(printf -- '---:|%.0s' "${sizes[@]}")"
row "strided store" "${store[@]}"
row "strided load" "${load[@]}"
