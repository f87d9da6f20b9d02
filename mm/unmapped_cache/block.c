// SPDX-License-Identifier: GPL-2.0
/*
 * Blocks: the unit in which the unmapped cache takes memory from the page
 * allocator and removes it from the direct map.
 *
 * Direct-map lifecycle of a block
 * -------------------------------
 *
 * 1. uc_block_grab() allocates a page of order UNMAPPED_CACHE_BLOCK_ORDER on
 *    the requested node.  GFP_KERNEL is an unmovable allocation, so the
 *    block never comes from ZONE_MOVABLE or from a CMA pageblock.  Once
 *    kept (candidates may be passed over, below), it is zeroed, or filled
 *    with the byte the caller asks for (trap instructions for text), while
 *    the direct map still maps it; the candidates passed over are not.
 *    It is a free order-9 page if there is one, else one made by direct
 *    compaction, preferably outside 1 GiB direct-map leaves (see "Where a
 *    block comes from" below).
 * 2. split_page() turns it into order-0 pages with a reference count each,
 *    so that later owners can hold and drop single pages, and the cache
 *    takes one more reference on each (UC_PAGE_REFS in all), so that no
 *    put_page() but the release's can ever free one (below,
 *    "References").
 * 3. The block is recorded in uc_blocks, so that any pfn can be checked for
 *    belonging to the cache.
 * 4. arch_unmapped_cache_unmap_block() makes the one PMD-level entry that
 *    covers the block not present; CPA flushes the TLB of every CPU once,
 *    inside that call.  From here on no page of the block has a present
 *    direct-map entry.
 * 5. uc_block_release() checks that every page holds only the references
 *    taken in step 2, removes the block from uc_blocks, and calls
 *    arch_unmapped_cache_restore_block(), which makes the same PMD present
 *    again with the flags it had (on x86 without a TLB flush: nothing
 *    caches a not-present entry), and the block is cleared once more (the
 *    arenas scrubbed every chunk already; this keeps a missed scrub of a
 *    secret page from reaching the page allocator).  Only then are the
 *    pages freed: the page allocator never sees a page without its
 *    direct-map entry.  The restore
 *    cannot fail (see the arch code); if it ever did, the block is leaked
 *    with a warning, which is survivable, instead of freed while unmapped,
 *    which is not.
 * 6. An owner that is done with a block hands it to uc_block_retire().  A
 *    page of it may hold a reference somebody else took for a moment (a
 *    pfn walker's get_page_unless_zero(), for instance): then the block
 *    waits on uc_deferred_list, still out of the direct map and still
 *    counted as held, and a worker retries the release every
 *    UC_BLOCK_RETRY_DELAY until the reference is gone.  A block never
 *    belongs to nobody.
 * 7. A block with a hardware-poisoned page (memory_failure() flagged a page
 *    the cache held, see arena.c) is never restored: its direct-map entry
 *    would map the bad page again, and the clear before the free would
 *    touch it.  Its release keeps it on uc_poisoned_list instead, held
 *    and out of the direct map for good (uc_blocks_poisoned()); a drain
 *    looks at it again, so a block whose page an administrator unpoisoned
 *    goes back then.
 *
 * Held pages are counted per node in NR_UNMAPPED_CACHE_HELD
 * (nr_unmapped_cache_held in /proc/vmstat, UnmappedCache in /proc/meminfo)
 * from the grab to the free in step 5; a block leaked by a failed restore
 * stays counted, since it never goes back.  Blocks in and out are the
 * vmstat events unmapped_cache_blocks_{in,out}.
 *
 * Context: grab and release may sleep (CPA may allocate a page table to
 * split a 1 GiB entry, and flushes TLBs with IPIs), so both are for process
 * context only.  uc_blocks is an xarray and brings its own lock; the
 * counters are atomics.  Nothing here takes any other lock.
 */

