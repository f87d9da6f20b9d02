// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the unmapped cache: magazines, the depot, drains and CPU hotplug.
 */

#include "kunit.h"

struct uc_test_irq_call {
	struct irq_work work;
	struct timer_list timer;
	struct unmapped_cache *cache;
	struct completion done;
	bool ok, in_irq;
};

static void uc_test_irq_call(struct uc_test_irq_call *c, bool in_irq)
{
	void *p = unmapped_cache_alloc(c->cache, PAGE_SIZE, GFP_ATOMIC);

	c->in_irq = in_irq;
	c->ok = !!p;
	unmapped_cache_free(c->cache, p, PAGE_SIZE);
}

static void uc_test_hardirq_fn(struct irq_work *work)
{
	struct uc_test_irq_call *c = container_of(work, struct uc_test_irq_call,
						  work);

	uc_test_irq_call(c, in_hardirq());
}

static void uc_test_softirq_fn(struct timer_list *timer)
{
	struct uc_test_irq_call *c = container_of(timer, struct uc_test_irq_call,
						  timer);

	uc_test_irq_call(c, in_serving_softirq() || IS_ENABLED(CONFIG_PREEMPT_RT));
	complete(&c->done);
}

/*
 * The API allows RW allocations and frees from interrupts: a single page
 * from a hard interrupt (irq_work) and from a softirq (a timer), on a CPU
 * whose magazines also serve process context, as the magazines' irq-safe
 * local lock allows (lockdep, in the debug and RT kernels, checks that
 * the lock is taken so).
 */
static void mag_alloc_and_free_in_interrupts(struct kunit *test)
{
	struct unmapped_cache *cache = uc_test_cache(test, UNMAPPED_CACHE_RW);
	struct uc_test_irq_call *c;
	int cpu, round;
	void *p;

	KUNIT_ASSERT_NOT_NULL(test, cache);
	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->cache = cache;
	c->work = IRQ_WORK_INIT_HARD(uc_test_hardirq_fn);
	timer_setup(&c->timer, uc_test_softirq_fn, 0);

	/*
	 * With PREEMPT_RT the magazines' local lock is a sleeping lock, and
	 * nothing that takes one (kmalloc() included) may run in a hard
	 * interrupt: only the softirq round.
	 */
	for (round = IS_ENABLED(CONFIG_PREEMPT_RT); round < 2; round++) {
		migrate_disable();
		cpu = smp_processor_id();
		/* Process context first: a round in this CPU's magazine. */
		p = unmapped_cache_alloc(cache, PAGE_SIZE, GFP_KERNEL);
		unmapped_cache_free(cache, p, PAGE_SIZE);
		KUNIT_EXPECT_NOT_NULL(test, p);

		c->ok = false;
		c->in_irq = false;
		if (round == 0) {
			irq_work_queue(&c->work);
			irq_work_sync(&c->work);
		} else {
			init_completion(&c->done);
			c->timer.expires = jiffies;
			add_timer_on(&c->timer, cpu);
			wait_for_completion(&c->done);
		}
		migrate_enable();
		KUNIT_EXPECT_TRUE_MSG(test, c->in_irq, "%s: not in interrupt context",
				      round ? "softirq" : "hardirq");
		KUNIT_EXPECT_TRUE_MSG(test, c->ok, "%s: GFP_ATOMIC allocation failed",
				      round ? "softirq" : "hardirq");
	}
	del_timer_sync(&c->timer);
}

/*
 * Magazines, depot, drain, CPU hotplug.
 */

/*
 * After warm-up, single-page alloc/free pairs on one CPU are served by the
 * magazines alone: no depot lock, no arena traffic (DESIGN I9).
 */
static void mag_fast_path_takes_no_depot_lock(struct kunit *test)
{
	struct unmapped_cache *cache = uc_test_cache(test, UNMAPPED_CACHE_RW);
	struct uc_arena *arena;
	unsigned long locked, allocs, frees, hits;
	void *p[8];
	int i, j;

	KUNIT_ASSERT_NOT_NULL(test, cache);
	migrate_disable();
	arena = uc_arena_get(UNMAPPED_CACHE_RW, NUMA_NO_NODE);
	for (j = 0; j < 8; j++) {
		p[j] = unmapped_cache_alloc(cache, PAGE_SIZE, GFP_KERNEL);
		if (!p[j])
			break;
	}
	for (i = 0; i < j; i++)
		unmapped_cache_free(cache, p[i], PAGE_SIZE);
	if (j < 8) {
		migrate_enable();
		KUNIT_FAIL(test, "warm-up allocation failed");
		return;
	}

	locked = READ_ONCE(arena->depot.stats[UC_DEPOT_LOCKED]);
	allocs = uc_arena_stat(arena, UC_ARENA_ALLOCS);
	frees = uc_arena_stat(arena, UC_ARENA_FREES);
	hits = uc_mag_stat(arena, UC_MAG_ALLOC_HIT);
	for (i = 0; i < 10000; i++) {
		void *q = unmapped_cache_alloc(cache, PAGE_SIZE, GFP_KERNEL);

		if (!q)
			break;
		unmapped_cache_free(cache, q, PAGE_SIZE);
	}
	KUNIT_EXPECT_EQ(test, READ_ONCE(arena->depot.stats[UC_DEPOT_LOCKED]), locked);
	KUNIT_EXPECT_EQ(test, uc_arena_stat(arena, UC_ARENA_ALLOCS), allocs);
	KUNIT_EXPECT_EQ(test, uc_arena_stat(arena, UC_ARENA_FREES), frees);
	KUNIT_EXPECT_EQ(test, uc_mag_stat(arena, UC_MAG_ALLOC_HIT), hits + 10000);
	/* The warm-up pages wait in this CPU's magazines... */
	KUNIT_EXPECT_GE(test, uc_mag_rounds(arena), 8);
	migrate_enable();
	KUNIT_EXPECT_EQ(test, i, 10000);
	/* ...until a drain moves every CPU's magazines out. */
	uc_mag_drain();
	KUNIT_EXPECT_EQ(test, uc_mag_rounds(arena), 0);
}

