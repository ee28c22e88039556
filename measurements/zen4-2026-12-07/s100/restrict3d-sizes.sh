# usage: bash restrict3d-sizes.sh [RUNS]
#   session 57's restrict3d kernel with each nest timed (timed.py writes the copy), its grid n
#   scaled from 48 to 160 with the cycles scaled so that every size does the same work; each
#   built with gfortran -O2 and run RUNS times (default 2) on core 1, one after the other.
#   Prints n, f's megabytes and the two nests' seconds.
cd "$(dirname "$0")" || exit 1
W=$(mktemp -d)
python3 timed.py ../../zen5-2026-11-30/s57/kernels/restrict3d.f90 > "$W/timed.f90" || exit 1
for n in 48 64 96 128 160; do
  c=$(( 60*128*128*128/(n*n*n) ))
  sed -e "s/n = 128, m = n \/ 2, cycles = 60/n = $n, m = n \/ 2, cycles = $c/" "$W/timed.f90" > "$W/r$n.f90"
  gfortran -O2 "$W/r$n.f90" -o "$W/r$n" || exit 1
  for _ in $(seq "${1:-2}"); do
    echo "n=$n cycles=$c f_MB=$(( (n+2)**3*8/1000000 )) $( (cd "$W" && taskset -c 1 "./r$n") | head -1)"
  done
done
rm -rf "$W"
