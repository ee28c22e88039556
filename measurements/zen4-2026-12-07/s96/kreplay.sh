#!/bin/bash
# kreplay.sh DIR OLDPROFILE NEWPROFILE: each kernel's kept measured time against the predictions on both profiles
B=/work/main/target/release/augur
for j in $1/*.json; do k=$(basename $j .json); o=$1/$k.out
  m=$(grep -m1 "^  measured" $o | awk '{print $2, $3}')
  a=$($B predict $j -m $2 --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["programs"][0]["predictions"][0]["total"]["seconds"])')
  b=$($B predict $j -m $3 --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["programs"][0]["predictions"][0]["total"]["seconds"])')
  echo "$k $m $a $b"
done | python3 -c '
import sys
rows=[]
for l in sys.stdin:
    k,v,u,a,b=l.split(); v=float(v)*{"ms":1e-3,"s":1,"us":1e-6}[u]
    rows.append((k,v,float(a),float(b)))
w=[0,0]
for k,v,a,b in rows:
    ea,eb=100*(a-v)/v,100*(b-v)/v
    w[0]+=abs(ea)<=10; w[1]+=abs(eb)<=10
    print(f"{k:12s} measured {v*1e3:9.3f} ms  before {a*1e3:9.3f} ({ea:+6.1f}%)  after {b*1e3:9.3f} ({eb:+6.1f}%)")
import math
rms=lambda i: math.sqrt(sum(((r[i]-r[1])/r[1])**2 for r in rows)/len(rows))*100
print(f"within 10%: before {w[0]} of {len(rows)}, after {w[1]}; RMS {rms(2):.1f}% -> {rms(3):.1f}%")
'
