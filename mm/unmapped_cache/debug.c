// SPDX-License-Identifier: GPL-2.0
/*
 * Debugging aids for the unmapped cache (CONFIG_UNMAPPED_CACHE_DEBUG).
 *
 * /sys/kernel/debug/unmapped_cache/blocks (0444)
 *	The block-layer counters, the blocks held now, the calls refused
 *	for bad input (uc_bad_calls), the direct-map accounting of the
 *	architecture and the results of the last exercises (exercise.c).
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
 * /sys/kernel/debug/unmapped_cache/verify (0444)
 *	Checks every block held and every execmem mapping against the
 *	invariants (see verify_show()).
 *
 * The exercises and benchmarks that drive the cache from user space are
 * in exercise.c (CONFIG_UNMAPPED_CACHE_EXERCISE).
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "internal.h"

static int blocks_show(struct seq_file *seq, void *v)
{
	struct unmapped_cache_dm_counts dm;
	unsigned long copied, zeroed;
	int i;

	for (i = 0; i < UC_BLOCK_STAT_COUNT; i++)
		seq_printf(seq, "%s: %ld\n", uc_block_stat_names[i],
			   uc_block_stat(i));
	seq_printf(seq, "blocks held: %ld\n", uc_blocks_held());
	seq_printf(seq, "blocks waiting for a page: %ld\n", uc_blocks_deferred());
	seq_printf(seq, "blocks kept for a poisoned page now: %ld\n",
		   uc_blocks_poisoned());
	seq_printf(seq, "pages given back by their page cache: %lu\n",
		   uc_released_pages());
	uc_hibernate_stats(&copied, &zeroed);
	seq_printf(seq, "pages copied for hibernation: %lu\n", copied);
	seq_printf(seq, "pages left out of hibernation: %lu\n", zeroed);
	seq_printf(seq, "magazine flushes sent to CPUs: %lu\n",
		   uc_mag_flushes_sent());
	seq_printf(seq, "bad calls refused: %ld\n",
		   atomic_long_read(&uc_bad_calls));

	arch_unmapped_cache_direct_map_counts(&dm);
	seq_printf(seq, "direct map pte entries: %lu\n", dm.pte);
	seq_printf(seq, "direct map pmd entries: %lu\n", dm.pmd);
	seq_printf(seq, "direct map pud entries: %lu\n", dm.pud);

	uc_exercise_show(seq);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(blocks);

/*
 * Reading checks every block held and every execmem mapping against I1 and
 * W^X (uc_blocks_verify(), uc_vmaps_verify()).  Scripts match the fields
 * up to rw_exec as they are: new fields go at the end.
 */
static int verify_show(struct seq_file *seq, void *v)
{
	struct uc_verify res;

	uc_blocks_verify(&res);
	uc_vmaps_verify(&res);
	seq_printf(seq, "blocks=%lu pages=%lu dm_present=%lu wx=%lu ro_writable=%lu rw_exec=%lu",
		   res.blocks, res.pages, res.dm_present, res.wx,
		   res.ro_writable, res.rw_exec);
	seq_printf(seq, " vmaps=%lu vmap_pages=%lu vmap_exec=%lu vmap_dm_present=%lu vmap_wx=%lu poisoned=%lu\n",
		   res.vmaps, res.vmap_pages, res.vmap_exec,
		   res.vmap_dm_present, res.vmap_wx, res.poisoned);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(verify);

/* Drain: any write empties the magazines and returns every free block. */
static int drain_set(void *data, u64 val)
{
	uc_drain();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(drain_fops, NULL, drain_set, "%llu\n");

static void uc_arena_show(struct seq_file *seq, struct uc_arena *arena)
{
	struct uc_arena_info info;
	int i;

	uc_arena_info(arena, &info);
	seq_printf(seq, "arena %s node %d\n", uc_perm_names[arena->perm],
		   arena->nid);
	seq_printf(seq, "  blocks held: %lu\n", info.nr_blocks);
	seq_printf(seq, "  blocks in hot-added memory: %lu\n",
		   uc_arena_hot_added_blocks(arena));
	seq_printf(seq, "  pages in use: %lu\n", info.busy_bytes >> PAGE_SHIFT);
	seq_printf(seq, "  pages free in tree: %lu\n",
		   info.free_bytes >> PAGE_SHIFT);
	seq_printf(seq, "  largest free range: %lu pages\n",
		   info.largest_free >> PAGE_SHIFT);
	seq_printf(seq, "  pages in magazines: %lu\n", uc_mag_rounds(arena));
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

/* All arenas in one file. */
static int arenas_show(struct seq_file *seq, void *v)
{
	struct uc_arena *arena;

	list_for_each_entry(arena, &uc_arena_list, node)
		uc_arena_show(seq, arena);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(arenas);

/* One arena: arena/<perm>-node<nid>. */
static int arena_show(struct seq_file *seq, void *v)
{
	uc_arena_show(seq, seq->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(arena);

/* One line per cache: name, permission, live chunks and pages. */
static int caches_show(struct seq_file *seq, void *v)
{
	uc_caches_show(seq);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(caches);

void uc_debugfs_init(struct dentry *root)
{
	struct uc_arena *arena;
	struct dentry *dir;
	char name[32];

	debugfs_create_file("blocks", 0444, root, NULL, &blocks_fops);
	debugfs_create_file("verify", 0444, root, NULL, &verify_fops);
	debugfs_create_file("arenas", 0444, root, NULL, &arenas_fops);
	dir = debugfs_create_dir("arena", root);
	list_for_each_entry(arena, &uc_arena_list, node) {
		snprintf(name, sizeof(name), "%s-node%d",
			 uc_perm_names[arena->perm], arena->nid);
		debugfs_create_file(name, 0444, dir, arena, &arena_fops);
	}
	uc_exercise_debugfs_init(root);
	debugfs_create_file("caches", 0444, root, NULL, &caches_fops);
	debugfs_create_file_unsafe("drain", 0200, root, NULL, &drain_fops);
}
