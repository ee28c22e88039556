#!/bin/bash
# usage: tm.sh N prog... ; prints min and median wall of N interleaved runs each, taskset -c 1
N=$1; shift
for r in $(seq $N); do for v in "$@"; do s=$(date +%s.%N); taskset -c 1 ./$v >/dev/null; e=$(date +%s.%N); echo "$v $(echo "$e - $s" | bc)"; done; done | sort -k1,1 -k2,2n | awk '{a[$1]=a[$1]" "$2; n[$1]++; v[$1,n[$1]]=$2} END{for(k in n){printf "%-22s min %.3f med %.3f\n", k, v[k,1], v[k,int((n[k]+1)/2)]}}' | sort
