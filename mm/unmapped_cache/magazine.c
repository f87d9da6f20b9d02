// SPDX-License-Identifier: GPL-2.0
/*
 * Magazines and the depot: the single-page fast path of every arena, after
 * Bonwick and Adams, "Magazines and Vmem" (USENIX 2001).
 *
 * A magazine is a stack of up to UC_MAG_ROUNDS single-page chunks (rounds)
 * of one arena.  Each CPU has, per arena, a loaded and a previous magazine;
 * the arena's depot keeps full and empty magazines for all CPUs.  Rounds
 * are busy chunks in the arena's range tree, owned by the magazine layer
 * (UC_OWNER_MAG); the cache a round is handed to is recorded in the page's
 * ->private field instead, which only the freeing CPU touches, so that a
 * free through the wrong cache or a second free is still caught.
 *
 * Allocation (uc_mag_alloc()), with only this CPU's local lock held:
 *   1. the loaded magazine has a round: take it;
 *   2. the previous magazine is full: swap it with the loaded one, take;
 *   3. the depot has a full magazine: give it the previous (empty) one,
 *      previous = loaded, loaded = the full one, take;
 *   4. otherwise miss: the caller takes a page from the arena.
 *
 * Free (uc_mag_free()), the mirror image:
 *   1. the loaded magazine has room: push;
 *   2. the previous magazine is empty: swap, push;
 *   3. the depot has an empty magazine (or one can be allocated without
 *      sleeping): give it the previous (full) one, previous = loaded,
 *      loaded = the empty one, push;
 *   4. otherwise the caller frees the page to the arena.
 *
 * Steps 1 and 2 touch nothing shared: no lock but this CPU's, no atomic.
 * Steps 3 take the depot lock, once per UC_MAG_ROUNDS pages at most.
 *
 * Every page in a magazine, the depot or the range tree is clean: a freed
 * page is scrubbed before it is pushed (a NONE page cleared through the
 * freeing CPU's temporary mapping, one local TLB invalidation), so an
 * allocation never clears and nothing here ever holds a former owner's
 * data.
 *
 * Working set and reaping: the depot remembers the fewest full and empty
 * magazines it held since the last reap (min_full, min_empty).  Those were
 * not needed in that interval, so uc_depot_reap() gives back exactly that
 * many (rounds to the arena, magazines to the slab allocator), and the
 * shrinker then returns the blocks that became entirely free.
 * uc_mag_drain() empties everything: every CPU's magazines and the depot.
 *
 * Draining (uc_mag_drain(), the shrinker, the reaper) runs a work item on
 * each CPU that holds a magazine, which takes the magazines off under that
 * CPU's local lock: no IPI, and no CPU touches another's magazines but
 * for a dead one's (the CPU hotplug callback).
 *
 * Lock order: uc_mag_flush_lock (drains), this CPU's local lock, then
 * depot->lock.  The arena's locks are taken with neither of the last two
 * held.
 */

#define pr_fmt(fmt) "unmapped_cache: " fmt

#include <linux/cpuhotplug.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched/isolation.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/smp.h>
#include <linux/workqueue.h>

#include "internal.h"

#include <trace/events/unmapped_cache.h>

const char *const uc_mag_stat_names[] = {
	[UC_MAG_ALLOC_HIT]	= "magazine alloc hits",
	[UC_MAG_ALLOC_MISS]	= "magazine alloc misses",
	[UC_MAG_FREE_HIT]	= "magazine free hits",
	[UC_MAG_FREE_MISS]	= "magazine free misses",
};

static_assert(ARRAY_SIZE(uc_mag_stat_names) == UC_MAG_STAT_COUNT);

const char *const uc_depot_stat_names[] = {
	[UC_DEPOT_LOCKED]	= "depot lock acquisitions",
	[UC_DEPOT_FULL_OUT]	= "depot full magazines handed out",
	[UC_DEPOT_FULL_IN]	= "depot full magazines taken back",
	[UC_DEPOT_REAPED]	= "depot magazines reaped",
};

