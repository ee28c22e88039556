#!/bin/sh
# check.sh - build and run every program of corpus.toml at one
# optimisation level and print: name, seconds, exit status.
#
# usage: corpus/check.sh [-O0|-O1|-O2|-O3] [extra compiler flags...]
#   env: FC (default gfortran), CC (default gcc), KEEP=1 keeps the
#        build directory, ONLY="name1 name2" restricts the run.
# The build happens in a temporary directory; sources are not touched.
set -u
OPT=${1:--O0}
[ $# -gt 0 ] && shift
EXTRA="$*"
FC=${FC:-gfortran}
CC=${CC:-gcc}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/augur-corpus.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$WORK"' EXIT

# name|files (space separated)|stdin|args|preprocessing flags
python3 - "$HERE/corpus.toml" > "$WORK/list.tsv" <<'PY'
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    m = tomllib.load(f)
for p in m["program"]:
    pre = (["-cpp"] if p.get("cpp") else []) + ["-D" + d for d in p.get("defines", [])]
    print("|".join([p["name"], " ".join(p["files"]), p.get("stdin", ""),
                     " ".join(p.get("args", [])), " ".join(pre)]))
PY

printf '%-14s %8s %5s  %s\n' name seconds exit "$OPT $EXTRA"
nfail=0
while IFS='|' read -r name files stdin args pre; do
    if [ -n "${ONLY:-}" ]; then
        case " $ONLY " in *" $name "*) ;; *) continue ;; esac
    fi
    bdir="$WORK/$name"
    mkdir -p "$bdir"
    objs=""
    ok=1
    n=0
    for f in $files; do
        n=$((n + 1))
        src="$HERE/$f"
        obj="$bdir/$n.o"
        case "$f" in
            *.c) $CC $OPT -c "$src" -o "$obj" 2>>"$bdir/build.log" || ok=0 ;;
            *)   $FC $OPT $EXTRA $pre -J "$bdir" -I "$(dirname "$src")" -c "$src" \
                     -o "$obj" 2>>"$bdir/build.log" || ok=0 ;;
        esac
        objs="$objs $obj"
    done
    if [ $ok = 1 ]; then
        $FC $OPT $objs -o "$bdir/$name" 2>>"$bdir/build.log" || ok=0
    fi
    if [ $ok = 0 ]; then
        printf '%-14s %8s %5s  (build failed, see %s)\n' "$name" - - "$bdir/build.log"
        nfail=$((nfail + 1))
        continue
    fi
    in=/dev/null
    [ -n "$stdin" ] && in="$HERE/$stdin"
    ( cd "$bdir" && /usr/bin/time -f %e -o "$bdir/time" "./$name" $args \
          < "$in" > "$bdir/out" 2> "$bdir/err" )
    rc=$?
    secs=$(tail -n 1 "$bdir/time")
    [ $rc = 0 ] || nfail=$((nfail + 1))
    printf '%-14s %8s %5s\n' "$name" "$secs" "$rc"
    [ -n "${VERBOSE:-}" ] && sed 's/^/    /' "$bdir/out"
done < "$WORK/list.tsv"
[ "${KEEP:-0}" = 1 ] && echo "build directory: $WORK"
exit $nfail
