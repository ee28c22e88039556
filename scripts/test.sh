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
echo "== corpus parse coverage"
scripts/corpus-coverage.sh
echo "all tests passed"
