#!/usr/bin/env bash
# Analyzes every program of corpus/corpus.toml statically and prints its parse
# coverage; exits non-zero if any program is not fully lowered or has errors.
set -euo pipefail
cd "$(dirname "$0")/.."
augur=${AUGUR:-./target/release/augur}
status=0
printf '%-14s %6s %9s %8s  %s\n' program lines lowered coverage diagnostics
python3 - <<'PY' > /tmp/augur-corpus-list.$$
import tomllib
with open("corpus/corpus.toml", "rb") as f:
    m = tomllib.load(f)
for p in m["program"]:
    files = [x for x in p["files"] if not x.endswith(".c")]
    print(p["name"], "--cpp" if p.get("cpp") else "-", " ".join("corpus/" + x for x in files))
PY
while read -r name pre files; do
  [ "$pre" = "-" ] && pre=""
  # shellcheck disable=SC2086
  json=$($augur analyze --static --json $pre $files 2>/dev/null || true)
  line=$(printf '%s' "$json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
c = d["coverage"]
errs = sum(1 for x in d["diagnostics"] if x["severity"] == "error")
warns = sum(1 for x in d["diagnostics"] if x["severity"] == "warning")
print(c["source_lines"], "%d/%d" % (c["lowered"], c["statements"]), "%.1f%%" % c["percent"], "%d error(s), %d warning(s)" % (errs, warns), "OK" if c["percent"] == 100 and errs == 0 else "INCOMPLETE")
')
  read -r lines lowered pct rest <<<"$line"
  printf '%-14s %6s %9s %8s  %s\n' "$name" "$lines" "$lowered" "$pct" "$rest"
  case "$rest" in *INCOMPLETE*) status=1 ;; esac
done < /tmp/augur-corpus-list.$$
rm -f /tmp/augur-corpus-list.$$
exit $status
