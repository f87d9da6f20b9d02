#!/usr/bin/env python3
"""Compare functions' machine code between two builds of one object file.

Usage: disasm-cmp.py STOCK.o SERIES.o FUNCTION...
       disasm-cmp.py --self-test STOCK.o FUNCTION

Each function is disassembled with objdump (relocations shown) from both
objects and compared instruction by instruction:

  - the number of instructions, every mnemonic, every register and the
    shape of every operand must be the same, and so must each branch's
    target (as an instruction index) and each relocation's symbol;
  - only numbers may differ (displacements, immediates, relocation
    addends): a structure field or a counter index moved because the
    series adds a counter elsewhere.  Each such instruction is printed.

Exit status 1 if any function differs in more than numbers or is missing.

--self-test checks the comparison itself on the stock object's real code:
the function against itself (identical), with one displacement changed
(passes, one instruction printed), and with a call inserted, as a hook in
the function would add (must fail).
"""
import re
import subprocess
import sys

INSN = re.compile(r'^\s*([0-9a-f]+):\s+(.*?)\s*$')
RELOC = re.compile(r'^\s*[0-9a-f]+:\s+(R_X86_64_\S+)\s+(\S+)\s*$')
BRANCH = re.compile(r'^([0-9a-f]+) <([^>]*)>$')
NUM = re.compile(r'-?(0x[0-9a-f]+|\b[0-9]+\b)')


def disassemble(obj, fn):
    """[(address, mnemonic, operands, [relocations])] of FN in OBJ."""
    out = subprocess.run(['objdump', '-d', '-r', '--no-show-raw-insn',
                          '--disassemble=' + fn, obj],
                         check=True, capture_output=True, text=True).stdout
    insns, started = [], False
    for line in out.splitlines():
        if re.match(r'^[0-9a-f]+ <%s>:$' % re.escape(fn), line):
            started = True
            continue
        if not started:
            continue
        m = RELOC.match(line)
        if m and insns:
            insns[-1][3].append('%s %s' % (m.group(1), m.group(2)))
            continue
        m = INSN.match(line)
        if m:
            text = m.group(2).split('#')[0].strip()
            mnem, _, ops = text.partition(' ')
            insns.append((int(m.group(1), 16), mnem, ops.strip(), []))
    return insns


def normalise(insns):
    """Each instruction as text, branch targets as instruction indexes."""
    index = {addr: i for i, (addr, _, _, _) in enumerate(insns)}
    out = []
    for addr, mnem, ops, relocs in insns:
        m = BRANCH.match(ops)
        if m:
            target = int(m.group(1), 16)
            ops = '@%d' % index[target] if target in index else '<%s>' % m.group(2)
        out.append(' '.join([mnem, ops] + ['[%s]' % r for r in relocs]).strip())
    return out


def masked(text):
    return NUM.sub('N', text)


def compare(fn, stock, series, quiet=False):
    """Number of real differences (0: the same up to numbers)."""
    a, b = normalise(stock), normalise(series)
    if not a or not b:
        print('%s: missing (stock %d, series %d instructions)' % (fn, len(a), len(b)))
        return 1
    if len(a) != len(b):
        print('%s: %d instructions in the stock build, %d in the series build'
              % (fn, len(a), len(b)))
        for i, (x, y) in enumerate(zip(a, b)):
            if masked(x) != masked(y):
                print('    first difference at instruction %d: %r | %r' % (i, x, y))
                break
        return 1
    bad = moved = 0
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y:
            continue
        if masked(x) == masked(y):
            moved += 1
            if not quiet:
                print('    %s+%d: numbers only: %s | %s' % (fn, i, x, y))
        else:
            bad += 1
            print('    %s+%d: DIFFERENT: %s | %s' % (fn, i, x, y))
    print('%s: %d instructions, %s' % (fn, len(a),
          'identical' if not bad and not moved else
          '%d differ in numbers only%s' % (moved, ', %d differ otherwise' % bad if bad else '')
          if not bad else '%d differ otherwise, %d in numbers only' % (bad, moved)))
    return bad


def self_test(obj, fn):
    code = disassemble(obj, fn)
    if len(code) < 10:
        print('self-test: %s has only %d instructions in %s' % (fn, len(code), obj))
        return 1
    rc = 0
    if compare(fn, code, code, quiet=True) != 0:
        print('self-test FAILED: the function differs from itself')
        rc = 1
    # A displacement moved: allowed, and reported.
    moved = list(code)
    for i, (addr, mnem, ops, relocs) in enumerate(moved):
        if re.search(r'0x[0-9a-f]+\(%', ops):
            moved[i] = (addr, mnem, re.sub(r'0x([0-9a-f]+)\(%',
                        lambda m: '0x%x(%%' % (int(m.group(1), 16) + 8), ops, count=1),
                        relocs)
            break
    else:
        print('self-test: no displacement in %s to move' % fn)
        rc = 1
    if compare(fn, code, moved) != 0:
        print('self-test FAILED: a moved displacement was taken for a change')
        rc = 1
    # A call inserted, as a hook would add: must be found.
    hooked = list(code)
    at = len(hooked) // 2
    hooked.insert(at, (hooked[at][0], 'call', '0 <%s+0x10>' % fn,
                       ['R_X86_64_PLT32 __unmapped_cache_take_freed_page-0x4']))
    if compare(fn, code, hooked, quiet=True) == 0:
        print('self-test FAILED: an inserted call went unnoticed')
        rc = 1
    print('self-test: %s' % ('passed' if rc == 0 else 'FAILED'))
    return rc


def main(argv):
    if argv[:1] == ['--self-test'] and len(argv) == 3:
        return self_test(argv[1], argv[2])
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    stock, series, fns = argv[0], argv[1], argv[2:]
    bad = sum(compare(fn, disassemble(stock, fn), disassemble(series, fn))
              for fn in fns)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