/*
 * The fast path shares no cache line between CPUs that it writes.  One
 * kthread per online CPU, bound to it, puts a round in its magazines,
 * waits until every other one has, and then all do UC_SHARE_PAIRS
 * single-page pairs on one RW cache at the same time.  Over that window:
 * no depot lock is taken and the range tree is not touched (the arena's
 * and the depot's locks are the only locks CPUs share), every allocation
 * is a magazine hit, and each CPU works on one page of its own, so the
 * only atomic read-modify-write of the path, the cmpxchg on the page's
 * ->private in uc_page_untag(), is on a struct page no other CPU
 * touches (and in no cache line of another CPU's struct page).  The
 * per-CPU state (loaded magazine, counters, vmstat deltas) is this_cpu
 * data, and the magazines, kmalloc()ed at 1 KiB, share no line either.
 */
#define UC_SHARE_PAIRS	10000

struct uc_share {
	struct unmapped_cache *cache;
	atomic_t *ready;		/* workers with a round in a magazine */
	struct completion *start;	/* all of them are */
	struct completion done;
	struct page *page;		/* the page of the first pair */
	unsigned long pairs;		/* pairs done */
	unsigned long other;		/* pairs that got another page */
	bool warm;			/* the warm-up allocation worked */
};

static int uc_share_fn(void *data)
{
	struct uc_share *sh = data;
	struct uc_arena *arena = uc_arena_get(UNMAPPED_CACHE_RW, NUMA_NO_NODE);
	unsigned long i;
	void *p;

	p = unmapped_cache_alloc(sh->cache, PAGE_SIZE, GFP_KERNEL);
	sh->warm = p;
	if (p)
		unmapped_cache_free(sh->cache, p, PAGE_SIZE);
	atomic_inc(sh->ready);
	wait_for_completion(sh->start);
	for (i = 0; sh->warm && arena && i < UC_SHARE_PAIRS; i++) {
		p = unmapped_cache_alloc(sh->cache, PAGE_SIZE, GFP_KERNEL);
		if (!p)
			break;
		if (!sh->page)
			sh->page = uc_arena_page(arena, (unsigned long)p);
		else if (uc_arena_page(arena, (unsigned long)p) != sh->page)
			sh->other++;
		unmapped_cache_free(sh->cache, p, PAGE_SIZE);
		sh->pairs++;
	}
	complete(&sh->done);
	return 0;
}

/* The cache lines [first, last] that the struct page of @page spans. */
static void uc_test_page_lines(struct page *page, unsigned long *first,
			       unsigned long *last)
{
	*first = (unsigned long)page / L1_CACHE_BYTES;
	*last = ((unsigned long)(page + 1) - 1) / L1_CACHE_BYTES;
}

