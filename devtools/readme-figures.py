#!/usr/bin/env python3
"""Keep README.md's figures equal to the committed make run report.

Usage: readme-figures.py --check     exit 1 unless every figures block of
                                      README.md equals the report's
       readme-figures.py --update    copy the report's blocks into README.md
       readme-figures.py --age       print the commit the report was made
                                      from and how many commits since then
                                      changed what its figures depend on

A figures block is the text between "<!-- figures:NAME -->" and
"<!-- /figures:NAME -->".  devtools/report.py writes them into the report
of a make run, which run.sh copies to reports/make-run.md; README.md
carries copies of some of them and nothing else may carry figures of a
run.  --check fails if README.md has no block, a block the report lacks,
or a block whose text differs from the report's.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
REPORT = os.path.join(ROOT, "reports", "make-run.md")
BLOCK = re.compile(r"^<!-- figures:(\w+) -->\n(.*?)^<!-- /figures:\1 -->$",
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
    with open(README) as f:
        readme_text = f.read()
    readme = blocks(readme_text)
    if not readme:
        print("README.md has no figures block")
        return 1
    bad = 0
    for name, text in readme.items():
        if name not in report:
            print("README.md block %s: not in %s" % (name, REPORT))
            bad += 1
        elif text != report[name]:
            print("README.md block %s differs from %s" % (name, REPORT))
            bad += 1
    if sys.argv[1] == "--check":
        print("%d README blocks (%s), %d differ from the report"
              % (len(readme), " ".join(sorted(readme)), bad))
        return 1 if bad else 0
    new = BLOCK.sub(lambda m: "<!-- figures:%s -->\n%s<!-- /figures:%s -->"
                    % (m[1], report.get(m[1], m[2]), m[1]), readme_text)
    if new != readme_text:
        with open(README, "w") as f:
            f.write(new)
    print("README.md: %d blocks updated from %s" % (bad, REPORT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
