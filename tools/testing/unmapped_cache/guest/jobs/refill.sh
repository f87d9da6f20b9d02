# SPDX-License-Identifier: GPL-2.0
# Refills under memory pressure, cache on or off (unmapped_cache=off): the
# same steps on both.
#
# With free memory scattered into single pages (hog --scatter 90, proactive
# compaction off), every free order-9 page left taken as a transparent
# huge page (hog --huge, THP defrag "never"), and the cache drained so that
# its arenas have no free block, the callers that take a block in their
# own context run:
#   secret    secretmem_fault --latency: 1024 secret pages (two blocks),
#             the longest first touch (page fault) in ns
#   kprobes   uc_kprobes.ko with 64 kprobes: its load (module text) and
#             the longest register_kprobe() in us
# With the cache on, such a caller must not compact for a block (the
# arena leaves that to its worker, and the caller takes its stock path
# this once); the tracepoint compaction:mm_compaction_begin, with the
# task's name, tells who compacted.  A free order-9 page can still turn
# up (ZONE_DMA keeps some the huge pages cannot take; kswapd and
# kcompactd, woken by the failed tries, make more), so the workloads run
# with the fault point fail_unmapped_cache_no_free_block armed for them
# alone (task-filter, /proc/PID/make-it-fail): their refills always find
# no free order-9 page, while the worker sees memory as it is.  Control: the same tracepoint must
# see the direct compaction of a task that asks for blocks itself: dd
# writing the debugfs exercise_blocks (cache on; off, nothing asks for a
# block).
#
# A KTAP result (jobs/lib.sh): off, the callers ran (1024 secret pages,
# 64 kprobes); on, they ran, no caller compacted, refills were left to
# the worker, which refilled, and the control saw dd compact (the
# exercise's own rc does not matter: the page allocator may give up
# before the last block, which blocks.sh checks); and uc_verify.  The
# latencies go on a diagnostic line for the host's table:
#   # figures: secret_max_ns=N kprobe_reg_max_us=N
. "$UC_DIR/jobs/lib.sh"

mods=${UC_BIN%/bin}/modules
dbg=/sys/kernel/debug/unmapped_cache
tr=/sys/kernel/tracing
cache=$(uc_cache_mode)
rc=0
ktap_print_header
if [ $cache = on ]; then ktap_set_plan 2; else ktap_set_plan 1; fi

# arena_stat NAME: the sum of an arena counter over every arena.
arena_stat() {
	awk -F': ' -v k="$1" '$1 ~ "^ *" k "$" { n += $2 } END { print n + 0 }' \
		$dbg/arenas 2>/dev/null || echo 0
}
# compactions COMM_REGEX: mm_compaction_begin events in the trace buffer
# of tasks whose name matches.
compactions() {
	grep -a 'mm_compaction_begin' $tr/trace |
		awk -v re="$1" '{ c = $1; sub(/-[0-9]+$/, "", c) } c ~ re { n++ } END { print n + 0 }'
}

[ -d $tr/events/compaction/mm_compaction_begin ] ||
	ktap_exit_fail_msg "refill: no compaction tracepoint"

[ $cache = on ] && echo 1 > $dbg/drain
proactive=$(cat /proc/sys/vm/compaction_proactiveness)
echo 0 > /proc/sys/vm/compaction_proactiveness
"$UC_BIN/hog" --scatter 90 /run/tmp/refill.ready &
hog=$!
i=0
while [ ! -e /run/tmp/refill.ready ] && [ $i -lt 600 ]; do sleep 1; i=$((i + 1)); done
[ -e /run/tmp/refill.ready ] ||
	{ kill $hog; ktap_exit_fail_msg "refill: scatter did not finish"; }
thp=/sys/kernel/mm/transparent_hugepage
defrag=$(sed 's/.*\[\(.*\)\].*/\1/' $thp/defrag)
echo never > $thp/defrag
"$UC_BIN/hog" --huge /run/tmp/huge.ready &
huge=$!
i=0
while [ ! -e /run/tmp/huge.ready ] && [ $i -lt 600 ]; do sleep 1; i=$((i + 1)); done
[ -e /run/tmp/huge.ready ] ||
	{ kill $hog $huge; ktap_exit_fail_msg "refill: huge pages not taken"; }
f2m=$(uc_free_2m)
sed 's/^/# /' /proc/buddyinfo
g0=$(uc_stat 'blocks grabbed')

