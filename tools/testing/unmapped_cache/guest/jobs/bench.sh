# SPDX-License-Identifier: GPL-2.0
# Single-page alloc+free microbenchmark (debugfs bench), one boot: several
# samples, each of UC_BENCH_PAIRS pairs per path after a warm-up, printed
# as "UC-BENCH sample=N <path>: <ns> ns" (devtools/report.py takes the
# median and the spread).  Times under TCG are not real: only the ratios
# between the lines of one boot mean anything.
dbg=/sys/kernel/debug/unmapped_cache
pairs=${UC_BENCH_PAIRS:-2000}
samples=${UC_BENCH_SAMPLES:-5}
i=1
while [ $i -le "$samples" ]; do
	echo "$pairs" > "$dbg/bench" || exit 1
	grep ' ns$' "$dbg/bench_results" | sed "s/^/UC-BENCH sample=$i /"
	i=$((i + 1))
done
