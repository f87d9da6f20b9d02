#!/usr/bin/env bash
# The cost of an alloc_page() + __free_page() pair with the cache off and
# on (DESIGN.md I6: the cache adds nothing to the page allocator's paths):
# BOOTS boots (default 10), alternating unmapped_cache=off and on, of the
# main kernel on one vCPU, each running guest job pagepair (15 runs of
# 20000 pairs, module uc_pagepair).  Prints each boot's median, the
# median over all runs of each mode, and their ratio (on / off).  Times
# under TCG are not real: only the ratio within this one run means
# anything.  Not part of make check (it measures, it does not decide).
#
# Usage: [UC_PAIR_APPEND="ARG ..."] devtools/pair-timing.sh [BOOTS]
# UC_PAIR_APPEND: more kernel parameters for every boot (e.g. nokaslr).
# The logs are $UC_GUEST/logs/${UC_PAIR_LOG:-pagepair}-N.log (make run
# names them run-pagepair-N.log for its report).
. "$(dirname "$0")/common.sh"

boots=${1:-10}
logs=$UC_GUEST/logs
mkdir -p "$logs"
"$UC_ROOT/devtools/build-kernel.sh" >&2 && "$UC_ROOT/devtools/build-modules.sh" >&2 &&
	"$UC_ROOT/devtools/mkinitramfs.sh" >&2 || uc_die "build failed"
: > "$logs/pair-timing.txt"
for i in $(seq 1 "$boots"); do
	mode=$([ $((i % 2)) = 1 ] && echo off || echo on)
	args=()
	[ $mode = off ] && args=(--append unmapped_cache=off)
	for a in ${UC_PAIR_APPEND:-}; do
		args+=(--append "$a")
	done
	log=$logs/${UC_PAIR_LOG:-pagepair}-$i.log
	"$UC_ROOT/devtools/qemu-run.sh" --log "$log" --timeout 300 --smp 1 --hostroot \
		"${args[@]}" pagepair > /dev/null 2>&1 || uc_die "boot $i ($mode) failed, log: $log"
	grep -ao "UC-PAIR cache=$mode ns_per_pair=[0-9,]*" "$log" | tr -d '\r' >> "$logs/pair-timing.txt" ||
		uc_die "boot $i ($mode): no UC-PAIR line, log: $log"
done
python3 - "$logs/pair-timing.txt" <<'PY'
import statistics, sys
runs = {'off': [], 'on': []}
for line in open(sys.argv[1]):
    mode = line.split('cache=')[1].split()[0]
    vals = [int(v) for v in line.split('ns_per_pair=')[1].split(',')]
    runs[mode] += vals
    print('boot cache=%-3s median %d ns per pair over %d runs' % (mode, statistics.median(vals), len(vals)))
off, on = statistics.median(runs['off']), statistics.median(runs['on'])
print('off: median %d ns (%d runs); on: median %d ns (%d runs); on/off = %.3f'
      % (off, len(runs['off']), on, len(runs['on']), on / off))
# TCG runs the loop at two speeds (about 710 and 970 ns here), switching
# even within a boot: the fast level, compared alone.
p10 = {k: statistics.quantiles(v, n=10)[0] for k, v in runs.items()}
print('10th percentiles: off %d ns, on %d ns; on/off = %.3f'
      % (p10['off'], p10['on'], p10['on'] / p10['off']))
PY
