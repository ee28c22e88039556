# strip.py SRC DST: copies a directory of program profiles without their class histograms
import json, os, sys, shutil
src, dst = sys.argv[1], sys.argv[2]
os.makedirs(dst, exist_ok=True)
for f in os.listdir(src):
    p = os.path.join(src, f)
    if f.endswith('.profile.json'):
        d = json.load(open(p))
        for n in (d.get('locality') or {}).get('nests', []):
            for a in n['arrays']:
                a.pop('class_histogram', None)
        json.dump(d, open(os.path.join(dst, f), 'w'))
    else:
        shutil.copy(p, os.path.join(dst, f))
