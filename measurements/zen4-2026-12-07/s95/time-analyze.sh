#!/bin/bash
# usage: time-analyze.sh NAME... : each dev program counted again (no timing run) by the binary
# before (main at 65711cc) and after (the builds beside the counting run), interleaved; wall and user seconds
cd /work/main
for n in "$@"; do
  for b in before after; do
    B=/tmp/s94/augur-body3; [ $b = after ] && B=/tmp/s95/augur-side
    rm -rf /tmp/s95/an/$b-$n
    /usr/bin/time -f "$n $b wall %e s user %U s" "$B" bench accuracy -m measurements/zen4-2026-12-05/zen4-O2.toml --suite bench/real --sources /work/SOURCES --part all --replay measurements/zen4-2026-12-05/real-O2 --recount --only $n --save /tmp/s95/an/$b-$n > /tmp/s95/an/$b-$n.log 2>> /tmp/s95/an/times.txt
  done
done
