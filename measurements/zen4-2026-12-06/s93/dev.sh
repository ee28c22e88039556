#!/bin/bash
# usage: dev.sh TAG FLAG: per host, the dev part's within 10% and RMS from /tmp/s65/replay-TAG/NAME-real-FLAG.txt
dev=$(grep -l 'part = "dev"' /work/main/bench/real/*.toml | xargs -n1 basename | sed 's/.toml//' | tr '\n' ' ')
for x in /tmp/s65/replay-$1/*-real-$2.txt; do
  awk -v dev="$dev" -v n=$(basename $x .txt) 'BEGIN{split(dev,a," "); for(i in a) d[a[i]]=1}
    NF>=7 && ($1 in d) && $6 ~ /%$/ {e=$6+0; k++; s+=e*e; if (e<=10 && e>=-10) w++}
    END{ if (k) printf "%-20s dev %2d: within 10%% %3.0f%%, RMS %5.1f%%\n", n, k, 100*w/k, sqrt(s/k)}' $x
done
