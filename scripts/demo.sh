#!/usr/bin/env bash
# The main job, end to end, on a fresh machine: set up, then on the shipped example
# programs: analyze (instrumented run -> program profile), predict the run time with
# the library profile of this machine kind and show where the time goes, then
# validate the prediction against real timed runs (predicted vs measured); also the
# static AbOp counts, the corpus parse coverage and the front-end speed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
augur=./target/release/augur
# The library's profiles of this host's CPU: this workplace kind runs on Zen 4 (32 KiB
# L1d) or Zen 5 (48 KiB L1d) hosts.
O2=gfortran12-O2-epyc-2core
O0=gfortran12-O0-epyc-2core
if [ "$(cat /sys/devices/system/cpu/cpu0/cache/index0/size 2>/dev/null)" = "48K" ]; then
  O2=gfortran12-O2-epyc-zen5-2core
  O0=gfortran12-O0-epyc-zen5-2core
fi
# A library profile measured on this host's very CPU (family, model, caches) is better.
host_profile() { $augur machines | awk -v f="$1" '/<- this host/ && $2 == "gfortran" && $3 == f { print $1; exit }'; }
match=$(host_profile -O2); O2=${match:-$O2}
match=$(host_profile -O0); O0=${match:-$O0}
echo "library profiles for this host: $O2, $O0"

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
echo "== augur predict: heat2d on the library profile of this machine kind (gfortran 12 -O2)"
$augur predict demo-out/heat2d.profile.json --machine $O2
echo
echo "== augur predict --region solver: only the part between !augur region solver / end region"
$augur predict demo-out/heat2d.profile.json --machine $O2 --region solver
echo
echo "== augur predict: the two examples as a workload, on -O2 and -O0 side by side"
$augur predict demo-out/heat2d.profile.json demo-out/legacy.profile.json \
  --machine $O2 --machine $O0
echo
echo "== augur validate: predicted vs measured (real runs of the normal -O2 build)"
$augur validate examples/heat2d.f90 --machine $O2 --runs 3
echo
echo "== augur validate examples/legacy.f at -O0"
$augur validate examples/legacy.f --machine $O0 --runs 3 --by abop --top 6
echo
echo "== sizes never run: count examples/lu.F90 at N = 64, 96, 128, predict N = 900 and a sweep"
$augur analyze examples/lu.F90 -D N={n} --scale n=64,96,128 -o demo-out/lu.scaled.json --program-output demo-out/lu.out
$augur predict demo-out/lu.scaled.json --at n=900 --machine $O2 --by loop --top 5
$augur predict demo-out/lu.scaled.json --at n=128..2048 --machine $O2 --plot demo-out/lu.svg
echo
echo "== augur validate --scale: count at N = 64, 96, 128, time the real N = 900"
$augur validate examples/lu.F90 -D N={n} --scale n=64,96,128 --at n=900 --machine $O2 --runs 3 --by loop --top 3
echo
echo "== the whole corpus: parse coverage per program"
scripts/corpus-coverage.sh
echo
echo "== front-end throughput and memory on a generated 100,000-line input"
$augur bench front-end --lines 100000
echo
echo "== OpenMP: overheads per thread count (quick), then examples/omp_relax.f90 counted at 1, 2, 4 and 8 threads"
cp machines/$O2.toml demo-out/openmp-machine.toml
$augur characterize --openmp --quick -o demo-out/openmp-machine.toml
$augur analyze examples/omp_relax.f90 --threads 1,2,4,8 -o demo-out/omp_relax.json
$augur predict demo-out/omp_relax.json --machine demo-out/openmp-machine.toml --threads 1,2,4,8 \
  --plot demo-out/omp_relax-speedup.svg --gantt demo-out/omp_relax-threads.svg
echo
echo "== augur validate --threads 1,2: real runs with OMP_NUM_THREADS, wall clock"
$augur validate examples/omp_relax.f90 --machine demo-out/openmp-machine.toml --threads 1,2 --runs 3
echo
echo "== MPI: the network between ranks with the real OpenMPI (quick), then a 4-node SimGrid platform built on it"
$augur characterize --mpi --quick -o demo-out/mpi-machine.toml
sed "s#^machine = .*#machine = \"$PWD/demo-out/mpi-machine.toml\"#" examples/cluster.toml > demo-out/cluster.toml
$augur platform demo-out/cluster.toml -o demo-out/platform.xml
