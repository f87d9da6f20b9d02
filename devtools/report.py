#!/usr/bin/env python3
"""The comparison make run prints, plots and writes (devtools/run.sh).

Usage: report.py OUTDIR LOG...

Each LOG is the console log of one callers job, named run-MEM-MODE.log
(MEM fresh or scattered, MODE off or on), or of the bench job, named
run-bench.log, or of its scaling boot, named run-scale.log, or of a
hotplug job, named run-hotplug-ZONE-MODE.log (with the host's figures in
LOG.vmem), or of a page-pair timing boot, named run-pagepair-N.log.  Prints, per
MEM, a side-by-side
table of the off and on runs (per workload: level-2 and level-3 splits,
DirectMap4k growth, kernel TLB flushes, memory the cache holds after it,
run-time ratio on/off) and writes to OUTDIR:

  report.md     the tables, what was run and how to read them
  timeline.png  DirectMap4k and cumulative level-2 splits along the
                workloads, off against on (needs python3-matplotlib)

The figures come from the guest's UC-FIG lines (deltas over a workload)
and UC-TS lines (a sample every 2 s); see jobs/lib.sh.  The bench table
comes from its UC-BENCH lines (jobs/bench.sh): the median of the samples
of each path, their spread, and the ratio to the page allocator's pair;
the scaling table from the UC-SCALE lines: per path, the median rate on
one vCPU and on all, and the median of the samples' speed-ups.

Every table of report.md sits between "<!-- figures:NAME -->" and
"<!-- /figures:NAME -->" lines: README.md carries copies of those blocks,
which devtools/readme-figures.py checks (make check) and updates (make
run).  UC_RUN_COMMIT and UC_RUN_DATE (set by run.sh) name the commit and
the date the run was made from.
"""
import itertools
import math
import os
import random
import re
import statistics
import subprocess
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import figures  # noqa: E402

WORKLOADS = ["bpf", "secretmem", "modules", "plainmod", "kprobes", "kcore", "selftests"]
BLOCK_MIB = 2


def read_tagged(path, tag, name, needed):
    """The TAG lines of a log as dicts: the NAME word as a string, every
    other KEY=integer word as an int; only lines that have NEEDED."""
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            i = line.find(tag + " ")
            if i < 0:
                continue
            s = {}
            for w in line[i + len(tag) + 1:].split():
                k, _, v = w.partition("=")
                if k == name:
                    s[k] = v
                elif re.match(r"^\d+$", v):
                    s[k] = int(v)
            if name in s and needed in s:
                out.append(s)
    return out


def read_samples(path):
    """The UC-TS lines of a log: [{"phase": str, key: int, ...}]."""
    return read_tagged(path, "UC-TS", "phase", "t")


def runs_of(logs):
    """{(mem, mode): (figs by name, samples, path)} for the logs given."""
    runs = {}
    for path in logs:
        m = re.search(r"run-(fresh|scattered)-(off|on)\.log$", path)
        if not m:
            continue
        figs = {f["name"]: f for f in figures.read([path])}
        runs[(m[1], m[2])] = (figs, read_samples(path), path)
    return runs


def d(fig, key):
    return figures.delta(fig, key) if fig and key in fig else None


def fmt(v):
    return "-" if v is None else str(v)


def side_by_side(runs, mem):
    """Rows of the off/on table of one memory condition."""
    off = runs.get((mem, "off"), ({}, [], ""))[0]
    on = runs.get((mem, "on"), ({}, [], ""))[0]
    rows = []
    for w in WORKLOADS:
        a, b = off.get(w), on.get(w)
        if not a and not b:
            continue
        ratio = "-"
        if a and b and d(a, "t") and d(b, "t") is not None:
            ratio = "%.2f" % (d(b, "t") / d(a, "t"))
        held = b["held"][1] * BLOCK_MIB if b and "held" in b else None
        refills = "-"
        if b and "compact" in b and "rfail" in b:
            refills = "%s / %s" % (fmt(d(b, "compact")), fmt(d(b, "rfail")))
        rows.append([
            w,
            "%s | %s" % (fmt(d(a, "l2")), fmt(d(b, "l2"))),
            "%s | %s" % (fmt(d(a, "l3")), fmt(d(b, "l3"))),
            "%s | %s" % (fmt(d(a, "dm4k")), fmt(d(b, "dm4k"))),
            "%s | %s" % (fmt(d(a, "tlb")), fmt(d(b, "tlb"))),
            fmt(held),
            refills,
            ratio,
        ])
    return rows


HEAD = ["workload", "L2 splits off | on", "L3 splits off | on",
        "DirectMap4k +kB off | on", "kernel TLB flushes off | on",
        "cache holds MiB (on)", "refills compacted / failed (on)",
        "time on/off"]


def text_table(rows):
    widths = [max(len(r[i]) for r in rows + [HEAD]) for i in range(len(HEAD))]
    lines = []
    for r in [HEAD, ["-" * w for w in widths]] + rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    return "\n".join(lines)


