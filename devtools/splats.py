#!/usr/bin/env python3
"""Find kernel splats in a console log, and tell expected ones apart.

Usage: splats.py [--expect-warnings CASE,...] LOG

A splat is a WARNING, BUG (KASAN and kmemleak reports included), Oops,
lockdep report, RCU warning or panic.  The KUnit cases named with
--expect-warnings call the cache's functions with bad arguments on purpose,
and the cache answers with WARN_ON_ONCE(): in those cases, and only there,
a WARNING raised inside the cache (mm/unmapped_cache/ or
arch/x86/mm/unmapped_cache.c) is expected.  A KUnit case's output comes
before its "ok N name" line, so splats are attributed to the next case
result that follows them; splats after the last result belong to the
workloads.

Prints one line per splat and a summary; exits 1 if any splat was not
expected.
"""
import argparse
import re
import sys

SPLAT = re.compile(
    r"(WARNING:|BUG:|Oops|general protection fault|Kernel panic"
    r"|possible circular locking|possible recursive locking"
    r"|inconsistent lock state|suspicious RCU usage|UBSAN:"
    r"|unreferenced object|W\+X mappings: FAILED|Found insecure W\+X)")
OWN = re.compile(r"at (mm/unmapped_cache/|arch/x86/mm/unmapped_cache\.c)")
RESULT = re.compile(r"^\s*(?:\[[^\]]*\]\s*)?(not ok|ok) \d+ (.+?)\s*(?:#.*)?$")
SUBTEST = re.compile(r"# Subtest: (\S+)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--expect-warnings", default="",
                    help="comma-separated KUnit case names (prefixes)")
    ap.add_argument("log")
    args = ap.parse_args()
    allowed = [c for c in args.expect_warnings.split(",") if c]

    # Subtests open for suites and for parameterised cases, whose
    # results name the parameter: their splats belong to the case.
    pending, found, stack = [], [], []
    with open(args.log, errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            m = SPLAT.search(line)
            if m:
                pending.append(line[m.start():][:160])
                continue
            s = SUBTEST.search(line)
            if s:
                stack.append(s.group(1))
                continue
            r = RESULT.search(line)
            if not r:
                continue
            name = r.group(2)
            if pending:
                case = stack[-1] if len(stack) >= 2 else name
                found += [(case, s) for s in pending]
                pending = []
            if stack and stack[-1] == name:
                stack.pop()
    found += [("(after KUnit: workloads)", s) for s in pending]

    bad = 0
    for case, splat in found:
        ok = (splat.startswith("WARNING:") and OWN.search(splat) and
              any(case.startswith(a) for a in allowed))
        bad += not ok
        print("%s %s: %s" % ("expected" if ok else "SPLAT", case, splat))
    print("%d splats, %d expected (bad-input cases), %d not expected"
          % (len(found), len(found) - bad, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
