#!/usr/bin/env python3
"""Find kernel splats in a console log, and tell expected ones apart.

Usage: splats.py [--complete] [--expect-warnings CASE,...]
                 [--require-warnings CASE,...] [--expect-kasan FUNCTION,...]
                 [--kcsan MODULE]
                 [--ours-functions FILE] LOG

A splat is a WARNING, BUG (KASAN and kmemleak reports included), Oops,
lockdep report, RCU warning or CPU stall, hung task, hard or soft
lockup, SLUB consistency error or panic.  The KUnit cases named with
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

With --expect-kasan FUNCTION,..., a KASAN report made in one of those
functions is expected (a test's deliberate stale read, which its job
checks was reported); any other KASAN report is a splat.

With --complete, the log must be a guest job's whole console: it must
show the guest's start (UC-BEGIN) and the job's result (UC-RESULT); an
empty or truncated log fails.

With --kcsan MODULE (the KCSAN kernel's log), KCSAN reports are sorted
into three kinds.  A report in the cache's code (its title, or the top
frame of either access, names a uc_ or unmapped_cache function, or one
of the functions listed in --ours-functions: those the series adds to
the kernel's own files, such as module_memory_poke()) is a splat.  A report naming a function of MODULE is the planted race of the
positive control, and at least one is required: without it, "no report"
would not show that KCSAN was watching.  Any other report is a race
elsewhere in the kernel: listed and counted, not a failure of this
project's tests.

Prints one line per splat and a summary; exits 1 if any splat was not
expected, a required warning is missing or the log is incomplete.
"""
import argparse
import re
import sys

SPLAT = re.compile(
    r"(WARNING:|BUG:|Oops|general protection fault|Kernel panic"
    r"|kernel BUG at"
    r"|possible circular locking|possible recursive locking"
    r"|inconsistent lock state|suspicious RCU usage|UBSAN:"
    r"|unreferenced object|W\+X mappings: FAILED|Found insecure W\+X"
    # RCU CPU stalls ("rcu: INFO: rcu_sched detected stalls on CPUs/tasks:",
    # "rcu: INFO: rcu_preempt self-detected stall on CPU").
    r"|rcu: INFO: \S+ (?:self-)?detected stall"
    # Hung tasks (khungtaskd).
    r"|INFO: task \S+ blocked for more than"
    # Hard lockups (soft lockups print "BUG: soft lockup").
    r"|detected hard LOCKUP"
    # SLUB's consistency checks: "BUG kmalloc-64 (Not tainted): Redzone
    # overwritten", "BUG skbuff_head_cache (Tainted: G    B   ): ...".
    r"|BUG [\w.:-]+ \((?:Not tainted|Tainted:[^)]*)\): )")
KCSAN_BEGIN = re.compile(r"BUG: KCSAN: ")
KCSAN_END = re.compile(r"={20,}")
# The top frame of an access: the line that follows "read to 0x..." etc.
KCSAN_ACCESS = re.compile(r"(read|write|read-write|race at unknown origin)"
                          r".* (to|with) |by (task|interrupt)")
OURS_FN = re.compile(r"\b(__)?(uc_|unmapped_cache)\w*")
OWN = re.compile(r"at (mm/unmapped_cache/|arch/x86/mm/unmapped_cache\.c)")
RESULT = re.compile(r"^\s*(?:\[[^\]]*\]\s*)?(not ok|ok) \d+ (.+?)\s*(?:#.*)?$")
SUBTEST = re.compile(r"# Subtest: (\S+)")


FRAME_FN = re.compile(r"([A-Za-z_]\w*)(?:\+0x|\s*(?:/|$|\[))")


