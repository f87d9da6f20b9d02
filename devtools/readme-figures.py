#!/usr/bin/env python3
"""Keep README.md's figures equal to the committed make run report.

Usage: readme-figures.py --check     exit 1 unless every figures block of
                                      README.md equals the report's
       readme-figures.py --update    copy the report's blocks into README.md

A figures block is the text between "<!-- figures:NAME -->" and
"<!-- /figures:NAME -->".  devtools/report.py writes them into the report
of a make run, which run.sh copies to reports/make-run.md; README.md
carries copies of some of them and nothing else may carry figures of a
run.  --check fails if README.md has no block, a block the report lacks,
or a block whose text differs from the report's.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
REPORT = os.path.join(ROOT, "reports", "make-run.md")
BLOCK = re.compile(r"^<!-- figures:(\w+) -->\n(.*?)^<!-- /figures:\1 -->$",
                   re.S | re.M)


def blocks(text):
    return {m[1]: m[2] for m in BLOCK.finditer(text)}


def main():
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
