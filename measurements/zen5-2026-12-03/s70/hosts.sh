# usage: [AUGUR=BIN] [PROFROOT=DIR] [MACHROOT=DIR] bash measurements/zen5-2026-12-03/s70/hosts.sh TAG FLAG [SETS]:
#   measurements/zen5-2026-12-02/s65/hosts.sh (every host's kept runs priced with the program profiles of
#   DIR/rc-SET-FLAG into /tmp/s65/replay-TAG), then, at -O2 for the corpus, this host of 2026-12-03
#   (session 70: a fresh profile, `zen5-O2.toml`, and fresh runs, `corpus-O2/`) as `zen5dec3`
cd /work/main || exit 1
A=${AUGUR:-target/release/augur}; TAG=$1; f=$2; SETS=${3:-"real corpus"}; OUT=/tmp/s65/replay-$TAG
bash measurements/zen5-2026-12-02/s65/hosts.sh "$@" > /dev/null
D=measurements/zen5-2026-12-03
if [ "$f" = O2 ] && [[ " $SETS " == *" corpus "* ]]; then
  H=/tmp/s65/hyb-$TAG-zen5dec3-corpus-O2; rm -rf $H; mkdir -p $H
  P=$(readlink -f ${PROFROOT:-measurements/zen4-2026-12-01}/rc-corpus-O2 2>/dev/null || readlink -f measurements/zen4-2026-12-01/corpus-O2)
  for t in $D/corpus-O2/*.timing.json; do n=$(basename $t .timing.json); [ -f $P/$n.profile.json ] && ln -s $P/$n.profile.json $H/ && ln -s $(readlink -f $t) $H/; done
  $A bench accuracy -m $D/zen5-O2.toml --replay $H > $OUT/zen5dec3-corpus-O2.txt 2>&1
fi
for x in $OUT/*-$f.txt; do printf "%-24s %s\n" $(basename $x .txt) "$(grep -E '^summary' $x | sed 's/summary over //; s/within 5%: [0-9]*%, //; s/, within 15%: [0-9]*%//') $(grep -E '^mean error' $x | sed 's/.*RMS error/RMS/; s/, max.*//')"; done
