// SPDX-License-Identifier: GPL-2.0
/*
 * The unmapped cache: an allocator beside the page allocator for memory that
 * must not be (writably) mapped in the kernel direct map.
 *
 * Theory of operation
 * ===================
 *
 * 1. Vocabulary.
 *
 *    block      A naturally aligned run of UNMAPPED_CACHE_BLOCK_PAGES pages
 *               (2 MiB on x86-64) that one PMD-level entry of the direct
 *               map covers.  The cache takes memory from the page allocator
 *               only in blocks and removes each block from the direct map
 *               as a whole (block.c).
 *    arena      The blocks of one permission (NONE, RO, ROX, RW) on one
 *               node, and the chunks carved from them.
 *    chunk      A page-granular piece of an arena handed to a caller.
 *    range tree The free chunks of an arena, sorted by address and
 *               augmented with the largest free size below each node.
 *    magazine   A per-CPU stack of free single-page chunks of one arena;
 *               each CPU has a loaded and a previous magazine.
 *    depot      The full and empty magazines of an arena, shared by CPUs.
 *    reap       Giving memory back: magazines to the depot, the depot to
 *               the arena, and fully free blocks to the page allocator.
 *
 *    Files: block.c (blocks), arena.c (arenas), range.c (range tree),
 *    magazine.c (magazines, depot, reap), shrinker.c, cache.c (the public
 *    interface), debug.c (debugfs).
 *
 * 2. Direct-map lifecycle.  A block leaves the direct map when it is taken
 *    from the page allocator and re-enters it just before it is given back;
 *    in between, none of its pages has a present direct-map entry.  Each
 *    change rewrites one PMD-level entry, never splits it, and costs one
 *    flush of every CPU's TLB, issued by the architecture code inside the
 *    change.  Details in block.c.
 *
 * 3. Lock ordering.  Eleven locks; an indented lock may be taken while the
 *    one above it is held, never the other way round:
 *
 *      uc_bench_lock (mutex, debug.c: one benchmark at a time)
 *        uc_exercise_lock (mutex, debug.c: the exercises and their results;
 *                          they allocate and free, so everything below)
 *      uc_mag_flush_lock (mutex: drains; waits for per-CPU work that takes
 *                         the next two, then arena->lock without them)
 *        this CPU's uc_mag_cpu.lock (local lock: magazine fast path)
 *          depot->lock (spinlock, irq-safe: depot lists)
 *      arena->grow_lock (mutex: refill, shrink)
 *        arena->lock (spinlock, irq-safe: range tree)
 *        the uc_blocks xarray's lock (block.c: which pfns are the cache's)
 *        uc_deferred_lock (spinlock, block.c: retired and poison-kept blocks)
 *      uc_caches_lock (mutex, cache.c: the list of caches; a leaf)
 *      uc_vmap_defer_lock (spinlock, vmap.c: execmem mappings awaiting a
 *                          flush; a leaf)
 *
 *    The magazine locks and the arena locks are never held together: a
 *    magazine that goes back to the arena is taken out of the depot first.
 *    The block layer takes the architecture's page-table locks under
 *    grow_lock.  RO/ROX memory and NONE pages are written and cleared with
 *    interrupts off through this CPU's own mapping, with no lock at all.
 */

#define pr_fmt(fmt) "unmapped_cache: " fmt

#include <linux/debugfs.h>
#include <linux/fault-inject.h>
#include <linux/init.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/set_memory.h>
#include <linux/unmapped_cache.h>

#include "internal.h"

#define CREATE_TRACE_POINTS
#include <trace/events/unmapped_cache.h>

atomic_long_t uc_bad_calls;

/* Written once at init, read from any context. */
static bool uc_enabled __ro_after_init;

/* "unmapped_cache=off": every user takes its usual path (A/B testing). */
static bool uc_off __initdata;

static int __init uc_parse_param(char *arg)
{
	bool on;

	if (!arg || kstrtobool(arg, &on))
		return -EINVAL;
	uc_off = !on;
	return 0;
}
early_param("unmapped_cache", uc_parse_param);

bool unmapped_cache_enabled(void)
{
	return READ_ONCE(uc_enabled);
}

bool __init unmapped_cache_requested(void)
{
	/* The same tests as the initcall's, but for memory. */
	return !uc_off && can_set_direct_map() && !debug_pagealloc_enabled() &&
	       arch_unmapped_cache_supported();
}