static_assert(ARRAY_SIZE(uc_depot_stat_names) == UC_DEPOT_STAT_COUNT);

static enum cpuhp_state uc_mag_cpuhp_state;

static struct uc_magazine *uc_magazine_new(gfp_t gfp)
{
	struct uc_magazine *mag;

	if (uc_should_fail_magazine())
		return NULL;
	mag = kmalloc(sizeof(*mag), gfp);

	if (mag) {
		mag->rounds = 0;
		INIT_LIST_HEAD(&mag->list);
	}
	return mag;
}

static void uc_magazine_push(struct uc_magazine *mag, unsigned long addr,
			     struct page *page)
{
	mag->addr[mag->rounds] = addr;
	mag->page[mag->rounds++] = page;
}

/*
 * The depot's statistics and a CPU's count of rounds are written under
 * their lock and read without it (debugfs, the shrinker's count): marked
 * writes, so that the readers' READ_ONCE() sees no torn value (KCSAN).
 */
static void uc_depot_stat_inc(struct uc_depot *depot, enum uc_depot_stat item)
{
	WRITE_ONCE(depot->stats[item], depot->stats[item] + 1);
}

static void uc_mag_rounds_add(struct uc_mag_cpu *mc, long nr)
{
	WRITE_ONCE(mc->rounds, mc->rounds + nr);
}

/* Take a magazine off a depot list.  Context: depot->lock held. */
static struct uc_magazine *uc_depot_take_locked(struct uc_depot *depot,
						bool full)
{
	struct list_head *head = full ? &depot->full : &depot->empty;
	unsigned long *nr = full ? &depot->nr_full : &depot->nr_empty;
	unsigned long *min = full ? &depot->min_full : &depot->min_empty;
	struct uc_magazine *mag;

	lockdep_assert_held(&depot->lock);
	mag = list_first_entry_or_null(head, struct uc_magazine, list);
	if (!mag)
		return NULL;
	list_del_init(&mag->list);
	WRITE_ONCE(*nr, *nr - 1);
	if (*nr < *min)
		*min = *nr;
	return mag;
}

/*
 * Put a magazine into the depot: full and empty ones where CPUs find them,
 * partly used ones (flushed from a CPU) on the list only reaping empties.
 */
static void uc_depot_put_locked(struct uc_depot *depot, struct uc_magazine *mag)
{
	lockdep_assert_held(&depot->lock);
	if (mag->rounds && mag->rounds != UC_MAG_ROUNDS) {
		list_add(&mag->list, &depot->partial);
		WRITE_ONCE(depot->partial_rounds,
			   depot->partial_rounds + mag->rounds);
		return;
	}
	if (mag->rounds) {
		list_add(&mag->list, &depot->full);
		WRITE_ONCE(depot->nr_full, depot->nr_full + 1);
		uc_depot_stat_inc(depot, UC_DEPOT_FULL_IN);
	} else {
		list_add(&mag->list, &depot->empty);
		WRITE_ONCE(depot->nr_empty, depot->nr_empty + 1);
	}
}

/* Take the depot lock and count it (the fast path must never get here). */
static void uc_depot_lock(struct uc_depot *depot, unsigned long *flags)
	__acquires(&depot->lock)
{
	spin_lock_irqsave(&depot->lock, *flags);
	uc_depot_stat_inc(depot, UC_DEPOT_LOCKED);
}

/**
 * uc_mag_alloc() - Take a single-page chunk from this CPU's magazines.
 * @arena: the arena.
 * @pagep: set to the chunk's page on a hit.
 *
 * Context: Any context.
 * Return: the chunk's address, or 0 on a miss (the caller then allocates
 * one page from the arena with uc_arena_alloc()).
 */
