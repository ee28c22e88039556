#!/bin/bash
# usage: recount.sh BIN OUTROOT FLAG — both sets counted again by BIN, replaying the kept runs
B=$1; O=$2; f=$3
cd /work/main
if [ "$f" = O2 ]; then M=measurements/zen4-2026-12-05/zen4-O2.toml; R=measurements/zen4-2026-12-05; else M=measurements/zen4-2026-12-01/zen4-O0.toml; R=measurements/zen4-2026-12-01; fi
"$B" bench accuracy -m $M --suite bench/real --sources /work/SOURCES --part all --replay $R/real-$f --recount --save $O/rc-real-$f > $O/rc-real-$f.log 2>&1
"$B" bench accuracy -m $M --replay $R/corpus-$f --recount --save $O/rc-corpus-$f > $O/rc-corpus-$f.log 2>&1
echo done > $O/done-$f
