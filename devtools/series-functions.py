#!/usr/bin/env python3
"""The kernel functions the series adds to existing files, one name a line.

Usage: devtools/series-functions.py [--self-test] SRC [PATCH...]

SRC is the patched tree ($UC_SRC); PATCHes default to patches/series.
A function is named if the first line of its definition in SRC (a name
at the start of a line followed by "(", with the opening "{" at column 0
before any ";") is a line a patch adds to an existing kernel file.
Stock functions the patches only change are not named: a race reported
in one of them may be the stock kernel's.  New files the patches add
are skipped: the project's own files (mm/unmapped_cache/,
arch/x86/mm/unmapped_cache.c) are recognised by their path and their
uc_/unmapped_cache_ names already.

devtools/splats.py --ours-functions reads the list: a KCSAN report whose
top frames name one of them is a race in the series' code (issue #28
item 3: the series' code outside mm/unmapped_cache/ is checked too).
"""
import os
import re
import sys

HUNK = re.compile(r'^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@')
# A definition's first line: type and name at column 0, then "(".
DEF = re.compile(r'^(?!(?:if|for|while|switch|return|do|else)\b)'
                 r'[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\(')


def added_lines(patch):
    """{file: [new-file line numbers of '+' lines]} of a patch's
    changes to files that existed before it."""
    out, cur, new, lineno = {}, None, False, 0
    with open(patch, errors='replace') as f:
        lines = f.read().split('\n')
    for i, line in enumerate(lines):
        if line.startswith('--- '):
            new = line.startswith('--- /dev/null')
            continue
        if line.startswith('+++ b/'):
            cur = None if new else line[6:].split('\t')[0].strip()
            continue
        m = HUNK.match(line)
        if m:
            lineno = int(m.group(1))
            continue
        if cur is None or not line or line.startswith('\\'):
            continue
        if line[0] == '+':
            out.setdefault(cur, []).append(lineno)
            lineno += 1
        elif line[0] == ' ':
            lineno += 1
    return out


def functions(text):
    """[(first line, last line, name)] of the function definitions in C
    source text, found by the kernel's layout (braces at column 0)."""
    lines = text.split('\n')
    out, i = [], 0
    while i < len(lines):
        m = DEF.match(lines[i])
        if not m or lines[i].rstrip().endswith(';'):
            i += 1
            continue
        # The opening brace at column 0 before any ';' ends the header.
        j = i
        while j < len(lines) and j - i < 12:
            if lines[j].startswith('{'):
                break
            if ';' in lines[j] and not lines[j].startswith('\t'):
                j = -1
                break
            j += 1
        if j < 0 or j >= len(lines) or not lines[j].startswith('{'):
            i += 1
            continue
        k = j + 1
        while k < len(lines) and not lines[k].startswith('}'):
            k += 1
        out.append((i + 1, k + 1, m.group(1)))
        i = k + 1
    return out


def series_functions(src, patches):
    names = set()
    for p in patches:
        for path, nums in added_lines(p).items():
            if not path.endswith(('.c', '.h')):
                continue
            try:
                with open(os.path.join(src, path), errors='replace') as f:
                    fns = functions(f.read())
            except OSError:
                continue
            added = set(nums)
            for first, last, name in fns:
                if first in added:
                    names.add(name)
    return sorted(names)


def self_test():
    text = ('static int a;\n'
            'static bool foo(int x,\n'
            '\t\tint y)\n'
            '{\n'
            '\treturn x;\n'
            '}\n'
            '\n'
            'int bar(void);\n'
            'void *baz(void)\n'
            '{\n'
            '\tif (a)\n'
            '\t\treturn 0;\n'
            '}\n')
    got = functions(text)
    want = [(2, 6, 'foo'), (9, 13, 'baz')]
    if got != want:
        print('series-functions self-test: got %r, want %r' % (got, want))
        return 1
    print('series-functions self-test: ok')
    return 0


def main():
    if sys.argv[1:2] == ['--self-test']:
        return self_test()
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    src = sys.argv[1]
    patches = sys.argv[2:]
    if not patches:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        with open(os.path.join(root, 'patches/series')) as f:
            patches = [os.path.join(root, 'patches', l.strip()) for l in f
                       if l.strip() and not l.startswith('#')]
    names = series_functions(src, patches)
    if not names:
        sys.exit('series-functions: no function found in the patches')
    print('\n'.join(names))
    return 0


if __name__ == '__main__':
    sys.exit(main())
