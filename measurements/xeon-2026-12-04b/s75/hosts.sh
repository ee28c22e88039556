# usage: [AUGUR=BIN] [PROFROOT=DIR] [MACHROOT=DIR] bash measurements/xeon-2026-12-04b/s75/hosts.sh TAG FLAG [SETS]:
#   measurements/xeon-2026-12-04/s74/hosts.sh (every host's kept runs priced with the program profiles
#   of DIR/rc-SET-FLAG into /tmp/s65/replay-TAG), then, at -O2, the Intel Xeon of family 6 model 167 on
#   2026-12-04 (session 75: a fresh profile `xeon-O2.toml` and both sets timed the same afternoon) as `xeon5`
cd /work/main || exit 1
A=${AUGUR:-target/release/augur}; TAG=$1; f=$2; SETS=${3:-"real corpus"}; OUT=/tmp/s65/replay-$TAG
bash measurements/xeon-2026-12-04/s74/hosts.sh "$@" > /dev/null
D=measurements/xeon-2026-12-04b
if [ "$f" = O2 ]; then
  for s in $SETS; do
    H=/tmp/s65/hyb-$TAG-xeon5-$s-O2; rm -rf $H; mkdir -p $H
    P=$(readlink -f ${PROFROOT:-measurements/zen4-2026-12-01}/rc-$s-O2 2>/dev/null || readlink -f measurements/zen4-2026-12-01/$s-O2)
    for t in $D/$s-O2/*.timing.json; do n=$(basename $t .timing.json); [ -f $P/$n.profile.json ] && ln -s $P/$n.profile.json $H/ && ln -s $(readlink -f $t) $H/; done
    if [ $s = real ]; then S="--suite bench/real --sources /work/SOURCES --part all"; else S=""; fi
    $A bench accuracy -m $D/xeon-O2.toml $S --replay $H > $OUT/xeon5-$s-O2.txt 2>&1
  done
fi
for x in $OUT/*-$f.txt; do printf "%-24s %s\n" $(basename $x .txt) "$(grep -E '^summary' $x | sed 's/summary over //; s/within 5%: [0-9]*%, //; s/, within 15%: [0-9]*%//') $(grep -E '^mean error' $x | sed 's/.*RMS error/RMS/; s/, max.*//')"; done
