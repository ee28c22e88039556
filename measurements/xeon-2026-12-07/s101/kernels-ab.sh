# usage: bash kernels-ab.sh OLD NEW PROFILE KEEPDIR: each kernel's kept profile (KEEP= of
#   validate.sh) predicted by two binaries on PROFILE, against the time validate.sh measured
#   (its KEEPDIR/NAME.out), error of each.
O=$1; N=$2; M=$3; K=$4
printf "%-12s %12s %12s %9s %9s\n" kernel measured_ms old_ms old_err new_err
for j in "$K"/*.json; do
  k=$(basename "$j" .json)
  ms=$(grep -m1 "^  measured" "$K/$k.out" | awk '{v=$2; if ($3=="s") v*=1000; if ($3=="us") v/=1000; print v}')
  p() { "$1" predict "$j" -m "$M" 2>/dev/null | grep -m1 "predicted time" | awk '{v=$3; if ($4=="s") v*=1000; if ($4=="us") v/=1000; print v}'; }
  a=$(p "$O"); b=$(p "$N")
  awk -v k="$k" -v m="$ms" -v a="$a" -v b="$b" 'BEGIN{printf "%-12s %12.3f %12.3f %+8.1f%% %+8.1f%%\n", k, m, a, (a-m)/m*100, (b-m)/m*100}'
done
