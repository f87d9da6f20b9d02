# SPDX-License-Identifier: GPL-2.0
# Single-page alloc+free microbenchmark (debugfs bench), one boot: several
# samples, each of UC_BENCH_PAIRS pairs per path after a warm-up, printed
# as "UC-BENCH sample=N <path>: <ns> ns" (devtools/report.py takes the
# median and the spread).  Times under TCG are not real: only the ratios
# between the lines of one boot mean anything.
#
# With uc.scale=1 on the command line (make run boots it so under
# multi-threaded TCG, a host thread per vCPU), the scaling benchmark
# instead (debugfs bench_scale): the same pairs on one CPU and on every
# CPU at once, "UC-SCALE sample=N scaling cpus=C <path>: <rate> pairs/s".
dbg=/sys/kernel/debug/unmapped_cache
pairs=${UC_BENCH_PAIRS:-2000}
samples=${UC_BENCH_SAMPLES:-5}
if grep -q 'uc\.scale=1' /proc/cmdline; then
	file=bench_scale tag=UC-SCALE pattern=' pairs/s$' pairs=$((pairs * 100))
else
	file=bench tag=UC-BENCH pattern=' ns$'
fi
i=1
while [ $i -le "$samples" ]; do
	echo "$pairs" > "$dbg/$file" || exit 1
	grep "$pattern" "$dbg/bench_results" | sed "s/^/$tag sample=$i /"
	i=$((i + 1))
done
