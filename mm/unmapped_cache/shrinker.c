// SPDX-License-Identifier: GPL-2.0
/*
 * Giving memory back: under pressure, and when it has not been used.
 *
 * The shrinker is NUMA aware: count_objects and scan_objects work on the
 * arenas of the node reclaim asks for (sc->nid), never on another node's.
 * count_objects reports, without locks, the pages a scan can give back:
 * the entirely free blocks of the node's arenas (the range trees count
 * them, uc_range_tree.free_units), less the block each arena keeps, and
 * the rounds of the magazines, in the depots and on the CPUs a drain asks,
 * which a scan returns to their arenas (reaping or draining) and which may
 * free their blocks.  Rounds on CPUs count because a few of them can pin
 * many blocks: left out, reclaim would see nothing once the free blocks
 * are gone and never call the scan that drains them.  Free pages in
 * blocks that hold a live chunk are not counted: a scan cannot return
 * them.  scan_objects first reaps the
 * node's depots' working-set excess (magazines no CPU needed since the
 * last scan go back to their arenas), then returns entirely free blocks
 * until it has freed at least nr_to_scan pages: a block is
 * UNMAPPED_CACHE_BLOCK_PAGES pages, so any nr_to_scan up to that costs one
 * block (one restore of a PMD and one TLB flush), not all of them.  Each
 * arena keeps one block so that the next allocation does not pay a refill
 * at once.  If that falls short, it drains the node's arenas' magazines
 * once (each CPU that holds rounds of any of them is asked once, isolated
 * CPUs not at all, see uc_mag_drain_node()) and tries again.  It never
 * waits for an arena's grow_lock: reclaim may run inside a refill, and a
 * busy arena is simply passed over.  A block returns through
 * uc_block_release(): its direct-map entry is restored (same PMD, no
 * split) before the page allocator sees it.  A block with even one live
 * chunk stays.
 *
 * Without pressure, the periodic reaper gives back what was idle for a
 * whole interval of unmapped_cache.reap_interval_ms (armed only while the
 * cache holds blocks: when the first block comes in, and again after a
 * reap that left some): the depot magazines
 * below the interval's low-water mark (uc_mag_reap()); and an arena that
 * allocated nothing during the interval, neither from its magazines nor
 * from its range tree, empties its magazines (they would pin its blocks
 * with a few pages each) and returns every entirely free block but one.
 * An arena in use keeps its blocks, so a steady workload never pays for a
 * block going out and coming back.
 */

#define pr_fmt(fmt) "unmapped_cache: " fmt

#include <linux/moduleparam.h>
#include <linux/shrinker.h>
#include <linux/workqueue.h>

#include "internal.h"

#include <trace/events/unmapped_cache.h>

static struct shrinker *uc_shrinker;

/**
 * uc_shrink_count() - The shrinker's count_objects.
 * @shrinker: unused; NULL when tests call it.
 * @sc:       ->nid: the node whose memory is wanted (the shrinker is
 *            NUMA aware).
 *
 * Pages a scan of that node can give back: for each of the node's
 * arenas, its entirely free blocks, at most all its blocks but the
 * UC_SHRINK_KEEP it keeps, the rounds of its depot's magazines and those
 * of the magazines a drain would take off the CPUs (a scan drains them
 * only when the free blocks fall short), read without locks.
 *
 * Context: Any context; takes no lock.
 * Return: that number of pages, or SHRINK_EMPTY if it is 0.
 */
unsigned long uc_shrink_count(struct shrinker *shrinker,
			      struct shrink_control *sc)
{
	unsigned long pages = 0, free, spare;
	struct uc_arena *arena;

	list_for_each_entry(arena, &uc_arena_list, node) {
		if (arena->nid != sc->nid)
			continue;
		free = READ_ONCE(arena->tree.free_units);
		spare = READ_ONCE(arena->nr_blocks);
		spare = spare > UC_SHRINK_KEEP ? spare - UC_SHRINK_KEEP : 0;
		pages += min(free, spare) * UNMAPPED_CACHE_BLOCK_PAGES;
		pages += uc_depot_rounds(arena);
		pages += uc_mag_drainable_rounds(arena);
	}
	return pages ? pages : SHRINK_EMPTY;
}

/**
 * uc_shrink_scan() - The shrinker's scan_objects.
 * @shrinker: unused; NULL when tests call it.
 * @sc:       ->nr_to_scan: pages wanted back; ->nid: from which node.
 *
 * Gives back entirely free blocks of the node's arenas, newest first,
 * until at least @sc->nr_to_scan pages are freed, each arena keeping
 * UC_SHRINK_KEEP blocks.  The node's depots' idle magazines are reaped
 * first; if that does not free enough, the magazines of the node's arenas
 * are drained once (uc_mag_drain_node()) and the arenas tried again.  An
 * arena whose grow_lock is held (a refill or another shrink) is skipped.
 *
 * Context: Process context; may sleep, but never waits for a grow_lock.
 * Return: the number of pages freed, or SHRINK_STOP if none.
 */
unsigned long uc_shrink_scan(struct shrinker *shrinker,
			     struct shrink_control *sc)
{
	unsigned long want = DIV_ROUND_UP(sc->nr_to_scan,
					  UNMAPPED_CACHE_BLOCK_PAGES);
	unsigned long blocks;