static void mag_fast_path_shares_nothing_between_cpus(struct kunit *test)
{
	struct unmapped_cache *cache = uc_test_cache(test, UNMAPPED_CACHE_RW);
	struct uc_arena *arena = uc_arena_get(UNMAPPED_CACHE_RW, NUMA_NO_NODE);
	unsigned long locked, allocs, frees, hits, f1, l1, f2, l2;
	DECLARE_COMPLETION_ONSTACK(start);
	struct task_struct *task;
	atomic_t ready = ATOMIC_INIT(0);
	struct uc_share *sh;
	int cpu, n = 0, i, j;

	KUNIT_ASSERT_NOT_NULL(test, cache);
	KUNIT_ASSERT_NOT_NULL(test, arena);
	KUNIT_ASSERT_GE(test, num_online_cpus(), 2);
	sh = kunit_kcalloc(test, nr_cpu_ids, sizeof(*sh), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sh);

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		sh[n].cache = cache;
		sh[n].ready = &ready;
		sh[n].start = &start;
		init_completion(&sh[n].done);
		task = kthread_create(uc_share_fn, &sh[n], "uc_share/%d", cpu);
		if (IS_ERR(task)) {
			KUNIT_FAIL(test, "kthread_create: %ld", PTR_ERR(task));
			break;
		}
		kthread_bind(task, cpu);
		wake_up_process(task);
		n++;
	}
	cpus_read_unlock();
	/* Whatever failed above, the workers started run to the end. */
	while (atomic_read(&ready) < n)
		usleep_range(1000, 2000);
	locked = READ_ONCE(arena->depot.stats[UC_DEPOT_LOCKED]);
	allocs = uc_arena_stat(arena, UC_ARENA_ALLOCS);
	frees = uc_arena_stat(arena, UC_ARENA_FREES);
	hits = uc_mag_stat(arena, UC_MAG_ALLOC_HIT);
	complete_all(&start);
	for (i = 0; i < n; i++)
		wait_for_completion(&sh[i].done);

	KUNIT_EXPECT_EQ(test, n, (int)num_online_cpus());
	KUNIT_EXPECT_EQ(test, READ_ONCE(arena->depot.stats[UC_DEPOT_LOCKED]), locked);
	KUNIT_EXPECT_EQ(test, uc_arena_stat(arena, UC_ARENA_ALLOCS), allocs);
	KUNIT_EXPECT_EQ(test, uc_arena_stat(arena, UC_ARENA_FREES), frees);
	KUNIT_EXPECT_EQ(test, uc_mag_stat(arena, UC_MAG_ALLOC_HIT),
			hits + (unsigned long)n * UC_SHARE_PAIRS);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_TRUE_MSG(test, sh[i].warm, "worker %d", i);
		KUNIT_EXPECT_EQ_MSG(test, sh[i].pairs, UC_SHARE_PAIRS, "worker %d", i);
		KUNIT_EXPECT_EQ_MSG(test, sh[i].other, 0, "worker %d", i);
		if (!sh[i].page)
			continue;
		uc_test_page_lines(sh[i].page, &f1, &l1);
		for (j = 0; j < i; j++) {
			if (!sh[j].page)
				continue;
			uc_test_page_lines(sh[j].page, &f2, &l2);
			KUNIT_EXPECT_TRUE_MSG(test, l1 < f2 || l2 < f1,
					      "workers %d and %d share a struct page cache line",
					      j, i);
		}
	}
	uc_mag_drain();
}

/* Online CPUs that hold a magazine of @arena, full or empty (racy). */
static unsigned int uc_test_cpus_with_mags(struct uc_arena *arena)
{
	struct uc_mag_cpu *mc;
	unsigned int n = 0;
	int cpu;

	for_each_online_cpu(cpu) {
		mc = per_cpu_ptr(arena->mags, cpu);
		/* Racy by design: the CPU changes them under its local lock. */
		n += data_race(mc->loaded || mc->previous);
	}
	return n;
}

/*
 * A drain asks only the CPUs that hold a magazine of the arena, through a
 * work item on that CPU (no IPI): draining an arena that no CPU holds a
 * magazine of costs nothing, however often the shrinker or the reaper does
 * it; with a round on this CPU, this CPU is asked, and the round goes
 * back.
 */
