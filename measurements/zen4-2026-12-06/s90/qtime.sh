# usage: qtime.sh NAME [augur args...]: a quick characterization with each stderr line stamped (s since start)
n=$1; shift
t0=$(date +%s.%N)
/work/main/target/release/augur characterize --quick -o /tmp/s90/$n.toml "$@" 2>&1 >/tmp/s90/$n.out | while IFS= read -r l; do printf '%6.2f %s\n' "$(echo "$(date +%s.%N) - $t0" | bc)" "$l"; done > /tmp/s90/$n.err
tail -1 /tmp/s90/$n.out | grep -o '[0-9.]* s; profile'
