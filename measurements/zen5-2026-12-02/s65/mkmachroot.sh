# usage: bash measurements/zen5-2026-12-02/s65/mkmachroot.sh DIR: writes into DIR the MACHROOT that
#   hosts.sh takes (session 65's "after"): the Zen 5 profiles of session 56 with the three [incore]
#   keys this Zen 5 (2026-12-02) measured, and the Zen 4 profiles of 2026-12-01 and 2026-11-28 with
#   window_waiting_integer = 91 (session 64's hand kernel, ../zen4-2026-12-01/s64/window.txt).
set -e
cd /work/main; D=$1; mkdir -p $D; S=measurements/zen5-2026-12-02/s65
for f in O2 O0; do
  python3 $S/mkmach.py measurements/zen5-2026-11-30/s56/zen5-$f-s56.toml $D/zen5-$f.toml \
    measurements/zen5-2026-12-02/zen5-$f.toml window_waiting_integer forwarding_pairs forward_reloaded
  for h in zen4:zen4-2026-12-01 zen4old:zen4-2026-11-28; do
    sed 's/^\(window_waiting = .*\)$/\1\nwindow_waiting_integer = 91.0/' measurements/${h#*:}/zen4-$f.toml > $D/${h%%:*}-$f.toml
  done
done