#define pr_fmt(fmt) "unmapped_cache: " fmt

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/topology.h>
#include <linux/vmstat.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "internal.h"

/* Every block the cache holds, indexed by pfn >> UNMAPPED_CACHE_BLOCK_ORDER. */
static DEFINE_XARRAY(uc_blocks);

atomic_long_t uc_block_stats[UC_BLOCK_STAT_COUNT];

/*
 * Blocks whose release waits for a page's extra reference to go, linked
 * through block->list (the owner let go of it), and the worker retrying
 * them.  A block still busy after UC_BLOCK_RETRY_WARN tries (a minute)
 * gets a warning: somebody holds a page of the cache for good.
 */
#define UC_BLOCK_RETRY_DELAY	(HZ / 10)
#define UC_BLOCK_RETRY_WARN	600
static LIST_HEAD(uc_deferred_list);
static DEFINE_SPINLOCK(uc_deferred_lock);
static atomic_long_t uc_deferred_nr;
/* Blocks kept for a poisoned page, under uc_deferred_lock too. */
static LIST_HEAD(uc_poisoned_list);

/* The ->private of every page of a block that is not a round handed out. */
const int uc_page_free_tag;
static atomic_long_t uc_poisoned_nr;
static void uc_block_retry_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(uc_block_retry_work, uc_block_retry_fn);

const char *const uc_block_stat_names[] = {
	[UC_BLOCK_GRABBED]		= "blocks grabbed",
	[UC_BLOCK_RELEASED]		= "blocks released",
	[UC_BLOCK_ALLOC_FAILED]		= "block allocations failed",
	[UC_BLOCK_UNMAP_FAILED]		= "direct-map removals failed",
	[UC_BLOCK_META_FAILED]		= "metadata allocations failed",
	[UC_BLOCK_RELEASE_REFUSED]	= "releases refused",
	[UC_BLOCK_RELEASE_DEFERRED]	= "releases deferred (page busy)",
	[UC_BLOCK_RESTORE_FAILED]	= "restores failed (leaked)",
	[UC_BLOCK_POISON_KEPT]		= "blocks kept for a poisoned page",
	[UC_BLOCK_PAGES_IN]		= "pages from page allocator",
	[UC_BLOCK_PAGES_OUT]		= "pages to page allocator",
	[UC_BLOCK_COMPACTED]		= "blocks found by direct compaction",
	[UC_BLOCK_GB_SPARED]		= "1G leaves spared by passing over a block",
	[UC_BLOCK_PASSED_OVER]		= "blocks passed over in 1G leaves",
	[UC_BLOCK_GB_SPLIT]		= "blocks taken from a 1G leaf",
};

static_assert(ARRAY_SIZE(uc_block_stat_names) == UC_BLOCK_STAT_COUNT);

static inline void uc_block_count(enum uc_block_stat item, long nr)
{
	atomic_long_add(nr, &uc_block_stats[item]);
}

static unsigned long uc_block_index(unsigned long pfn)
{
	return pfn >> UNMAPPED_CACHE_BLOCK_ORDER;
}

/*
 * Where a block comes from.
 *
 * Compaction: a block is first asked for without direct reclaim, so that
 * a free order-9 page is taken as it is (kswapd and kcompactd are woken
 * when there is none).  Only then is it asked for with direct reclaim and
 * compaction, __GFP_RETRY_MAYFAIL, and only by a grab whose @gfp allows it
 * (the arenas' refill worker, see arena.c, and a caller that passes
 * __GFP_RETRY_MAYFAIL itself): the page allocator migrates movable pages
 * out of a pageblock, escalating from asynchronous to synchronous
 * compaction, as long as that makes progress, and fails rather than call
 * the OOM killer.  __GFP_NORETRY would give up after one asynchronous
 * pass, which finds nothing once free memory is scattered over every
 * pageblock (the blocks job of make check scatters it so).  A block found
 * so is counted (UC_BLOCK_COMPACTED, the vmstat event
 * unmapped_cache_refill_compact).  A grab that may not compact fails
 * with -EAGAIN when no free order-9 page is there; the arena then leaves
 * the refill to its worker and its caller takes the stock path this once
 * (unmapped_cache_refill_failed).
 *
 * 1 GiB leaves: a block inside a part of the direct map still mapped by
 * a 1 GiB entry splits that entry into 512 PMDs when it leaves the direct
 * map (a level-3 split, for good).  A block that would do so is passed
 * over, kept while up to UC_BLOCK_GB_TRIES more are asked for (without
 * direct reclaim, so that the search costs no compaction), so that the
 * page allocator does not hand the same one back; the first block in a
 * GiB that is split already is taken, and the others go back at once.
 * Only if every one of them sits in a 1 GiB leaf is the first one taken,
 * and the split happens.
 */
