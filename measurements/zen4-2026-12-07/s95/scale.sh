#!/bin/bash
# usage: scale.sh LINES... : the program of scripts/scale-program.py at each size: plain build and run,
# augur analyze --static, augur analyze, the profile's size, augur predict (wall, user, peak memory)
A=/work/main/target/release/augur; M=/work/main/measurements/zen4-2026-12-06/zen4-O2.toml
for n in "$@"; do
  d=/tmp/s95/scale-$n; rm -rf $d; F=$(python3 /work/main/scripts/scale-program.py $n $d); cd $d
  echo "== $n lines: $(cat $F | wc -l) lines in $(echo $F | wc -w) files" >> /tmp/s95/scale.txt
  /usr/bin/time -f "plain build wall %e s user %U s peak %M KB" gfortran -O2 -w $F -o plain 2>> /tmp/s95/scale.txt >/dev/null
  /usr/bin/time -f "plain run wall %e s user %U s peak %M KB" ./plain > /dev/null 2>> /tmp/s95/scale.txt
  /usr/bin/time -f "analyze --static wall %e s user %U s peak %M KB" $A analyze --static --json $F > static.json 2>> /tmp/s95/scale.txt
  /usr/bin/time -f "analyze wall %e s user %U s peak %M KB" $A analyze $F -o scale.profile.json > analyze.log 2>> /tmp/s95/scale.txt
  echo "profile $(stat -c %s scale.profile.json) bytes; $(python3 -c "import json; d=json.load(open('scale.profile.json')); print(len(d['units']),'units', sum(len(u.get('blocks',[])) for u in d['units']),'blocks', 'counting run', round(d['run']['wall_seconds'],2),'s', 'locality', round(d['locality']['seconds'],2),'s')")" >> /tmp/s95/scale.txt
  for i in 1 2 3; do /usr/bin/time -f "predict wall %e s user %U s peak %M KB" $A predict scale.profile.json -m $M > predict.txt 2>> /tmp/s95/scale.txt; done
  rm -f plain
done
echo done >> /tmp/s95/scale.txt
