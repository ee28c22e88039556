# usage: [AUGUR=BIN] [PROFROOT=DIR] [MACHROOT=DIR] bash measurements/zen5-2026-12-02/s65/hosts.sh TAG FLAG [SETS]: as s59/hosts.sh (every host's kept runs replayed with the program profiles of DIR/rc-SET-FLAG into /tmp/s65/replay-TAG), each machine profile taken from MACHROOT/HOST-FLAG.toml where that exists (a copy with a key measured since), and this host's (zen5-2026-12-02) own profile against the 11-30 runs as zen5new
cd /work/main
A=${AUGUR:-target/release/augur}; TAG=$1; f=$2; SETS=${3:-"real corpus"}; OUT=/tmp/s65/replay-$TAG; mkdir -p $OUT
Z4=measurements/zen4-2026-12-01
prof() { if [ -n "$PROFROOT" ]; then echo $PROFROOT/rc-$1-$2; else echo $Z4/$1-$2; fi; }
hyb() { local d=/tmp/s65/hyb-$TAG-$1-$2-$3; rm -rf $d; mkdir -p $d; local P=$(readlink -f $(prof $2 $3))
  for t in $4/*.timing.json; do n=$(basename $t .timing.json); p=$P/$n.profile.json; [ -f $p ] && ln -s $p $d/ && ln -s $(readlink -f $t) $d/; done; echo $d; }
run() { local d=$(hyb $1 $2 $3 $5); local M=$4; [ -n "$MACHROOT" ] && [ -f $MACHROOT/$1-$3.toml ] && M=$MACHROOT/$1-$3.toml; if [ $2 = real ]; then S="--suite bench/real --sources /work/SOURCES --part all"; else S=""; fi
  $A bench accuracy -m $M $S --replay $d > $OUT/$1-$2-$3.txt 2>&1; }
Z5=measurements/zen5-2026-11-30
for s in $SETS; do
run zen4 $s $f $Z4/zen4-$f.toml $Z4/$s-$f
run zen5 $s $f $Z5/s56/zen5-$f-s56.toml $Z5/$s-$f
run zen5new $s $f measurements/zen5-2026-12-02/zen5-$f.toml $Z5/$s-$f
run xeon $s $f measurements/xeon-2026-11-29/xeon-$f-s47.toml measurements/xeon-2026-11-29/$s-$f
run zen4old $s $f measurements/zen4-2026-11-28/zen4-$f.toml measurements/zen4-2026-11-28/$s-$f
[ $s = corpus ] && run zen3 $s $f ../shared/measurements/zen3/zen3-$f.toml ../shared/measurements/zen3/corpus-$f
[ $f = O2 ] && run zen5old $s O2 ../shared/measurements/zen5-2026-11-28/zen5-O2.toml ../shared/measurements/zen5-2026-11-28/$s-O2
done
for x in $OUT/*-$f.txt; do printf "%-24s %s\n" $(basename $x .txt) "$(grep -E '^summary' $x | sed 's/summary over //; s/within 5%: [0-9]*%, //; s/, within 15%: [0-9]*%//') $(grep -E '^mean error' $x | sed 's/.*RMS error/RMS/; s/, max.*//')"; done
