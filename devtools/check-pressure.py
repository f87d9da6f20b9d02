#!/usr/bin/env python3
"""Check the UC-PRESSURE lines of a pressure job's console log.

Usage: check-pressure.py LOG

Passes when the periodic reaper was off during the pressure (so only the
shrinker can have given blocks back), the population left more than one
block in some arena (so the test exercised the shrinker), the shrinker
gave at least one block back, every arena held at most one block after the
pressure, no level-2 split happened and DirectMap4k did not grow over the
whole run, and DirectMap2M changed only by what level-3 splits explain
(1 GiB each).
"""
import re
import sys


def main():
    vals = {}
    with open(sys.argv[1], errors="replace") as f:
        for line in f:
            i = line.find("UC-PRESSURE ")
            if i >= 0:
                for k, v in re.findall(r"(\w+)=(-?\d+)", line[i:]):
                    vals[k] = int(v)
    need = ["reap_interval_ms", "shrinker_released", "shrinker_scans",
            "mag_flushes", "pressure_cs", "cpus", "call_ipis",
            "max_blocks_after_population", "max_blocks_after_pressure",
            "l2_delta", "l3_delta", "dm4k_delta", "dm2m_delta"]
    missing = [k for k in need if k not in vals]
    if missing:
        print("missing figures: %s" % " ".join(missing))
        return 1
    print(" ".join("%s=%d" % (k, vals[k]) for k in need))
    bad = []
    if vals["reap_interval_ms"] != 0:
        bad.append("the periodic reaper ran during the pressure (interval %d ms)"
                   % vals["reap_interval_ms"])
    if vals["shrinker_released"] <= 0:
        bad.append("the shrinker gave no block back")
    # The tracepoint must have seen the scans that gave blocks back.
    if vals["shrinker_scans"] <= 0:
        bad.append("no shrinker scan traced")
    # A scan asks only the CPUs that hold rounds of the node's arenas, at
    # most once each (the old drain interrupted every CPU on every scan
    # that fell short).
    if vals["mag_flushes"] > vals["shrinker_scans"] * vals["cpus"]:
        bad.append("%d magazine flushes for %d scans on %d CPUs"
                   % (vals["mag_flushes"], vals["shrinker_scans"], vals["cpus"]))
    if vals["max_blocks_after_population"] <= 1:
        bad.append("the population left no arena with more than one block")
    if vals["max_blocks_after_pressure"] > 1:
        bad.append("an arena still holds %d blocks" % vals["max_blocks_after_pressure"])
    if vals["l2_delta"] != 0:
        bad.append("%d level-2 splits" % vals["l2_delta"])
    if vals["dm4k_delta"] != 0:
        bad.append("DirectMap4k grew by %d kB" % vals["dm4k_delta"])
    if vals["dm2m_delta"] != vals["l3_delta"] * 1048576:
        bad.append("DirectMap2M changed by %d kB with %d level-3 splits"
                   % (vals["dm2m_delta"], vals["l3_delta"]))
    for b in bad:
        print("FAIL: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
