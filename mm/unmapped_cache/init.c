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
 *    Files, in layers: a file calls only the files listed before it.
 *
 *      setup.c     boot parameter, fault points, tracepoints
 *      block.c     blocks and the direct map; a page's reference count
 *      range.c     the range tree
 *      arena.c     arenas: blocks mapped, chunks carved and freed
 *      magazine.c  per-CPU magazines and the depot
 *      cache.c     the public interface (struct unmapped_cache)
 *      vmap.c      cache pages mapped in a caller's range (execmem)
 *      shrinker.c  the shrinker, the reaper, drains
 *      pm.c        hibernation
 *      exercise.c  exercises and benchmarks driven through debugfs
 *      debug.c     statistics in debugfs
 *      init.c      this overview and the initcall that brings it all up
 *
 *    The reaper is armed by arena.c when a block comes in: arena.c holds
 *    its timer (struct uc_reaper), shrinker.c its work.
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
 *      uc_bench_lock (mutex, exercise.c: one benchmark at a time)
 *        uc_exercise_lock (mutex, exercise.c: the exercises and results;
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
#include <linux/init.h>
#include <linux/mm.h>
#include <linux/set_memory.h>
#include <linux/unmapped_cache.h>

#include "internal.h"

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
