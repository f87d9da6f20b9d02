# SPDX-License-Identifier: GPL-2.0
# The shrinker under memory pressure (issue: magazines, depot, shrinker).
#  1. population: N chunks in each of a NONE, a ROX and an RW cache,
#     written, then all freed: the arenas keep free blocks and the
#     magazines keep single pages.
#  2. pressure: a process touches most of MemAvailable, then drop_caches.
#     make check boots with unmapped_cache.reap_interval_ms=0, so only the
#     shrinker can give blocks back here (the interval is printed).
#  3. every arena must hold at most one block.
#  4. populate again and let the periodic reaper (every 500 ms) give the
#     idle blocks back without any pressure.
#  No level-2 split may have happened over the whole run.
# Three KTAP results (jobs/lib.sh): the shrinker (steps 1-3), the direct
# map over the whole run, the reaper (step 4).
. "$UC_DIR/jobs/lib.sh"

ktap_print_header
ktap_set_plan 3

dbg=/sys/kernel/debug/unmapped_cache
nr=${UC_POPULATION:-2000}
blocks_per_arena() { awk '/^arena/ { a = $2 } /blocks held:/ { print a, $3 }' "$dbg/arenas"; }
max_blocks() { blocks_per_arena | awk 'BEGIN { m = 0 } $2 > m { m = $2 } END { print m }'; }

param=/sys/module/unmapped_cache/parameters/reap_interval_ms
start=$(uc_snapshot)
uc_measure population sh -c "echo $nr > $dbg/exercise_population" ||
	ktap_exit_fail_msg "population failed"
echo "after population:"; blocks_per_arena | sed 's/^/  /'
after_pop=$(max_blocks)

# Function-call IPIs received, summed over CPUs (/proc/interrupts "CAL"):
# every kernel's count, whatever the cache's version.
call_ipis() { awk '$1 == "CAL:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' /proc/interrupts; }
released=$(uc_stat 'blocks released')
flushes=$(uc_stat 'magazine flushes sent to CPUs')
ipis=$(call_ipis)
interval=$(cat $param) || ktap_exit_fail_msg "no $param"
# The shrinker's scans, counted by its tracepoint.
ev=/sys/kernel/debug/tracing/events/unmapped_cache/unmapped_cache_shrink/enable
tr=/sys/kernel/debug/tracing/trace
echo > $tr; echo 1 > $ev
t0=$(awk '{ printf "%d", $1 * 100 }' /proc/uptime)
uc_measure pressure sh -c "$UC_BIN/hog 90; echo 3 > /proc/sys/vm/drop_caches" ||
	ktap_exit_fail_msg "pressure failed"
t1=$(awk '{ printf "%d", $1 * 100 }' /proc/uptime)
echo 0 > $ev
scans=$(grep -c 'unmapped_cache_shrink:' $tr)
released=$(( $(uc_stat 'blocks released') - released ))
flushes=$(( $(uc_stat 'magazine flushes sent to CPUs') - flushes ))
cpus=$(grep -c ^processor /proc/cpuinfo)
ipis=$(( $(call_ipis) - ipis ))
echo "after pressure:"; blocks_per_arena | sed 's/^/  /'
after_pressure=$(max_blocks)
# Only the shrinker can have given the blocks back (the reaper was off),
# the population left more than one block somewhere (so there was
# something to give back), the tracepoint saw its scans, a scan asked
# only the CPUs holding rounds of the node's arenas, at most once each,
# and every arena was left with at most one block.
ok=0
[ "$interval" = 0 ] && [ $released -gt 0 ] && [ $scans -gt 0 ] &&
	[ $flushes -le $((scans * cpus)) ] && [ "$after_pop" -gt 1 ] &&
	[ "$after_pressure" -le 1 ] && ok=1
uc_ktap $ok "shrinker: under memory pressure, with the reaper off (interval $interval ms), it gave $released blocks back in $scans traced scans and left at most 1 block per arena (most before $after_pop, after $after_pressure; $flushes magazine flushes on $cpus CPUs, $ipis call IPIs, $((t1 - t0)) cs)"

# 4. the periodic reaper, without pressure: populate again, then let the
#    reaper run every 500 ms; within a few intervals every arena must be
#    down to one block (it needs one interval to see the arena idle).
old_interval=$(cat $param) || ktap_exit_fail_msg "no $param"
uc_measure population2 sh -c "echo $nr > $dbg/exercise_population" ||
	ktap_exit_fail_msg "second population failed"
after_pop2=$(max_blocks)
echo 500 > $param
waited=0
while [ "$(max_blocks)" -gt 1 ] && [ $waited -lt 20000 ]; do
	sleep 1
	waited=$((waited + 1000))
done
echo "$old_interval" > $param
echo "after idling with the reaper every 500 ms:"; blocks_per_arena | sed 's/^/  /'
after_idle=$(max_blocks)
end=$(uc_snapshot)

l2=$(( $(uc_field "$end" l2) - $(uc_field "$start" l2) ))
l3=$(( $(uc_field "$end" l3) - $(uc_field "$start" l3) ))
dm4k=$(( $(uc_field "$end" dm4k) - $(uc_field "$start" dm4k) ))
dm2m=$(( $(uc_field "$end" dm2m) - $(uc_field "$start" dm2m) ))
# DirectMap2M may change only by what level-3 splits explain, 1 GiB each.
ok=0
[ -n "$l2" ] && [ $l2 = 0 ] && [ $dm4k = 0 ] && [ $dm2m = $((l3 * 1048576)) ] && ok=1
uc_ktap $ok "direct map: over the whole run 0 level-2 splits, DirectMap4k unchanged, DirectMap2M changed only by level-3 splits (l2 +$l2, l3 +$l3, DirectMap4k +$dm4k kB, DirectMap2M +$dm2m kB)"
ok=0
[ "$after_pop2" -ge 2 ] && [ "$after_idle" -le 1 ] && ok=1
uc_ktap $ok "reaper: without pressure the periodic reaper gives idle blocks back, 1 per arena left (most blocks after populating $after_pop2, after idling $after_idle, waited $waited ms)"
ktap_finished