static struct page *uc_block_alloc_one(int nid, gfp_t gfp)
{
	return alloc_pages_node(nid, gfp | __GFP_THISNODE | __GFP_NOWARN,
				UNMAPPED_CACHE_BLOCK_ORDER);
}

static bool uc_block_in_gb_leaf(struct page *page)
{
	int fault = uc_should_see_gb_leaf();

	return fault < 0 ? arch_unmapped_cache_block_splits(page) : fault;
}

static struct page *uc_block_find(int nid, gfp_t gfp)
{
	const gfp_t gfp_free = GFP_KERNEL & ~__GFP_DIRECT_RECLAIM;
	struct page *passed[UC_BLOCK_GB_TRIES + 1];
	struct page *page;
	int i, n = 0;

#ifdef CONFIG_UNMAPPED_CACHE_FAULT_INJECTION
	if (should_fail(&fail_unmapped_cache_block, UNMAPPED_CACHE_BLOCK_SIZE))
		return ERR_PTR(-ENOMEM);
#endif
	page = uc_should_find_no_free_block() ? NULL :
					     uc_block_alloc_one(nid, gfp_free);
	if (!page) {
		/* Compaction only where the grab allows it (see above). */
		if (!(gfp & __GFP_RETRY_MAYFAIL))
			return ERR_PTR(-EAGAIN);
		page = uc_block_alloc_one(nid, GFP_KERNEL | __GFP_RETRY_MAYFAIL);
		if (!page)
			return ERR_PTR(-ENOMEM);
		uc_block_count(UC_BLOCK_COMPACTED, 1);
		count_vm_event(UNMAPPED_CACHE_REFILL_COMPACT);
	}

	while (page && uc_block_in_gb_leaf(page)) {
		passed[n++] = page;
		page = n <= UC_BLOCK_GB_TRIES ? uc_block_alloc_one(nid, gfp_free) :
						NULL;
	}
	if (page && n)
		uc_block_count(UC_BLOCK_GB_SPARED, 1);
	if (!page) {
		/* Every candidate sits in a 1 GiB leaf: split the first one's. */
		page = passed[0];
		passed[0] = NULL;
		uc_block_count(UC_BLOCK_GB_SPLIT, 1);
	}
	for (i = 0; i < n; i++) {
		if (!passed[i])
			continue;
		__free_pages(passed[i], UNMAPPED_CACHE_BLOCK_ORDER);
		uc_block_count(UC_BLOCK_PASSED_OVER, 1);
	}
	return page;
}

static struct page *uc_block_alloc_pages(int nid, int fill, gfp_t gfp)
{
	struct page *page = uc_block_find(nid, gfp);

	if (IS_ERR(page))
		return page;

	uc_block_count(UC_BLOCK_PAGES_IN, UNMAPPED_CACHE_BLOCK_PAGES);
	/*
	 * Only the block kept is filled, not the candidates passed over; the
	 * page allocator zeroed it already if init_on_alloc is on.
	 */
	if (fill || !want_init_on_alloc(GFP_KERNEL))
		memset(page_address(page), fill, UNMAPPED_CACHE_BLOCK_SIZE);
	split_page(page, UNMAPPED_CACHE_BLOCK_ORDER);
	return page;
}

