"""usage: python3 optimized-rates.py O0.toml O2.toml OUT.toml [NAME]

Writes OUT: the unoptimized profile O0 with the stride sweep and the TLB gathers of O2 (the
same host and day, measured with optimization), `hardware_fflags` set to O2's flags and a note
naming where they came from (NAME, or O2's file name): what `augur characterize` measures since
session 82, where an unoptimized profile's hardware rates are built with -O2. The other curves
stay O0's; O2 without TLB gathers leaves O0's (profiles made before them have none)."""
import re
import sys
import tomllib

o0, o2, out = sys.argv[1:4]
name = sys.argv[4] if len(sys.argv) > 4 else o2.rsplit("/", 1)[-1]
text0, text2 = open(o0).read(), open(o2).read()
flags2 = tomllib.loads(text2)["memory"]["fflags"]


def parts(text):
    return re.split(r"(?m)^(?=\[)", text)


def header(part):
    return part.split("\n", 1)[0].strip()


def is_rate(part):
    return header(part) in ("[[memory.sweep]]", "[[memory.tlb_gather]]")


rates = {h: [p for p in parts(text2) if header(p) == h]
         for h in ("[[memory.sweep]]", "[[memory.tlb_gather]]")}
res, placed = [], set()
for p in parts(text0):
    h = header(p)
    if is_rate(p) and rates[h]:
        if h not in placed:
            res += rates[h]
            placed.add(h)
        continue
    if p.startswith("[memory]\n"):
        taken = "the stride sweep and the TLB gathers are" if rates["[[memory.tlb_gather]]"] else "the stride sweep is"
        note = (f"{taken} {name}'s, measured with {flags2} on the same host and day, as augur "
                "characterize builds an unoptimized profile's hardware rates since 2026-12-05")
        p = re.sub(r'(?m)^notes = \[(.*)\]$', lambda m: f'notes = [{m.group(1)}, "{note}"]', p, count=1)
        p = re.sub(r"(?m)^(sweep|hardware)_fflags = .*\n", "", p)
        p = p.rstrip("\n") + f'\nhardware_fflags = "{flags2}"\n\n'
    res.append(p)
assert "[[memory.sweep]]" in placed, "no [[memory.sweep]] in " + o0
open(out, "w").write("".join(res))
