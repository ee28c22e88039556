#!/bin/bash
# usage: cmp.sh TAGA TAGB FLAG [SET]: per host, within 10% and RMS before -> after, and the programs that moved > 1 point
A=/tmp/s65/replay-$1; B=/tmp/s65/replay-$2; f=$3; S=${4:-}
for x in $A/*${S:+-$S}-$f.txt; do
  n=$(basename $x .txt); y=$B/$n.txt; [ -f $y ] || continue
  w() { grep -E '^summary' $1 | sed 's/.*within 10%: \([0-9]*\)%.*/\1/'; }
  r() { grep -E '^mean error' $1 | sed 's/.*RMS error \([0-9.]*\)%.*/\1/'; }
  printf "%-20s %3s%% -> %3s%%   RMS %5s -> %5s  " $n $(w $x) $(w $y) $(r $x) $(r $y)
  join <(awk 'NF>=7 && $6 ~ /%$/ {print $1, $6}' $x | sort) <(awk 'NF>=7 && $6 ~ /%$/ {print $1, $6}' $y | sort) | awk '{a=$2+0; b=$3+0; if (a-b>1 || b-a>1) printf "%s %s->%s  ", $1, $2, $3}'
  echo
done
