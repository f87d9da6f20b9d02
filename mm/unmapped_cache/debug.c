// SPDX-License-Identifier: GPL-2.0
/*
 * Debugging aids for the unmapped cache (CONFIG_UNMAPPED_CACHE_DEBUG).
 *
 * /sys/kernel/debug/unmapped_cache/blocks (0444)
 *	The block-layer counters, the blocks held now, the direct-map
 *	accounting of the architecture and the result of the last exercise.
 *
 * /sys/kernel/debug/unmapped_cache/arenas (0444)
 *	Per arena: blocks held, pages in use, free in the tree and in the
 *	depot, the largest free range, and the arena, magazine and depot
 *	counters.
 *
 * /sys/kernel/debug/unmapped_cache/drain (0200)
 *	Writing anything empties every CPU's magazines and every depot and
 *	gives every block without a live chunk back to the page allocator.
 *
 * /sys/kernel/debug/unmapped_cache/exercise_blocks (0200)
 *	Writing N (1..UC_EXERCISE_MAX) takes N blocks, all held at once,
 *	checks that each one's direct-map entry is a not-present PMD-level
 *	entry, then releases them all and checks that each entry is present
 *	again at the same level.  The write fails with -ENOMEM if fewer than
 *	N blocks could be taken and with -EIO if a check failed; either way
 *	every block taken is released.  This lets a test in user space, where
 *	the vmstat split counters count, drive the block layer.
 */

#include <linux/debugfs.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "internal.h"

#define UC_EXERCISE_MAX	4096

static DEFINE_MUTEX(uc_exercise_lock);

/* Result of the last exercise; access under uc_exercise_lock. */
static struct {
	unsigned long asked;
	unsigned long taken;
	unsigned long bad_unmapped;	/* not a not-present PMD entry */
	unsigned long bad_restored;	/* not a present PMD entry after */
} uc_exercise;

static bool uc_entry_is(unsigned long addr, bool want_present)
{
	struct unmapped_cache_entry e;

	arch_unmapped_cache_lookup(addr, &e);
	return e.size == UNMAPPED_CACHE_BLOCK_SIZE && e.present == want_present;
}

static int uc_exercise_blocks(unsigned long nr)
{
	struct uc_block **blocks;
	unsigned long i, taken = 0, bad_unmapped = 0, bad_restored = 0;
	int err = 0;

	blocks = kvcalloc(nr, sizeof(*blocks), GFP_KERNEL);
	if (!blocks)
		return -ENOMEM;

	for (i = 0; i < nr; i++) {
		blocks[i] = uc_block_grab(NUMA_NO_NODE, 0);
		if (!blocks[i])
			break;
		taken++;
		if (!uc_entry_is(uc_block_addr(blocks[i]), false))
			bad_unmapped++;
	}

	for (i = 0; i < taken; i++) {
		unsigned long addr = uc_block_addr(blocks[i]);

		if (uc_block_release(blocks[i]))
			err = -EIO;
		else if (!uc_entry_is(addr, true))
			bad_restored++;
	}
	kvfree(blocks);

	guard(mutex)(&uc_exercise_lock);
	uc_exercise.asked = nr;
	uc_exercise.taken = taken;
	uc_exercise.bad_unmapped = bad_unmapped;
	uc_exercise.bad_restored = bad_restored;

	if (bad_unmapped || bad_restored)
		err = -EIO;
	if (!err && taken < nr)
		err = -ENOMEM;
	return err;
}

static int exercise_blocks_set(void *data, u64 nr)
{
	if (!nr || nr > UC_EXERCISE_MAX)
		return -EINVAL;
	return uc_exercise_blocks(nr);
}
DEFINE_DEBUGFS_ATTRIBUTE(exercise_blocks_fops, NULL, exercise_blocks_set,
			 "%llu\n");

static int blocks_show(struct seq_file *seq, void *v)
{
	struct unmapped_cache_dm_counts dm;
	int i;

	for (i = 0; i < UC_BLOCK_STAT_COUNT; i++)
		seq_printf(seq, "%s: %ld\n", uc_block_stat_names[i],
			   uc_block_stat(i));
	seq_printf(seq, "blocks held: %ld\n", uc_blocks_held());

	arch_unmapped_cache_direct_map_counts(&dm);
	seq_printf(seq, "direct map pte entries: %lu\n", dm.pte);
	seq_printf(seq, "direct map pmd entries: %lu\n", dm.pmd);
	seq_printf(seq, "direct map pud entries: %lu\n", dm.pud);

	guard(mutex)(&uc_exercise_lock);
	seq_printf(seq, "last exercise: asked %lu taken %lu bad_unmapped %lu bad_restored %lu\n",
		   uc_exercise.asked, uc_exercise.taken,
		   uc_exercise.bad_unmapped, uc_exercise.bad_restored);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(blocks);

/* Drain: any write empties the magazines and returns every free block. */
static int drain_set(void *data, u64 val)
{
	uc_drain();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(drain_fops, NULL, drain_set, "%llu\n");

static int arenas_show(struct seq_file *seq, void *v)
{
	enum unmapped_cache_perm perm;
	struct uc_arena_info info;
	struct uc_arena *arena;
	int nid, i;

	for_each_node_state(nid, N_MEMORY) {
		for (perm = 0; perm < UNMAPPED_CACHE_NR_PERMS; perm++) {
			arena = uc_arenas[perm][nid];
			if (!arena)
				continue;
			uc_arena_info(arena, &info);
			seq_printf(seq, "arena %s node %d\n", uc_perm_names[perm], nid);
			seq_printf(seq, "  blocks held: %lu\n", info.nr_blocks);
			seq_printf(seq, "  pages in use: %lu\n",
				   info.busy_bytes >> PAGE_SHIFT);
			seq_printf(seq, "  pages free in tree: %lu\n",
				   info.free_bytes >> PAGE_SHIFT);
			seq_printf(seq, "  largest free range: %lu pages\n",
				   info.largest_free >> PAGE_SHIFT);
			seq_printf(seq, "  pages in depot: %lu\n", uc_depot_rounds(arena));
			for (i = 0; i < UC_ARENA_STAT_COUNT; i++)
				seq_printf(seq, "  %s: %ld\n", uc_arena_stat_names[i],
					   uc_arena_stat(arena, i));
			for (i = 0; i < UC_MAG_STAT_COUNT; i++)
				seq_printf(seq, "  %s: %lu\n", uc_mag_stat_names[i],
					   uc_mag_stat(arena, i));
			for (i = 0; i < UC_DEPOT_STAT_COUNT; i++)
				seq_printf(seq, "  %s: %lu\n", uc_depot_stat_names[i],
					   READ_ONCE(arena->depot.stats[i]));
		}
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(arenas);

void uc_debugfs_init(struct dentry *root)
{
	debugfs_create_file("blocks", 0444, root, NULL, &blocks_fops);
	debugfs_create_file_unsafe("exercise_blocks", 0200, root, NULL,
				   &exercise_blocks_fops);
	debugfs_create_file("arenas", 0444, root, NULL, &arenas_fops);
	debugfs_create_file_unsafe("drain", 0200, root, NULL, &drain_fops);
}