/* Pages must be mapped in the direct map again before they get here. */
static void uc_block_free_pages(struct page *page)
{
	unsigned long i;

	for (i = 0; i < UNMAPPED_CACHE_BLOCK_PAGES; i++) {
		uc_page_tag(page + i, NULL);
		page_ref_sub(page + i, UC_PAGE_REFS - 1);
		__free_page(page + i);
	}
	uc_block_count(UC_BLOCK_PAGES_OUT, UNMAPPED_CACHE_BLOCK_PAGES);
}

/**
 * __uc_block_grab() - Take a block out of the page allocator and direct map.
 * @nid:  node to take it from, or NUMA_NO_NODE for the local memory node.
 * @fill: byte every byte of the block is set to before it leaves the direct
 *        map (0, or the architecture's trap instruction for text).
 * @gfp:  GFP_KERNEL to take a free order-9 page only, or GFP_KERNEL |
 *        __GFP_RETRY_MAYFAIL to let the page allocator reclaim and compact
 *        for one (see "Where a block comes from" above).
 *
 * Context: Process context; may sleep.
 * Return: the block, filled and removed from the direct map, or an
 * ERR_PTR(): -EAGAIN if there was no free order-9 page and @gfp did not
 * allow compaction, another error otherwise; nothing is held on failure.
 */
struct uc_block *__uc_block_grab(int nid, int fill, gfp_t gfp)
{
	struct uc_block *block;
	struct page *page;
	unsigned long i;
	int err;

	if (nid == NUMA_NO_NODE)
		nid = numa_mem_id();
	if (uc_refuse(nid < 0 || nid >= MAX_NUMNODES))
		return ERR_PTR(-EINVAL);
	if (!node_state(nid, N_MEMORY)) {
		uc_block_count(UC_BLOCK_ALLOC_FAILED, 1);
		return ERR_PTR(-ENOMEM);
	}

	block = kzalloc_node(sizeof(*block), GFP_KERNEL, nid);
	if (!block) {
		uc_block_count(UC_BLOCK_META_FAILED, 1);
		return ERR_PTR(-ENOMEM);
	}

	page = uc_block_alloc_pages(nid, fill, gfp);
	if (IS_ERR(page)) {
		uc_block_count(UC_BLOCK_ALLOC_FAILED, 1);
		err = PTR_ERR(page);
		goto err_free_block;
	}
	block->page = page;
	block->nid = nid;
	INIT_LIST_HEAD(&block->list);
	for (i = 0; i < UNMAPPED_CACHE_BLOCK_PAGES; i++) {
		uc_page_tag(page + i, (void *)UC_PAGE_FREE);
		page_ref_add(page + i, UC_PAGE_REFS - 1);
	}

	err = xa_insert(&uc_blocks, uc_block_index(page_to_pfn(page)), block,
			GFP_KERNEL);
	if (err) {
		uc_block_count(UC_BLOCK_META_FAILED, 1);
		goto err_free_pages;
	}

	err = arch_unmapped_cache_unmap_block(page, &block->arch_state);
	if (err) {
		uc_block_count(UC_BLOCK_UNMAP_FAILED, 1);
		goto err_erase;
	}

	uc_block_count(UC_BLOCK_GRABBED, 1);
	mod_node_page_state(NODE_DATA(nid), NR_UNMAPPED_CACHE_HELD,
			    UNMAPPED_CACHE_BLOCK_PAGES);
	count_vm_event(UNMAPPED_CACHE_BLOCK_IN);
	return block;

err_erase:
	xa_erase(&uc_blocks, uc_block_index(page_to_pfn(page)));
err_free_pages:
	uc_block_free_pages(page);
err_free_block:
	/* Found by a lockless uc_block_lookup() while it was in uc_blocks. */
	kfree_rcu(block, rcu);
	return ERR_PTR(err);
}

