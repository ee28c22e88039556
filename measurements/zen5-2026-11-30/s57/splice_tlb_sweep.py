"""splice_tlb_sweep.py FROM INTO OUT: copy FROM's TLB sweep curves (`[[memory.tlb_sweep]]`,
measured by `augur characterize --memory` since 2026-12-01) into INTO after its TLB gather,
leaving every other entry of INTO as it was measured; write OUT."""
import re
import sys

src, into, out = sys.argv[1:4]
block = r"\[\[memory\.{}\]\]\nstride_bytes = \d+\ncount = .*\nns = .*\n"
sweeps = re.findall(block.format("tlb_sweep"), open(src).read())
if not sweeps:
    sys.exit(f"{src}: no TLB sweep")
t = open(into).read()
gathers = list(re.finditer(block.format("tlb_gather"), t))
if not gathers:
    sys.exit(f"{into}: no TLB gather to splice after")
end = gathers[-1].end()
t = t[:end] + "\n" + "\n".join(sweeps) + t[end:]
open(out, "w").write(t)
