# SPDX-License-Identifier: GPL-2.0
# Single-page alloc+free microbenchmark (debugfs bench), one boot.  Times
# under TCG are not real: only the ratios between the lines mean anything.
dbg=/sys/kernel/debug/unmapped_cache
pairs=${UC_BENCH_PAIRS:-2000}
echo "$pairs" > "$dbg/bench" || exit 1
sed 's/^/UC-BENCH /' "$dbg/bench_results"