/**
 * uc_block_grab() - Take a block, compacting for it if need be.
 * @nid:  as for __uc_block_grab().
 * @fill: as for __uc_block_grab().
 *
 * __uc_block_grab() with reclaim and compaction allowed, for the tests and
 * debugfs exercises that ask for blocks themselves.
 *
 * Context: Process context; may sleep.
 * Return: the block, or NULL; nothing is held on failure.
 */
struct uc_block *uc_block_grab(int nid, int fill)
{
	struct uc_block *block;

	block = __uc_block_grab(nid, fill, GFP_KERNEL | __GFP_RETRY_MAYFAIL);
	return IS_ERR(block) ? NULL : block;
}

/*
 * References
 * ----------
 * Every page of a block holds UC_PAGE_REFS references while the cache has
 * it (internal.h), and a NONE page handed out one more, its owner's.  The
 * count therefore never drops to zero but in uc_block_release(), and no
 * page of the cache ever reaches the page allocator's free path.  Others
 * may take a reference for a moment (a page-cache lookup, a pfn walker's
 * get_page_unless_zero()), so the cache hands a NONE page out only once
 * page_ref_freeze() shows that nobody else holds it: a page its owner gave
 * back while still referenced waits on the arena's settling list, and is
 * taken from there by a later allocation, or returned to the tree by a
 * drain, a reap or the shrinker, once its count is back to UC_PAGE_REFS.
 * A count below that is a stray put_page(): the cache warns (uc_refuse())
 * and puts the reference back, so the page is neither lost nor freed.
 */

/**
 * uc_page_refs_repair() - Repair a count that a stray put_page() lowered.
 * @page:  a page of a block the cache holds.
 * @extra: references the cache expects on top of UC_PAGE_REFS (1 for a
 *         NONE page handed out, else 0).
 *
 * Context: Any context.
 * Return: true if the count was too low: it was warned about and raised to
 * what it should be.  A count of zero cannot be repaired (the page went to
 * the page allocator); that is warned about too and left alone.
 */
bool uc_page_refs_repair(struct page *page, int extra)
{
	int want = UC_PAGE_REFS + extra, refs = page_ref_count(page);

	if (likely(refs >= want))
		return false;
	if (uc_refuse(true) && refs > 0)
		page_ref_add(page, want - refs);
	pr_warn("page at pfn %#lx had %d references, %d expected%s\n",
		page_to_pfn(page), refs, want, refs > 0 ? ": repaired" : "");
	return true;
}

/*
 * The release proper; -EBUSY (a page has another reference) without a
 * warning, for uc_block_retire() to try again later.
 */