d0=$(arena_stat 'refills left to the worker')
w0=$(arena_stat 'refills by the worker')
wf0=$(arena_stat 'refills by the worker failed')
x0=$(vmstat unmapped_cache_refill_failed)
l20=$(vmstat direct_map_level2_splits)
flt=/sys/kernel/debug/fail_unmapped_cache_no_free_block
if [ -d $flt ]; then
	echo 1 > $flt/task-filter
	echo 0 > $flt/verbose
	echo 1 > $flt/interval
	echo -1 > $flt/times
	echo 100 > $flt/probability
fi
# failing CMD...: run CMD with the fault point armed for it.
failing() {
	sh -c 'echo 1 > /proc/self/make-it-fail 2>/dev/null; exec "$@"' sh "$@"
}
echo > $tr/trace
echo 1 > $tr/events/compaction/mm_compaction_begin/enable

out=$(failing "$UC_BIN/secretmem_fault" --latency 1024) || rc=1
echo "$out" | sed 's/^/# /'

smax=$(echo "$out" | sed -n 's/.*first touch max_ns=\([0-9]*\) mean_ns=.*/\1/p')
smean=$(echo "$out" | sed -n 's/.*first touch max_ns=[0-9]* mean_ns=\([0-9]*\).*/\1/p')
failing insmod "$mods/uc_kprobes.ko" nr_kprobes=64 nr_ftrace_ops=0 opt_wait_ms=0 || rc=1
kp=$(dmesg | grep -a 'UC-KPROBES' | tail -1)
rmmod uc_kprobes 2>/dev/null
kmax=$(echo "$kp" | sed -n 's/.*reg_max_us=\([0-9]*\).*/\1/p')
nkp=$(echo "$kp" | sed -n 's/.*kprobes=\([0-9]*\) .*/\1/p')
[ -d $flt ] && echo 0 > $flt/probability
# Let a worker that is still compacting finish before the count.
sleep 2
callers=$(compactions '^(secretmem_fault|insmod)$')
workers=$(compactions '^kworker')

deferred=$(( $(arena_stat 'refills left to the worker') - d0 ))
wrefills=$(( $(arena_stat 'refills by the worker') - w0 ))
figs="free_2m_before=$f2m secret_max_ns=${smax:-none} secret_mean_ns=${smean:-none}"
figs="$figs kprobe_reg_max_us=${kmax:-none} kprobes=${nkp:-0}"
figs="$figs caller_compactions=$callers worker_compactions=$workers deferred=+$deferred"
figs="$figs worker_refills=+$wrefills"
figs="$figs worker_failed=+$(( $(arena_stat 'refills by the worker failed') - wf0 ))"
figs="$figs refill_failed=+$(( $(vmstat unmapped_cache_refill_failed) - x0 ))"
figs="$figs grabbed=+$(( $(uc_stat 'blocks grabbed') - g0 ))"
figs="$figs l2=+$(( $(vmstat direct_map_level2_splits) - l20 ))"
ktap_print_msg "figures: secret_max_ns=${smax:-none} kprobe_reg_max_us=${kmax:-none}"

if [ $cache = off ]; then
	ok=0
	[ $rc -eq 0 ] && [ -n "$smax" ] && [ -n "$kmax" ] && [ "${nkp:-0}" -eq 64 ] && ok=1
	uc_ktap $ok "1024 secret pages faulted and 64 kprobes registered with memory scattered ($figs)"
else
	# Control: a task that asks for blocks itself (exercise_blocks takes
	# them with compaction allowed) shows up under its own name.
	echo > $tr/trace
	c0=$(uc_stat 'blocks found by direct compaction')
	# dd writes the request, so the task that compacts is called dd.
	echo $(( $(uc_free_2m) + 4 )) | dd of=$dbg/exercise_blocks 2>/dev/null
	ctl=$(compactions '^dd$')
	ctl_c=$(( $(uc_stat 'blocks found by direct compaction') - c0 ))
	ok=0
	[ $rc -eq 0 ] && [ "${nkp:-0}" -eq 64 ] && [ "$callers" -eq 0 ] && [ $deferred -ge 1 ] &&
		[ $wrefills -ge 1 ] && [ "$ctl" -ge 1 ] && ok=1
	uc_ktap $ok "no caller compacted for a block, the worker refilled; control: the same tracepoint saw dd compact $ctl times for its own blocks (+$ctl_c) ($figs)"
fi
echo 0 > $tr/events/compaction/mm_compaction_begin/enable
kill $hog $huge
wait $hog $huge 2>/dev/null
echo "$defrag" > $thp/defrag
echo "$proactive" > /proc/sys/vm/compaction_proactiveness
[ $cache = off ] ||
	ktap_test_result "verify: no page of the cache mapped where it must not be, no bad call refused" \
		uc_verify refill
ktap_finished
