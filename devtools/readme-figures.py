#!/usr/bin/env python3
"""Keep the figures of README.md and of Documentation/mm/unmapped_cache.rst
equal to the committed make run report.

Usage: readme-figures.py --check     exit 1 unless every figures block of
                                      README.md and of the rst equals the
                                      report's
       readme-figures.py --update    copy the report's blocks into them
       readme-figures.py --age       print the commit the report was made
                                      from and how many commits since then
                                      changed what its figures depend on

A figures block is the text between "<!-- figures:NAME -->" and
"<!-- /figures:NAME -->".  devtools/report.py writes them into the report
of a make run, which run.sh copies to reports/make-run.md; README.md
carries copies of some of them, and the rst (between ".. figures:NAME"
and ".. /figures:NAME" comment lines, with a blank line after the first
and before the second) of the LSFMM table's figures; nothing else may
carry figures of a run.  --check fails if a file has no block, a block
the report lacks, or a block whose text differs from the report's.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
REPORT = os.path.join(ROOT, "reports", "make-run.md")
RST = os.path.join(ROOT, "Documentation", "mm", "unmapped_cache.rst")
BLOCK = re.compile(r"^<!-- figures:(\w+) -->\n(.*?)^<!-- /figures:\1 -->$",
                   re.S | re.M)
RST_BLOCK = re.compile(r"^\.\. figures:(\w+)\n(.*?)^\.\. /figures:\1$",
                       re.S | re.M)


def blocks(text):
    return {m[1]: m[2] for m in BLOCK.finditer(text)}


# What a make run figure depends on: the kernel code and patches, the
# configuration fragments, the guest jobs and programs, the test modules.
FIGURE_INPUTS = ["mm", "include", "arch", "lib", "kernel", "patches",
                 "tools/testing/unmapped_cache"]


def age(report_text):
    """One line: the report's commit and the commits since that changed
    its inputs, so that a stale table is seen at a glance."""
    m = re.search(r"`make run` of (\S+), commit ([0-9a-f]+)", report_text)
    if not m:
        print("report: no 'make run of DATE, commit SHA' line in %s" % REPORT)
        return 1
    date, commit = m[1], m[2]
    try:
        out = subprocess.run(
            ["git", "-C", ROOT, "rev-list", "--count", "%s..HEAD" % commit,
             "--"] + FIGURE_INPUTS, capture_output=True, text=True,
            check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        print("report of %s, commit %s: cannot count the commits since"
              " (%s)" % (date, commit, e))
        return 1
    print("figures of README.md and %s: make run of %s, commit %s; %s"
          " commit(s) since then changed kernel code, patches, configs or"
          " guest jobs (%s)" % (os.path.relpath(REPORT, ROOT), date, commit,
                                out, " ".join(FIGURE_INPUTS)))
    return 0


# The files that carry copies of the report's blocks, each with its own
# markers: Markdown's HTML comments, reStructuredText's comments (a
# comment must be followed by a blank line, so the rst's copy is the
# report's text between blank lines).
TARGETS = [
    (README, BLOCK, "<!-- figures:%s -->\n%s<!-- /figures:%s -->", "", ""),
    (RST, RST_BLOCK, ".. figures:%s\n%s.. /figures:%s", "\n", "\n"),
]


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--age":
        try:
            with open(REPORT) as f:
                return age(f.read())
        except OSError as e:
            print("no report: %s (make run writes it)" % e)
            return 1
    if len(sys.argv) != 2 or sys.argv[1] not in ("--check", "--update"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        with open(REPORT) as f:
            report = blocks(f.read())
    except OSError as e:
        print("no report: %s (make run writes it)" % e)
        return 1
    bad_all = 0
    for path, regex, fmt, head, tail in TARGETS:
        rel = os.path.relpath(path, ROOT)
        with open(path) as f:
            text = f.read()
        ours = {m[1]: m[2] for m in regex.finditer(text)}
        if not ours:
            print("%s has no figures block" % rel)
            bad_all += 1
            continue
        bad = 0
        for name, body in ours.items():
            if name not in report:
                print("%s block %s: not in %s" % (rel, name, REPORT))
                bad += 1
            elif body != head + report[name] + tail:
                print("%s block %s differs from %s" % (rel, name, REPORT))
                bad += 1
        bad_all += bad
        if sys.argv[1] == "--check":
            print("%s: %d blocks (%s), %d differ from the report"
                  % (rel, len(ours), " ".join(sorted(ours)), bad))
            continue
        new = regex.sub(lambda m: fmt % (
            m[1], head + report[m[1]] + tail if m[1] in report else m[2],
            m[1]), text)
        if new != text:
            with open(path, "w") as f:
                f.write(new)
        print("%s: %d blocks updated from %s" % (rel, bad, REPORT))
    if sys.argv[1] == "--check":
        return 1 if bad_all else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