static int uc_block_try_release(struct uc_block *block)
{
	unsigned long index, i;
	struct page *page;
	int err;

	if (uc_refuse(!block || !block->page))
		goto err_refuse;
	page = block->page;
	index = uc_block_index(page_to_pfn(page));
	if (uc_refuse(xa_load(&uc_blocks, index) != block))
		goto err_refuse;

	/*
	 * A block with a poisoned page is kept whoever holds that page:
	 * memory_failure() may keep its reference for good, and a release
	 * waiting for it would be retried forever.
	 */
	if (uc_pages_poisoned(page, UNMAPPED_CACHE_BLOCK_PAGES))
		return -EHWPOISON;
	for (i = 0; i < UNMAPPED_CACHE_BLOCK_PAGES; i++) {
		/* A stray put_page() is repaired; a count of 0 is a lost page. */
		uc_page_refs_repair(page + i, 0);
		if (page_ref_count(page + i) != UC_PAGE_REFS)
			return page_ref_count(page + i) ? -EBUSY : -EINVAL;
	}

	/* A concurrent release of the same block loses here. */
	if (uc_refuse(xa_cmpxchg(&uc_blocks, index, block, NULL, 0) != block))
		goto err_refuse;

	err = arch_unmapped_cache_restore_block(page, block->arch_state);
	if (WARN_ON_ONCE(err)) {
		/* The pages stay out of the page allocator for good. */
		uc_block_count(UC_BLOCK_RESTORE_FAILED, 1);
		uc_block_count(UC_BLOCK_RELEASED, 1);
		kfree_rcu(block, rcu);
		return -EIO;
	}

	/*
	 * The arenas scrub every chunk they take back, so the block should be
	 * clean; clear it once more now that it is mapped again (a memset of
	 * 2 MiB), so that a missed scrub of a secret page can never reach the
	 * page allocator.
	 */
	for (i = 0; i < UNMAPPED_CACHE_BLOCK_PAGES; i++)
		clear_page(page_address(page + i));
	uc_block_free_pages(page);
	uc_block_count(UC_BLOCK_RELEASED, 1);
	mod_node_page_state(NODE_DATA(block->nid), NR_UNMAPPED_CACHE_HELD,
			    -UNMAPPED_CACHE_BLOCK_PAGES);
	count_vm_event(UNMAPPED_CACHE_BLOCK_OUT);
	kfree_rcu(block, rcu);
	return 0;

err_refuse:
	uc_block_count(UC_BLOCK_RELEASE_REFUSED, 1);
	return -EINVAL;
}

/**
 * uc_block_release() - Put a block back into the direct map and free it.
 * @block: a block returned by uc_block_grab().
 *
 * Every page of @block must be back with the cache: a page that somebody
 * else still holds a reference to makes the release refuse, and so does a
 * block that uc_block_grab() did not return (or that was released already).
 * Owners that let go of a block use uc_block_retire() instead, which
 * waits for such a reference to go.
 *
 * Context: Process context; may sleep.
 * Return: 0 when the block is back in the page allocator; -EINVAL for a
 * foreign or already released block, -EBUSY for a block with a page in use
 * (both with a warning, the cache is left as it was); -EHWPOISON for a
 * block with a hardware-poisoned page, left as it was; -EIO if the direct
 * map could not be restored, in which case the block is leaked on purpose.
 */
int uc_block_release(struct uc_block *block)
{
	int err = uc_block_try_release(block);

	if (err == -EBUSY) {
		uc_refuse(true);
		uc_block_count(UC_BLOCK_RELEASE_REFUSED, 1);
	}
	return err;
}

static void uc_block_defer(struct uc_block *block)
{
	spin_lock(&uc_deferred_lock);
	list_add_tail(&block->list, &uc_deferred_list);
	spin_unlock(&uc_deferred_lock);
	schedule_delayed_work(&uc_block_retry_work, UC_BLOCK_RETRY_DELAY);
}

/* Keep a block with a poisoned page for good (see the top of this file). */
static void uc_block_keep_poisoned(struct uc_block *block)
{
	uc_block_count(UC_BLOCK_POISON_KEPT, 1);
	atomic_long_inc(&uc_poisoned_nr);
	spin_lock(&uc_deferred_lock);
	list_add_tail(&block->list, &uc_poisoned_list);
	spin_unlock(&uc_deferred_lock);
	pr_warn("block at pfn %#lx has a hardware-poisoned page: kept out of the direct map\n",
		page_to_pfn(block->page));
}

/*
 * The fault point fail_unmapped_cache_page_held: a page of a block being
 * retired is held for UC_HELD_DELAY by somebody else, the way a pfn walker's
 * get_page_unless_zero() holds one, so that the deferred release can be
 * watched from user space (debugfs "blocks waiting for a page").
 */
#define UC_HELD_DELAY	(HZ / 2)

struct uc_held_page {
	struct delayed_work work;
	struct page *page;
};

static void uc_held_page_put(struct work_struct *work)
{
	struct uc_held_page *held = container_of(to_delayed_work(work),
						 struct uc_held_page, work);

	put_page(held->page);
	kfree(held);
}

