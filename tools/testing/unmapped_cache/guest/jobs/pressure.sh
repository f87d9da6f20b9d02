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
. "$UC_DIR/jobs/lib.sh"

dbg=/sys/kernel/debug/unmapped_cache
nr=${UC_POPULATION:-2000}
blocks_per_arena() { awk '/^arena/ { a = $2 } /blocks held:/ { print a, $3 }' "$dbg/arenas"; }
max_blocks() { blocks_per_arena | awk 'BEGIN { m = 0 } $2 > m { m = $2 } END { print m }'; }

param=/sys/module/unmapped_cache/parameters/reap_interval_ms
start=$(uc_snapshot)
uc_measure population sh -c "echo $nr > $dbg/exercise_population" || exit 1
echo "after population:"; blocks_per_arena | sed 's/^/  /'
after_pop=$(max_blocks)

# Function-call IPIs received, summed over CPUs (/proc/interrupts "CAL"):
# every kernel's count, whatever the cache's version.
call_ipis() { awk '$1 == "CAL:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' /proc/interrupts; }
released=$(uc_stat 'blocks released')
flushes=$(uc_stat 'magazine flushes sent to CPUs')
ipis=$(call_ipis)
interval=$(cat $param) || exit 1
# The shrinker's scans, counted by its tracepoint.
ev=/sys/kernel/debug/tracing/events/unmapped_cache/unmapped_cache_shrink/enable
tr=/sys/kernel/debug/tracing/trace
echo > $tr; echo 1 > $ev
t0=$(awk '{ printf "%d", $1 * 100 }' /proc/uptime)
uc_measure pressure sh -c "$UC_BIN/hog 90; echo 3 > /proc/sys/vm/drop_caches" || exit 1
t1=$(awk '{ printf "%d", $1 * 100 }' /proc/uptime)
echo 0 > $ev
scans=$(grep -c 'unmapped_cache_shrink:' $tr)
echo "UC-PRESSURE reap_interval_ms=$interval shrinker_released=$(( $(uc_stat 'blocks released') - released ))" \
     "shrinker_scans=$scans mag_flushes=$(( $(uc_stat 'magazine flushes sent to CPUs') - flushes ))" \
     "pressure_cs=$((t1 - t0)) cpus=$(grep -c ^processor /proc/cpuinfo) call_ipis=$(( $(call_ipis) - ipis ))"
echo "after pressure:"; blocks_per_arena | sed 's/^/  /'
after_pressure=$(max_blocks)

# 4. the periodic reaper, without pressure: populate again, then let the
#    reaper run every 500 ms; within a few intervals every arena must be
#    down to one block (it needs one interval to see the arena idle).
old_interval=$(cat $param) || exit 1
uc_measure population2 sh -c "echo $nr > $dbg/exercise_population" || exit 1
after_pop2=$(max_blocks)
echo 500 > $param
waited=0
while [ "$(max_blocks)" -gt 1 ] && [ $waited -lt 20000 ]; do
	sleep 1
	waited=$((waited + 1000))
done
echo "$old_interval" > $param
echo "after idling with the reaper every 500 ms:"; blocks_per_arena | sed 's/^/  /'
echo "UC-REAPER max_blocks_after_population=$after_pop2 max_blocks_after_idle=$(max_blocks) waited_ms=$waited"
end=$(uc_snapshot)

echo "UC-PRESSURE max_blocks_after_population=$after_pop max_blocks_after_pressure=$after_pressure"
get() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
echo "UC-PRESSURE l2_delta=$(( $(get "$end" l2) - $(get "$start" l2) ))" \
     "l3_delta=$(( $(get "$end" l3) - $(get "$start" l3) ))" \
     "dm4k_delta=$(( $(get "$end" dm4k) - $(get "$start" dm4k) ))" \
     "dm2m_delta=$(( $(get "$end" dm2m) - $(get "$start" dm2m) ))"