static void mag_drain_asks_only_cpus_with_rounds(struct kunit *test)
{
	struct unmapped_cache *cache = uc_test_cache(test, UNMAPPED_CACHE_RW);
	struct uc_arena *arena = uc_arena_get(UNMAPPED_CACHE_RW, NUMA_NO_NODE);
	unsigned long sent;
	void *p;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, cache);
	KUNIT_ASSERT_NOT_NULL(test, arena);
	uc_mag_drain();
	KUNIT_ASSERT_EQ(test, uc_mag_rounds(arena), 0);

	sent = uc_mag_flushes_sent();
	for (i = 0; i < 100; i++)
		uc_mag_drain_arena(arena);
	KUNIT_EXPECT_EQ(test, uc_mag_flushes_sent(), sent);

	p = unmapped_cache_alloc(cache, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	unmapped_cache_free(cache, p, PAGE_SIZE);
	KUNIT_EXPECT_GE(test, uc_mag_rounds(arena), 1);
	uc_mag_drain_arena(arena);
	KUNIT_EXPECT_GE(test, uc_mag_flushes_sent(), sent + 1);
	KUNIT_EXPECT_EQ(test, uc_mag_rounds(arena), 0);
	KUNIT_EXPECT_EQ(test, uc_test_cpus_with_mags(arena), 0);

	/*
	 * A CPU whose loaded magazine is empty holds no round but would
	 * still take the next free without a new magazine: it is asked too,
	 * and keeps no magazine.
	 */
	p = unmapped_cache_alloc(cache, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	unmapped_cache_free(cache, p, PAGE_SIZE);
	p = unmapped_cache_alloc(cache, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, uc_mag_rounds(arena), 0);
	KUNIT_EXPECT_GE(test, uc_test_cpus_with_mags(arena), 1);
	sent = uc_mag_flushes_sent();
	uc_mag_drain_arena(arena);
	KUNIT_EXPECT_GE(test, uc_mag_flushes_sent(), sent + 1);
	KUNIT_EXPECT_EQ(test, uc_test_cpus_with_mags(arena), 0);
	unmapped_cache_free(cache, p, PAGE_SIZE);
}

/*
 * Operations per worker.  KASAN makes each one some ten times slower:
 * its kernel runs a quarter as many, still thousands of refills, drains
 * and reuses of the same pages under its checks.
 */
#define UC_STRESS_OPS		(IS_ENABLED(CONFIG_KASAN) ? 25000 : 100000)

#define UC_STRESS_LIVE		256

#define UC_STRESS_SECRETS	128

/*
 * A worker does UC_STRESS_OPS operations, and goes on (up to
 * UC_STRESS_MAX_OPS) while *@more says so: a case that interleaves work of
 * its own with the workers holds them until it did enough of it.
 */
#define UC_STRESS_MAX_OPS	(10 * UC_STRESS_OPS)

struct uc_stress {
	struct unmapped_cache *cache;
	struct unmapped_cache *none;
	const bool *more;
	struct completion done;
	struct rnd_state rnd;
	unsigned long ops, failed_allocs, corrupt, bad_writes;
	int cpu;
};

/* Whether a worker that did @i operations does another. */
static bool uc_stress_go_on(struct uc_stress *st, unsigned long i)
{
	if (i < UC_STRESS_OPS)
		return true;
	return i < UC_STRESS_MAX_OPS && st->more && READ_ONCE(*st->more);
}

/* One CPU's share: random single- and multi-page allocations and frees. */
static int uc_stress_fn(void *data)
{
	struct uc_stress *st = data;
	struct { u64 *p; size_t size; } *live;
	struct page **secret;
	unsigned long i, last;
	int slot;
	u64 stamp;

	live = kcalloc(UC_STRESS_LIVE, sizeof(*live), GFP_KERNEL);
	secret = kcalloc(UC_STRESS_SECRETS, sizeof(*secret), GFP_KERNEL);
	if (!live || !secret) {
		st->failed_allocs++;
		goto out;
	}

	for (i = 0; uc_stress_go_on(st, i); i++) {
		/* A quarter of the operations: a page of the NONE cache. */
		if (!uc_rand_below(&st->rnd, 4)) {
			slot = uc_rand_below(&st->rnd, UC_STRESS_SECRETS);
			if (secret[slot]) {
				unmapped_cache_free_page(st->none, secret[slot]);
				secret[slot] = NULL;
			} else {
				secret[slot] = unmapped_cache_alloc_page(st->none,
									 GFP_KERNEL);
				if (!secret[slot])
					st->failed_allocs++;
			}
			st->ops++;
			continue;
		}
		slot = uc_rand_below(&st->rnd, UC_STRESS_LIVE);
		stamp = (u64)st->cpu << 32 | slot;
		if (live[slot].p) {
			last = live[slot].size / sizeof(u64) - 1;
			/* The stamps are intact: nobody else was given it. */
			if (live[slot].p[0] != stamp || live[slot].p[last] != stamp)
				st->corrupt++;
			unmapped_cache_free(st->cache, live[slot].p, live[slot].size);
			live[slot].p = NULL;
		} else {
			size_t pages = uc_rand_below(&st->rnd, 4) ? 1 :
				       uc_rand_below(&st->rnd, 16) + 2;

			live[slot].size = pages * PAGE_SIZE;
			live[slot].p = unmapped_cache_alloc(st->cache, live[slot].size,
							    GFP_KERNEL | __GFP_ZERO);
			if (!live[slot].p) {
				st->failed_allocs++;
				continue;
			}
			last = live[slot].size / sizeof(u64) - 1;
			if (live[slot].p[0] || live[slot].p[last])
				st->bad_writes++;	/* not zeroed */
			live[slot].p[0] = stamp;
			live[slot].p[last] = stamp;
		}
		st->ops++;
		if (!(i % 1024))
			cond_resched();
	}
	for (slot = 0; slot < UC_STRESS_LIVE; slot++)
		if (live[slot].p)
			unmapped_cache_free(st->cache, live[slot].p, live[slot].size);
	for (slot = 0; slot < UC_STRESS_SECRETS; slot++)
		unmapped_cache_free_page(st->none, secret[slot]);
out:
	kfree(secret);
	kfree(live);
	complete(&st->done);
	return 0;
}

/*
 * Start one stress worker per online CPU on @cache and @none, bound to
 * that CPU or left to the scheduler.  Returns how many were started; a
 * worker that cannot be created fails the test, and the ones already
 * running are still waited for by uc_stress_finish().
 */
static int uc_stress_start(struct kunit *test, struct uc_stress *st,
			   struct unmapped_cache *cache,
			   struct unmapped_cache *none, bool bind)
{
	struct task_struct *task;
	int cpu, n = 0;

	for_each_online_cpu(cpu) {
		st[n].cache = cache;
		st[n].none = none;
		st[n].cpu = cpu;
		/* Each thread its own sequence, drawn from the test's. */
		prandom_seed_state(&st[n].rnd,
				   (u64)prandom_u32_state(test->priv) << 32 |
				   prandom_u32_state(test->priv));
		init_completion(&st[n].done);
		task = kthread_create(uc_stress_fn, &st[n], "uc_stress/%d", n);
		if (IS_ERR(task)) {
			KUNIT_FAIL(test, "kthread_create: %ld", PTR_ERR(task));
			break;
		}
		if (bind)
			kthread_bind(task, cpu);
		wake_up_process(task);
		n++;
	}
	return n;
}

static bool uc_stress_running(struct uc_stress *st, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!completion_done(&st[i].done))
			return true;
	return false;
}