unsigned long uc_mag_alloc(struct uc_arena *arena, struct page **pagep)
{
	struct uc_depot *depot = &arena->depot;
	struct uc_magazine *full = NULL;
	unsigned long flags, dflags, addr;
	struct uc_mag_cpu *mc;

	local_lock_irqsave(&arena->mags->lock, flags);
	mc = this_cpu_ptr(arena->mags);

	/* 1. The loaded magazine has a round. */
	if (mc->loaded && mc->loaded->rounds)
		goto take;
	/* 2. The previous one (always full or empty) is full: swap. */
	if (mc->previous && mc->previous->rounds) {
		swap(mc->loaded, mc->previous);
		goto take;
	}
	/* 3. Both are empty: trade the previous one for a full one. */
	if (!READ_ONCE(depot->nr_full))
		goto miss;
	uc_depot_lock(depot, &dflags);
	full = uc_depot_take_locked(depot, true);
	if (full) {
		uc_depot_stat_inc(depot, UC_DEPOT_FULL_OUT);
		if (mc->previous)
			uc_depot_put_locked(depot, mc->previous);
	}
	spin_unlock_irqrestore(&depot->lock, dflags);
	if (!full)
		goto miss;
	trace_unmapped_cache_depot(arena->nid, arena->perm,
				   UC_TRACE_DEPOT_REFILL, full->rounds);
	mc->previous = mc->loaded;
	mc->loaded = full;
	uc_mag_rounds_add(mc, full->rounds);

take:
	mc->loaded->rounds--;
	addr = mc->loaded->addr[mc->loaded->rounds];
	*pagep = mc->loaded->page[mc->loaded->rounds];
	uc_mag_rounds_add(mc, -1);
	__this_cpu_inc(arena->mags->stats[UC_MAG_ALLOC_HIT]);
	local_unlock_irqrestore(&arena->mags->lock, flags);
	return addr;

miss:
	__this_cpu_inc(arena->mags->stats[UC_MAG_ALLOC_MISS]);
	local_unlock_irqrestore(&arena->mags->lock, flags);
	return 0;
}

/*
 * An empty magazine for this CPU: one from the depot, or a new one.
 * Context: this CPU's local lock held.
 */
static struct uc_magazine *uc_mag_get_empty(struct uc_depot *depot)
{
	struct uc_magazine *empty = NULL;
	unsigned long dflags;

	if (READ_ONCE(depot->nr_empty)) {
		uc_depot_lock(depot, &dflags);
		empty = uc_depot_take_locked(depot, false);
		spin_unlock_irqrestore(&depot->lock, dflags);
	}
	return empty ?: uc_magazine_new(GFP_ATOMIC | __GFP_NOWARN);
}

/**
 * uc_mag_free() - Give a single-page chunk back to this CPU's magazines.
 * @arena: the arena.
 * @addr:  the chunk; untagged (uc_page_untag()) and scrubbed already.
 * @page:  its page.
 *
 * Context: Any context.
 * Return: true when the round is in a magazine; false when the magazines
 * are full and no empty one could be had: the caller scrubs it (if it has
 * not) and frees it to the arena.
 */
