# SPDX-License-Identifier: GPL-2.0
# Block layer after boot, where the vmstat split counters count:
#  - blocks: take N blocks out of the direct map at once and put them back
#    (debugfs exercise_blocks); must cause no level-2 split.
#  - secretmem: fault pages of memfd_secret(); with the cache on they come
#    from its NONE arena (boot with unmapped_cache=off for the stock path).
. "$UC_DIR/jobs/lib.sh"

nblocks=${UC_BLOCKS:-64}
npages=${UC_SECRET_PAGES:-8192}
dbg=/sys/kernel/debug/unmapped_cache

[ -w "$dbg/exercise_blocks" ] || { echo "missing $dbg/exercise_blocks"; exit 1; }
exercise() { echo "$1" > "$dbg/exercise_blocks"; }

uc_measure blocks exercise "$nblocks" || exit 1
grep -E "blocks (grabbed|released|held)|last exercise" "$dbg/blocks"
uc_measure secretmem "$UC_BIN/secretmem_fault" "$npages" || exit 1

# A page of a block held by somebody else when the block is given back
# (the fault point fail_unmapped_cache_page_held holds one for 500 ms, as
# a pfn walker's get_page_unless_zero() would for a moment): the block
# waits, out of the direct map and counted as held, and goes back once
# the reference is dropped.  Prints
#   UC-HELD held_before=N waiting_after_drain=1 waiting_after_put=0 held_after=N ...
f=/sys/kernel/debug/fail_unmapped_cache_page_held
if [ -d $f ]; then
	echo 1 > $dbg/drain
	held0=$(uc_stat 'blocks held')
	deferred0=$(uc_stat 'releases deferred (page busy)')
	"$UC_BIN/secretmem_fault" 1024 > /dev/null || exit 1
	echo 0 > $f/verbose
	echo 1 > $f/times
	echo 100 > $f/probability
	echo 1 > $dbg/drain
	waiting=$(uc_stat 'blocks waiting for a page')
	held_waiting=$(uc_stat 'blocks held')
	echo 0 > $f/probability
	sleep 2
	echo "UC-HELD held_before=$held0 waiting_after_drain=$waiting held_while_waiting=$held_waiting" \
	     "deferred=+$(( $(uc_stat 'releases deferred (page busy)') - deferred0 ))" \
	     "waiting_after_put=$(uc_stat 'blocks waiting for a page') held_after=$(uc_stat 'blocks held')"
fi
