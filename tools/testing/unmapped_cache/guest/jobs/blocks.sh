# SPDX-License-Identifier: GPL-2.0
# Block layer after boot, where the vmstat split counters count:
#  - blocks: take N blocks out of the direct map at once and put them back
#    (debugfs exercise_blocks); must cause no level-2 split.
#  - a block of freed kernel-image memory loses its second alias too.
#  - secretmem: fault pages of memfd_secret(); with the cache on they come
#    from its NONE arena (boot with unmapped_cache=off for the stock path).
#  - a block whose page somebody holds, and blocks from fragmented memory
#    (below).
# Five KTAP results (jobs/lib.sh).
. "$UC_DIR/jobs/lib.sh"

ktap_print_header
ktap_set_plan 5

nblocks=${UC_BLOCKS:-64}
npages=${UC_SECRET_PAGES:-8192}
dbg=/sys/kernel/debug/unmapped_cache

[ -w "$dbg/exercise_blocks" ] || ktap_exit_fail_msg "missing $dbg/exercise_blocks"
exercise() { echo "$1" > "$dbg/exercise_blocks"; }

before=$(uc_snapshot)
uc_measure blocks exercise "$nblocks"
r=$?
after=$(uc_snapshot)
grep -E "blocks (grabbed|released|held)|last exercise" "$dbg/blocks" | sed 's/^/# /'
l2=$(( $(uc_field "$after" l2) - $(uc_field "$before" l2) ))
dm4k=$(( $(uc_field "$after" dm4k) - $(uc_field "$before" dm4k) ))
uc_ktap $(( r == 0 && l2 == 0 )) "blocks: $nblocks blocks out of the direct map and back cause 0 level-2 splits (+$l2, status $r)"
uc_ktap $(( r == 0 && dm4k == 0 )) "blocks: those $nblocks blocks grow DirectMap4k by 0 kB (+$dm4k kB)"

# A block of freed kernel-image memory (debugfs exercise_image_block: the
# 2 MiB of init data the debug code leaves for it): with it out of the
# direct map, its alias in the kernel image's mapping must be gone too,
# and read through that alias it must fault; both come back with the
# block.  Prints
#   err E state S image_before 0|1 read_before 0|1 image_held 0|1
#   read_held 0|1 direct_held 0|1 image_after 0|1 read_after 0|1
#   direct_after 0|1 flags_kept 0|1
# The positive control is in the same line: before the removal the
# alias was present and a read through it succeeded (this boot has PTI
# off, so free_kernel_image_pages() left it).
if [ -w "$dbg/exercise_image_block" ]; then
	echo 1 > "$dbg/exercise_image_block"
	r=$?
	line="rc=$r $(sed -n 's/^image block: //p' "$dbg/blocks")"
else
	line="rc=missing"
fi
ok=0
[ "$line" = "rc=0 err 0 state 1 image_before 1 read_before 1 image_held 0 read_held 0 direct_held 0 image_after 1 read_after 1 direct_after 1 flags_kept 1" ] && ok=1
uc_ktap $ok "image block: a block of freed kernel-image memory leaves the high mapping with the direct map, a read through it faults while held; the alias was present and readable before, and is again after with its flags ($line)"
uc_measure secretmem "$UC_BIN/secretmem_fault" "$npages" ||
	ktap_exit_fail_msg "secretmem: faulting $npages secret pages failed"

# A page of a block held by somebody else when the block is given back
# (the fault point fail_unmapped_cache_page_held holds one for 500 ms, as
# a pfn walker's get_page_unless_zero() would for a moment): the block
# waits, out of the direct map and counted as held, and goes back once
# the reference is dropped.
f=/sys/kernel/debug/fail_unmapped_cache_page_held
line="no fault point $f"
if [ -d $f ]; then
	echo 1 > $dbg/drain
	held0=$(uc_stat 'blocks held')
	deferred0=$(uc_stat 'releases deferred (page busy)')
	"$UC_BIN/secretmem_fault" 1024 > /dev/null || ktap_exit_fail_msg "held: secretmem_fault failed"
	echo 0 > $f/verbose
	echo 1 > $f/times
	echo 100 > $f/probability
	echo 1 > $dbg/drain
	waiting=$(uc_stat 'blocks waiting for a page')
	held_waiting=$(uc_stat 'blocks held')
	echo 0 > $f/probability
	sleep 2
	line="held_before=$held0 waiting_after_drain=$waiting held_while_waiting=$held_waiting"
	line="$line deferred=+$(( $(uc_stat 'releases deferred (page busy)') - deferred0 ))"
	line="$line waiting_after_put=$(uc_stat 'blocks waiting for a page') held_after=$(uc_stat 'blocks held')"
