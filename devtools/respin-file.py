#!/usr/bin/env python3
"""Replace one file's diff inside a patch of patches/ with a fresh one.

Usage: devtools/respin-file.py NAME.patch FILE...

devtools/mkpatch.sh rewrites a whole patch from $UC_SRC, which is wrong
when a later patch of the series touches one of its other files too (the
later change would be folded in).  This rewrites only the sections of the
listed FILEs: each is diffed against the pristine file with every patch
before NAME applied, and NAME's own section for it is replaced.  No later
patch may touch a listed FILE.
"""
import os
import re
import subprocess
import sys
import tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def env(name):
    out = subprocess.run(['bash', '-c', '. "%s/devtools/common.sh" >/dev/null; echo "$%s"' % (root, name)],
                         capture_output=True, text=True, check=True).stdout.strip()
    if not out:
        sys.exit('respin-file: no %s' % name)
    return out


def files_of(patch):
    return re.findall(r'^\+\+\+ b/(\S+)', open(patch).read(), re.M)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    name, files = sys.argv[1], sys.argv[2:]
    pristine, src = env('UC_PRISTINE'), env('UC_SRC')
    series = [l.strip() for l in open(os.path.join(root, 'patches/series'))
              if l.strip() and not l.startswith('#')]
    idx = series.index(name)
    for later in series[idx + 1:]:
        clash = set(files) & set(files_of(os.path.join(root, 'patches', later)))
        if clash:
            sys.exit('respin-file: %s also touches %s' % (later, ' '.join(sorted(clash))))
    path = os.path.join(root, 'patches', name)
    text = open(path).read()
    with tempfile.TemporaryDirectory() as stage:
        for f in files:
            os.makedirs(os.path.join(stage, os.path.dirname(f)), exist_ok=True)
            subprocess.run(['cp', os.path.join(pristine, f), os.path.join(stage, f)], check=True)
        for p in series[:idx]:
            touched = set(files) & set(files_of(os.path.join(root, 'patches', p)))
            for f in touched:
                # Apply only this file's section of the earlier patch.
                body = open(os.path.join(root, 'patches', p)).read()
                sec = section(body, f)
                subprocess.run(['patch', '-d', stage, '-p1', '-s', '-f', '--no-backup-if-mismatch'],
                               input=sec, text=True, check=True)
        for f in files:
            new = subprocess.run(['diff', '-u', '--label', 'a/' + f, '--label', 'b/' + f,
                                  os.path.join(stage, f), os.path.join(src, f)],
                                 capture_output=True, text=True).stdout
            old = section(text, f)
            if not old:
                sys.exit('respin-file: %s has no section for %s' % (name, f))
            text = text.replace(old, new)
    open(path, 'w').write(text)
    print('respin-file: rewrote %s in patches/%s' % (' '.join(files), name))


def section(body, f):
    """The '--- a/F' .. next '--- a/' (or end) part of a patch."""
    m = re.search(r'^--- (a/|/dev/null)\S*\n\+\+\+ b/%s\n' % re.escape(f), body, re.M)
    if not m:
        return ''
    nxt = re.search(r'^--- (a/\S+|/dev/null)\n\+\+\+ b/', body[m.end():], re.M)
    end = m.end() + nxt.start() if nxt else len(body)
    # A trailing git signature is not part of the section.
    sig = body.rfind('\n-- \n', m.end(), end)
    return body[m.start():end if sig < 0 else sig + 1]


if __name__ == '__main__':
    main()
