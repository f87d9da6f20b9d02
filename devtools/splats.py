#!/usr/bin/env python3
"""Find kernel splats in a console log, and tell expected ones apart.

Usage: splats.py [--complete] [--expect-warnings CASE,...]
                 [--require-warnings CASE,...] LOG

A splat is a WARNING, BUG (KASAN and kmemleak reports included), Oops,
lockdep report, RCU warning or panic.  The KUnit cases named with
--expect-warnings call the cache's functions with bad arguments on purpose,
and the cache answers with WARN_ON_ONCE(): in those cases, and only there,
a WARNING raised inside the cache (mm/unmapped_cache/ or
arch/x86/mm/unmapped_cache.c) is expected.  A KUnit case's output comes
before its "ok N name" line, so splats are attributed to the next case
result that follows them; splats after the last result belong to the
workloads.

With --require-warnings, each case named must have produced at least one
expected warning: a bad-input case whose warning went missing fails.
(WARN_ON_ONCE() prints once per call site and boot, so this checks the
case, not each of its rows; the KUnit cases check every row with the
cache's count of refused calls.)

With --complete, the log must be a guest job's whole console: it must
show the guest's start (UC-BEGIN) and the job's result (UC-RESULT); an
empty or truncated log fails.

Prints one line per splat and a summary; exits 1 if any splat was not
expected, a required warning is missing or the log is incomplete.
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
    ap.add_argument("--require-warnings", default="",
                    help="comma-separated KUnit case names (prefixes) that"
                    " must each show at least one expected warning")
    ap.add_argument("--complete", action="store_true",
                    help="fail unless the log has UC-BEGIN and UC-RESULT")
    ap.add_argument("log")
    args = ap.parse_args()
    allowed = [c for c in args.expect_warnings.split(",") if c]
    required = [c for c in args.require_warnings.split(",") if c]
    begun = ended = False
    nlines = 0

    # Subtests open for suites and for parameterised cases, whose
    # results name the parameter: their splats belong to the case.
    pending, found, stack = [], [], []
    with open(args.log, errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            nlines += 1
            begun = begun or "UC-BEGIN " in line
            ended = ended or "UC-RESULT rc=" in line
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
    problems = bad
    for r in required:
        n = sum(1 for case, splat in found
                if case.startswith(r) and splat.startswith("WARNING:")
                and OWN.search(splat))
        print("%s: %d warning(s) from the cache%s"
              % (r, n, "" if n else " -- MISSING: the case must warn"))
        problems += not n
    if args.complete and not (begun and ended):
        print("INCOMPLETE console log (%d lines): %s" % (
            nlines, "empty" if not nlines else
            "no UC-BEGIN line" if not begun else "no UC-RESULT line"))
        problems += 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
