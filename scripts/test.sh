#!/usr/bin/env bash
# Runs every test: formatting, lints, unit and integration tests (the
# integration tests use the real gfortran and cpp), and the corpus coverage check.
set -euo pipefail
cd "$(dirname "$0")/.."
# A fresh checkout gains nothing from incremental state; it only takes disk.
export CARGO_INCREMENTAL=0
scripts/setup.sh
echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --all-targets --locked -q -- -D warnings
echo "== cargo test"
cargo test --workspace --locked -q
echo "== machines/historical against the dissertation's text"
seed=${AUGUR_THESIS_SEED:-/work/shared/seeds/001_a91d94e46a5fcf6e.txt}
if [ -f "$seed" ]; then
  AUGUR_THESIS_SEED="$seed" cargo test -p augur-pershape --test thesis --locked -q -- --ignored
else
  echo "NOT CHECKED: $seed is missing (set AUGUR_THESIS_SEED to the dissertation's text)" >&2
fi
echo "== fuzz targets (fuzz/, 20 s each; scripts/fuzz.sh SECONDS for longer)"
FUZZ_SEED=1 scripts/fuzz.sh 20
echo "== corpus parse coverage"
scripts/corpus-coverage.sh
echo "all tests passed"
