# The interval's model error refitted on every host's kept runs priced by this binary
# (session 51's rows and session 57's rule: the smallest median factor whose interval covers
# >= 90% of the times pooled and >= 88% of each host's). Hosts: measurements/hosts.txt, those
# whose profiles have `[incore]` (zen3 and zen5old price by AbOps, another error term).
# Replays first: `AUGUR=target/release/augur PROFROOT=/tmp/s88/pr MACHROOT=/tmp/s86/mach
# bash measurements/replay-hosts.sh TAG O2` (and O0), which leave /tmp/s65/hyb-TAG-NAME-SET-FLAG.
# usage: python3 calib.py TAG [ROWS.json]   (rows cached in ROWS.json: rerun the fit alone)
import json, math, os, statistics, subprocess, sys, glob

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))
A = os.path.join(ROOT, "target/release/augur")
MACHROOT = os.environ.get("MACHROOT", "/tmp/s86/mach")
SKIP = {"zen3", "zen5old"}
Z, P0 = 1.645, 0.14


def hosts():
    for line in open(os.path.join(ROOT, "measurements/hosts.txt")):
        if line.startswith("#") or not line.strip():
            continue
        name, flags, sets, machine, _runs = line.split()
        if name in SKIP:
            continue
        for f in flags.split(","):
            m = os.path.join(MACHROOT, f"{name}-{f}.toml")
            if not os.path.exists(m):
                m = os.path.join(ROOT, machine.replace("FLAG", f))
            for s in sets.split(","):
                yield name, f, s, m


def rows(tag):
    out = []
    for name, f, s, m in hosts():
        d = f"/tmp/s65/hyb-{tag}-{name}-{s}-{f}"
        for p in sorted(glob.glob(d + "/*.profile.json")):
            n = os.path.basename(p)[: -len(".profile.json")]
            t = json.load(open(f"{d}/{n}.timing.json"))
            r = subprocess.run([A, "predict", p, "-m", m, "--json"], capture_output=True, text=True)
            if r.returncode:
                continue
            pr = json.loads(r.stdout)["programs"][0]["predictions"][0]
            iv = pr["interval"]
            out.append(dict(host=name, set=s, flag=f, prog=n, pred=pr["total"]["seconds"],
                            meas=statistics.median(t["runs"]), x=iv["irregular_share"], mem=pr["memory_seconds"] / max(pr["total"]["seconds"], 1e-30),
                            p=iv["parameter_log_sd"], c=iv.get("count_log_sd", 0)))
    return out


def evaluate(rows, r, i, flag, host=None, sets=None):
    cov, fac = [], []
    for w in rows:
        if w["flag"] != flag or (host and w["host"] != host) or (sets and w["set"] not in sets):
            continue
        e = abs(math.log(w["pred"] / w["meas"]))
        sm = math.sqrt((1 - w["x"]) * r * r + w["x"] * i * i)
        s = math.sqrt(sm * sm + max(0, w["p"] ** 2 - P0 ** 2) + w["c"] ** 2)
        cov.append(e <= Z * s)
        fac.append(math.exp(Z * s))
    if not cov:
        return None
    return sum(cov) / len(cov), statistics.median(fac), len(cov)


def report(rows, flag, pair, label):
    hs = sorted({w["host"] for w in rows if w["flag"] == flag})
    c, f, n = evaluate(rows, *pair, flag)
    print(f"{flag} {label} regular {pair[0]:.2f} irregular {pair[1]:.2f}: {100*c:.0f}% of {n} covered, median factor {f:.3f}")
    for h in hs:
        for s in ["real", "corpus"]:
            e = evaluate(rows, *pair, flag, h, [s])
            if e:
                print(f"    {h:9s} {s:7s} {100*e[0]:4.0f}% of {e[2]:2d}, factor {e[1]:.3f}")


def fit(rows, flag):
    hs = sorted({w["host"] for w in rows if w["flag"] == flag})
    best = None
    for r in [x / 100 for x in range(10, 25)]:
        for i in [x / 100 for x in range(16, 70, 2)]:
            c, f, _ = evaluate(rows, r, i, flag)
            each = min(evaluate(rows, r, i, flag, h)[0] for h in hs)
            if c >= 0.90 and each >= 0.88 and (best is None or f < best[1]):
                best = (c, f, r, i)
    return best


if __name__ == "__main__":
    tag = sys.argv[1]
    cache = sys.argv[2] if len(sys.argv) > 2 else f"/tmp/s65/calib-{tag}.json"
    if os.path.exists(cache):
        rs = json.load(open(cache))
    else:
        rs = rows(tag)
        json.dump(rs, open(cache, "w"))
    now = {"O2": (0.16, 0.28), "O0": (0.16, 0.26)}
    for flag in ["O2", "O0"]:
        report(rs, flag, now[flag], "now")
        b = fit(rs, flag)
        print(flag, "fit:", b)
        if b:
            report(rs, flag, (b[2], b[3]), "fitted")
