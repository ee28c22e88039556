#!/bin/bash
# run.sh EXE: runs it in the sources' directory writing counts to /tmp/s97/exp/EXE.counts; prints its time
cd /work/SOURCES/mpf_cavity_fd
s=$(date +%s.%N)
AUGUR_COUNTS_FILE=/tmp/s97/exp/$1.counts setarch -R taskset -c 1 /tmp/s97/exp/$1 > /dev/null
e=$(date +%s.%N)
echo "$1 $(echo "$e - $s" | bc)"