/*
 * Wait for the @n workers and give the verdict shared by the stress cases:
 * every operation done, no allocation failed, no chunk corrupt or handed
 * out dirty, nothing left live, every block back after a final drain and
 * no direct-map entry split since @before.
 */
static void uc_stress_finish(struct kunit *test, struct uc_stress *st, int n,
			     const struct unmapped_cache_dm_counts *before)
{
	unsigned long ops = 0, fails = 0, corrupt = 0, dirty = 0;
	struct unmapped_cache_dm_counts after;
	int i;

	for (i = 0; i < n; i++) {
		wait_for_completion(&st[i].done);
		ops += st[i].ops;
		fails += st[i].failed_allocs;
		corrupt += st[i].corrupt;
		dirty += st[i].bad_writes;
	}
	kunit_info(test, "%d threads, %lu operations\n", n, ops);
	KUNIT_EXPECT_GT(test, n, 0);
	KUNIT_EXPECT_GE(test, ops, (unsigned long)n * UC_STRESS_OPS * 9 / 10);
	KUNIT_EXPECT_EQ(test, fails, 0);
	KUNIT_EXPECT_EQ(test, corrupt, 0);
	KUNIT_EXPECT_EQ(test, dirty, 0);
	if (n) {
		KUNIT_EXPECT_EQ(test, uc_cache_live(st[0].cache, false), 0);
		KUNIT_EXPECT_EQ(test, uc_cache_live(st[0].none, false), 0);
	}

	uc_drain();
	KUNIT_EXPECT_EQ(test, uc_blocks_held(), 0);
	arch_unmapped_cache_direct_map_counts(&after);
	KUNIT_EXPECT_EQ(test, after.pte, before->pte);
}

/*
 * The two caches and the per-CPU worker states of a stress case; the
 * caches and the states are released by KUnit when the case ends.
 */
static struct uc_stress *uc_stress_setup(struct kunit *test,
					 struct unmapped_cache **cache,
					 struct unmapped_cache **none)
{
	struct uc_stress *st;

	*cache = uc_test_cache(test, UNMAPPED_CACHE_RW);
	*none = uc_test_cache(test, UNMAPPED_CACHE_NONE);
	KUNIT_ASSERT_NOT_NULL(test, *cache);
	KUNIT_ASSERT_NOT_NULL(test, *none);
	st = kunit_kcalloc(test, nr_cpu_ids, sizeof(*st), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st);
	return st;
}

/*
 * One kthread per online CPU, 100000 random operations each on one shared
 * RW cache (single and multi-page chunks) and one shared NONE cache
 * (single pages, cleared in batches on free).  Every chunk arrives zeroed
 * and keeps its stamp until freed; after the final drain every block is
 * back and no direct-map entry was split.  Run with lockdep to check the
 * locking (the debug kernel).
 */
static void mag_stress_all_cpus(struct kunit *test)
{
	struct unmapped_cache_dm_counts before;
	struct unmapped_cache *cache, *none;
	struct uc_stress *st;
	int n;

	st = uc_stress_setup(test, &cache, &none);
	if (num_online_cpus() < 4)
		kunit_info(test, "only %u CPUs online (want at least 4)\n",
			   num_online_cpus());

	arch_unmapped_cache_direct_map_counts(&before);
	n = uc_stress_start(test, st, cache, none, true);
	uc_stress_finish(test, st, n, &before);
}

static void uc_test_reap_hold_action(void *data)
{
	uc_reap_hold();
}

/*
 * The stress of mag_stress_all_cpus(), with everything that takes memory
 * away from the CPUs running at the same time, from this thread, until
 * the workers are done: drains, shrinker scans of random sizes, reaps,
 * the periodic reaper itself (let go for the test), and the last CPU
 * going offline and online again.  The workers are not bound to a CPU, so
 * the scheduler moves them off the CPU that goes away.  Same verdict as
 * mag_stress_all_cpus().  Run under lockdep and KASAN (the debug kernel)
 * and under PREEMPT_RT, lockdep and KCSAN (the RT kernel).
 */
