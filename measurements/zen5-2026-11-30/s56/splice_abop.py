"""Copy one [abop.NAME] table from a profile measured with `augur characterize --only NAME`
into another profile, leaving every other line of the target as it is.

usage: python3 splice_abop.py NAME FROM.toml INTO.toml OUT.toml
"""
import sys


def table(lines, header):
    """The lines of the table `header` (its header included), or None."""
    try:
        start = lines.index(header)
    except ValueError:
        return None
    end = start + 1
    while end < len(lines) and not lines[end].startswith("["):
        end += 1
    while lines[end - 1].strip() == "":
        end -= 1
    return start, end


def main():
    name, source, target, out = sys.argv[1:5]
    header = f"[abop.{name}]\n"
    src = open(source).readlines()
    dst = open(target).readlines()
    s = table(src, header)
    if s is None:
        sys.exit(f"{source}: no {header.strip()} table")
    new = src[s[0]:s[1]]
    d = table(dst, header)
    if d is None:
        # after the last [abop.*] table
        last = max(i for i, l in enumerate(dst) if l.startswith("[abop."))
        _, end = table(dst, dst[last])
        dst[end:end] = ["\n"] + new
    else:
        dst[d[0]:d[1]] = new
    open(out, "w").writelines(dst)


main()
