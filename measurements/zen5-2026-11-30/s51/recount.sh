cd /work/main
A=${AUGUR:-target/release/augur}
D=measurements/zen5-2026-11-30
for f in O2 O0; do
  $A bench accuracy -m $D/zen5-$f.toml --suite bench/real --sources /work/SOURCES --part all --replay $D/real-$f --recount --save /tmp/s51/rc-real-$f > /tmp/s51/rc-real-$f.txt 2> /tmp/s51/rc-real-$f.err
  $A bench accuracy -m $D/zen5-$f.toml --replay $D/corpus-$f --recount --save /tmp/s51/rc-corpus-$f > /tmp/s51/rc-corpus-$f.txt 2> /tmp/s51/rc-corpus-$f.err
done
echo done > /tmp/s51/recount.done