static void mag_stress_with_drain_shrink_reap_hotplug(struct kunit *test)
{
	int last = cpumask_last(cpu_online_mask);
	unsigned long rounds = 0, cycles = 0;
	struct unmapped_cache_dm_counts before;
	bool hotplug = IS_ENABLED(CONFIG_HOTPLUG_CPU) && last > 0;
	struct unmapped_cache *cache, *none;
	struct uc_stress *st;
	bool more = true;
	int i, n;

	st = uc_stress_setup(test, &cache, &none);
	uc_reap_unhold();
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, uc_test_reap_hold_action,
							NULL), 0);
	/*
	 * The workers go on until this thread has done a few rounds and a
	 * CPU cycle while they run: on two vCPUs of their own they may
	 * otherwise be done before the first round is (a slow CPU cycle).
	 */
	for (i = 0; i < nr_cpu_ids; i++)
		st[i].more = &more;

	arch_unmapped_cache_direct_map_counts(&before);
	n = uc_stress_start(test, st, cache, none, false);
	do {
		uc_drain();
		uc_test_scan(uc_test_rand_below(test, 4 * UNMAPPED_CACHE_BLOCK_PAGES) + 1);
		uc_reap();
		if (hotplug && !(rounds % 4) && !remove_cpu(last)) {
			KUNIT_EXPECT_EQ(test, add_cpu(last), 0);
			cycles++;
		}
		rounds++;
		if (rounds >= 8 && (!hotplug || cycles >= 2))
			WRITE_ONCE(more, false);
		cond_resched();
	} while (uc_stress_running(st, n));
	WRITE_ONCE(more, false);
	kunit_info(test, "%lu rounds of drain, scan and reap; %lu CPU offline/online cycles\n",
		   rounds, cycles);
	KUNIT_EXPECT_GT(test, rounds, 1);
	if (hotplug)
		KUNIT_EXPECT_GT(test, cycles, 0);
	uc_stress_finish(test, st, n, &before);
}

/*
 * A CPU going offline gives its magazines to the depot, where the rounds
 * of a partly used one still count for the shrinker (uc_depot_rounds()).
 */
static void mag_cpu_offline_gives_magazines_back(struct kunit *test)
{
	struct unmapped_cache *cache = uc_test_cache(test, UNMAPPED_CACHE_RW);
	struct unmapped_cache *none = uc_test_cache(test, UNMAPPED_CACHE_NONE);
	struct uc_arena *arena = uc_arena_get(UNMAPPED_CACHE_RW, NUMA_NO_NODE);
	struct uc_arena *secrets = uc_arena_get(UNMAPPED_CACHE_NONE, NUMA_NO_NODE);
	struct uc_mag_cpu *mc, *smc;
	int cpu = cpumask_last(cpu_online_mask);
	void *p[UC_MAG_ROUNDS * 2];
	unsigned long depot_rounds, cpu_rounds;
	struct page *page[8];
	int i, err;

	KUNIT_ASSERT_NOT_NULL(test, cache);
	KUNIT_ASSERT_NOT_NULL(test, none);
	if (cpu == 0 || !IS_ENABLED(CONFIG_HOTPLUG_CPU))
		kunit_skip(test, "needs a second CPU that can go offline");
	/* A reap would empty the depot's partly used magazines. */
	uc_reap_hold();
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, uc_test_unhold_action,
							NULL), 0);

	/* Fill that CPU's magazines: allocate and free from it. */
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)), 0);
	for (i = 0; i < ARRAY_SIZE(p); i++)
		p[i] = unmapped_cache_alloc(cache, PAGE_SIZE, GFP_KERNEL);
	for (i = 0; i < ARRAY_SIZE(p); i++)
		unmapped_cache_free(cache, p[i], PAGE_SIZE);
	/* And NONE pages in its magazines: one magazine, partly used. */
	uc_mag_drain_arena(secrets);
	for (i = 0; i < ARRAY_SIZE(page); i++)
		page[i] = unmapped_cache_alloc_page(none, GFP_KERNEL);
	for (i = 0; i < ARRAY_SIZE(page); i++)
		unmapped_cache_free_page(none, page[i]);
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	mc = per_cpu_ptr(arena->mags, cpu);
	smc = per_cpu_ptr(secrets->mags, cpu);
	KUNIT_EXPECT_NOT_NULL(test, mc->loaded);
	cpu_rounds = READ_ONCE(smc->rounds);
	KUNIT_EXPECT_EQ(test, cpu_rounds, ARRAY_SIZE(page));
	depot_rounds = uc_depot_rounds(secrets);

	err = remove_cpu(cpu);
	if (err)
		kunit_skip(test, "remove_cpu(%d) failed: %d", cpu, err);
	KUNIT_EXPECT_NULL(test, mc->loaded);
	KUNIT_EXPECT_NULL(test, mc->previous);
	KUNIT_EXPECT_NULL(test, smc->loaded);
	KUNIT_EXPECT_NULL(test, smc->previous);
	/* The NONE pages' magazine, partly used, is counted in the depot. */
	KUNIT_EXPECT_EQ(test, uc_depot_rounds(secrets), depot_rounds + cpu_rounds);
	KUNIT_EXPECT_EQ(test, add_cpu(cpu), 0);
	KUNIT_EXPECT_EQ(test, uc_arena_check(arena), 0);
	KUNIT_EXPECT_EQ(test, uc_arena_check(secrets), 0);
}

/*
 * NONE pages are cleared when they are freed, before the free returns, and
 * handed out without clearing.  A pattern written by one owner is gone
 * from every page as soon as it is freed (the test looks before anybody
 * could allocate them again), and the next owner (another cache) finds
 * zeroes only, straight from the magazines and after a drain.
 */
