#!/usr/bin/env bash
# Fuzzes augur's readers of untrusted input (fuzz/: the source normalizer and front end in
# free and fixed form, the program and machine profiles, a rank's MPI trace, the cluster
# file, the corpus manifest) with libFuzzer through cargo-fuzz on the nightly toolchain.
#
#   scripts/fuzz.sh [SECONDS [TARGET...]]     each target SECONDS (default 30), all by default
#   FUZZ_SEED=1 scripts/fuzz.sh 20            the same inputs in the same order each time (the tests)
#   FUZZ_RUNS=10000000 scripts/fuzz.sh 36000 T   stop T after that many executions (or the time)
#   FUZZ_SANITIZER=none scripts/fuzz.sh ...   without AddressSanitizer (several times faster; fine
#                                             for the pure-Rust readers, keep it for the front
#                                             end, whose parser is C)
#
# A crash, a run over 1 s or an allocation over 1 GiB stops the target, leaves its input in
# fuzz/artifacts/TARGET and fails the run. The inputs libFuzzer grows are kept in
# target/fuzz-corpus/TARGET (seeded from fuzz/seeds/TARGET) and feed the next run.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
if [ $# -gt 0 ]; then
  targets=("$@")
else
  targets=(source_free source_fixed program_profile machine_profile mpi_trace cluster manifest)
fi
if ! rustup run nightly rustc --version > /dev/null 2>&1; then
  echo "error: the fuzz targets need Rust's nightly toolchain (libFuzzer's sanitizer flags): rustup toolchain install nightly" >&2
  exit 1
fi
if ! command -v cargo-fuzz > /dev/null 2>&1; then
  echo "== installing cargo-fuzz (crates.io)"
  cargo install cargo-fuzz --locked
fi
corpus=$PWD/target/fuzz-corpus
logs=$PWD/target/fuzz-logs
mkdir -p "$logs"
cd fuzz
echo "== cargo +nightly fuzz build"
sanitizer=${FUZZ_SANITIZER:-address}
cargo +nightly fuzz build -s "$sanitizer"
for t in "${targets[@]}"; do
  echo "== fuzz $t for ${seconds} s"
  mkdir -p "$corpus/$t"
  if ! cargo +nightly fuzz run -s "$sanitizer" "$t" "$corpus/$t" "seeds/$t" -- \
    -max_total_time="$seconds" -runs="${FUZZ_RUNS:--1}" -timeout=1 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -max_len=65536 -seed="${FUZZ_SEED:-0}" -print_final_stats=1 > "$logs/$t.log" 2>&1; then
    tail -40 "$logs/$t.log" >&2
    echo "error: fuzz target $t failed (a crash, a run over 1 s or an allocation over 1 GiB); its input is in fuzz/artifacts/$t, its log in target/fuzz-logs/$t.log" >&2
    exit 1
  fi
  grep -E "^stat::number_of_executed_units|^Done" "$logs/$t.log" || true
done
echo "fuzzing passed"
