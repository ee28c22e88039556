# usage: [AUGUR=BIN] [PROFILES=/tmp/s50/rc] [WORK=/tmp/s50] hosts.sh TAG
#   replays every host's kept runs with the recounted program profiles of $PROFILES-SET-FLAG
#   (session 54: PROFILES=/tmp/s52/rd WORK=/tmp/s54)
cd /work/main
A=${AUGUR:-target/release/augur}
TAG=$1
PROFILES=${PROFILES:-/tmp/s50/rc}
WORK=${WORK:-/tmp/s50}
OUT=$WORK/replay-$TAG; mkdir -p $OUT
hyb() { # host set flag timingdir
  local d=$WORK/hyb-$1-$2-$3; rm -rf $d; mkdir -p $d
  for t in $4/*.timing.json; do n=$(basename $t .timing.json); p=$PROFILES-$2-$3/$n.profile.json; [ -f $p ] && ln -s $p $d/ && ln -s $(readlink -f $t) $d/; done
  echo $d
}
run() { # host set flag profile timingdir
  local d=$(hyb $1 $2 $3 $5)
  if [ $2 = real ]; then S="--suite bench/real --sources /work/SOURCES --part all"; else S=""; fi
  $A bench accuracy -m $4 $S --replay $d > $OUT/$1-$2-$3.txt 2>&1
}
Z5=measurements/zen5-2026-11-30
for f in O2 O0; do
  run zen5new real $f $Z5/zen5-$f.toml $Z5/real-$f
  run zen5new corpus $f $Z5/zen5-$f.toml $Z5/corpus-$f
  run xeon real $f measurements/xeon-2026-11-29/xeon-$f-s47.toml measurements/xeon-2026-11-29/real-$f
  run xeon corpus $f measurements/xeon-2026-11-29/xeon-$f-s47.toml measurements/xeon-2026-11-29/corpus-$f
  run zen4 real $f measurements/zen4-2026-11-28/zen4-$f.toml measurements/zen4-2026-11-28/real-$f
  run zen4 corpus $f measurements/zen4-2026-11-28/zen4-$f.toml measurements/zen4-2026-11-28/corpus-$f
  run zen5old corpus $f ../shared/measurements/zen5-2026-11-28/zen5-$f.toml ../shared/measurements/zen5-2026-11-28/corpus-$f
  run zen3 corpus $f ../shared/measurements/zen3/zen3-$f.toml ../shared/measurements/zen3/corpus-$f
done
run zen5old real O2 ../shared/measurements/zen5-2026-11-28/zen5-O2.toml ../shared/measurements/zen5-2026-11-28/real-O2
for f in $OUT/*.txt; do printf "%-28s %s\n" $(basename $f .txt) "$(grep -E '^summary' $f | sed 's/summary over //') $(grep -E '^mean error' $f | sed 's/.*RMS error/RMS/; s/, max.*//')"; done
