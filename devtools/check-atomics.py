#!/usr/bin/env python3
"""The atomic read-modify-write instructions of the cache's fast path.

Usage: check-atomics.py BUILD_DIR [EXPECTED]

The single-page path (magazines: cache.c and magazine.c) must share no
cache line between CPUs that it writes: the KUnit case
mag_fast_path_shares_nothing_between_cpus shows that no lock is taken and
that each CPU's pages are its own, but an atomic on a shared counter added
to the path would pass it.  This check lists every locked instruction
(a "lock" prefix, or xchg with memory) of the functions of
mm/unmapped_cache/cache.o and magazine.o in the built kernel, each as

    OBJECT FUNCTION MNEMONIC TARGET

where TARGET is the symbol of a RIP-relative operand (a global or static
variable: shared by every CPU) or the displacement of a register-based one
(a field of a structure the code was handed: a struct page, a cache), and
compares the list with EXPECTED (default
tools/testing/unmapped_cache/atomics.expected), which says why each one is
there.  Any instruction added or gone fails the check and is printed: an
atomic that is meant to be there is added to EXPECTED with its reason, in
the same commit.  The expected list holds at least the one atomic the fast
path is known to have (the cmpxchg on a page's ->private in internal.h's
uc_page_untag(), inlined into uc_cache_free_round()), so that a
disassembly that shows nothing fails too.
"""
import collections
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OBJECTS = ["mm/unmapped_cache/cache.o", "mm/unmapped_cache/magazine.o"]
FUNC = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
INSN = re.compile(r"^\s*[0-9a-f]+:\s+(.*)$")
RELOC = re.compile(r"^\s*[0-9a-f]+: R_X86_64_\w+\s+([^\s+-]+)")


def inventory(build):
    """[(object, function, mnemonic, target)] of the locked instructions."""
    out = []
    for obj in OBJECTS:
        path = os.path.join(build, obj)
        text = subprocess.run(["objdump", "-dr", "--no-show-raw-insn", path],
                              check=True, capture_output=True,
                              text=True).stdout.split("\n")
        func = None
        for i, line in enumerate(text):
            m = FUNC.match(line)
            if m:
                # uc_mag_flush_cpus.isra.0 and the like: the C name.
                func = m[1].split(".")[0]
                continue
            m = INSN.match(line)
            if not m or func is None:
                continue
            insn = m[1].split("#")[0].strip()
            words = insn.split(None, 2)
            if not words:
                continue
            if words[0] == "lock" and len(words) >= 2:
                mnem = words[1]
                ops = words[2] if len(words) > 2 else ""
            elif words[0].startswith("xchg") and "(" in insn:
                mnem, ops = words[0], words[1] if len(words) > 1 else ""
            else:
                continue
            if "(%rip)" in ops:
                target = "?"
                if i + 1 < len(text):
                    r = RELOC.match(text[i + 1])
                    if r:
                        target = r[1]
            else:
                d = re.search(r"(-?0x[0-9a-f]+|-?\d+)?\(%\w+", ops)
                target = "off%s" % (d[1] if d and d[1] else "0")
            out.append((os.path.basename(obj), func, mnem, target))
    return out


def read_expected(path):
    """The expected instructions (a Counter) from EXPECTED: one per line,
    OBJECT FUNCTION MNEMONIC TARGET, then "--" and the reason."""
    want = collections.Counter()
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#")[0].strip()
            if not line:
                continue
            fields, _, why = line.partition("--")
            words = fields.split()
            if len(words) != 4 or not why.strip():
                sys.exit("%s:%d: want OBJECT FUNCTION MNEMONIC TARGET -- REASON"
                         % (path, n))
            want[tuple(words)] += 1
    return want


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    expected = (sys.argv[2] if len(sys.argv) > 2 else
                os.path.join(ROOT, "tools/testing/unmapped_cache/atomics.expected"))
    got = collections.Counter(inventory(sys.argv[1]))
    want = read_expected(expected)
    added, gone = got - want, want - got
    for k, n in sorted(added.items()):
        print("added: %s (x%d)" % (" ".join(k), n))
    for k, n in sorted(gone.items()):
        print("gone:  %s (x%d)" % (" ".join(k), n))
    total = sum(got.values())
    shared = sum(n for k, n in got.items() if not k[3].startswith("off"))
    print("%d locked instructions in %s (%d on a global or static variable), "
          "%s the %d expected" % (total, " and ".join(os.path.basename(o) for o in OBJECTS),
                                  shared, "as" if not added and not gone else "NOT as",
                                  sum(want.values())))
    return 1 if added or gone else 0


if __name__ == "__main__":
    sys.exit(main())