#ifdef CONFIG_UNMAPPED_CACHE_FAULT_INJECTION
DECLARE_FAULT_ATTR(fail_unmapped_cache_block);
DECLARE_FAULT_ATTR(fail_unmapped_cache_direct_map);
DECLARE_FAULT_ATTR(fail_unmapped_cache_vspace);
DECLARE_FAULT_ATTR(fail_unmapped_cache_magazine);
DECLARE_FAULT_ATTR(fail_unmapped_cache_page_held);
DECLARE_FAULT_ATTR(fail_unmapped_cache_gb_leaf);
DECLARE_FAULT_ATTR(fail_unmapped_cache_no_free_block);

bool unmapped_cache_should_fail_direct_map(void)
{
	return should_fail(&fail_unmapped_cache_direct_map,
			   UNMAPPED_CACHE_BLOCK_SIZE);
}

/* The fault points of the arenas and the magazines: true means "fail". */
bool uc_should_fail_vspace(unsigned long size)
{
	return should_fail(&fail_unmapped_cache_vspace, size);
}

bool uc_should_fail_magazine(void)
{
	return should_fail(&fail_unmapped_cache_magazine,
			   sizeof(struct uc_magazine));
}

bool uc_should_hold_page(void)
{
	return should_fail(&fail_unmapped_cache_page_held,
			   UNMAPPED_CACHE_BLOCK_SIZE);
}

/*
 * Whether a candidate block is taken to sit in an unsplit 1 GiB leaf:
 * -1 while the fault point is not armed (the direct map decides), else
 * its answer alone, 1 or 0, whatever the direct map says, so that a test
 * sees exactly the leaves it asked for even on a machine whose memory is
 * still mapped by 1 GiB entries (a block taken so splits its GiB, as the
 * cache would after passing over UC_BLOCK_GB_TRIES blocks).
 */
int uc_should_see_gb_leaf(void)
{
	if (!READ_ONCE(fail_unmapped_cache_gb_leaf.probability))
		return -1;
	return should_fail(&fail_unmapped_cache_gb_leaf,
			   UNMAPPED_CACHE_BLOCK_SIZE);
}

/* The page allocator is taken to have no free order-9 page. */
bool uc_should_find_no_free_block(void)
{
	return should_fail(&fail_unmapped_cache_no_free_block,
			   UNMAPPED_CACHE_BLOCK_SIZE);
}

static void __init uc_fault_debugfs_init(void)
{
	fault_create_debugfs_attr("fail_unmapped_cache_block", NULL,
				  &fail_unmapped_cache_block);
	fault_create_debugfs_attr("fail_unmapped_cache_direct_map", NULL,
				  &fail_unmapped_cache_direct_map);
	fault_create_debugfs_attr("fail_unmapped_cache_vspace", NULL,
				  &fail_unmapped_cache_vspace);
	fault_create_debugfs_attr("fail_unmapped_cache_magazine", NULL,
				  &fail_unmapped_cache_magazine);
	fault_create_debugfs_attr("fail_unmapped_cache_page_held", NULL,
				  &fail_unmapped_cache_page_held);
	fault_create_debugfs_attr("fail_unmapped_cache_gb_leaf", NULL,
				  &fail_unmapped_cache_gb_leaf);
	fault_create_debugfs_attr("fail_unmapped_cache_no_free_block", NULL,
				  &fail_unmapped_cache_no_free_block);
}
#else
static inline void uc_fault_debugfs_init(void) { }
#endif

static int __init unmapped_cache_init(void)
{
	int err;

	if (uc_off) {
		pr_info("off (unmapped_cache=off): users take their usual path\n");
		return 0;
	}
	if (!can_set_direct_map()) {
		pr_info("direct map cannot be changed, disabled\n");
		return 0;
	}
	/*
	 * debug_pagealloc maps the direct map with base pages only and
	 * unmaps every free page itself: there is no large entry to keep
	 * whole, and the cache would only hide its own pages from it.
	 */
	if (debug_pagealloc_enabled()) {
		pr_info("debug_pagealloc: no large direct-map entries to keep, disabled\n");
		return 0;
	}

	err = arch_unmapped_cache_init();
	if (err == -EOPNOTSUPP) {
		pr_info("not supported on this machine, disabled\n");
		return 0;
	}
	if (err) {
		pr_warn("architecture setup failed (%d), disabled\n", err);
		return 0;
	}
	if (uc_arenas_init() || uc_mag_init()) {
		pr_warn("no memory for the arenas, disabled\n");
		return 0;
	}
	if (uc_shrinker_init())
		pr_warn("no shrinker: free blocks are returned only on drain\n");
	uc_reap_init();

	uc_fault_debugfs_init();
	uc_debugfs_init(debugfs_create_dir("unmapped_cache", NULL));
	WRITE_ONCE(uc_enabled, true);
	if (uc_vmap_init())
		pr_warn("no execmem cache: execmem uses vmalloc\n");
	return 0;
}
subsys_initcall(unmapped_cache_init);