bool uc_mag_free(struct uc_arena *arena, unsigned long addr, struct page *page)
{
	struct uc_depot *depot = &arena->depot;
	struct uc_magazine *empty;
	unsigned long flags, dflags;
	struct uc_mag_cpu *mc;

	local_lock_irqsave(&arena->mags->lock, flags);
	mc = this_cpu_ptr(arena->mags);

	/* 1. The loaded magazine has room. */
	if (mc->loaded && mc->loaded->rounds < UC_MAG_ROUNDS)
		goto push;
	/* 2. The previous one (always full or empty) is empty: swap. */
	if (mc->previous && !mc->previous->rounds) {
		swap(mc->loaded, mc->previous);
		goto push;
	}
	/* 3. Both are full (or missing): trade the previous one for an empty one. */
	empty = uc_mag_get_empty(depot);
	if (!empty) {
		__this_cpu_inc(arena->mags->stats[UC_MAG_FREE_MISS]);
		local_unlock_irqrestore(&arena->mags->lock, flags);
		return false;
	}
	if (mc->previous) {
		uc_mag_rounds_add(mc, -mc->previous->rounds);
		trace_unmapped_cache_depot(arena->nid, arena->perm,
					   UC_TRACE_DEPOT_PUT,
					   mc->previous->rounds);
		uc_depot_lock(depot, &dflags);
		uc_depot_put_locked(depot, mc->previous);
		spin_unlock_irqrestore(&depot->lock, dflags);
	}
	mc->previous = mc->loaded;
	mc->loaded = empty;

push:
	uc_magazine_push(mc->loaded, addr, page);
	uc_mag_rounds_add(mc, 1);
	__this_cpu_inc(arena->mags->stats[UC_MAG_FREE_HIT]);
	local_unlock_irqrestore(&arena->mags->lock, flags);
	return true;
}

/* Give every round of @mag back to the arena and free the magazine. */
static void uc_magazine_destroy(struct uc_arena *arena, struct uc_magazine *mag)
{
	while (mag->rounds)
		uc_arena_free_round(arena, mag->addr[--mag->rounds]);
	kfree(mag);
}

/*
 * Give back the magazines the depot did not need since the last reap (all
 * of them with @all), and start a new interval.
 */
static unsigned long uc_depot_reap(struct uc_arena *arena, bool all)
{
	struct uc_depot *depot = &arena->depot;
	unsigned long flags, nr_full, nr_empty, pages = 0;
	struct uc_magazine *mag, *next;
	LIST_HEAD(reaped);

	uc_depot_lock(depot, &flags);
	nr_full = all ? depot->nr_full : depot->min_full;
	nr_empty = all ? depot->nr_empty : depot->min_empty;
	while (nr_full--) {
		mag = uc_depot_take_locked(depot, true);
		if (!mag)
			break;
		list_add(&mag->list, &reaped);
	}
	while (nr_empty--) {
		mag = uc_depot_take_locked(depot, false);
		if (!mag)
			break;
		list_add(&mag->list, &reaped);
	}
	if (all) {
		list_splice_init(&depot->partial, &reaped);
		WRITE_ONCE(depot->partial_rounds, 0);
	}
	depot->min_full = depot->nr_full;
	depot->min_empty = depot->nr_empty;
	list_for_each_entry(mag, &reaped, list)
		uc_depot_stat_inc(depot, UC_DEPOT_REAPED);
	spin_unlock_irqrestore(&depot->lock, flags);

	list_for_each_entry_safe(mag, next, &reaped, list) {
		pages += mag->rounds;
		uc_magazine_destroy(arena, mag);
	}
	if (pages)
		trace_unmapped_cache_depot(arena->nid, arena->perm,
					   UC_TRACE_DEPOT_REAP, pages);
	return pages;
}

/*
 * Take the magazines off a CPU (under its local lock, or for a dead CPU),
 * then put them into the depot with no per-CPU lock held.
 */
static void uc_mag_detach(struct uc_mag_cpu *mc, struct uc_magazine **mags)
{
	mags[0] = mc->loaded;
	mags[1] = mc->previous;
	mc->loaded = NULL;
	mc->previous = NULL;
	WRITE_ONCE(mc->rounds, 0);
}

static void uc_mag_put_detached(struct uc_arena *arena,
				struct uc_magazine **mags)
{
	unsigned long flags;
	int i;

	uc_depot_lock(&arena->depot, &flags);
	for (i = 0; i < 2; i++)
		if (mags[i])
			uc_depot_put_locked(&arena->depot, mags[i]);
	spin_unlock_irqrestore(&arena->depot.lock, flags);
}

