#!/usr/bin/env bash
# The accuracy benchmark: `augur validate` over the whole corpus with the library
# profiles of this machine kind, at -O0 and at -O2 (and flang-19 -O2 when that
# profile and compiler exist). Prints, per program, predicted, measured and error,
# then the share of programs within 5/10/15/20/30%, mean and RMS error.
#
# usage: scripts/accuracy.sh [--runs K] [--markdown] [--only NAME...]
# env:   MACHINES="name1 name2" to choose other library profiles.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
augur=./target/release/augur
machines=${MACHINES:-"gfortran12-O0-epyc-2core gfortran12-O2-epyc-2core flang19-O2-epyc-2core"}
status=0
for m in $machines; do
  if ! $augur machines | grep "^$m " >/dev/null; then
    echo "== $m: not in the machines/ library, skipped"
    continue
  fi
  case $m in
    flang*) command -v flang-new-19 >/dev/null 2>&1 || command -v flang-19 >/dev/null 2>&1 || { echo "== $m: flang-19 missing, skipped"; continue; } ;;
  esac
  echo
  echo "== augur bench accuracy --machine $m $*"
  $augur bench accuracy --machine "$m" "$@" || status=1
done
exit $status