def md_table(rows):
    lines = ["| " + " | ".join(c.replace("|", "\\|") for c in HEAD) + " |",
             "|" + "---|" * len(HEAD)]
    for r in rows:
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |")
    return "\n".join(lines)


def timeline(samples):
    """Map samples to x = phase index + fraction of the phase's duration."""
    order = [w for w in WORKLOADS if any(s["phase"] == w for s in samples)]
    xs, pts = [], {}
    for w in order:
        ph = [s for s in samples if s["phase"] == w]
        t0, t1 = ph[0]["t"], ph[-1]["t"]
        for s in ph:
            frac = (s["t"] - t0) / (t1 - t0) if t1 > t0 else 0.5
            xs.append((order.index(w) + frac, s))
    for x, s in xs:
        for k in ("dm4k", "l2"):
            pts.setdefault(k, []).append((x, s.get(k, 0)))
    return order, pts


def plot(runs, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "python3-matplotlib is missing: no plot"
    mems = [m for m in ("fresh", "scattered")
            if (m, "off") in runs or (m, "on") in runs]
    fig, axes = plt.subplots(2, len(mems), figsize=(6.5 * len(mems), 7.5),
                             squeeze=False)
    style = {"off": dict(color="tab:red", label="unmapped_cache=off (stock)"),
             "on": dict(color="tab:blue", label="unmapped_cache on")}
    for col, mem in enumerate(mems):
        order = []
        for mode in ("off", "on"):
            if (mem, mode) not in runs:
                continue
            samples = runs[(mem, mode)][1]
            if not samples:
                continue
            o, pts = timeline(samples)
            order = o if len(o) > len(order) else order
            base = [s for s in samples][0]
            x, y = zip(*pts["dm4k"])
            axes[0][col].plot(x, [(v - base["dm4k"]) / 1024 for v in y],
                              drawstyle="steps-post", **style[mode])
            x, y = zip(*pts["l2"])
            axes[1][col].plot(x, [v - base["l2"] for v in y],
                              drawstyle="steps-post", **style[mode])
        for row, ylabel in enumerate(["DirectMap4k growth (MiB)",
                                      "level-2 direct-map splits (cumulative)"]):
            ax = axes[row][col]
            ax.set_ylabel(ylabel)
            ax.set_xticks([i + 0.5 for i in range(len(order))])
            ax.set_xticklabels(order)
            for i in range(1, len(order)):
                ax.axvline(i, color="0.85", linewidth=0.8)
            ax.set_xlim(0, max(len(order), 1))
            ax.grid(axis="y", color="0.9")
            if ax.get_lines():
                ax.legend(loc="upper left")
            ax.set_xlabel("workload (each spans its own run time)")
        axes[0][col].set_title("%s memory" % mem)
    fig.suptitle("Direct map under the callers' workloads, same kernel, "
                 "cache off vs on")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return None


def read_bench(path):
    """{path name: [ns, ...]} from the UC-BENCH lines of a bench log."""
    out = {}
    with open(path, errors="replace") as f:
        for line in f:
            m = re.search(r"UC-BENCH sample=\d+ (.+): (\d+) ns", line)
            if m:
                out.setdefault(m[1].strip(), []).append(int(m[2]))
    return out


def read_scale(path):
    """{(path name, cpus): [pairs/s, ...]} from the UC-SCALE lines of a log."""
    out = {}
    with open(path, errors="replace") as f:
        for line in f:
            m = re.search(r"UC-SCALE sample=\d+ scaling cpus=(\d+) (.+): (\d+) pairs/s", line)
            if m:
                out.setdefault((m[2].strip(), int(m[1])), []).append(int(m[3]))
    return out


SCALE_HEAD = ["single-page pairs", "1 vCPU, pairs/s", "all vCPUs, pairs/s",
              "speed-up (median of the samples' ratios)", "min-max"]


def scale_rows(scale):
    """Per path: medians on 1 CPU and on all, and the per-sample speed-up."""
    rows = []
    for name in dict.fromkeys(k[0] for k in scale):
        cpus = sorted(c for (n, c) in scale if n == name)
        if len(cpus) != 2 or cpus[0] != 1:
            continue
        one, many = scale[(name, 1)], scale[(name, cpus[1])]
        ratios = [b / a for a, b in zip(one, many) if a]
        if not ratios:
            continue
        rows.append([name, "%d" % median(one), "%d (%d)" % (median(many), cpus[1]),
                     "%.2f" % median(ratios),
                     "%.2f-%.2f" % (min(ratios), max(ratios))])
    return rows


BENCH_BASE = "alloc_page/__free_page"
BENCH_RW = "unmapped_cache RW page (magazines)"
BENCH_RW_ZERO = "unmapped_cache RW page, __GFP_ZERO (magazines)"
BENCH_NONE = "unmapped_cache NONE page (magazines)"
BENCH_MEMSET = "zeroing a mapped page (memset, what __GFP_ZERO adds to RW)"
BENCH_INVLPG = "one local TLB invalidation of an unrelated kernel page"
BENCH_CLEAR_MAPPED = "clear_page() of a mapped page (what the unmapped clear runs)"
BENCH_ZERO = "alloc_page(__GFP_ZERO)/__free_page"


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def bench_goals(bench):
    """Lines: the fast-path ratios issue #17 sets goals for."""
    m = {k: median(v) for k, v in bench.items()}
    if not all(k in m for k in (BENCH_BASE, BENCH_RW, BENCH_NONE, BENCH_MEMSET)):
        return []
    zeroed = m[BENCH_BASE] + m[BENCH_MEMSET]
    out = ["- RW pair / `alloc_page` pair: %.2f (goal 1.2). Neither zeroes "
           "the page: an RW chunk is zeroed on request (`__GFP_ZERO`, "
           "`init_on_alloc`) or on free with `init_on_free`, like a page."
           % (m[BENCH_RW] / m[BENCH_BASE])]
    if BENCH_RW_ZERO in m:
        out.append("- RW pair with `__GFP_ZERO` / `alloc_page(__GFP_ZERO)` "
                   "pair: %.2f; / (`alloc_page` pair + `memset()` of a mapped "
                   "page): %.2f (the RW chunk is zeroed with `memset()` "
                   "through its mapping, `__GFP_ZERO` pages with "
                   "`clear_page()`)." % (m[BENCH_RW_ZERO] / m[BENCH_ZERO]
                                         if BENCH_ZERO in m else 0,
                                         m[BENCH_RW_ZERO] / zeroed))
    out.append("- NONE pair / (`alloc_page` pair + zeroing a mapped page): "
               "%.2f (goal 1.5)." % (m[BENCH_NONE] / zeroed))
    if BENCH_CLEAR_MAPPED in m:
        out.append("- `clear_page()` of a mapped page / `memset()` of it: "
                   "%.2f. `clear_page()`, which the NONE clear runs, is a string "
                   "store (`rep stosb` with ERMS, `rep stosq` without) that "
                   "TCG emulates one iteration at a time; this `memset()` "
                   "is a loop of 8-byte moves." % (m[BENCH_CLEAR_MAPPED] /
                                                  m[BENCH_MEMSET]))
    if BENCH_ZERO in m:
        out.append("- NONE pair / `alloc_page(__GFP_ZERO)` pair, which zeroes "
                   "with `clear_page()` too: %.2f." % (m[BENCH_NONE] / m[BENCH_ZERO]))
    if BENCH_INVLPG in m:
        out.append("- One local TLB invalidation of an unrelated page: %d ns, "
                   "%.1f x an `alloc_page` pair." % (m[BENCH_INVLPG],
                                                     m[BENCH_INVLPG] / m[BENCH_BASE]))
    return out


def bench_rows(bench):
    """Rows: path, median ns, min-max, ratio of medians to the base path."""
    base = median(bench[BENCH_BASE]) if BENCH_BASE in bench else None
    rows = []
    for name, v in bench.items():
        med = median(v)
        rows.append([name, "%d" % med, "%d-%d" % (min(v), max(v)),
                     "%.2f" % (med / base) if base else "-"])
    return rows


BENCH_HEAD = ["single-page alloc+free pair", "median ns", "min-max ns",
              "x alloc_page pair"]


def read_footprint(path):
    """The UC-FOOTPRINT lines of a log: [{"name": str, key: int, ...}]."""
    return read_tagged(path, "UC-FOOTPRINT", "name", "held")


PERMS = ["none", "ro", "rox", "rw"]
BLOCK_PAGES = 512
FOOT_HEAD = ["memory", "after", "held MiB", "live pages none/ro/rox/rw",
             "blocks held", "blocks live needs", "active arenas", "within goal"]


def footprint_rows(runs):
    """Held against live memory after each workload of the cache-on runs."""
    rows = []
    for mem in ("fresh", "scattered"):
        if (mem, "on") not in runs:
            continue
        for fp in read_footprint(runs[(mem, "on")][2]):
            live = [fp.get(p, 0) for p in PERMS]
            need = sum(-(-n // BLOCK_PAGES) for n in live)
            active = sum(1 for n in live if n)
            held = fp["held"] // BLOCK_PAGES
            rows.append([mem, fp["name"], "%.1f" % (fp["held"] / 256),
                         "/".join(str(n) for n in live),
                         str(held), str(need), str(active),
                         "yes" if held <= need + active else
                         "no (+%d)" % (held - need - active)])
    return rows


FRAG_HEAD = ["memory", "mixed pageblocks off | on", "pageblocks",
             "THP MiB of the 20 % probe off | on", "THP fallbacks off | on",
             "compaction stalls off | on"]


def read_frag(path):
    """The UC-FRAG-PROBE line of a log as a dict (None without one), with
    the UC-FRAG-CONTROL line's figures as ctl_KEY and the UC-FRAG-COMPACTION
    line's (the counters before the probe) as pre_KEY."""
    out = None
    ctl = {}
    with open(path, errors="replace") as f:
        for line in f:
            for tag, into, prefix in (("UC-FRAG-PROBE ", None, ""),
                                      ("UC-FRAG-CONTROL ", ctl, "ctl_"),
                                      ("UC-FRAG-COMPACTION ", ctl, "pre_")):
                i = line.find(tag)
                if i < 0:
                    continue
                d = {}
                for w in line[i + len(tag):].split():
                    k, _, v = w.partition("=")
                    v = v.lstrip("+")
                    d[prefix + k] = int(v) if re.match(r"^\d+$", v) else v
                if into is None:
                    if out is None:
                        out = d
                else:
                    into.update(d)
    if out is not None:
        out.update(ctl)
    return out


def frag_control(runs):
    """The mixed count's positive control (scattered boots): secret pages
    held after the probe, and the mixed pageblocks the same count then
    sees, off | on; and whether the control failed (the cache-off boot
    must see some)."""
    a = read_frag(runs[("scattered", "off")][2]) if ("scattered", "off") in runs else None
    b = read_frag(runs[("scattered", "on")][2]) if ("scattered", "on") in runs else None
    a, b = a or {}, b or {}
    m_off = a.get("ctl_mixed_held")
    line = ("- positive control of the mixed count (scattered memory, secret "
            "pages held after the probe, as many as the free pages in whole "
            "pageblocks plus half of the rest: %s | %s pages): mixed pageblocks "
            "%s | %s while they are held." % (
                a.get("ctl_secret_pages", "-"), b.get("ctl_secret_pages", "-"),
                m_off if m_off is not None else "-",
                b.get("ctl_mixed_held", "-")))
    ok = isinstance(m_off, int) and m_off > 0
    if not ok:
        line += " CONTROL FAILED: the cache-off count saw no mixed pageblock."
    return line, ok


def frag_boots(runs, logs):
    """{mode: [UC-FRAG-PROBE figures]} of every boot of scattered memory:
    the callers boot's and the short ones run.sh adds for the THP probe
    (run-fragrep-MODE-N.log)."""
    out = {"off": [], "on": []}
    for mode in ("off", "on"):
        paths = ([runs[("scattered", mode)][2]] if ("scattered", mode) in runs else [])
        paths += sorted(p for p in logs
                        if re.search(r"run-fragrep-%s-\d+\.log$" % mode, p))
        for path in paths:
            f = read_frag(path)
            if f:
                out[mode].append(f)
    return out


def frag_median(boots, key):
    """The median of KEY over BOOTS (a list of figure dicts), or "-"."""
    v = [b[key] for b in boots if isinstance(b.get(key), int)]
    return statistics.median_low(v) if v else "-"


def frag_rows(runs, boots=None):
    """After the workloads, off | on: mixed pageblocks and the THP probe;
    with more than one boot of scattered memory per mode, a row of the
    medians over all of them."""
    rows = []
    for mem in ("fresh", "scattered"):
        a = read_frag(runs[(mem, "off")][2]) if (mem, "off") in runs else None
        b = read_frag(runs[(mem, "on")][2]) if (mem, "on") in runs else None
        if not a and not b:
            continue
        a, b = a or {}, b or {}

        def pair(k):
            return "%s | %s" % (a.get(k, "-"), b.get(k, "-"))
        rows.append([mem, pair("mixed"), str(a.get("pageblocks", b.get("pageblocks", "-"))),
                     "%s | %s of %s" % (a.get("thp_mib", "-"), b.get("thp_mib", "-"),
                                        a.get("thp_asked_mib", b.get("thp_asked_mib", "-"))),
                     pair("thp_fallback"), pair("compact_stall")])
    if boots and min(len(boots["off"]), len(boots["on"])) > 1:
        a, b = boots["off"], boots["on"]

        def med(k):
            return "%s | %s" % (frag_median(a, k), frag_median(b, k))
        rows.append(["scattered, median of %d | %d boots" % (len(a), len(b)),
                     med("mixed"), str(frag_median(a + b, "pageblocks")),
                     "%s | %s of %s" % (frag_median(a, "thp_mib"),
                                        frag_median(b, "thp_mib"),
                                        frag_median(a + b, "thp_asked_mib")),
                     med("thp_fallback"), med("compact_stall")])
    return rows


def frag_boot_line(boots):
    """Each scattered boot's THP figure, off | on, or None."""
    if not boots or min(len(boots["off"]), len(boots["on"])) < 2:
        return None
    def each(mode):
        return ", ".join("%s/%s" % (b.get("thp_mib", "-"), b.get("whole_free_mib", "-"))
                         for b in boots[mode])
    return ("- each boot of scattered memory (the callers boot first, then "
            "the short ones), THP MiB the probe got / MiB free in whole "
            "order-9 and order-10 blocks just before it, off: %s; on: %s; "
            "medians of the latter %s | %s, of the probe's compaction "
            "failures %s | %s." % (
                each("off"), each("on"),
                frag_median(boots["off"], "whole_free_mib"),
                frag_median(boots["on"], "whole_free_mib"),
                frag_median(boots["off"], "compact_fail"),
                frag_median(boots["on"], "compact_fail")))


def below_p(off, on, tries=20000):
    """One-sided permutation test: the chance that, with the boots' labels
    shuffled, the cache-on mean comes out at or below the one measured
    (exact when the labelings are few, else TRIES random ones, seed 1)."""
    both, n = off + on, len(on)
    if not off or not on:
        return None
    seen = sum(on) / n
    comb = math.comb(len(both), n)
    if comb <= 200000:
        hits = sum(1 for c in itertools.combinations(both, n) if sum(c) / n <= seen)
        return hits / comb
    rnd = random.Random(1)
    hits = 0
    for _ in range(tries):
        rnd.shuffle(both)
        hits += sum(both[:n]) / n <= seen
    return hits / tries


def frag_spread(boots):
    """Whether a THP shortfall of the cache in scattered memory stands out
    of the boot-to-boot spread, and the compaction before the probe."""
    if not boots or min(len(boots["off"]), len(boots["on"])) < 2:
        return None
    t = {m: [b["thp_mib"] for b in boots[m] if isinstance(b.get("thp_mib"), int)]
         for m in ("off", "on")}
    full = {m: sum(1 for b in boots[m] if b.get("thp_mib") == b.get("thp_asked_mib"))
            for m in ("off", "on")}
    p = below_p(t["off"], t["on"])

    def med(k):
        return "%s | %s" % (frag_median(boots["off"], k), frag_median(boots["on"], k))
    return ("- spread of the scattered boots: the probe got all it asked for in "
            "%d of %d boots off and %d of %d on; mean THP %.0f | %.0f MiB; chance "
            "that labels drawn at random put the cache-on mean this low or "
            "lower (one-sided permutation test): %s.  Compaction since boot, "
            "before the probe (medians, off | on): stalls %s, successes %s, "
            "failures %s." % (
                full["off"], len(boots["off"]), full["on"], len(boots["on"]),
                statistics.mean(t["off"]) if t["off"] else 0,
                statistics.mean(t["on"]) if t["on"] else 0,
                "%.2f" % p if p is not None else "-",
                med("pre_compact_stall"), med("pre_compact_success"),
                med("pre_compact_fail")))


def frag_notes(rows):
    """Where the cache does worse than stock, said so (issue #27 item 3)."""
    out = []
    medians = any(r[0].startswith("scattered, median") for r in rows)
    for r in rows:
        mem = r[0]
        if medians and mem == "scattered":
            # One boot: the goal is judged on the medians below.
            continue
        try:
            m_off, m_on = (int(x) for x in r[1].split(" | "))
            t_off, t_on = (int(x) for x in r[3].split(" of ")[0].split(" | "))
        except ValueError:
            out.append("- %s: a figure is missing." % mem)
            continue
        out.append("- %s: mixed pageblocks %s (on %s off: %d | %d); huge pages "
                   "%s (on %s off: %d | %d MiB)." % (
                       mem, "goal met" if m_on <= m_off else "GOAL MISSED",
                       "<=" if m_on <= m_off else ">", m_off, m_on,
                       "goal met" if t_on >= t_off else "GOAL MISSED",
                       ">=" if t_on >= t_off else "<", t_off, t_on))
    return out


def read_hotplug(logs):
    """{(zone, mode): figures} of the hotplug boots (run-hotplug-ZONE-MODE.log):
    the guest's UC-VMEM line, and the device's plugged size before the
    request and after the guest's wait, from the host's LOG.vmem."""
    out = {}
    for path in logs:
        m = re.search(r"run-hotplug-(normal|movable)-(off|on)\.log$", path)
        if not m:
            continue
        r = {}
        with open(path, errors="replace") as f:
            for line in f:
                i = line.find("UC-VMEM zone=")
                if i >= 0:
                    for w in line[i:].split()[1:]:
                        k, _, v = w.partition("=")
                        r[k] = v
        try:
            with open(path + ".vmem", errors="replace") as f:
                for line in f:
                    h = re.search(r"UC-VMEM-HOST size_mib=(\d+) "
                                  r"requested_mib=(\d+) tag=(before|after)",
                                  line)
                    if h:
                        r["host_" + h[3]] = int(h[1])
                        r["host_req_" + h[3]] = int(h[2])
        except OSError:
            pass
        if "host_before" in r and "host_after" in r:
            r["achieved"] = r["host_before"] - r["host_after"]
            r["requested"] = r["host_before"] - r["host_req_after"]
        out[(m[1], m[2])] = r
    return out


def read_pairs(logs):
    """{mode: [ns per pair, ...]} of the page-pair boots
    (run-pagepair-N.log, UC-PAIR lines of jobs/pagepair.sh)."""
    out = {}
    for path in logs:
        if not re.search(r"run-pagepair-\d+\.log$", path):
            continue
        with open(path, errors="replace") as f:
            for line in f:
                m = re.search(r"UC-PAIR cache=(on|off) ns_per_pair=([\d,]+)",
                              line)
                if m:
                    out.setdefault(m[1], []).extend(
                        int(v) for v in m[2].split(",") if v)
    return out


def wrap_bullet(text):
    """One bullet, wrapped at 76 columns, the same in Markdown and rst."""
    return textwrap.wrap(text, 76, initial_indent="- ",
                         subsequent_indent="  ", break_on_hyphens=False)


def lsfmm_lines(pairs, hotplug, frag):
    """The figures behind the LSFMM table of the rst: one bullet per
    objection, from this run only; a missing figure is said so."""
    out = []
    npair = {k: len(v) for k, v in pairs.items()}
    if pairs.get("off") and pairs.get("on"):
        off, on = (statistics.median(pairs[k]) for k in ("off", "on"))
        p10 = {k: statistics.quantiles(pairs[k], n=10)[0] for k in ("off", "on")}
        out += wrap_bullet(
            "Hocko (page allocator fast paths): an order-0 alloc_page() and "
            "free pair, timed in boots alternating off and on (%d runs "
            "off, %d on): ratio of the medians on/off %.3f, of the 10th "
            "percentiles %.3f (TCG runs the same loop at two speeds, "
            "switching even within a boot)."
            % (npair["off"], npair["on"], on / off, p10["on"] / p10["off"]))
    else:
        out += wrap_bullet("Hocko: the page-pair timing is missing.")
    if frag:
        parts = []
        for mem in ("fresh", "scattered"):
            a, b = frag.get((mem, "off")) or {}, frag.get((mem, "on")) or {}
            if a or b:
                parts.append("%s memory%s, mixed pageblocks %s | %s, huge pages "
                             "of a %s MiB probe %s | %s MiB%s" % (
                                 mem, " (medians of %s | %s boots)" % (
                                     a.get("boots"), b.get("boots"))
                                 if "boots" in a and "boots" in b else "",
                                 a.get("mixed", "-"), b.get("mixed", "-"),
                                 a.get("thp_asked_mib",
                                       b.get("thp_asked_mib", "-")),
                                 a.get("thp_mib", "-"), b.get("thp_mib", "-"),
                                 " (chance of a cache-on mean this low from the "
                                 "boot-to-boot spread alone, one-sided "
                                 "permutation test: %.2f)" % b["thp_p"]
                                 if b.get("thp_p") is not None else ""))
        a, b = frag.get(("scattered", "off")) or {}, frag.get(("scattered", "on")) or {}
        if "ctl_mixed_held" in a or "ctl_mixed_held" in b:
            parts.append("the mixed count's positive control (unmovable "
                         "secret pages held in scattered memory) %s | %s" % (
                             a.get("ctl_mixed_held", "-"),
                             b.get("ctl_mixed_held", "-")))
        out += wrap_bullet(
            "Gorman (fragmentation), after the workloads, off | on: %s."
            % "; ".join(parts))
    else:
        out += wrap_bullet("Gorman: the fragmentation probe is missing.")
    if hotplug:
        parts = []
        for zone in ("normal", "movable"):
            a, b = hotplug.get((zone, "off"), {}), hotplug.get((zone, "on"), {})
            parts.append("ZONE_%s %s | %s MiB unplugged of %s, cache pages "
                         "in the device's memory %s" % (
                             zone.upper(), a.get("achieved", "?"),
                             b.get("achieved", "?"),
                             a.get("requested", b.get("requested", "?")),
                             b.get("device_pages_used_by_cache", "?")))
        out += wrap_bullet(
            "Hildenbrand (memory hot-unplug): a virtio-mem device shrunk to "
            "0 after the workloads, off | on: %s." % "; ".join(parts))
    else:
        out += wrap_bullet("Hildenbrand: the hot-unplug boots are missing.")
    return out


def block(name, lines):
    return ["<!-- figures:%s -->" % name] + lines + ["<!-- /figures:%s -->" % name]


def splat_lines(logs):
    """The splats (devtools/splats.py: warnings, BUGs, lockdep, RCU stalls,
    hung tasks...) in the run's boots, a log per line, or that there were
    none: the figures of a boot with a splat are said to come from it."""
    found = []
    for path in logs:
        r = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "splats.py"), path],
                           capture_output=True, text=True)
        if r.returncode:
            first = [l for l in r.stdout.splitlines() if l.startswith("SPLAT")]
            found.append("- `%s`: %s" % (os.path.basename(path),
                                         "; ".join(first[:3]) or r.stdout.strip()[-160:]))
    print("\n== splats in the boots: %d of %d logs ==" % (len(found), len(logs)))
    print("\n".join(found))
    return ["## Splats in the boots", "",
            "devtools/splats.py over each console log of this run: %s" % (
                "none in any of the %d." % len(logs) if not found else
                "%d of %d logs have one (the figures of those boots stand, "
                "but the boot was not clean):" % (len(found), len(logs)))] + \
        ([""] + found if found else []) + [""]


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    outdir, logs = sys.argv[1], sys.argv[2:]
    runs = runs_of(logs)
    bench_logs = [p for p in logs if p.endswith("run-bench.log")]
    bench = read_bench(bench_logs[0]) if bench_logs else {}
    scale_logs = [p for p in logs if p.endswith("run-scale.log")]
    scale = read_scale(scale_logs[0]) if scale_logs else {}
    if not runs:
        print("no run-{fresh,scattered}-{off,on}.log among %s" % " ".join(logs))
        return 1
    os.makedirs(outdir, exist_ok=True)
    md = ["# unmapped_cache: direct map with the cache off and on", "",
          "Same kernel image, booted with `unmapped_cache=off` (the stock "
          "paths) and without it, under QEMU TCG. Figures are deltas over "
          "each workload; times under TCG are not real, so only the ratio "
          "of the two runs is given.", ""]
    pairs, hotplug = read_pairs(logs), read_hotplug(logs)
    npb = len([p for p in logs if re.search(r"run-pagepair-\d+\.log$", p)])
    extra = ""
    if hotplug:
        extra += ", %d of the hot-unplug job" % len(hotplug)
    if npb:
        extra += ", %d of the page-pair timing (one vCPU)" % npb
    commit = os.environ.get("UC_RUN_COMMIT", "unknown commit")
    date = os.environ.get("UC_RUN_DATE", "unknown date")
    md += block("meta", ["`make run` of %s, commit %s: %d boots of the "
                         "callers job%s%s (QEMU TCG, 2 vCPUs, 2 GiB)."
                         % (date, commit, len(runs),
                            (" and one of the bench job" if bench else "") +
                            (" (and one under multi-threaded TCG for its "
                             "scaling)" if scale else ""),
                            extra)])
    md += [""]
    bad = []
    for mem in ("fresh", "scattered"):
        rows = side_by_side(runs, mem)
        if not rows:
            continue
        print("\n== %s memory: off | on ==" % mem)
        print(text_table(rows))
        md += ["## %s memory" % mem.capitalize(), ""]
        md += block(mem, md_table(rows).split("\n"))
        md += [""]
        for mode in ("off", "on"):
            if (mem, mode) in runs:
                figs = runs[(mem, mode)][0]
                bad += ["%s-%s %s" % (mem, mode, f["name"])
                        for f in figs.values() if f["rc"] != 0]
    if bench:
        rows = bench_rows(bench)
        nsamples = max(len(v) for v in bench.values())
        print("\n== single-page alloc+free, %d samples in one boot ==" % nsamples)
        widths = [max(len(r[i]) for r in rows + [BENCH_HEAD]) for i in range(4)]
        for r in [BENCH_HEAD] + rows:
            print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        md += ["## Single-page alloc+free (debugfs bench)", ""]
        md += block("bench", [
            "| " + " | ".join(BENCH_HEAD) + " |", "|" + "---|" * 4] +
            ["| " + " | ".join(r) + " |" for r in rows] +
            ["", "%d samples of 2000 pairs each, after a warm-up, one boot "
             "(`devtools/qemu-run.sh bench`); TCG, so only the ratios "
             "mean anything." % nsamples, ""] + bench_goals(bench))
        md += [""]
    srows = scale_rows(scale)
    if srows:
        nsamples = max(len(v) for v in scale.values())
        print("\n== scaling, multi-threaded TCG, %d samples in one boot ==" % nsamples)
        print("\n".join("  ".join(r) for r in [SCALE_HEAD] + srows))
        md += ["## Scaling over vCPUs (debugfs bench_scale)", ""]
        md += block("scale", [
            "| " + " | ".join(SCALE_HEAD) + " |", "|" + "---|" * len(SCALE_HEAD)] +
            ["| " + " | ".join(r) + " |" for r in srows] +
            ["", "%d samples in one boot under multi-threaded TCG (a host "
             "thread per vCPU; `UC_QEMU_ACCEL=tcg,thread=multi "
             "devtools/qemu-run.sh --append uc.scale=1 bench`): 200000 "
             "pairs on one vCPU, then 200000 on each vCPU at once. The "
             "host has 2 cores and runs QEMU's own threads too, so "
             "`alloc_page`, whose per-CPU lists share nothing either, "
             "shows what the emulator lets scale. Goal (issue #17): "
             "the cache's speed-up at least 1.8." % nsamples])
        md += [""]
    frows = footprint_rows(runs)
    if frows:
        print("\n== held against live memory, cache on ==")
        print("\n".join("  ".join(r) for r in [FOOT_HEAD] + frows))
        md += ["## Memory held against memory live", ""]
        md += block("footprint", [
            "| " + " | ".join(FOOT_HEAD) + " |", "|" + "---|" * len(FOOT_HEAD)] +
            ["| " + " | ".join(r) + " |" for r in frows] +
            ["", "From the UC-FOOTPRINT lines: `/proc/vmstat` "
             "(`nr_unmapped_cache_*`) after each workload and after the "
             "final drain. Goal: blocks held at most the blocks the live "
             "pages need plus one per arena with live pages."])
        md += [""]
    fboots = frag_boots(runs, logs)
    grows = frag_rows(runs, fboots)
    if grows:
        ctl_line, ctl_ok = frag_control(runs)
        if not ctl_ok:
            bad.append("frag control (no mixed pageblock seen while secret pages were held, cache off)")
        print("\n== fragmentation after the workloads: off | on ==")
        print("\n".join("  ".join(r) for r in [FRAG_HEAD] + grows))
        print(ctl_line)
        md += ["## Fragmentation after the workloads", ""]
        md += block("frag", [
            "| " + " | ".join(c.replace("|", "\\|") for c in FRAG_HEAD) + " |",
            "|" + "---|" * len(FRAG_HEAD)] +
            ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |"
             for r in grows] +
            ["", "From the UC-FRAG-PROBE lines (jobs/callers.sh, booted with "
             "`page_owner=on uc.frag=1`), taken after the workloads, before "
             "the final drain, with the scattering process still holding its "
             "pages in the scattered runs: mixed pageblocks are those "
             "`/proc/pagetypeinfo` counts as holding an allocated page of "
             "another migratetype than the pageblock's; the THP probe maps 20 % "
             "of MemTotal (the same size off and on) with `MADV_HUGEPAGE` (defrag `madvise`, so it "
             "compacts) and touches it, and reports its `AnonHugePages`. "
             "Goals (issue #27): mixed pageblocks on <= off, huge pages on >= off; "
             "in scattered memory, where the probe's result varies from boot "
             "to boot with how far compaction gets, judged on the medians of "
             "the boots of scattered memory (the callers boot and run.sh's "
             "short ones: BPF, secretmem and 10 module cycles)."] +
            [""] + frag_notes(grows) + [ctl_line] +
            [x for x in [frag_boot_line(fboots), frag_spread(fboots)] if x])
        md += [""]
    if pairs or hotplug or grows:
        frag = {k: read_frag(v[2]) for k, v in runs.items()}
        frag = {k: v for k, v in frag.items() if v}
        fb = frag_boots(runs, logs)
        if min(len(fb["off"]), len(fb["on"])) > 1:
            # Scattered memory: the medians over its boots.
            for mode in ("off", "on"):
                if ("scattered", mode) in frag:
                    frag[("scattered", mode)] = dict(
                        frag[("scattered", mode)],
                        thp_mib=frag_median(fb[mode], "thp_mib"),
                        mixed=frag_median(fb[mode], "mixed"),
                        boots=len(fb[mode]),
                        thp_p=below_p(
                            [b["thp_mib"] for b in fb["off"] if isinstance(b.get("thp_mib"), int)],
                            [b["thp_mib"] for b in fb["on"] if isinstance(b.get("thp_mib"), int)]))
        lines = lsfmm_lines(pairs, hotplug, frag)
        print("\n== the LSFMM 2022 objections: off | on ==")
        print("\n".join(lines))
        md += ["## What the LSFMM 2022 room asked", ""]
        md += block("lsfmm", lines)
        md += ["", "Documentation/mm/unmapped_cache.rst carries this block "
               "under its table of the objections. Hot-unplug: "
               "`jobs/hotplug.sh` (a 512 MiB virtio-mem device, the "
               "host's plugged size before the request and after the "
               "guest's 75 s wait); page pair: `devtools/pair-timing.sh` "
               "(`uc_pagepair`, 15 runs of 20000 pairs per boot, one vCPU).",
               ""]
        for zone in ("normal", "movable"):
            for mode in ("off", "on"):
                if "achieved" not in hotplug.get((zone, mode), {}):
                    bad.append("hotplug-%s-%s (no host figure)" % (zone, mode))
        if npb and not (pairs.get("off") and pairs.get("on")):
            bad.append("pagepair (a mode has no UC-PAIR line)")
    err = plot(runs, os.path.join(outdir, "timeline.png"))
    md += ["![DirectMap4k and level-2 splits along the workloads]"
           "(timeline.png)", "",
           "## Workloads", "",
           "- bpf: 2000 JIT-compiled programs (4..8000 instructions), each "
           "run once with `BPF_PROG_TEST_RUN`, half closed and reloaded.",
           "- secretmem: 4 processes x 2048 `memfd_secret()` pages, twice.",
           "- modules: 3 test modules loaded, called and unloaded 50 times "
           "each.",
           "- kprobes: 1000 kprobes and 16 ftrace ops with trampolines.",
           "- kcore: all of `/proc/kcore` read while secret pages and a "
           "cache-backed module are live.",
           "- selftests: the kernel's memfd_secret selftest, lib/test_bpf, "
           "lib/test_static_keys, lib/test_module.",
           "",
           "Scattered: before the workloads a process touches 90% of free "
           "memory in 4 KiB pages and frees every other page (proactive "
           "compaction off, cache off and on, so that the scattering lasts).",
           "Kernel TLB flushes: broadcast flushes of kernel mappings, "
           "counted by the uc_tlbcount test module.",
           "",
           "Console logs: " + ", ".join("`%s`" % os.path.basename(runs[k][2])
                                        for k in sorted(runs)), ""]
    md += splat_lines(logs)
    with open(os.path.join(outdir, "report.md"), "w") as f:
        f.write("\n".join(md))
    print()
    if err:
        print(err)
    else:
        print("plot:   %s" % os.path.join(outdir, "timeline.png"))
    print("report: %s" % os.path.join(outdir, "report.md"))
    if bad:
        print("workloads that failed: %s" % ", ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