/* A dead CPU's magazines: nothing runs there any more, no lock needed. */
static void uc_mag_flush_dead_cpu(int cpu)
{
	struct uc_magazine *mags[2];
	struct uc_arena *arena;

	list_for_each_entry(arena, &uc_arena_list, node) {
		uc_mag_detach(per_cpu_ptr(arena->mags, cpu), mags);
		uc_mag_put_detached(arena, mags);
	}
}

/*
 * Draining the CPUs' magazines: a work item per CPU, queued on that CPU,
 * which takes the magazines off under the CPU's local lock, as the fast
 * path does.  Neither an IPI nor any access to another CPU's magazines:
 * under PREEMPT_RT the depot lock sleeps and local_lock_irqsave() leaves
 * interrupts on, so neither could be taken in an IPI handler.  Drains are
 * serialised by uc_mag_flush_lock (the work items are per CPU, not per
 * drain); the workqueue has a rescuer, since the shrinker drains from
 * reclaim.  A work item that finds itself on another CPU (its CPU went
 * offline after it was queued, and the workqueue ran it elsewhere) does
 * nothing: the CPU's dead callback gives its magazines back.
 */
struct uc_mag_flush {
	struct work_struct work;
	struct uc_arena *arena;		/* NULL: every arena of @nid */
	int nid;			/* NUMA_NO_NODE: of every node */
	int cpu;
	bool queued;
};

static DEFINE_PER_CPU(struct uc_mag_flush, uc_mag_flush_work);
static DEFINE_MUTEX(uc_mag_flush_lock);
static struct workqueue_struct *uc_mag_wq;
static atomic_long_t uc_mag_flushes;

/* CPUs asked to flush their magazines so far (debugfs "blocks"). */
unsigned long uc_mag_flushes_sent(void)
{
	return atomic_long_read(&uc_mag_flushes);
}

static void uc_mag_flush_local(struct uc_arena *arena, int cpu)
{
	struct uc_magazine *mags[2];
	unsigned long flags;

	local_lock_irqsave(&arena->mags->lock, flags);
	if (smp_processor_id() != cpu) {
		local_unlock_irqrestore(&arena->mags->lock, flags);
		return;
	}
	uc_mag_detach(this_cpu_ptr(arena->mags), mags);
	local_unlock_irqrestore(&arena->mags->lock, flags);
	uc_mag_put_detached(arena, mags);
}

static void uc_mag_flush_fn(struct work_struct *work)
{
	struct uc_mag_flush *f = container_of(work, struct uc_mag_flush, work);
	struct uc_arena *arena;

	if (f->arena) {
		uc_mag_flush_local(f->arena, f->cpu);
		return;
	}
	list_for_each_entry(arena, &uc_arena_list, node)
		if (f->nid == NUMA_NO_NODE || arena->nid == f->nid)
			uc_mag_flush_local(arena, f->cpu);
}

/*
 * Whether @cpu holds a magazine of @arena, full or empty.  An empty loaded
 * magazine counts: a free pushes into it without asking for a new one, so a
 * drain that left it would leave the CPU's fast path armed.  Racy, a hint
 * only: the CPU changes its pointers under its own local lock.
 */
static bool uc_mag_cpu_holds(struct uc_arena *arena, int cpu)
{
	struct uc_mag_cpu *mc = per_cpu_ptr(arena->mags, cpu);

	return READ_ONCE(mc->rounds) ||
	       data_race(mc->loaded || mc->previous);	/* a hint, see above */
}

/*
 * uc_mag_cpu_holds() for @arena, or if @arena is NULL for any arena of
 * @nid (of any node if @nid is NUMA_NO_NODE).
 */
static bool uc_mag_cpu_has_mags(struct uc_arena *arena, int nid, int cpu)
{
	struct uc_arena *a;

	if (arena)
		return uc_mag_cpu_holds(arena, cpu);
	list_for_each_entry(a, &uc_arena_list, node)
		if ((nid == NUMA_NO_NODE || a->nid == nid) &&
		    uc_mag_cpu_holds(a, cpu))
			return true;
	return false;
}

