"""usage: python3 optimized-sweep.py O0.toml O2.toml OUT.toml [NAME]

Writes OUT: the unoptimized profile O0 with the stride sweep of O2 (the same host and day,
measured with optimization), `sweep_fflags` set to O2's flags and a note naming where the
sweep came from (NAME, or O2's file name): what `augur characterize` measures since session 82,
where an unoptimized profile's sweep is built with -O2. The other curves stay O0's."""
import re
import sys
import tomllib

o0, o2, out = sys.argv[1:4]
name = sys.argv[4] if len(sys.argv) > 4 else o2.rsplit("/", 1)[-1]
text0, text2 = open(o0).read(), open(o2).read()
flags2 = tomllib.loads(text2)["memory"]["fflags"]


def parts(text):
    return re.split(r"(?m)^(?=\[)", text)


def is_sweep(part):
    return part.split("\n", 1)[0].strip() == "[[memory.sweep]]"


sweeps = [p for p in parts(text2) if is_sweep(p)]
res, placed = [], False
for p in parts(text0):
    if is_sweep(p):
        if not placed:
            res += sweeps
            placed = True
        continue
    if p.startswith("[memory]\n"):
        note = (f"the stride sweep is {name}'s, measured with {flags2} on the same host and day, "
                "as augur characterize builds an unoptimized profile's sweep since 2026-12-05")
        p = re.sub(r'(?m)^notes = \[(.*)\]$', lambda m: f'notes = [{m.group(1)}, "{note}"]', p, count=1)
        p = re.sub(r"(?m)^sweep_fflags = .*\n", "", p)
        p = p.rstrip("\n") + f'\nsweep_fflags = "{flags2}"\n\n'
    res.append(p)
assert placed, "no [[memory.sweep]] in " + o0
open(out, "w").write("".join(res))
