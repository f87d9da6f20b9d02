#!/usr/bin/env python3
"""Count the distinct behavioural checks of a make check output.

Usage: count-checks.py [-v] LOG

LOG is what make check printed (its PASS and FAIL lines; "BUILD PASS"
and "BUILD FAIL" lines are build and lint steps, not tests, and are left
out).  A check that make check runs more than once, on another kernel
(the debug, RT or distribution kernel's boots run the callers' workloads
again) or with the cache on and off where the check reads the same, is
one check: each result is reduced to a key, and the keys are counted.

The key of a result line:
  - a KUnit case ("kunit: suite.case (kernel=PASS ...)"): suite.case;
  - a guest job's KTAP result ("guest: LABEL: DESC", devtools/check.sh
    ktap_job; a LABEL with "|" is a peer suite's off | on line): DESC, the job's own words for what it checked, with a
    nested job's name ("callers.") dropped, so the callers' results
    in the debug, RT and distribution kernels' boots count with the main
    kernel's;
  - any other line: the line without the mode ("cache on", "cache off",
    "off | on") and the kernel that ran it.
In every key, text in parentheses (the figures of that run) is dropped
and numbers read as N.

Prints the number of result lines, of distinct checks, and with -v each
key with the number of lines behind it.
"""
import re
import sys

MODES = re.compile(r",? ?(cache (on|off)|off \| on|with the cache (on|off))\b")
KERNELS = re.compile(r"^(debug|RT|distro) guest: |^guest: (debug|RT|distribution) kernel[^:]*: ")


def strip_parens(text):
    out, depth = [], 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        elif not depth:
            out.append(ch)
    return "".join(out)


def key(line):
    if line.startswith("kunit: "):
        # "kunit: suite.case[.param] (main=PASS debug=PASS ...)".
        return re.sub(r" \((\w+=\w+ ?)+\)$", "", line)
    line = KERNELS.sub("guest: kernel: ", line)
    # ktap_job's lines: "guest: LABEL: DESC"; LABEL has no ": ".
    m = re.match(r"^guest: ([^:|]*): (.*)$", line)
    if m and not m[2].startswith("complete console log"):
        line = re.sub(r"^(FAIL|SKIP|INCOMPLETE) ", "", m[2])
        # A nested job's results: "callers.DESC".
        line = re.sub(r"^callers\.", "", line)
    line = strip_parens(line)
    line = MODES.sub("", line)
    line = re.sub(r"\d+(\.\d+)?", "N", line)
    return re.sub(r"\s+", " ", line).strip(" ,;:")


def main():
    args = sys.argv[1:]
    verbose = bool(args) and args[0] == "-v"
    if verbose:
        args = args[1:]
    if len(args) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    keys = {}
    lines = 0
    with open(args[0], errors="replace") as f:
        for raw in f:
            m = re.match(r"^(PASS|FAIL) (.*)$", raw.rstrip("\n"))
            if not m:
                continue
            lines += 1
            k = key(m[2])
            keys[k] = keys.get(k, 0) + 1
    if verbose:
        for k in sorted(keys):
            print("%3d  %s" % (keys[k], k))
    kunit = sum(1 for k in keys if k.startswith("kunit: "))
    print("%d result lines, %d distinct checks (%d KUnit cases, %d others)" % (
        lines, len(keys), kunit, len(keys) - kunit))
    return 0 if lines else 1


if __name__ == "__main__":
    sys.exit(main())
