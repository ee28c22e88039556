"""Compares the profiles side-by-side.sh wrote in DIR: per section, the median and 90th
percentile of |relative difference| between two runs alone, two runs side by side, and each
run alone against the side-by-side run next to it in time (and the other one)."""
import statistics as st
import sys
import tomllib

D = sys.argv[1]


def load(name):
    with open(f"{D}/{name}.toml", "rb") as f:
        return tomllib.load(f)


def flat(d, prefix=""):
    out = {}
    if isinstance(d, dict):
        for k, v in d.items():
            out.update(flat(v, prefix + "." + k))
    elif isinstance(d, list):
        for i, v in enumerate(d):
            out.update(flat(v, prefix + f"[{i}]"))
    elif isinstance(d, (int, float)) and not isinstance(d, bool):
        out[prefix] = float(d)
    return out


def abops(name):
    p = load(name)["abop"]
    return {k: v["mean_ns"] for k, v in p.items()
            if v.get("status") == "measured" and v.get("mean_ns", 0) > 0.05}


def curves(name):
    m = load(name)["memory"]
    d = {}
    for c in m["chase"]:
        for s, n in zip(c["size_bytes"], c["ns"]):
            d[(c["order"], s)] = n
    for c in m["sweep"]:
        for s, n in zip(c["stride_bytes"], c["ns"]):
            d[("sweep", c["size_bytes"], s)] = n
    for c in m["tlb_gather"] + m["tlb_chase"]:
        for s, n in zip(c["count"], c["ns"]):
            d[("tlb", c["stride_bytes"], s)] = n
    for c in m["streams"]:
        d[("stream", c["kernel"], c["array_bytes"])] = 1 / c["gbs"]
    return d


def section(key):
    def read(name):
        keep = ("mean_ns", "cycle", "latency", "throughput", "_ns", "cycles")
        return {k: v for k, v in flat(load(name).get(key, {})).items()
                if abs(v) > 1e-9 and any(t in k for t in keep) and "sd_ns" not in k and "ci90" not in k}
    return read


def compare(a, b, what):
    keys = [k for k in a if k in b and a[k] > 0]
    r = sorted(abs(b[k] / a[k] - 1) * 100 for k in keys)
    signed = st.median([b[k] / a[k] - 1 for k in keys]) * 100
    print(f"  {what:26s} n={len(r):3d} median |diff| {st.median(r):5.2f}%  p90 {r[int(.9 * len(r))]:6.2f}%  signed median {signed:+.2f}%")


for title, read, alone, beside in (
    ("AbOp entries (beside the memory experiments)", abops, "opsB", "opsC"),
    ("memory curves (beside the AbOp experiments)", curves, "memA", "memC"),
    ("stream costs (beside the in-core kernels)", section("stream"), "strA", "strC"),
    ("in-core parameters (beside the stream costs)", section("incore"), "incB", "incC"),
):
    print(title)
    x = {n: read(n) for n in (alone + "1", alone + "2", beside + "1", beside + "2")}
    compare(x[alone + "1"], x[alone + "2"], "alone 1 vs alone 2")
    compare(x[beside + "1"], x[beside + "2"], "beside 1 vs beside 2")
    for r, s in (("1", "1"), ("2", "2"), ("1", "2"), ("2", "1")):
        compare(x[alone + r], x[beside + s], f"alone {r} vs beside {s}")
