#!/usr/bin/env python3
"""Transcribes two tables of Saavedra-Barrera's dissertation (chapter 3) from its plain
text into the fixtures of crates/augur-workload/tests (never edit those by hand):

* Appendix 3.A (tables 3.16-3.25): each program's dynamic distribution of AbOps,
  `saavedra-appendix-3a.tsv` (program, code, mnemonic as printed, fraction as printed).
  Columns whose printed fractions do not sum to 1 within 0.005 lost cells in the text
  extraction (blank cells shift the row) and are left out, named in the header.
* Table 3.11: the printed most and least similar pairs, `saavedra-table-3-11.tsv`.
* Table 3.35: real and predicted times of the small programs on 13 machines,
  `saavedra-table-3-35.tsv` (machine, program, real seconds, predicted seconds; empty
  when the thesis prints `-`).

Usage: scripts/saavedra-ch3-tables.py SEED.txt OUTDIR
"""
import re
import sys

SUP = str.maketrans("¹²³⁴⁵", "12345")
DASHES = ("-", "—", "")


def value(cell):
    """A printed fraction: `-` is 0, `< 0.0001` kept as printed, a rank mark dropped."""
    v = cell.translate(SUP).strip()
    if v in DASHES:
        return "0"
    if v.startswith("<"):
        return "<0.0001"
    return v.split()[-1]


def appendix(lines):
    progs, order = {}, []
    i = 0
    while i < len(lines):
        if lines[i].startswith("operation\t") and "Appendix 3.A" in "".join(lines[max(0, i - 3000):i]):
            cols = lines[i].split("\t")[1:]
            if cols[0] in ("Sparcstation 1+",):
                break
            for c in cols:
                if c not in progs:
                    progs[c] = []
                    order.append(c)
            i += 1
            while i < len(lines) and not lines[i].startswith("Table"):
                m = re.match(r"^(\d{3}) ([A-Z0-9 ]+?)\t(.*)$", lines[i])
                if m:
                    cells = m.group(3).split("\t")
                    if len(cells) == len(cols):
                        for c, cell in zip(cols, cells):
                            progs[c].append((int(m.group(1)), m.group(2).replace(" ", ""), value(cell)))
                i += 1
        i += 1
    return progs, order


def number(v):
    return 0.0 if v.startswith("<") else float(v)


def table_3_35(lines):
    start = next(i for i, l in enumerate(lines) if l.startswith("System\tALAMOS"))
    out, machines, part = [], [], 0
    for l in lines[start:]:
        if l.startswith("Table 3.35"):
            break
        f = l.split("\t")
        if f[0] == "System":
            programs = [x for x in f[1:] if x and x != "r.m.s"][:6 if part == 0 else 3]
            part += 1
            row = 0
            continue
        if len(f) < 10 or not f[0].strip() or f[0].startswith("average") or not f[1].strip():
            continue
        if part == 1:
            machines.append(f[0])
        name = machines[row]
        row += 1
        for k, prog in enumerate(programs):
            real, pred = f[1 + 3 * k], f[2 + 3 * k]
            clean = lambda x: "" if x.strip() in DASHES else x.strip()
            out.append((name, prog, clean(real), clean(pred)))
    return out


def table_3_11(lines):
    """Table 3.11: (rank, program, program, distance), both halves."""
    start = next(i for i, l in enumerate(lines) if l.startswith("num.\tMost Similar Programs")
                 and "dynamic" not in l and i < 2300)
    out = []
    for l in lines[start + 1:]:
        if l.startswith("Table 3.11"):
            break
        f = l.split("\t")
        if len(f) >= 8:
            out.append((f[0], f[1], f[2], f[3]))
            out.append((f[4], f[5], f[6], f[7]))
    return out


def write(path, about, header, rows):
    """A fixture: comment lines (what it is, where it comes from), the header, the rows."""
    with open(path, "w") as f:
        f.write(f"# Saavedra-Barrera (1992), {about[0]}\n")
        f.write("# Written by scripts/saavedra-ch3-tables.py from the dissertation's text; do not edit.\n")
        for line in about[1:]:
            f.write(f"# {line}\n")
        f.write(header + "\n")
        for row in rows:
            f.write("\t".join(str(x) for x in row) + "\n")


def main():
    seed, outdir = sys.argv[1], sys.argv[2]
    lines = open(seed, encoding="utf-8").read().split("\n")
    progs, order = appendix(lines)
    kept = [p for p in order if abs(sum(number(v) for *_, v in progs[p]) - 1) <= 0.005]
    dropped = [p for p in order if p not in kept]
    write(f"{outdir}/saavedra-appendix-3a.tsv",
          ["Appendix 3.A, tables 3.16-3.25: dynamic AbOp distributions.",
           f"Left out (columns garbled in the text, sums not 1): {', '.join(dropped)}"],
          "program\tcode\tmnemonic\tfraction",
          [(p, code, mnem, v) for p in kept for code, mnem, v in progs[p]])
    write(f"{outdir}/saavedra-table-3-35.tsv",
          ["table 3.35: real and predicted seconds of the small programs."],
          "machine\tprogram\treal\tpredicted", table_3_35(lines))
    write(f"{outdir}/saavedra-table-3-11.tsv",
          ["table 3.11: the 25 most and least similar pairs by equation 3.5."],
          "rank\ta\tb\tdistance", table_3_11(lines))
    print(f"appendix 3.A: {len(kept)} programs kept, left out: {', '.join(dropped)}")


if __name__ == "__main__":
    main()