static void mag_none_pages_reach_next_owner_clear(struct kunit *test)
{
	struct unmapped_cache *a = uc_test_cache(test, UNMAPPED_CACHE_NONE);
	struct unmapped_cache *b = uc_test_cache(test, UNMAPPED_CACHE_NONE);
	struct uc_arena *arena = uc_arena_get(UNMAPPED_CACHE_NONE, NUMA_NO_NODE);
	struct page **pages;
	int round, i, n;
	u8 *v;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, arena);
	pages = kunit_kcalloc(test, UC_TEST_SECRETS, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pages);

	for (round = 0; round < 2; round++) {
		/* Owner a writes its secret into every page and frees them. */
		n = uc_test_take_pages(test, a, pages,
				       UC_TEST_EXPECT_ZERO | UC_TEST_WRITE_SECRET);
		/* Test only: the freed pages stay mapped here while we look. */
		v = n ? uc_test_vmap_pages(pages, n) : NULL;
		KUNIT_EXPECT_TRUE(test, !n || v);
		if (v)
			KUNIT_EXPECT_EQ(test, uc_test_nonzero_pages(v, n), n);
		for (i = 0; i < n; i++)
			unmapped_cache_free_page(a, pages[i]);
		if (v) {
			KUNIT_EXPECT_EQ_MSG(test, uc_test_nonzero_pages(v, n), 0,
					    "freed pages still hold their data");
			vunmap(v);
		}
		if (round)
			uc_mag_drain();

		/* Owner b finds zeroes only. */
		n = uc_test_take_pages(test, b, pages, UC_TEST_EXPECT_ZERO);
		for (i = 0; i < n; i++)
			unmapped_cache_free_page(b, pages[i]);
	}
}

/*
 * RW memory is zeroed the way the page allocator zeroes: when it is freed
 * only with init_on_free, and when it is handed out only to an owner that
 * asks (__GFP_ZERO, or init_on_alloc).  On one CPU the page freed last is
 * the first one taken again, so a pattern written before the free must
 * still be there for an owner that did not ask (unless init_on_free or
 * init_on_alloc is on) and gone for one that did.  A multi-page chunk,
 * which goes back to the range tree, keeps the pattern after its free too
 * (read through its mapping, which stays: the reaper waits until the suite
 * is over): frees write nothing.
 */
static void mag_rw_zeroed_on_request(struct kunit *test)
{
	struct unmapped_cache *cache = uc_test_cache(test, UNMAPPED_CACHE_RW);
	const bool on_free = want_init_on_free();
	const bool always = on_free || want_init_on_alloc(GFP_KERNEL);
	const size_t big = 4 * PAGE_SIZE;
	void *p, *q, *pattern;
	int zero, tries;

	KUNIT_ASSERT_NOT_NULL(test, cache);
	kunit_info(test, "init_on_free %d, init_on_alloc %d\n", on_free,
		   want_init_on_alloc(GFP_KERNEL));
	for (zero = 0; zero < 2; zero++) {
		/*
		 * Another user of the RW arena on this CPU (preemption is
		 * on) or a drain may take the round between the free and
		 * the allocation: then try again, a few times.
		 */
		for (tries = 0; tries < 3; tries++) {
			migrate_disable();
			p = unmapped_cache_alloc(cache, PAGE_SIZE, GFP_KERNEL);
			if (p) {
				memset(p, 0x5a, PAGE_SIZE);
				unmapped_cache_free(cache, p, PAGE_SIZE);
			}
			q = unmapped_cache_alloc(cache, PAGE_SIZE,
						 GFP_KERNEL | (zero ? __GFP_ZERO : 0));
			migrate_enable();
			if (!p || !q || q == p)
				break;
			unmapped_cache_free(cache, q, PAGE_SIZE);
		}
		KUNIT_EXPECT_NOT_NULL(test, p);
		KUNIT_EXPECT_PTR_EQ(test, q, p);
		if (p && q == p) {
			pattern = memchr_inv(q, zero || always ? 0 : 0x5a, PAGE_SIZE);
			KUNIT_EXPECT_NULL_MSG(test, pattern, "__GFP_ZERO %d: %s", zero,
					      zero || always ? "not zeroed" :
							       "scrubbed on free");
		}
		unmapped_cache_free(cache, q, PAGE_SIZE);
	}

	p = unmapped_cache_alloc(cache, big, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	memset(p, 0x5a, big);
	unmapped_cache_free(cache, p, big);
	/* Test only: the freed chunk is still mapped; nobody took it yet. */
	pattern = uc_test_freed_memchr_inv(p, on_free ? 0 : 0x5a, big);
	KUNIT_EXPECT_NULL_MSG(test, pattern, "init_on_free %d: %s", on_free,
			      on_free ? "not scrubbed" : "written on free");
}

/*
 * Single NONE pages on one CPU after warm-up: no depot lock and nothing
 * from the range tree; each page is cleared on its own when it is freed.
 */
static void mag_none_fast_path_stays_on_cpu(struct kunit *test)
{
	struct unmapped_cache *cache = uc_test_cache(test, UNMAPPED_CACHE_NONE);
	struct uc_arena *arena = uc_arena_get(UNMAPPED_CACHE_NONE, NUMA_NO_NODE);
	const int pairs = UC_MAG_ROUNDS * 100;
	unsigned long locked, allocs;
	struct page *page;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, cache);
	KUNIT_ASSERT_NOT_NULL(test, arena);
	migrate_disable();
	for (i = 0; i < UC_MAG_ROUNDS * 3; i++) {
		page = unmapped_cache_alloc_page(cache, GFP_KERNEL);
		if (!page)
			break;
		unmapped_cache_free_page(cache, page);
	}
	locked = READ_ONCE(arena->depot.stats[UC_DEPOT_LOCKED]);
	allocs = uc_arena_stat(arena, UC_ARENA_ALLOCS);
	for (i = 0; i < pairs; i++) {
		page = unmapped_cache_alloc_page(cache, GFP_KERNEL);
		if (!page)
			break;
		unmapped_cache_free_page(cache, page);
	}
	KUNIT_EXPECT_EQ(test, READ_ONCE(arena->depot.stats[UC_DEPOT_LOCKED]), locked);
	KUNIT_EXPECT_EQ(test, uc_arena_stat(arena, UC_ARENA_ALLOCS), allocs);
	migrate_enable();
	KUNIT_EXPECT_EQ(test, i, pairs);
	uc_mag_drain();
	KUNIT_EXPECT_EQ(test, uc_mag_rounds(arena), 0);
}