	uc_mag_reap(sc->nid);
	/* Reclaim may run inside a refill: never wait for grow_lock. */
	blocks = uc_shrink_all(sc->nid, UC_SHRINK_KEEP, want, true);
	if (blocks < want) {
		uc_mag_drain_node(sc->nid);
		blocks += uc_shrink_all(sc->nid, UC_SHRINK_KEEP, want - blocks,
					true);
	}
	trace_unmapped_cache_shrink(sc->nr_to_scan,
				    blocks * UNMAPPED_CACHE_BLOCK_PAGES);
	return blocks ? blocks * UNMAPPED_CACHE_BLOCK_PAGES : SHRINK_STOP;
}

/**
 * uc_drain() - Give back everything that is free, now.
 *
 * Empties every CPU's magazines and every depot, then returns every block
 * with no live chunk, and retries the releases that waited for a page
 * (uc_block_retire()).  For administrators (debugfs "drain") and tests.
 *
 * Context: Process context; may sleep.
 * Return: the number of blocks given back.
 */
unsigned long uc_drain(void)
{
	unsigned long blocks;

	uc_vmap_purge();
	uc_mag_drain();
	blocks = uc_shrink_all(NUMA_NO_NODE, 0, ULONG_MAX, false);
	/* Blocks whose release waits for a page: those free by now go too. */
	uc_blocks_retry();
	return blocks;
}

/*
 * The periodic reaper.  The parameter is unmapped_cache.reap_interval_ms on
 * the command line and in /sys/module/unmapped_cache/parameters/.
 */
#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "unmapped_cache."

static void uc_reap_schedule(void)
{
	unsigned int ms = READ_ONCE(uc_reaper.interval_ms);

	if (uc_reaper_ready() && ms && !atomic_read(&uc_reaper.held))
		mod_delayed_work(system_unbound_wq, &uc_reaper.work,
				 msecs_to_jiffies(ms));
}

/**
 * uc_reap() - Give back what was idle since the previous call.
 *
 * Depot magazines no CPU needed since the previous call go back to their
 * arenas; each arena that allocated nothing since the previous call
 * empties its magazines and returns its entirely free blocks but one.
 * Never waits for a refill.
 *
 * Context: Process context; may sleep.
 * Return: the number of blocks given back.
 */
unsigned long uc_reap(void)
{
	unsigned long blocks = 0;
	struct uc_arena *arena;
	long allocs;

	uc_mag_reap(NUMA_NO_NODE);
	list_for_each_entry(arena, &uc_arena_list, node) {
		allocs = uc_arena_stat(arena, UC_ARENA_ALLOCS) +
			 uc_mag_stat(arena, UC_MAG_ALLOC_HIT);
		if (allocs == arena->reap_allocs) {
			uc_mag_drain_arena(arena);
			blocks += uc_arena_shrink(arena, UC_SHRINK_KEEP, ULONG_MAX,
						  true);
		}
		arena->reap_allocs = allocs;
	}
	return blocks;
}

static void uc_reap_fn(struct work_struct *work)
{
	uc_vmap_purge();
	uc_reap();
	/* Nothing held: the next block in arms it again. */
	if (uc_blocks_held() > 0)
		uc_reap_schedule();
}

#ifdef CONFIG_UNMAPPED_CACHE_TEST_HOOKS
/**
 * uc_reap_hold() - Stop the periodic reaper until uc_reap_unhold().
 *
 * For tests that count what the cache holds.  Calls nest.
 *
 * Context: Process context; may sleep (waits for a running reap).
 */
void uc_reap_hold(void)
{
	atomic_inc(&uc_reaper.held);
	if (uc_reaper_ready())
		cancel_delayed_work_sync(&uc_reaper.work);
}

/**
 * uc_reap_unhold() - Undo one uc_reap_hold().
 */
void uc_reap_unhold(void)
{
	if (!WARN_ON_ONCE(atomic_dec_return(&uc_reaper.held) < 0))
		uc_reap_schedule();
}
#endif

static int uc_reap_interval_set(const char *val, const struct kernel_param *kp)
{
	int err = param_set_uint(val, kp);

	/* At boot the value is only stored: uc_reap_init() reads it. */
	if (err || !uc_reaper_ready())
		return err;
	if (READ_ONCE(uc_reaper.interval_ms))
		uc_reap_schedule();
	else
		cancel_delayed_work(&uc_reaper.work);
	return 0;
}

static const struct kernel_param_ops uc_reap_interval_ops = {
	.set = uc_reap_interval_set,
	.get = param_get_uint,
};
module_param_cb(reap_interval_ms, &uc_reap_interval_ops,
		&uc_reaper.interval_ms, 0644);
MODULE_PARM_DESC(reap_interval_ms,
		 "How often idle memory is given back, in ms (0: never)");

int __init uc_shrinker_init(void)
{
	uc_shrinker = shrinker_alloc(SHRINKER_NUMA_AWARE, "unmapped_cache");
	if (!uc_shrinker)
		return -ENOMEM;
	uc_shrinker->count_objects = uc_shrink_count;
	uc_shrinker->scan_objects = uc_shrink_scan;
	uc_shrinker->seeks = DEFAULT_SEEKS;
	shrinker_register(uc_shrinker);
	return 0;
}

/* Start the periodic reaper; the arenas exist from now on. */
void __init uc_reap_init(void)
{
	/* Deferrable: an idle CPU is not woken up just to reap. */
	INIT_DEFERRABLE_WORK(&uc_reaper.work, uc_reap_fn);
	/* Release: uc_reap_arm() sees the work set up once it sees ready. */
	smp_store_release(&uc_reaper.ready, true);
	uc_reap_schedule();
}