static void uc_block_maybe_hold_page(struct uc_block *block)
{
	struct uc_held_page *held;

	if (!uc_should_hold_page())
		return;
	held = kmalloc(sizeof(*held), GFP_KERNEL);
	if (!held)
		return;
	held->page = block->page + 1;
	get_page(held->page);
	INIT_DELAYED_WORK(&held->work, uc_held_page_put);
	schedule_delayed_work(&held->work, UC_HELD_DELAY);
}

/**
 * uc_block_retire() - Give a block back, now or once its pages are free.
 * @block: a block returned by uc_block_grab(), that its owner let go of
 *         (unlinked from its lists, no chunk in it).
 *
 * Like uc_block_release(), but a page that still has another reference
 * (taken by a pfn walker for a moment, say) does not leave the block lost:
 * it waits, out of the direct map and counted in uc_blocks_held(), and a
 * worker releases it once the reference is gone.
 *
 * Context: Process context; may sleep.
 */
void uc_block_retire(struct uc_block *block)
{
	int err;

	uc_block_maybe_hold_page(block);
	err = uc_block_try_release(block);

	if (err == -EHWPOISON)
		uc_block_keep_poisoned(block);
	if (err != -EBUSY)
		return;
	block->retries = 0;
	atomic_long_inc(&uc_deferred_nr);
	uc_block_count(UC_BLOCK_RELEASE_DEFERRED, 1);
	uc_block_defer(block);
}

static void uc_block_retry_fn(struct work_struct *work)
{
	struct uc_block *block, *next;
	LIST_HEAD(todo);
	int err;

	spin_lock(&uc_deferred_lock);
	list_splice_init(&uc_deferred_list, &todo);
	spin_unlock(&uc_deferred_lock);

	list_for_each_entry_safe(block, next, &todo, list) {
		list_del_init(&block->list);
		err = uc_block_try_release(block);
		if (err != -EBUSY) {
			atomic_long_dec(&uc_deferred_nr);
			if (err == -EHWPOISON)
				uc_block_keep_poisoned(block);
			continue;
		}
		WARN_ONCE(++block->retries == UC_BLOCK_RETRY_WARN,
			  "unmapped_cache: block at pfn %#lx still has a page in use after %u tries\n",
			  page_to_pfn(block->page), block->retries);
		uc_block_defer(block);
	}
}

/**
 * uc_blocks_retry() - Retry the deferred releases now, and wait for them.
 *
 * For the tests and the drain: releases every deferred block whose pages
 * are free by now, and every block kept for a poisoned page that has none
 * any more (unpoison_memory()); the others keep waiting.
 *
 * Context: Process context; may sleep.
 */
void uc_blocks_retry(void)
{
	struct uc_block *block, *next;
	LIST_HEAD(todo);

	spin_lock(&uc_deferred_lock);
	list_splice_init(&uc_poisoned_list, &todo);
	spin_unlock(&uc_deferred_lock);
	list_for_each_entry_safe(block, next, &todo, list) {
		if (uc_pages_poisoned(block->page, UNMAPPED_CACHE_BLOCK_PAGES))
			continue;
		list_del_init(&block->list);
		atomic_long_dec(&uc_poisoned_nr);
		uc_block_retire(block);
	}
	spin_lock(&uc_deferred_lock);
	list_splice(&todo, &uc_poisoned_list);
	spin_unlock(&uc_deferred_lock);

	mod_delayed_work(system_wq, &uc_block_retry_work, 0);
	flush_delayed_work(&uc_block_retry_work);
}

/**
 * uc_blocks_poisoned() - How many blocks are kept for a poisoned page.
 *
 * Return: blocks held out of the direct map for good because a page of
 * theirs is hardware-poisoned.
 */
long uc_blocks_poisoned(void)
{
	return atomic_long_read(&uc_poisoned_nr);
}

