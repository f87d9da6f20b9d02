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
