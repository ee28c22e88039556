# usage: bash runs.sh
#   runs4.f90 (gfortran -O2, core 1): ns per touched line of a sum over runs of 1 to 64
#   lines with gaps as long as the runs (gap 1) or none (gap 0), over 2, 4 and 64 MB.
cd "$(dirname "$0")" || exit 1
W=$(mktemp -d)
gfortran -O2 runs4.f90 -o "$W/runs4" && taskset -c 1 "$W/runs4"
rm -rf "$W"
