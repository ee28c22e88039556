#!/usr/bin/env python3
"""How much of a repeatability run's AbOp spread is one factor per profile (the host's speed
that day) and how much is each entry's own: per profile the median ratio of its entries to
their medians across the profiles, the entries' median half-range before and after dividing
that factor out, and the lag-1 autocorrelation of what is left in catalogue (measurement)
order (slow drift within a characterization would correlate neighbours).

usage: python3 entry-drift.py DIR_WITH_run-N.toml REPEATABILITY_OUTPUT.txt"""
import re, statistics as st, sys, tomllib, glob

d, out = sys.argv[1], sys.argv[2]
runs = [tomllib.load(open(f, "rb")) for f in sorted(glob.glob(f"{d}/run-*.toml"))]
table = open(out).read().split("AbOp ")[1]
order = [l.split()[0] for l in table.splitlines()[1:] if re.match(r"^[A-Z0-9]{3,5}\s", l)]
keys = [k for k in order if all(r["abop"].get(k, {}).get("status") == "measured"
                                and (r["abop"][k].get("mean_ns") or 0) > 0.2 for r in runs)]
val = {k: [r["abop"][k]["mean_ns"] for r in runs] for k in keys}
n = len(runs)
g = [st.median([val[k][i] / st.median(val[k]) for k in keys]) for i in range(n)]
half = lambda v: (max(v) - min(v)) / 2 / st.median(v)
print(f"{len(keys)} AbOp entries measured in all {n} profiles (mean above 0.2 ns)")
print("factor per profile:", " ".join(f"{x:.3f}" for x in g))
print(f"entries' median half-range: {100*st.median([half(val[k]) for k in keys]):.2f}% as measured,"
      f" {100*st.median([half([val[k][i]/g[i] for i in range(n)]) for k in keys]):.2f}% with each profile's factor divided out")
for i in range(n):
    res = [val[k][i] / g[i] / st.median([val[k][j] / g[j] for j in range(n)]) - 1 for k in keys]
    m = sum(res) / len(res)
    ac = sum((res[t] - m) * (res[t + 1] - m) for t in range(len(res) - 1)) / sum((x - m) ** 2 for x in res)
    print(f"profile {i+1}: lag-1 autocorrelation of the rest in measurement order {ac:.2f}")