fi
ok=0
case "$line" in
*"waiting_after_drain=1 held_while_waiting=$((held0 + 1)) deferred=+1 waiting_after_put=0 held_after=$held0") ok=1 ;;
esac
uc_ktap $ok "held page: a block whose page somebody holds waits, still held, and is released once the page is put ($line)"

# Fragmented memory: a process touches 90% of MemAvailable and frees every
# other page, so that most free memory is single pages.  Then take all the
# free order-9 pages /proc/buddyinfo still shows, and 16 more, at once: the
# 16 can only come from compaction (migrating the process's pages), direct
# for the first at least, since proactive compaction is off meanwhile, and
# no block may split the direct map at level 2.  The page allocator may
# give up before the 16th (for order 9 it compacts at most at
# COMPACT_PRIO_SYNC_LIGHT, honours skip hints, and defers the zone after a
# failed pass); the grab then fails cleanly (alloc_failed=+1, taken < N,
# after compact_fail >= +1).  Its figures:
#   free_2m=F blocks=N rc=R taken=T bad=0 alloc_failed=+A
#   compacted=+C refill_failed=+X l2=+0 l3=+.. gb_spared=+..
#   passed_over=+.. gb_split=+.. compact_stall=+.. compact_fail=+..
#   compact_success=+..
# (Free 2 MiB blocks of ZONE_DMA32 and ZONE_NORMAL, where GFP_KERNEL
# blocks come from.)
echo 1 > $dbg/drain
proactive=$(cat /proc/sys/vm/compaction_proactiveness)
echo 0 > /proc/sys/vm/compaction_proactiveness
"$UC_BIN/hog" --scatter 90 /run/tmp/frag.ready &
hog=$!
i=0
while [ ! -e /run/tmp/frag.ready ] && [ $i -lt 600 ]; do sleep 1; i=$((i + 1)); done
[ -e /run/tmp/frag.ready ] || { kill $hog; ktap_exit_fail_msg "scatter did not finish"; }
f2m=$(uc_free_2m DMA32 Normal)
n=$((f2m + ${UC_FRAG_EXTRA:-16}))
c0=$(uc_stat 'blocks found by direct compaction')
x0=$(vmstat unmapped_cache_refill_failed)
s0=$(uc_stat '1G leaves spared by passing over a block')
p0=$(uc_stat 'blocks passed over in 1G leaves')
g0=$(uc_stat 'blocks taken from a 1G leaf')
a0=$(uc_stat 'block allocations failed')
l2=$(vmstat direct_map_level2_splits) l3=$(vmstat direct_map_level3_splits)
cst=$(vmstat compact_stall) cfl=$(vmstat compact_fail) csu=$(vmstat compact_success)
exercise "$n"
r=$?
last=$(grep '^last exercise' $dbg/blocks)
line=$(echo "free_2m=$f2m blocks=$n rc=$r" \
     "$(echo "$last" | awk '{ print "taken=" $6, "bad=" $8 + $10 }')" \
     "alloc_failed=+$(( $(uc_stat 'block allocations failed') - a0 ))" \
     "compacted=+$(( $(uc_stat 'blocks found by direct compaction') - c0 ))" \
     "refill_failed=+$(( $(vmstat unmapped_cache_refill_failed) - x0 ))" \
     "l2=+$(( $(vmstat direct_map_level2_splits) - l2 ))" \
     "l3=+$(( $(vmstat direct_map_level3_splits) - l3 ))" \
     "gb_spared=+$(( $(uc_stat '1G leaves spared by passing over a block') - s0 ))" \
     "passed_over=+$(( $(uc_stat 'blocks passed over in 1G leaves') - p0 ))" \
     "gb_split=+$(( $(uc_stat 'blocks taken from a 1G leaf') - g0 ))" \
     "compact_stall=+$(( $(vmstat compact_stall) - cst ))" \
     "compact_fail=+$(( $(vmstat compact_fail) - cfl ))" \
     "compact_success=+$(( $(vmstat compact_success) - csu ))")
kill $hog
wait $hog 2>/dev/null
echo "$proactive" > /proc/sys/vm/compaction_proactiveness
# Every block taken, or a clean failure after compaction failed; either
# way some came from compaction, none was bad and nothing split.
ok=0
if echo "$line" | awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
	END { all = v["rc"] == 0 && v["taken"] == v["blocks"] && v["alloc_failed"] == "+0"
	      clean = v["rc"] != 0 && v["taken"] + 0 < v["blocks"] + 0 &&
		      v["alloc_failed"] == "+1" && v["compact_fail"] + 0 >= 1
	      exit !((all || clean) && v["bad"] == "0" && v["compacted"] + 0 >= 1 &&
		     v["l2"] == "+0") }'; then
	ok=1
fi
uc_ktap $ok "fragmented memory: with free memory scattered into single pages, blocks past the free order-9 pages come from direct compaction, split nothing, and a block compaction cannot make fails cleanly ($line)"
ktap_finished
