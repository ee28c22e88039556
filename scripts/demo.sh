#!/usr/bin/env bash
# The main job, end to end, on a fresh machine: set up, then analyze the example
# programs: static AbOp counts per basic block, then an instrumented run with
# gfortran giving the program profile (exact block counts, AbOps by line,
# procedure, loop and region); parse coverage of the corpus; front-end speed.
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
mkdir -p demo-out
echo
echo "== augur analyze examples/heat2d.f90 (instrumented build with gfortran -O2, run, program profile)"
$augur analyze examples/heat2d.f90 --fflags "-O2" -o demo-out/heat2d.profile.json
echo
echo "== augur analyze examples/legacy.f (F77, at -O0)"
$augur analyze examples/legacy.f --fflags "-O0" -o demo-out/legacy.profile.json
echo
echo "== the whole corpus: parse coverage per program"
scripts/corpus-coverage.sh
echo
echo "== front-end throughput and memory on a generated 100,000-line input"
$augur bench front-end --lines 100000
