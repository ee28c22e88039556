# usage: bash /tmp/s65/cmp.sh BEFORE_TAG AFTER_TAG FLAG : per host/set summary and the programs whose error moved by more than 1 point
for b in /tmp/s65/replay-$1/*-$3.txt; do n=$(basename $b); a=/tmp/s65/replay-$2/$n; [ -f $a ] || continue
  sb=$(grep -E '^summary' $b | grep -oE 'within 10%: [0-9]+%'); sa=$(grep -E '^summary' $a | grep -oE 'within 10%: [0-9]+%')
  rb=$(grep -E '^mean error' $b | grep -oE 'RMS error [0-9.]+%'); ra=$(grep -E '^mean error' $a | grep -oE 'RMS error [0-9.]+%')
  printf "%-22s %s %s -> %s %s\n" ${n%.txt} "$sb" "$rb" "$sa" "$ra"
  join <(awk '/^[a-z_0-9]+ +[0-9.]+e/{print $1,$6}' $b | sort) <(awk '/^[a-z_0-9]+ +[0-9.]+e/{print $1,$6}' $a | sort) | awk '{x=$2+0; y=$3+0; if (x-y>1||y-x>1) printf "    %-20s %s -> %s\n",$1,$2,$3}'
done
