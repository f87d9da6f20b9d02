#!/usr/bin/env python3
"""The KUnit results of a guest console log, read by the kernel's own KTAP
parser (tools/testing/kunit/kunit_parser.py, what "kunit.py parse" runs),
from the tree in $UC_SRC (default $UC_CACHE/src).

Usage: ktap.py [-v] [--job | --manifest FILE] LOG

Prints one line per test case (leaf result), "PASS", "FAIL" or "SKIP"
followed by suite.case (parameterised cases as suite.case.param), then a
summary.  Exits 1 if any case failed or was skipped, if no case ran, or if
the output is incomplete (the parser found a result missing, as when the
kernel crashed in the middle of a suite: "INCOMPLETE" lines).  With -v,
the parser's own report (as "kunit.py parse" prints it) goes to standard
error.

A console log has the KUnit suites that ran at boot before the init's
"UC-BEGIN" line and the job's own results (KTAP, jobs/lib.sh) after it:
the KUnit results are read from the lines before it, and with --job the
job's from the lines after it.

With --manifest FILE (one "suite.case[.param]" per line; "#" starts a
comment), also prints "MISSING name" for each listed case the log does
not report and "UNLISTED name" for each reported case the file does not
list, and exits 1 if there is any: a case that disappears or is renamed
fails until the manifest changes with it.
"""
import os
import sys


def load_parser(verbose):
    """kunit_parser from the source tree, reporting to standard error
    (VERBOSE) or nowhere."""
    src = os.environ.get("UC_SRC") or os.path.join(
        os.environ.get("UC_CACHE") or os.path.expanduser("~/.cache/unmapped_cache"), "src")
    path = os.path.join(src, "tools", "testing", "kunit")
    if not os.path.isfile(os.path.join(path, "kunit_parser.py")):
        sys.exit("ktap.py: no %s/kunit_parser.py (run devtools/prepare-tree.sh)" % path)
    sys.path.insert(0, path)
    import kunit_parser
    import kunit_printer
    kunit_parser.stdout = kunit_printer.Printer(
        sys.stderr if verbose else open(os.devnull, "w"))
    return kunit_parser


def walk(kp, test, names, cases, problems):
    """Leaf results of TEST's subtests into CASES; missing ones into PROBLEMS."""
    for i, sub in enumerate(test.subtests, 1):
        if not sub.name and sub.status == kp.TestStatus.TEST_CRASHED:
            problems.append("%s: result %d of %s missing" % (
                ".".join(names) or "top level", i, test.expected_count or "?"))
            continue
        full = names + [sub.name.strip()]
        if sub.subtests:
            walk(kp, sub, full, cases, problems)
            continue
        if sub.status == kp.TestStatus.SUCCESS:
            status = "PASS"
        elif sub.status == kp.TestStatus.SKIPPED:
            status = "SKIP"
        else:
            status = "FAIL"
        cases.append((status, ".".join(full)))


def parse(kp, lines):
    """Return (cases, problems): cases is a list of (status, name)."""
    main = kp.parse_run_tests(lines)
    cases, problems = [], []
    if main.status == kp.TestStatus.FAILURE_TO_PARSE_TESTS:
        return cases, ["no KTAP output"]
    walk(kp, main, [], cases, problems)
    if main.counts.errors and not problems:
        problems.append("%d errors reported by the parser" % main.counts.errors)
    return cases, problems


def read_manifest(path):
    names = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                names.append(line)
    return names


def main():
    args = sys.argv[1:]
    verbose = bool(args) and args[0] == "-v"
    if verbose:
        args = args[1:]
    manifest = None
    job = bool(args) and args[0] == "--job"
    if job:
        args = args[1:]
    elif len(args) == 3 and args[0] == "--manifest":
        manifest = read_manifest(args[1])
        args = args[2:]
    if len(args) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    kp = load_parser(verbose)
    with open(args[0], errors="replace") as f:
        lines = f.readlines()
    begin = next((i for i, line in enumerate(lines) if line.startswith("UC-BEGIN ")), len(lines))
    cases, problems = parse(kp, lines[begin:] if job else lines[:begin])
    for status, name in cases:
        print("%s %s" % (status, name))
    for p in problems:
        print("INCOMPLETE %s" % p)
    drift = 0
    if manifest is not None:
        seen = set(name for _, name in cases)
        listed = set(manifest)
        for name in manifest:
            if name not in seen:
                print("MISSING %s" % name)
                drift += 1
        for _, name in cases:
            if name not in listed:
                print("UNLISTED %s" % name)
                drift += 1
    counts = {s: sum(1 for c in cases if c[0] == s) for s in ("PASS", "FAIL", "SKIP")}
    print("%s: %d passed, %d failed, %d skipped%s" % (
        "job" if job else "kunit", counts["PASS"], counts["FAIL"], counts["SKIP"],
        ", output incomplete" if problems else ""))
    if manifest is not None:
        print("manifest: %d cases listed, %d missing or unlisted" % (len(manifest), drift))
    bad = counts["FAIL"] or counts["SKIP"] or problems or not cases or drift
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
