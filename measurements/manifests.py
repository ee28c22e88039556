"""Shared by the measurement scripts: the development programs of bench/real and the
`augur analyze` command line of one (import with sys.path pointed at measurements/)."""
import os, sys, tomllib


def dev_manifests(names, sources='/work/SOURCES'):
    """Each manifest of bench/real (part dev, or the names given), its inputs written into
    its sources' directory; yields (manifest, sources root)."""
    for f in sorted(os.listdir('bench/real')):
        if not f.endswith('.toml'):
            continue
        m = tomllib.load(open(os.path.join('bench/real', f), 'rb'))
        if names and m['name'] not in names or not names and m.get('part') != 'dev':
            continue
        root = os.path.join(sources, m['name'])
        if not os.path.isdir(root):
            print(f"{m['name']}: no sources in {root}", file=sys.stderr)
            continue
        for k, v in m.get('inputs', {}).items():
            open(os.path.join(root, k), 'w').write(v)
        yield m, root


def analyze_cmd(m, augur, out, opt='-O2'):
    """`augur analyze` of manifest m at `opt` writing the profile to `out`."""
    flags = [opt] + m.get('fflags', [])
    cmd = [augur, 'analyze'] + m['files'] + ['--fflags=' + ' '.join(flags), '-o', out]
    if m.get('form') in ('fixed', 'free'):
        cmd += ['--form', m['form']]
    if m.get('cpp'):
        cmd += ['--cpp']
    cmd += sum((['-D', d] for d in m.get('defines', [])), []) + sum((['-I', i] for i in m.get('include', [])), [])
    if m.get('args'):
        cmd += ['--args', ' '.join(m['args'])]
    if m.get('stdin'):
        cmd += ['--stdin', m['stdin']]
    return cmd
