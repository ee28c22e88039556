#!/usr/bin/env python3
"""Writes one large Fortran program made of copies of the corpus's own programs (issue 44's
"scale of the tool": augur's cost against the size of the program it analyzes).

    python3 scripts/scale-program.py LINES OUTDIR [--run K]

Each copy of a corpus program (four in free form, two in fixed form, programs without
modules or external procedures) becomes a subroutine of its own name (`arrays_c17`); a main
program calls copy k when k <= the number given as its first argument (default: the first
copy of each program, so the run's length does not grow with the program). The copies are
grouped into files of about 5,000 lines, free and fixed form apart (`part_freeNNN.f90`,
`part_fixedNNN.f`) and `main.f90`. Prints the files in compile order, ready for `augur analyze`.
"""

import argparse
import pathlib
import re

CORPUS = pathlib.Path(__file__).resolve().parent.parent / "corpus"
FREE = ["arrays", "gather", "spline", "strings"]
# (Not sieve77 or stream77: their megabytes of static arrays, once a copy, pass the 2 GiB
# the default code model addresses at 500,000 lines.)
FIXED = ["cplxpoly77", "intrin77"]
PART_LINES = 5000


def free_copy(text: str, k: int) -> str:
    """The program as a subroutine named `NAME_cK` (its STOP a RETURN)."""
    text = re.sub(r"(?im)^(\s*)program\s+(\w+)", lambda m: f"{m[1]}subroutine {m[2]}_c{k}", text)
    text = re.sub(
        r"(?im)^(\s*)end\s+program\s+(\w+)", lambda m: f"{m[1]}end subroutine {m[2]}_c{k}", text
    )
    return re.sub(r"(?im)^(\s*)stop\b.*$", lambda m: f"{m[1]}return", text)


def fixed_copy(text: str, k: int) -> str:
    """The fixed-form program as a subroutine named `NAME_CK`."""
    return re.sub(r"(?m)^(      )PROGRAM\s+(\w+)", lambda m: f"{m[1]}SUBROUTINE {m[2]}_C{k}", text)


def program_name(text: str) -> str:
    return re.search(r"(?im)^\s*program\s+(\w+)", text)[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lines", type=int, help="about how many lines in all")
    ap.add_argument("outdir", type=pathlib.Path)
    args = ap.parse_args()
    sources = [(n, "f90", (CORPUS / f"{n}.f90").read_text()) for n in FREE]
    sources += [(n, "f", (CORPUS / f"{n}.f").read_text()) for n in FIXED]
    args.outdir.mkdir(parents=True, exist_ok=True)
    parts = {"f90": [""], "f": [""]}
    calls, total, k = [], 0, 0
    while total < args.lines:
        for _name, ext, text in sources:
            k += 1
            copy = free_copy(text, k) if ext == "f90" else fixed_copy(text, k)
            suffix = f"_c{k}" if ext == "f90" else f"_C{k}"
            calls.append(f"  if (m >= {k}) call {program_name(text)}{suffix}()")
            if parts[ext][-1].count("\n") >= PART_LINES:
                parts[ext].append("")
            parts[ext][-1] += copy + "\n"
            total += copy.count("\n") + 2
    files = []
    for ext, texts in parts.items():
        for i, t in enumerate(texts):
            form = "free" if ext == "f90" else "fixed"
            p = args.outdir / f"part_{form}{i:03d}.{ext}"
            p.write_text(t)
            files.append(p.name)
    main_text = "\n".join(
        [
            "program scale",
            "  implicit none",
            "  integer :: m",
            "  character(len=32) :: arg",
            f"  m = {len(sources)}",
            "  if (command_argument_count() > 0) then",
            "    call get_command_argument(1, arg)",
            "    read (arg, *) m",
            "  end if",
            *calls,
            "end program scale",
            "",
        ]
    )
    (args.outdir / "main.f90").write_text(main_text)
    files.append("main.f90")
    print(" ".join(files))


if __name__ == "__main__":
    main()