/**
 * uc_pages_poisoned() - Whether a page of a run is hardware-poisoned.
 * @page: the first page.
 * @nr:   pages.
 *
 * Costs one read of a global counter while no page of the machine is
 * poisoned, and nothing at all without CONFIG_MEMORY_FAILURE.
 *
 * Context: Any context.
 * Return: true if memory_failure() flagged a page of the run.
 */
bool uc_pages_poisoned(struct page *page, unsigned long nr)
{
	unsigned long i;

	if (!uc_poison_seen())
		return false;
	for (i = 0; i < nr; i++)
		if (PageHWPoison(page + i))
			return true;
	return false;
}

/**
 * uc_blocks_deferred() - How many blocks wait for a page to be free.
 *
 * Return: blocks whose release uc_block_retire() deferred and that are
 * not released yet.
 */
long uc_blocks_deferred(void)
{
	return atomic_long_read(&uc_deferred_nr);
}

/**
 * uc_block_lookup() - Find the block that holds a page frame.
 * @pfn: any page frame number.
 *
 * Context: Any context.  The block may be dereferenced only while the
 * caller keeps it from being released (for instance, by owning it) or
 * inside an RCU read-side critical section: released blocks are freed
 * after a grace period.
 * Return: the block whose pages include @pfn, or NULL.
 */
struct uc_block *uc_block_lookup(unsigned long pfn)
{
	return xa_load(&uc_blocks, uc_block_index(pfn));
}

#ifdef CONFIG_UNMAPPED_CACHE_TEST_HOOKS
/*
 * Classify one page's mapping in the module area against its arena's
 * permission: never writable and executable, never writable when RO or
 * ROX, never executable when RW.
 */
static void uc_verify_mapping(struct uc_verify *res, struct uc_arena *arena,
			      unsigned long addr)
{
	struct unmapped_cache_entry e;

	arch_unmapped_cache_lookup(addr, &e);
	if (!e.present)
		return;
	if (e.writable && e.exec)
		res->wx++;
	if (e.writable && arena->perm != UNMAPPED_CACHE_RW)
		res->ro_writable++;
	if (e.exec && arena->perm == UNMAPPED_CACHE_RW)
		res->rw_exec++;
}

/**
 * uc_blocks_verify() - Check every block held against the invariants.
 * @res: filled in with what was checked and what was wrong.
 *
 * No page of a block may have a present direct-map entry (the cache owns
 * it, I1), and where a block is placed in the module area its mapping must
 * keep W^X and the arena's permission (I4).  For debugfs and the tests.
 * The xarray lock is held throughout, so no block is released meanwhile;
 * a block that is being set up may not be mapped yet and counts only for
 * the direct map.  Fills in the block fields of @res and zeroes the
 * others (uc_vmaps_verify() adds the execmem mappings').
 *
 * Context: Process context.
 */
void uc_blocks_verify(struct uc_verify *res)
{
	struct unmapped_cache_entry e;
	struct uc_block *block;
	struct uc_arena *arena;
	unsigned long index, i;

	memset(res, 0, sizeof(*res));
	xa_lock(&uc_blocks);
	xa_for_each(&uc_blocks, index, block) {
		res->blocks++;
		arena = READ_ONCE(block->owner);
		for (i = 0; i < UNMAPPED_CACHE_BLOCK_PAGES; i++) {
			res->pages++;
			arch_unmapped_cache_lookup(uc_block_addr(block) +
						   i * PAGE_SIZE, &e);
			if (e.present)
				res->dm_present++;
			if (PageHWPoison(block->page + i))
				res->poisoned++;
			if (arena && arena->perm != UNMAPPED_CACHE_NONE &&
			    READ_ONCE(block->addr))
				uc_verify_mapping(res, arena, block->addr +
						  i * PAGE_SIZE);
		}
	}
	xa_unlock(&uc_blocks);
}
#endif
