# usage: cmp.sh TOML... : prices this host's kept runs (zen4dec5, both sets) on each profile into /tmp/s90/rp-NAME-SET.txt
cd /work/main
for p in "$@"; do
  n=$(basename $p .toml)
  target/release/augur bench accuracy -m $p --suite bench/real --sources /work/SOURCES --part all --replay /tmp/s65/hyb-s89g6-zen4dec5-real-O2 > /tmp/s90/rp-$n-real.txt 2>&1
  target/release/augur bench accuracy -m $p --replay /tmp/s65/hyb-s89g6-zen4dec5-corpus-O2 > /tmp/s90/rp-$n-corpus.txt 2>&1
done