/*
 * The periodic reaper's rule: an arena gives back its free blocks (but
 * one) only after an interval in which it allocated nothing from its
 * tree; the first reap after the allocations keeps them.  Once idle and
 * reaped, a reap does no work: no CPU is asked to flush, nothing moves.
 */
static void mag_reap_gives_back_only_idle_blocks(struct kunit *test)
{
	struct unmapped_cache *cache = uc_test_cache(test, UNMAPPED_CACHE_RW);
	struct uc_arena *arena = uc_arena_get(UNMAPPED_CACHE_RW, NUMA_NO_NODE);
	const size_t size = UNMAPPED_CACHE_BLOCK_SIZE / 2;
	unsigned long sent;
	long released;
	void *p[6];
	int i, n;

	KUNIT_ASSERT_NOT_NULL(test, cache);
	KUNIT_ASSERT_NOT_NULL(test, arena);
	uc_drain();
	for (n = 0; n < ARRAY_SIZE(p); n++) {
		p[n] = unmapped_cache_alloc(cache, size, GFP_KERNEL);
		if (!p[n])
			break;
	}
	KUNIT_EXPECT_EQ(test, n, ARRAY_SIZE(p));
	for (i = 0; i < n; i++)
		unmapped_cache_free(cache, p[i], size);
	KUNIT_EXPECT_GE(test, READ_ONCE(arena->nr_blocks), 3);

	/* Busy in this interval: everything stays. */
	uc_reap();
	KUNIT_EXPECT_GE(test, READ_ONCE(arena->nr_blocks), 3);
	/* A whole interval without allocations: all free blocks but one go. */
	uc_reap();
	KUNIT_EXPECT_EQ(test, READ_ONCE(arena->nr_blocks), 1);
	KUNIT_EXPECT_EQ(test, uc_arena_check(arena), 0);

	/*
	 * Idle and reaped: a reap asks no CPU to flush and gives nothing
	 * back (one more reap first, for rounds other tests left on CPUs).
	 */
	uc_reap();
	sent = uc_mag_flushes_sent();
	released = uc_block_stat(UC_BLOCK_RELEASED);
	uc_reap();
	uc_reap();
	KUNIT_EXPECT_EQ(test, uc_mag_flushes_sent(), sent);
	KUNIT_EXPECT_EQ(test, uc_block_stat(UC_BLOCK_RELEASED), released);
	KUNIT_EXPECT_EQ(test, READ_ONCE(arena->nr_blocks), 1);
}

static struct kunit_case uc_mag_test_cases[] = {
	KUNIT_CASE(mag_fast_path_takes_no_depot_lock),
	KUNIT_CASE(mag_fast_path_shares_nothing_between_cpus),
	KUNIT_CASE(mag_cpu_offline_gives_magazines_back),
	KUNIT_CASE(mag_none_pages_reach_next_owner_clear),
	KUNIT_CASE(mag_none_fast_path_stays_on_cpu),
	KUNIT_CASE(mag_rw_zeroed_on_request),
	KUNIT_CASE(mag_reap_gives_back_only_idle_blocks),
	KUNIT_CASE(mag_drain_asks_only_cpus_with_rounds),
	KUNIT_CASE(mag_alloc_and_free_in_interrupts),
	KUNIT_CASE_SLOW(mag_stress_all_cpus),
	KUNIT_CASE_SLOW(mag_stress_with_drain_shrink_reap_hotplug),
	{}
};

static struct kunit_suite uc_mag_test_suite = {
	.name = "unmapped_cache_magazine",
	.suite_init = uc_suite_init,
	.suite_exit = uc_suite_exit,
	.init = uc_block_test_init,
	.test_cases = uc_mag_test_cases,
};

kunit_test_suite(uc_mag_test_suite);