/*
 * Whether a flush may ask @cpu: online, and with @housekeeping (reclaim's
 * drains) not isolated.  The shrinker's count of what a drain would give
 * back (uc_mag_drainable_rounds()) asks the same.
 */
static bool uc_mag_cpu_flushable(int cpu, bool housekeeping)
{
	return cpu_online(cpu) && !(housekeeping && cpu_is_isolated(cpu));
}

/*
 * Flush the magazines of @arena (or of all arenas of @nid, see
 * uc_mag_cpu_has_mags()) on every online CPU that holds one of them, and
 * wait; with @housekeeping, not on isolated CPUs (cpu_is_isolated()),
 * which keep theirs.  Returns the number of CPUs asked.
 */
static unsigned int uc_mag_flush_cpus(struct uc_arena *arena, int nid,
				      bool housekeeping)
{
	struct uc_mag_flush *f;
	unsigned int asked = 0;
	int cpu;

	mutex_lock(&uc_mag_flush_lock);
	for_each_possible_cpu(cpu) {
		f = per_cpu_ptr(&uc_mag_flush_work, cpu);
		f->queued = uc_mag_cpu_flushable(cpu, housekeeping) &&
			    uc_mag_cpu_has_mags(arena, nid, cpu);
		if (!f->queued)
			continue;
		f->arena = arena;
		f->nid = nid;
		f->cpu = cpu;
		queue_work_on(cpu, uc_mag_wq, &f->work);
		asked++;
	}
	/* Every one queued, even if its CPU went offline meanwhile. */
	for_each_possible_cpu(cpu) {
		f = per_cpu_ptr(&uc_mag_flush_work, cpu);
		if (f->queued)
			flush_work(&f->work);
	}
	mutex_unlock(&uc_mag_flush_lock);
	atomic_long_add(asked, &uc_mag_flushes);
	return asked;
}

/**
 * uc_mag_drain_arena() - Give back every round of one arena's magazines.
 * @arena: the arena.
 *
 * uc_mag_drain() for one arena: asks only the CPUs that hold a magazine
 * of it, so a drain of an idle arena costs no CPU anything.
 *
 * Context: Process context; may sleep.
 * Return: the number of pages that went back to the arena.
 */
unsigned long uc_mag_drain_arena(struct uc_arena *arena)
{
	uc_mag_flush_cpus(arena, NUMA_NO_NODE, false);
	return uc_depot_reap(arena, true);
}

/**
 * uc_mag_drain_node() - Give back the rounds of a node's arenas, for reclaim.
 * @nid: the node.
 *
 * uc_mag_drain() for the arenas of @nid: each CPU holding a magazine of
 * any of them is asked once, isolated CPUs are left alone (their
 * magazines stay), and every depot of the node is emptied.
 *
 * Context: Process context; may sleep.
 * Return: the number of pages that went back to the arenas.
 */
unsigned long uc_mag_drain_node(int nid)
{
	struct uc_arena *arena;
	unsigned long pages = 0;

	uc_mag_flush_cpus(NULL, nid, true);
	list_for_each_entry(arena, &uc_arena_list, node)
		if (arena->nid == nid)
			pages += uc_depot_reap(arena, true);
	return pages;
}

/**
 * uc_mag_drain() - Give back every round of every magazine.
 *
 * Moves each CPU's magazines into the depots (a work item on every CPU
 * that holds one, see uc_mag_flush_cpus()) and empties every depot.
 * The arenas keep the pages; uc_arena_shrink() returns the blocks.
 *
 * Context: Process context; may sleep.
 * Return: the number of pages that went back to the arenas.
 */
unsigned long uc_mag_drain(void)
{
	struct uc_arena *arena;
	unsigned long pages = 0;

	uc_mag_flush_cpus(NULL, NUMA_NO_NODE, false);
	list_for_each_entry(arena, &uc_arena_list, node)
		pages += uc_depot_reap(arena, true);
	return pages;
}

