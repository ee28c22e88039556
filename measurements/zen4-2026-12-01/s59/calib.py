# Session 51's calibration rows (../../zen5-2026-11-30/s51/calib.py) on this session's replays
# (`hosts.sh t3 O2` and `hosts.sh t3 O0` make /tmp/s59/hyb-t3-HOST-SET-FLAG); then
# `python3 ../../zen5-2026-11-30/s51/calib2.py /tmp/s59/calib-rows.json 0.16 0.28 0.16 0.26`.
import sys
sys.path.insert(0, "/work/main/measurements/zen5-2026-11-30/s51")
import calib
names = {"zen5new": "/work/main/measurements/zen5-2026-11-30/s56/zen5-{f}-s56.toml",
         "xeon": "/work/main/measurements/xeon-2026-11-29/xeon-{f}-s47.toml",
         "zen4": "/work/main/measurements/zen4-2026-12-01/zen4-{f}.toml"}
host = {"zen5new": "zen5", "xeon": "xeon", "zen4": "zen4"}
calib.rows(lambda h, f: names[h].format(f=f), lambda h, s, f: f"/tmp/s59/hyb-t3-{host[h]}-{s}-{f}",
           "/tmp/s59/calib-rows.json")
