#!/usr/bin/env python3
"""Extracts the sources of bench/real's and bench/real-mpi's programs from their
repositories' mirrors.

usage: python3 scripts/real-sources.py [MIRRORS] [SOURCES]   (from the repository's root)
  MIRRORS (default /work/.mirror) holds OWNER+NAME/repo, a bare git directory per
  repository a manifest names (the search tool's `fetch` makes them); SOURCES (default
  /work/SOURCES) receives NAME/ per program: its files, data and stdin at their
  repository paths, symbolic links kept as links, the include directories' sources and
  headers beside them.
"""
import glob
import os
import subprocess
import sys
import tomllib

HEADERS = ('.h', '.inc', '.f', '.F', '.f90', '.F90', '.fh', '.i', '.cmn', '.par')


def git(gd, *args):
    return subprocess.run(['git', f'--git-dir={gd}', *args], capture_output=True)


def extract(gd, commit, path, dst):
    """Writes `path` of `commit` to `dst` (a link stays a link); an error's text or None."""
    blob = git(gd, 'show', f'{commit}:{path}')
    if blob.returncode:
        return f'{path}: {blob.stderr.decode().strip()[:100]}'
    mode = git(gd, 'ls-tree', commit, '--', path).stdout.split()
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if os.path.lexists(dst):
        os.remove(dst)  # never write through a link an earlier file made
    if mode and mode[0] == b'120000':
        os.symlink(blob.stdout.decode(), dst)
    else:
        with open(dst, 'wb') as f:
            f.write(blob.stdout)
    return None


def main(mirrors, sources):
    for manifest in sorted(glob.glob('bench/real/*.toml') + glob.glob('bench/real-mpi/*.toml')):
        with open(manifest, 'rb') as f:
            m = tomllib.load(f)
        gd = f"{mirrors}/{m['source'].split(':', 1)[1].replace('/', '+')}/repo"
        if os.path.isdir(f'{gd}/.git'):  # a mirror fetched with a work tree
            gd = f'{gd}/.git'
        out = f"{sources}/{m['name']}"
        paths = list(m['files']) + list(m.get('data', []))
        if m.get('stdin') and m['stdin'] not in m.get('inputs', {}):
            paths.append(m['stdin'])
        listed = set(paths)
        for inc in m.get('include', []):
            tree = git(gd, 'ls-tree', '-r', '--name-only', m['commit'], '--', inc).stdout.decode()
            paths += [p for p in tree.split()
                      if p not in listed and (p.endswith(HEADERS) or '.' not in os.path.basename(p))]
        errors = [e for p in paths if (e := extract(gd, m['commit'], p, os.path.join(out, p)))]
        print(m['name'], 'ok' if not errors else errors)


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else '/work/.mirror',
         sys.argv[2] if len(sys.argv) > 2 else '/work/SOURCES')