/**
 * uc_mag_reap() - Give back what the depots did not use since the last reap.
 * @nid: the node whose depots to reap, NUMA_NO_NODE for all.
 *
 * Context: Process context; may sleep.
 * Return: the number of pages that went back to the arenas.
 */
unsigned long uc_mag_reap(int nid)
{
	struct uc_arena *arena;
	unsigned long pages = 0;

	list_for_each_entry(arena, &uc_arena_list, node)
		if (nid == NUMA_NO_NODE || arena->nid == nid)
			pages += uc_depot_reap(arena, false);
	return pages;
}

/* Rounds the depot of @arena holds, full and partial (cheap; no lock). */
unsigned long uc_depot_rounds(struct uc_arena *arena)
{
	return READ_ONCE(arena->depot.nr_full) * UC_MAG_ROUNDS +
	       READ_ONCE(arena->depot.partial_rounds);
}

/* A CPU went offline: its magazines go to the depot. */
static int uc_mag_cpu_dead(unsigned int cpu)
{
	uc_mag_flush_dead_cpu(cpu);
	return 0;
}

/**
 * uc_mag_drainable_rounds() - Rounds a drain for reclaim would give back.
 * @arena: the arena.
 *
 * The rounds in the magazines of the online CPUs that uc_mag_drain_node()
 * asks (isolated CPUs keep theirs), for the shrinker's count: without
 * them, blocks pinned only by a few rounds on CPUs would never be counted,
 * so reclaim would never scan for them and the scan never drain them.
 *
 * Context: Any context; takes no lock (the counts are read racily).
 * Return: that number of pages.
 */
unsigned long uc_mag_drainable_rounds(struct uc_arena *arena)
{
	long sum = 0;
	int cpu;

	for_each_online_cpu(cpu)
		if (uc_mag_cpu_flushable(cpu, true))
			sum += READ_ONCE(per_cpu_ptr(arena->mags, cpu)->rounds);
	return max(sum, 0L);
}

/* Pages in the CPUs' magazines of @arena; racy, for statistics. */
unsigned long uc_mag_rounds(struct uc_arena *arena)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(arena->mags, cpu)->rounds);
	return max(sum, 0L);
}

unsigned long uc_mag_stat(struct uc_arena *arena, enum uc_mag_stat item)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(arena->mags, cpu)->stats[item]);
	return sum;
}

static int __init uc_mag_init_arena(struct uc_arena *arena)
{
	int cpu;

	spin_lock_init(&arena->depot.lock);
	INIT_LIST_HEAD(&arena->depot.full);
	INIT_LIST_HEAD(&arena->depot.empty);
	INIT_LIST_HEAD(&arena->depot.partial);
	arena->mags = alloc_percpu(struct uc_mag_cpu);
	if (!arena->mags)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		local_lock_init(&per_cpu_ptr(arena->mags, cpu)->lock);
	return 0;
}

int __init uc_mag_init(void)
{
	struct uc_arena *arena;
	int cpu, ret;

	list_for_each_entry(arena, &uc_arena_list, node)
		if (uc_mag_init_arena(arena))
			return -ENOMEM;

	uc_mag_wq = alloc_workqueue("unmapped_cache_drain", WQ_MEM_RECLAIM, 0);
	if (!uc_mag_wq)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		INIT_WORK(&per_cpu_ptr(&uc_mag_flush_work, cpu)->work,
			  uc_mag_flush_fn);
	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN,
					"mm/unmapped_cache:dead", NULL,
					uc_mag_cpu_dead);
	if (ret < 0) {
		destroy_workqueue(uc_mag_wq);
		uc_mag_wq = NULL;
		return ret;
	}
	uc_mag_cpuhp_state = ret;
	return 0;
}
