#!/usr/bin/env bash
# The main job, end to end, on a fresh machine: set up, then analyze the example
# programs (static AbOp counts per basic block, loops, regions, parse coverage)
# and measure the front end's speed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
augur=./target/release/augur

echo
echo "== augur analyze --static examples/heat2d.f90 (free form, module, array syntax, region)"
$augur analyze --static examples/heat2d.f90
echo
echo "== augur analyze --static examples/legacy.f (F77 fixed form, COMMON, shared DO labels, GOTO loop)"
$augur analyze --static examples/legacy.f
echo
echo "== the whole corpus: parse coverage per program"
scripts/corpus-coverage.sh
echo
echo "== front-end throughput and memory on a generated 100,000-line input"
$augur bench front-end --lines 100000
