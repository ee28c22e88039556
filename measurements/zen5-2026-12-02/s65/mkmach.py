# usage: python3 mkmach.py SRC.toml DST.toml INCORE.toml [keys...]: DST = SRC with the given [incore] keys (window_waiting_integer, forwarding_pairs, forward_reloaded) taken from INCORE.toml
import re,sys
src,dst,inc=sys.argv[1:4]; keys=sys.argv[4:]
s=open(src).read(); i=open(inc).read()
for k in keys:
    if k=='forward_reloaded':
        block=re.search(r'\[incore.class.forward_reloaded\]\n(?:[a-z_]+ = .*\n)+', i).group(0)
        s=re.sub(r'\[incore.class.forward_reloaded\]\n(?:[a-z_]+ = .*\n)+\n?', '', s)
        s=s.replace('[incore.class.forward_wide]', block+'\n[incore.class.forward_wide]',1)
    else:
        line=re.search(r'^%s = .*\n'%k, i, re.M).group(0)
        s=re.sub(r'^%s = .*\n'%k, '', s, flags=re.M)
        s=re.sub(r'^(window_waiting = .*\n)', r'\1'+line, s, count=1, flags=re.M)
open(dst,'w').write(s)
