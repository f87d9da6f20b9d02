#!/usr/bin/env python3
"""Put back together the guest's lines that a kernel message cut in two.

Usage: console-lines.py LOG       rewrite LOG in place (the original, if
                                  anything changed, is kept as LOG.raw)
       console-lines.py --self-test

A guest job's output and the kernel's console messages share one serial
line, so a kernel message (one record, "[   1.948891] text", ended by a
newline) can land in the middle of a line the job is writing:

    UC-HWPOISON step=inuse ... ok=1[    1.948891] clocksource: Switched ...
    <the rest of the job's line, here only its newline>

The checks read the job's lines whole.  Every kernel record that starts
after the beginning of a line is moved onto a line of its own, before the
job's line, and the job's line is joined again with what follows the
record's newline.  Nothing is dropped: splats.py still sees every record.
"""

import re
import sys

RECORD = re.compile(r"\[ *\d+\.\d+\] ")


def repair(text):
    """The log with every record that cut a line moved before that line."""
    out = []
    carry = ""
    for line in text.split("\n"):
        m = RECORD.search(line)
        if m and m.start() > 0 and not line.startswith("["):
            out.append(line[m.start():])
            carry += line[:m.start()]
            continue
        if carry and m and m.start() == 0:
            out.append(line)        # another record before the job goes on
            continue
        out.append(carry + line)
        carry = ""
    if carry:
        out.append(carry)
    return "\n".join(out)


def self_test():
    cases = [
        # A record between a job's line and its newline.
        ("A x=1 ok=1[    1.9] clocksource: tsc\n\nB\n",
         "[    1.9] clocksource: tsc\nA x=1 ok=1\nB\n"),
        # A record in the middle of a job's line.
        ("A x=1 y[    2.0] msg\r\n=2\r\n",
         "[    2.0] msg\r\nA x=1 y=2\r\n"),
        # Two records one after the other inside the same line.
        ("A a[    3.0] one\n[    3.1] two\nb=1\n",
         "[    3.0] one\n[    3.1] two\nA ab=1\n"),
        # Kernel lines and job lines that are whole are left alone.
        ("[    4.0] kernel\nUC-X a=1\n[    4.1] more [  5.0] inside\n",
         "[    4.0] kernel\nUC-X a=1\n[    4.1] more [  5.0] inside\n"),
    ]
    bad = 0
    for raw, want in cases:
        got = repair(raw)
        if got != want:
            print("FAIL: %r -> %r, want %r" % (raw, got, want))
            bad += 1
    print("console-lines self-test: %d of %d cases right" % (len(cases) - bad,
                                                            len(cases)))
    return 1 if bad else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    path = sys.argv[1]
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
        text = f.read()
    fixed = repair(text)
    if fixed != text:
        with open(path + ".raw", "w", encoding="utf-8", newline="",
                  errors="surrogateescape") as f:
            f.write(text)
        with open(path, "w", encoding="utf-8", errors="surrogateescape",
                  newline="") as f:
            f.write(fixed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
