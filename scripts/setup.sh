#!/usr/bin/env bash
# Prepares a fresh machine for augur: installs what is missing (gfortran, cpp)
# and builds augur in release mode. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v gfortran >/dev/null 2>&1 || need_apt+=(gfortran)
command -v cpp >/dev/null 2>&1 || need_apt+=(cpp)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]} (apt-get)"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
command -v gfortran >/dev/null 2>&1 || { echo "setup: gfortran is still missing; install it (apt-get install gfortran)" >&2; exit 1; }
command -v cargo >/dev/null 2>&1 || { echo "setup: cargo is missing; install the Rust toolchain (https://rustup.rs)" >&2; exit 1; }

echo "setup: building augur (release)"
cargo build --release --locked -q
echo "setup: ready: $(./target/release/augur --version), $(gfortran --version | head -n1)"
