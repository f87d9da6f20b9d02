// SPDX-License-Identifier: GPL-2.0
/*
 * Giving memory back under pressure.
 *
 * count_objects reports, without locks, the pages a scan could free: the
 * rounds in the depots and the free space of the arenas.  scan_objects
 * first reaps the depots' working-set excess (magazines no CPU needed since
 * the last scan go back to their arenas) and returns every block that
 * became entirely free, each arena keeping one block so that the next
 * allocation does not pay a refill at once.  If that frees nothing while
 * pressure persists, it drains the magazines of every CPU as well and
 * tries again.  A block returns through
 * uc_block_release(): its direct-map entry is restored (same PMD, no
 * split) before the page allocator sees it.  A block with even one live
 * chunk stays.
 */

#define pr_fmt(fmt) "unmapped_cache: " fmt

#include <linux/shrinker.h>

#include "internal.h"

#include <trace/events/unmapped_cache.h>

/* Blocks each arena keeps when the shrinker runs. */
#define UC_SHRINK_KEEP	1

static struct shrinker *uc_shrinker;

static unsigned long uc_shrink_count(struct shrinker *shrinker,
				     struct shrink_control *sc)
{
	unsigned long pages = 0;
	struct uc_arena *arena;

	list_for_each_entry(arena, &uc_arena_list, node) {
		pages += uc_depot_rounds(arena);
		pages += READ_ONCE(arena->tree.free_bytes) >> PAGE_SHIFT;
	}
	return pages ? pages : SHRINK_EMPTY;
}

static unsigned long uc_shrink_scan(struct shrinker *shrinker,
				    struct shrink_control *sc)
{
	unsigned long blocks;

	uc_mag_reap();
	/* Reclaim may run inside a refill: never wait for grow_lock. */
	blocks = uc_shrink_all(UC_SHRINK_KEEP, true);
	if (!blocks) {
		uc_mag_drain();
		blocks = uc_shrink_all(UC_SHRINK_KEEP, true);
	}
	trace_unmapped_cache_shrink(sc->nr_to_scan,
				    blocks * UNMAPPED_CACHE_BLOCK_PAGES);
	return blocks ? blocks * UNMAPPED_CACHE_BLOCK_PAGES : SHRINK_STOP;
}

/**
 * uc_drain() - Give back everything that is free, now.
 *
 * Takes back released pages nobody else holds any more, empties every
 * CPU's magazines and every depot, then returns every block
 * with no live chunk.  For administrators (debugfs "drain") and tests.
 *
 * Context: Process context; may sleep.
 * Return: the number of blocks given back.
 */
unsigned long uc_drain(void)
{
	uc_release_flush();
	uc_mag_drain();
	return uc_shrink_all(0, false);
}

int __init uc_shrinker_init(void)
{
	uc_shrinker = shrinker_alloc(0, "unmapped_cache");
	if (!uc_shrinker)
		return -ENOMEM;
	uc_shrinker->count_objects = uc_shrink_count;
	uc_shrinker->scan_objects = uc_shrink_scan;
	uc_shrinker->seeks = DEFAULT_SEEKS;
	shrinker_register(uc_shrinker);
	return 0;
}
