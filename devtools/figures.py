#!/usr/bin/env python3
"""Read the "UC-FIG" lines guest jobs print (jobs/lib.sh: uc_measure).

Usage:
  figures.py LOG [LOG...]                print a table of the figures
  figures.py --expect NAME:KEY=N LOG     exit 1 unless the delta of KEY in
                                         workload NAME is N (repeatable;
                                         NAME:KEY>N asks for more than N,
                                         NAME:KEY<N for less than N)

Each UC-FIG line has name=, rc= and KEY=BEFORE:AFTER words; the delta is
AFTER - BEFORE.  Keys: l2/l3 (direct_map_level2/3_splits), dm4k/dm2m/dm1g
(DirectMap* in kB), blocks (blocks the cache took out of the direct map),
tlb (kernel TLB flushes, when the guest had uc_tlbcount loaded).
"""
import argparse
import re
import sys


def read(paths):
    figs = []
    for path in paths:
        with open(path, errors="replace") as f:
            for line in f:
                i = line.find("UC-FIG ")
                if i < 0:
                    continue
                words = dict(w.split("=", 1) for w in line[i + 7:].split() if "=" in w)
                fig = {"name": words.pop("name"), "rc": int(words.pop("rc"))}
                for k, v in words.items():
                    m = re.match(r"^(\d+):(\d+)$", v)
                    if m:
                        fig[k] = (int(m[1]), int(m[2]))
                figs.append(fig)
    return figs


def delta(fig, key):
    b, a = fig[key]
    return a - b


def table(figs):
    head = ["workload", "rc", "blocks taken", "L2 splits", "L3 splits",
            "kernel TLB flushes", "DirectMap4k kB (before -> after)"]
    rows = []
    for f in figs:
        rows.append([f["name"], str(f["rc"]), str(delta(f, "blocks")),
                     str(delta(f, "l2")), str(delta(f, "l3")),
                     str(delta(f, "tlb")) if "tlb" in f else "-",
                     "%d -> %d (%+d)" % (f["dm4k"][0], f["dm4k"][1], delta(f, "dm4k"))])
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    out = []
    for r in [head, ["-" * w for w in widths]] + rows:
        out.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("logs", nargs="+")
    args = ap.parse_args()
    figs = read(args.logs)
    if not figs:
        print("no UC-FIG lines in %s" % " ".join(args.logs))
        return 1
    if not args.expect:
        print(table(figs))
        return 0
    bad = 0
    byname = {f["name"]: f for f in figs}
    for e in args.expect:
        m = re.match(r"^([\w-]+):(\w+)(=|>|<)(-?\d+)$", e)
        if not m:
            print("bad --expect %s" % e)
            return 2
        name, key, op, want = m[1], m[2], m[3], int(m[4])
        if name not in byname or key not in byname[name]:
            print("%s: no figure %s" % (name, key))
            bad = 1
            continue
        got = delta(byname[name], key)
        print("%s %s delta %d (want %s %d)" % (name, key, got, op, want))
        ok = {"=": got == want, ">": got > want, "<": got < want}[op]
        if not ok or byname[name]["rc"] != 0:
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