def kcsan_kind(report, control, series=frozenset()):
    """Sort one KCSAN report: "ours", "control" or "elsewhere".  SERIES:
    names of the functions the series adds outside the cache's files."""
    title = report[0]
    tops = [report[i + 1].strip() for i in range(len(report) - 1)
            if KCSAN_ACCESS.search(report[i]) and report[i + 1].strip()]
    named = [title] + tops
    if any("[%s]" % control in n or re.search(r"\b%s_" % control, n)
           for n in named):
        return "control"
    if any(OURS_FN.search(n.split(" in ", 1)[-1]) for n in named):
        return "ours"
    if series and any(f in series for n in named
                      for f in FRAME_FN.findall(n.split(" in ", 1)[-1])):
        return "ours"
    return "elsewhere"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--expect-warnings", default="",
                    help="comma-separated KUnit case names (prefixes)")
    ap.add_argument("--require-warnings", default="",
                    help="comma-separated KUnit case names (prefixes) that"
                    " must each show at least one expected warning")
    ap.add_argument("--expect-kasan", default="",
                    help="comma-separated functions whose KASAN reports"
                    " are expected")
    ap.add_argument("--complete", action="store_true",
                    help="fail unless the log has UC-BEGIN and UC-RESULT")
    ap.add_argument("--kcsan", metavar="MODULE", default="",
                    help="KCSAN log: fail on reports in the cache's code,"
                    " require one from MODULE (the planted race)")
    ap.add_argument("--ours-functions", metavar="FILE", default="",
                    help="with --kcsan: a report naming one of these"
                    " functions (one a line: devtools/series-functions.py)"
                    " is in the series' code too")
    ap.add_argument("log")
    args = ap.parse_args()
    series = frozenset()
    if args.ours_functions:
        with open(args.ours_functions) as f:
            series = frozenset(l.strip() for l in f if l.strip())
        if not series:
            print("EMPTY list of the series' functions: %s" % args.ours_functions)
            return 1
    allowed = [c for c in args.expect_warnings.split(",") if c]
    kasan_ok = [f for f in args.expect_kasan.split(",") if f]
    required = [c for c in args.require_warnings.split(",") if c]
    begun = ended = False
    nlines = 0

    # Subtests open for suites and for parameterised cases, whose
    # results name the parameter: their splats belong to the case.
    pending, found, stack = [], [], []
    kcsan, control, elsewhere = None, 0, []
    with open(args.log, errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            nlines += 1
            begun = begun or "UC-BEGIN " in line
            ended = ended or "UC-RESULT rc=" in line
            if args.kcsan and kcsan is None and KCSAN_BEGIN.search(line):
                kcsan = [line[KCSAN_BEGIN.search(line).start():]]
                continue
            if kcsan is not None:
                if not KCSAN_END.search(line):
                    kcsan.append(re.sub(r"^\[[^\]]*\]\s?", "", line))
                    continue
                kind = kcsan_kind(kcsan, args.kcsan, series)
                if kind == "ours":
                    pending.append(kcsan[0][:160])
                elif kind == "control":
                    control += 1
                else:
                    elsewhere.append(kcsan[0][:160])
                kcsan = None
                continue
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
    if kcsan is not None:
        pending.append(kcsan[0][:160] + " (report cut off)")
    found += [("(after KUnit: workloads)", s) for s in pending]

    bad = 0
    for case, splat in found:
        ok = (splat.startswith("WARNING:") and OWN.search(splat) and
              any(case.startswith(a) for a in allowed))
        m = re.match(r"BUG: KASAN: \S+ in (\w+)\+0x", splat)
        ok = ok or bool(m and m.group(1) in kasan_ok)
        bad += not ok
        print("%s %s: %s" % ("expected" if ok else "SPLAT", case, splat))
    print("%d splats, %d expected (bad-input cases%s), %d not expected"
          % (len(found), len(found) - bad,
             ", KASAN reports of deliberate stale reads" if kasan_ok else "",
             bad))
    problems = bad
    for r in required:
        n = sum(1 for case, splat in found
                if case.startswith(r) and splat.startswith("WARNING:")
                and OWN.search(splat))
        print("%s: %d warning(s) from the cache%s"
              % (r, n, "" if n else " -- MISSING: the case must warn"))
        problems += not n
    if args.kcsan:
        for title in elsewhere:
            print("elsewhere (not the cache): %s" % title)
        print("KCSAN: %d report(s) in the cache's code, %d from the planted"
              " race (%s), %d elsewhere in the kernel"
              % (sum(1 for _, s in found if "KCSAN" in s), control,
                 args.kcsan, len(elsewhere)))
        if not control:
            print("MISSING positive control: no KCSAN report of the planted"
                  " race in %s" % args.kcsan)
            problems += 1
    if args.complete and not (begun and ended):
        print("INCOMPLETE console log (%d lines): %s" % (
            nlines, "empty" if not nlines else
            "no UC-BEGIN line" if not begun else "no UC-RESULT line"))
        problems += 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
