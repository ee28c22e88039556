#!/usr/bin/env bash
# Prepares a fresh machine for augur: installs what is missing (gfortran, cpp,
# valgrind) and builds augur in release mode. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v gfortran >/dev/null 2>&1 || need_apt+=(gfortran)
command -v cpp >/dev/null 2>&1 || need_apt+=(cpp)
# valgrind's cache simulation: `augur bench misses` and its test compare predicted
# cache misses with it (perf's hardware counters are not available in a VM).
command -v valgrind >/dev/null 2>&1 || need_apt+=(valgrind)
# OpenMPI: `augur characterize --mpi` measures the network with the real library.
{ command -v mpif90 >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1; } || need_apt+=(openmpi-bin libopenmpi-dev)
# SimGrid's SMPI: `augur platform` platforms are replayed with smpirun and smpireplaymain.
command -v smpirun >/dev/null 2>&1 || need_apt+=(simgrid libsimgrid-dev)
# Linux perf: `augur validate --by loop` samples the CPU clock (a software event, which a
# VM has) of one run to measure each loop's time.
{ command -v perf >/dev/null 2>&1 && perf --version >/dev/null 2>&1; } || need_apt+=(linux-perf)
# Headless Chromium: the figure tests open the SVGs augur writes and screenshot them.
{ command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; } || need_apt+=(chromium)
# A sans-serif font with Arial's metrics: figures written as PNG (`-o fig.png`) draw
# their text with the system's fonts.
[ -e /usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf ] || need_apt+=(fonts-liberation)

if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]} (apt-get)"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
# LLVM flang 19 for the flang profiles (Debian installs it as flang-new-19; augur resolves
# flang-19 to it). Optional: a failure only warns.
if ! command -v flang-19 >/dev/null 2>&1 && ! command -v flang-new-19 >/dev/null 2>&1; then
  echo "setup: installing flang-19 (apt-get)"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq flang-19 >/dev/null; } ||
    echo "setup: could not install flang-19; gfortran still works" >&2
fi
# flang's -fopenmp links LLVM's OpenMP run-time library (libomp), which Debian keeps apart.
# Optional: without it a flang characterization has no [openmp] section.
if command -v flang-new-19 >/dev/null 2>&1 && ! ls /usr/lib/llvm-19/lib/libomp.so >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq libomp-19-dev >/dev/null 2>&1 ||
    echo "setup: could not install libomp-19-dev; flang profiles will have no [openmp] section" >&2
fi
# LLVM 19's llvm-mca: the peer `augur bench incore` compares the in-core model with.
# Optional: without it the benchmark prints augur's column alone.
if ! command -v llvm-mca-19 >/dev/null 2>&1; then
  echo "setup: installing llvm-19 (apt-get, for llvm-mca)"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq llvm-19 >/dev/null ||
    echo "setup: could not install llvm-19; augur bench incore will print augur's column alone" >&2
fi
command -v gfortran >/dev/null 2>&1 || { echo "setup: gfortran is still missing; install it (apt-get install gfortran)" >&2; exit 1; }
command -v valgrind >/dev/null 2>&1 || { echo "setup: valgrind is still missing; install it (apt-get install -y valgrind)" >&2; exit 1; }
command -v mpirun >/dev/null 2>&1 || { echo "setup: OpenMPI is still missing; install it (apt-get install -y openmpi-bin libopenmpi-dev)" >&2; exit 1; }
command -v smpirun >/dev/null 2>&1 || { echo "setup: SimGrid is still missing; install it (apt-get install -y simgrid libsimgrid-dev)" >&2; exit 1; }
{ command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; } || { echo "setup: Chromium is still missing; install it (apt-get install -y chromium): the SVG figure tests need it" >&2; exit 1; }
command -v cargo >/dev/null 2>&1 || { echo "setup: cargo is missing; install the Rust toolchain (https://rustup.rs)" >&2; exit 1; }

# A release build plus the test build take about 4 GB; say so before the linker
# dies of a full disk halfway through.
free_kb=$(df -Pk . | awk 'NR==2 {print $4}')
if [ "${free_kb:-0}" -lt 4000000 ]; then
  echo "setup: only $((free_kb / 1024)) MB free on $(df -P . | awk 'NR==2 {print $6}'); building and testing augur needs about 4 GB: free some space (cargo clean in old checkouts) and run again" >&2
  exit 1
fi

echo "setup: building augur (release)"
cargo build --release --locked -q
command -v flang-new-19 >/dev/null 2>&1 || command -v flang-19 >/dev/null 2>&1 || echo "setup: flang-19 is missing (apt-get install flang-19); only gfortran profiles can be measured" >&2
echo "setup: ready: $(./target/release/augur --version), $(gfortran --version | head -n1)"
