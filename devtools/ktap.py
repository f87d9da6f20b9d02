#!/usr/bin/env python3
"""Parse the KTAP output of KUnit from a guest console log.

Usage: ktap.py [--manifest FILE] LOG

Prints one line per test case (leaf result), "PASS", "FAIL" or "SKIP"
followed by suite.case (parameterised cases as suite.case.param), then a
summary.  Exits 1 if any case failed or was skipped, if no case ran, or if
the output is incomplete (a plan announced more results than were printed,
as when the kernel crashed in the middle of a suite).

With --manifest FILE (one "suite.case[.param]" per line; "#" starts a
comment), also prints "MISSING name" for each listed case the log does
not report and "UNLISTED name" for each reported case the file does not
list, and exits 1 if there is any: a case that disappears or is renamed
fails until the manifest changes with it.
"""
import re
import sys

PREFIX = re.compile(r"^(?:\[\s*\d+\.\d+\]\s?)?")
RESULT = re.compile(r"^(?P<ind>\s*)(?P<not>not )?ok (?P<num>\d+)(?: -)? ?(?P<name>[^#]*?)\s*(?:#\s*(?P<dir>\w+)\b.*)?$")
PLAN = re.compile(r"^(?P<ind>\s*)1\.\.(?P<n>\d+)\s*$")
SUBTEST = re.compile(r"^(?P<ind>\s*)# Subtest: (?P<name>\S+)")


def parse(lines):
    """Return (cases, problems): cases is a list of (status, name)."""
    cases, problems = [], []
    names = {}       # indent -> name of the subtest opened at that indent
    has_child = {}   # indent -> a deeper result was seen since the last one here
    plans = {}       # indent -> announced count
    seen = {}        # indent -> results printed
    started = False
    for raw in lines:
        line = PREFIX.sub("", raw.rstrip("\r\n"))
        if "KTAP version" in line or "TAP version" in line:
            started = True
            continue
        if not started:
            continue
        m = SUBTEST.match(line)
        if m:
            ind = len(m["ind"])
            names[ind] = m["name"]
            for deeper in [i for i in names if i > ind]:
                del names[deeper]
            continue
        m = PLAN.match(line)
        if m:
            ind = len(m["ind"])
            plans[ind] = int(m["n"])
            seen[ind] = 0
            continue
        m = RESULT.match(line)
        if not m:
            continue
        ind = len(m["ind"])
        seen[ind] = seen.get(ind, 0) + 1
        leaf = not has_child.get(ind, False)
        has_child[ind] = False
        if ind > 0:
            has_child[ind - 4] = True
        if not leaf:
            # The subtest at this level is complete: check its plan.
            child = ind + 4
            if child in plans and seen.get(child, 0) != plans[child]:
                problems.append("%s: %d of %d results" % (m["name"], seen.get(child, 0), plans[child]))
            plans.pop(child, None)
            seen.pop(child, None)
            continue
        # "# Subtest: x" at indent i names the test whose cases are at i.
        parents = [names[i] for i in sorted(names) if i <= ind]
        full = ".".join(parents + [m["name"].strip()])
        directive = (m["dir"] or "").upper()
        if directive == "SKIP":
            status = "SKIP"
        elif m["not"]:
            status = "FAIL"
        else:
            status = "PASS"
        cases.append((status, full))
    if 0 in plans and seen.get(0, 0) != plans[0]:
        problems.append("top level: %d of %d suites reported" % (seen.get(0, 0), plans[0]))
    if not started:
        problems.append("no KTAP output")
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
    manifest = None
    if len(args) == 3 and args[0] == "--manifest":
        manifest = read_manifest(args[1])
        args = args[2:]
    if len(args) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(args[0], errors="replace") as f:
        cases, problems = parse(f)
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
    print("kunit: %d passed, %d failed, %d skipped%s" % (
        counts["PASS"], counts["FAIL"], counts["SKIP"],
        ", output incomplete" if problems else ""))
    if manifest is not None:
        print("manifest: %d cases listed, %d missing or unlisted" % (len(manifest), drift))
    bad = counts["FAIL"] or counts["SKIP"] or problems or not cases or drift
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
