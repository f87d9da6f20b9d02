// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the unmapped cache: the shrinker and the reaper.
 */

#include "kunit.h"

/*
 * The shrinker's suite runs with the reaper (it is reclaim's other way
 * back), but counts blocks too: chunks are placed lowest first.
 */
static int uc_shrinker_suite_init(struct kunit_suite *suite)
{
	uc_test_shuffle(suite);
	uc_randomize_hold();
	return 0;
}

static void uc_shrinker_suite_exit(struct kunit_suite *suite)
{
	uc_randomize_unhold();
}

/*
 * The shrinker, driven directly: count and scan called the way reclaim
 * calls them.  Each case drains first, so that only what it frees itself
 * is free, and builds its population from half-block chunks of an RW
 * cache: they never go through the magazines and two of them fill a
 * block, so N chunks take N / 2 blocks with nothing free in them.
 */
#define UC_SHRINK_CHUNK		(UNMAPPED_CACHE_BLOCK_SIZE / 2)

#define UC_SHRINK_ALL		(64 * UNMAPPED_CACHE_BLOCK_PAGES)

/* A function, so that a failed expectation prints its name, not READ_ONCE(). */
static unsigned long uc_test_nr_blocks(struct uc_arena *arena)
{
	return READ_ONCE(arena->nr_blocks);
}

/* What uc_shrink_count() reports, SHRINK_EMPTY read as 0. */
static unsigned long uc_test_count(void)
{
	struct shrink_control sc = { .gfp_mask = GFP_KERNEL };
	unsigned long pages = uc_shrink_count(NULL, &sc);

	return pages == SHRINK_EMPTY ? 0 : pages;
}

/*
 * What a scan of node 0 could give back, worked out block by block under
 * the arenas' locks: each arena's wholly free blocks, at most all its
 * blocks but the one it keeps, and the rounds of its depot and of the
 * CPUs' magazines (no CPU is isolated in the test kernels).
 */
static unsigned long uc_test_returnable_pages(void)
{
	unsigned long blocks = 0, rounds = 0, free, n, flags;
	struct uc_arena *arena;
	struct uc_block *block;

	list_for_each_entry(arena, &uc_arena_list, node) {
		if (arena->nid != 0)
			continue;
		free = 0;
		n = 0;
		mutex_lock(&arena->grow_lock);
		spin_lock_irqsave(&arena->lock, flags);
		list_for_each_entry(block, &arena->blocks, list) {
			n++;
			free += uc_range_is_free(&arena->tree, block->addr,
						 UNMAPPED_CACHE_BLOCK_SIZE);
		}
		spin_unlock_irqrestore(&arena->lock, flags);
		mutex_unlock(&arena->grow_lock);
		blocks += min(free, n > UC_SHRINK_KEEP ? n - UC_SHRINK_KEEP : 0);
		rounds += uc_depot_rounds(arena) + uc_mag_rounds(arena);
	}
	return blocks * UNMAPPED_CACHE_BLOCK_PAGES + rounds;
}

/*
 * After a drain, allocate @nr half-block chunks of a new RW cache; a KUnit
 * action frees what is still live when the test ends.
 */
static struct uc_test_pop *uc_test_shrink_pop(struct kunit *test,
					      unsigned int nr)
{
	struct uc_test_pop *pop = kunit_kzalloc(test, sizeof(*pop), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, pop);
	pop->chunks = kunit_kcalloc(test, nr, sizeof(*pop->chunks), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pop->chunks);
	pop->cache = uc_test_cache(test, UNMAPPED_CACHE_RW);
	KUNIT_ASSERT_NOT_NULL(test, pop->cache);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, uc_test_pop_action,
							pop), 0);
	uc_drain();
	for (i = 0; i < nr; i++) {
		struct uc_test_chunk *c = &pop->chunks[i];

		c->size = UC_SHRINK_CHUNK;
		c->addr = unmapped_cache_alloc(pop->cache, c->size, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, c->addr);
		pop->nr = i + 1;
	}
	return pop;
}

/*
 * count reports the pages a scan can give back: the wholly free blocks of
 * the node's arenas but the one each keeps, and the magazines' rounds;
 * SHRINK_EMPTY (never 0) when there are none.  Free pages in a block with
 * a live chunk cannot be given back and do not count.
 */
static void shrinker_count_reports_returnable_pages(struct kunit *test)
{
	struct uc_arena *arena = uc_arena_get(UNMAPPED_CACHE_RW, NUMA_NO_NODE);
	struct shrink_control sc = { .gfp_mask = GFP_KERNEL };
	const unsigned int nr_rounds = 3 * UC_MAG_ROUNDS + 1;
	unsigned long before, blocks, i, n;
	struct uc_test_pop *pop;
	void **rounds;

	KUNIT_ASSERT_NOT_NULL(test, arena);
	rounds = kunit_kcalloc(test, nr_rounds, sizeof(*rounds), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rounds);

	/* Drained: nothing wholly free is left. */
	uc_drain();
	before = uc_test_count();
	KUNIT_EXPECT_EQ(test, before, 0);
	KUNIT_EXPECT_EQ(test, uc_test_returnable_pages(), 0);
	KUNIT_EXPECT_EQ(test, uc_shrink_count(NULL, &sc), SHRINK_EMPTY);
	blocks = uc_test_nr_blocks(arena);

	/*
	 * new:    [ A | B ][ C | D ][ E | F ][ G | H ]   all live
	 * free:     ^       ^       ^       ^            half of each free
	 * expect: still nothing to count (4 MiB free, no block returnable);
	 *         once all are freed, the four blocks but the one kept, or
	 *         all four if the arena holds another block.
	 */
	pop = uc_test_shrink_pop(test, 8);
	blocks = uc_test_nr_blocks(arena) - blocks;
	KUNIT_EXPECT_EQ(test, blocks, 4);
	KUNIT_EXPECT_EQ(test, uc_test_count(), 0);
	for (i = 0; i < pop->nr; i += 2)
		uc_test_chunk_free(pop->cache, &pop->chunks[i]);
	KUNIT_EXPECT_EQ_MSG(test, uc_test_count(), 0,
			    "free pages of blocks with live chunks counted");
	for (i = 1; i < pop->nr; i += 2)
		uc_test_chunk_free(pop->cache, &pop->chunks[i]);
	n = uc_test_nr_blocks(arena) > blocks ? blocks : blocks - 1;
	KUNIT_EXPECT_EQ(test, uc_test_count(), n * UNMAPPED_CACHE_BLOCK_PAGES);
	KUNIT_EXPECT_EQ(test, uc_test_count(), uc_test_returnable_pages());

	/*
	 * Three magazines' worth of single pages freed on one CPU: the CPU's
	 * two magazines keep two of them, the rest goes to the depot as full
	 * magazines; the rounds of both count.
	 */
	migrate_disable();
	for (n = 0; n < nr_rounds; n++) {
		rounds[n] = unmapped_cache_alloc(pop->cache, PAGE_SIZE, GFP_KERNEL);
		if (!rounds[n])
			break;
	}
	for (i = 0; i < n; i++)
		unmapped_cache_free(pop->cache, rounds[i], PAGE_SIZE);
	migrate_enable();
	KUNIT_EXPECT_EQ(test, n, nr_rounds);
	KUNIT_EXPECT_GE(test, uc_depot_rounds(arena), UC_MAG_ROUNDS);
	KUNIT_EXPECT_GE(test, uc_mag_rounds(arena), UC_MAG_ROUNDS);
	KUNIT_EXPECT_EQ(test, uc_test_count(), uc_test_returnable_pages());
}

/* mm/shrinker.c's SHRINK_BATCH: the most reclaim asks of one scan. */
#define UC_TEST_SHRINK_BATCH	128UL

/*
 * Reclaim calls count, then scan while count reports something.  Blocks
 * that only a CPU's magazine rounds keep from being free must still be
 * counted, or reclaim stops calling the scan that would drain them.
 *
 * new:    [ A | B ][ C | D ][ E | F ][ G | H ]   all live
 * pin:    [pf | B ][ q | D ]                     A freed, page p and
 *                                                filler f taken there;
 *                                                C freed, page q there
 * free:   f, B, D, E, F, G, H; p and q to this CPU's magazine: two blocks
 *         free, two kept from being free only by one round each
 * expect: reclaim, as do_shrink_slab() at priority 0 drives it, leaves
 *         the arena the one block it keeps.
 */
static void shrinker_counts_blocks_pinned_by_cpu_rounds(struct kunit *test)
{
	struct uc_arena *arena = uc_arena_get(UNMAPPED_CACHE_RW, NUMA_NO_NODE);
	struct shrink_control sc = { .gfp_mask = GFP_KERNEL };
	const size_t filler = UC_SHRINK_CHUNK - PAGE_SIZE;
	unsigned long count, rounds, scans = 0, i;
	struct uc_test_pop *pop;
	void *p, *q, *f;

	KUNIT_ASSERT_NOT_NULL(test, arena);
	pop = uc_test_shrink_pop(test, 8);
	KUNIT_ASSERT_EQ(test, uc_test_nr_blocks(arena), 4);

	migrate_disable();
	rounds = uc_mag_rounds(arena);
	uc_test_chunk_free(pop->cache, &pop->chunks[0]);
	p = unmapped_cache_alloc(pop->cache, PAGE_SIZE, GFP_KERNEL);
	f = unmapped_cache_alloc(pop->cache, filler, GFP_KERNEL);
	uc_test_chunk_free(pop->cache, &pop->chunks[2]);
	q = unmapped_cache_alloc(pop->cache, PAGE_SIZE, GFP_KERNEL);
	if (f)
		unmapped_cache_free(pop->cache, f, filler);
	if (p)
		unmapped_cache_free(pop->cache, p, PAGE_SIZE);
	if (q)
		unmapped_cache_free(pop->cache, q, PAGE_SIZE);
	rounds = uc_mag_rounds(arena) - rounds;
	migrate_enable();
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_NOT_NULL(test, q);
	/* The controls: both pages went to a magazine, from two blocks. */
	KUNIT_ASSERT_EQ(test, rounds, 2);
	KUNIT_ASSERT_NE(test, ALIGN_DOWN((unsigned long)p, UNMAPPED_CACHE_BLOCK_SIZE),
			ALIGN_DOWN((unsigned long)q, UNMAPPED_CACHE_BLOCK_SIZE));
	KUNIT_EXPECT_EQ(test, uc_test_nr_blocks(arena), 4);
	for (i = 1; i < pop->nr; i++)
		if (i != 2)
			uc_test_chunk_free(pop->cache, &pop->chunks[i]);

	/* At most one scan per block and one more, as a bound. */
	while (scans++ < 8) {
		count = uc_shrink_count(NULL, &sc);
		if (count == SHRINK_EMPTY)
			break;
		sc.nr_to_scan = min(count, UC_TEST_SHRINK_BATCH);
		sc.nr_scanned = sc.nr_to_scan;
		if (uc_shrink_scan(NULL, &sc) == SHRINK_STOP)
			break;
	}
	KUNIT_EXPECT_EQ_MSG(test, uc_test_nr_blocks(arena), UC_SHRINK_KEEP,
			    "blocks left when reclaim stopped, after %lu scans",
			    scans);
	KUNIT_EXPECT_EQ(test, uc_mag_rounds(arena), 0);
	KUNIT_EXPECT_EQ(test, uc_arena_check(arena), 0);
}

/*
 * A scan that falls short drains the node's magazines once: each CPU that
 * holds magazines of any of the node's arenas is asked once, not once per
 * arena.  Here one CPU holds magazines of all four arenas.
 */
static void shrinker_scan_drains_each_cpu_once(struct kunit *test)
{
	enum unmapped_cache_perm perm;
	struct unmapped_cache *cache;
	unsigned long sent;
	struct page *page;
	void *p;

	uc_drain();
	migrate_disable();
	for (perm = 0; perm < UNMAPPED_CACHE_NR_PERMS; perm++) {
		cache = uc_test_cache(test, perm);
		if (!cache)
			break;
		if (perm == UNMAPPED_CACHE_NONE) {
			page = unmapped_cache_alloc_page(cache, GFP_KERNEL);
			if (!page)
				break;
			unmapped_cache_free_page(cache, page);
		} else {
			p = unmapped_cache_alloc(cache, PAGE_SIZE, GFP_KERNEL);
			if (!p)
				break;
			unmapped_cache_free(cache, p, PAGE_SIZE);
		}
	}
	migrate_enable();
	KUNIT_ASSERT_EQ(test, perm, UNMAPPED_CACHE_NR_PERMS);

	sent = uc_mag_flushes_sent();
	uc_test_scan(UC_SHRINK_ALL);
	KUNIT_EXPECT_EQ_MSG(test, uc_mag_flushes_sent() - sent, 1,
			    "CPUs asked to flush by one scan");
}

/*
 * scan gives back whole free blocks until it has freed at least
 * nr_to_scan pages, newest first, and keeps one block per arena.
 *
 * old:    [ free ][ free ][ free ][ free ][ free ][ free ]
 * 1 page:                                          ^ returned
 * 1 block + 1 page:                        ^^^^^^^^ returned
 * all:            ^^^^^^^^^^^^^^^^ returned; the oldest block stays
 * again:  nothing to return: SHRINK_STOP
 */
static void shrinker_scan_frees_what_is_asked(struct kunit *test)
{
	struct uc_arena *arena = uc_arena_get(UNMAPPED_CACHE_RW, NUMA_NO_NODE);
	struct uc_test_pop *pop;
	unsigned long nr, i;
	long held;

	KUNIT_ASSERT_NOT_NULL(test, arena);
	pop = uc_test_shrink_pop(test, 12);
	for (i = 0; i < pop->nr; i++)
		uc_test_chunk_free(pop->cache, &pop->chunks[i]);
	nr = uc_test_nr_blocks(arena);
	held = uc_blocks_held();
	KUNIT_ASSERT_EQ(test, nr, 6);

	KUNIT_EXPECT_EQ(test, uc_test_scan(1), UNMAPPED_CACHE_BLOCK_PAGES);
	KUNIT_EXPECT_EQ(test, uc_test_nr_blocks(arena), nr - 1);
	KUNIT_EXPECT_EQ(test, uc_blocks_held(), held - 1);

	KUNIT_EXPECT_EQ(test, uc_test_scan(UNMAPPED_CACHE_BLOCK_PAGES + 1),
			2 * UNMAPPED_CACHE_BLOCK_PAGES);
	KUNIT_EXPECT_EQ(test, uc_test_nr_blocks(arena), nr - 3);
	KUNIT_EXPECT_EQ(test, uc_blocks_held(), held - 3);

	/* Asked for far more: all but the block the arena keeps. */
	KUNIT_EXPECT_EQ(test, uc_test_scan(UC_SHRINK_ALL),
			(nr - 4) * UNMAPPED_CACHE_BLOCK_PAGES);
	KUNIT_EXPECT_EQ(test, uc_test_nr_blocks(arena), 1);
	KUNIT_EXPECT_EQ(test, uc_blocks_held(), held - (long)(nr - 1));

	KUNIT_EXPECT_EQ(test, uc_test_scan(UC_SHRINK_ALL), SHRINK_STOP);
	KUNIT_EXPECT_EQ(test, uc_test_nr_blocks(arena), 1);
	KUNIT_EXPECT_EQ(test, uc_arena_check(arena), 0);
}

static void uc_test_unlock_action(void *lock)
{
	mutex_unlock(lock);
}

/*
 * Reclaim may run inside a refill, which holds the arena's grow_lock: a
 * scan passes such an arena over instead of waiting, and gives its free
 * blocks back once the lock is free.
 */
static void shrinker_scan_skips_arena_being_refilled(struct kunit *test)
{
	struct uc_arena *arena = uc_arena_get(UNMAPPED_CACHE_RW, NUMA_NO_NODE);
	struct uc_test_pop *pop;
	unsigned long nr, i, ret;
	long held;

	KUNIT_ASSERT_NOT_NULL(test, arena);
	pop = uc_test_shrink_pop(test, 6);
	for (i = 0; i < pop->nr; i++)
		uc_test_chunk_free(pop->cache, &pop->chunks[i]);
	nr = uc_test_nr_blocks(arena);
	held = uc_blocks_held();
	KUNIT_ASSERT_EQ(test, nr, 3);

	/*
	 * Held here, as a refill would; released below by this thread, with
	 * nothing in between that can abort the test (the action is only
	 * the safety net).
	 */
	mutex_lock(&arena->grow_lock);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, uc_test_unlock_action,
							&arena->grow_lock), 0);
	ret = uc_test_scan(UC_SHRINK_ALL);
	nr = uc_test_nr_blocks(arena);
	kunit_release_action(test, uc_test_unlock_action, &arena->grow_lock);

	KUNIT_EXPECT_EQ(test, ret, SHRINK_STOP);
	KUNIT_EXPECT_EQ(test, nr, 3);
	KUNIT_EXPECT_EQ(test, uc_blocks_held(), held);

	KUNIT_EXPECT_EQ(test, uc_test_scan(UC_SHRINK_ALL),
			2 * UNMAPPED_CACHE_BLOCK_PAGES);
	KUNIT_EXPECT_EQ(test, uc_test_nr_blocks(arena), 1);
	KUNIT_EXPECT_EQ(test, uc_blocks_held(), held - 2);
}

/*
 * A block with one live chunk is never given back, neither by a scan nor
 * by a drain, whatever the arena keeps; the chunk stays mapped and intact.
 *
 * old:    [ A | . ][ . | . ][ . | . ][ . | H ]   A and H live
 * scan:   [ A | . ]                  [ . | H ]
 * drain:  [ A | . ]                  [ . | H ]
 */
static void shrinker_keeps_blocks_with_live_chunks(struct kunit *test)
{
	struct uc_arena *arena = uc_arena_get(UNMAPPED_CACHE_RW, NUMA_NO_NODE);
	struct uc_test_chunk *a, *h;
	struct uc_test_pop *pop;
	unsigned long i;

	KUNIT_ASSERT_NOT_NULL(test, arena);
	pop = uc_test_shrink_pop(test, 8);
	KUNIT_ASSERT_EQ(test, uc_test_nr_blocks(arena), 4);
	a = &pop->chunks[0];
	h = &pop->chunks[7];
	memset(a->addr, 0x5a, a->size);
	memset(h->addr, 0xa5, h->size);
	for (i = 1; i < 7; i++)
		uc_test_chunk_free(pop->cache, &pop->chunks[i]);

	KUNIT_EXPECT_EQ(test, uc_test_scan(UC_SHRINK_ALL),
			2 * UNMAPPED_CACHE_BLOCK_PAGES);
	KUNIT_EXPECT_EQ(test, uc_test_nr_blocks(arena), 2);
	KUNIT_EXPECT_EQ(test, uc_test_scan(UC_SHRINK_ALL), SHRINK_STOP);
	uc_drain();
	KUNIT_EXPECT_EQ(test, uc_test_nr_blocks(arena), 2);

	KUNIT_EXPECT_TRUE(test, unmapped_cache_owns(pop->cache, a->addr, a->size));
	KUNIT_EXPECT_TRUE(test, unmapped_cache_owns(pop->cache, h->addr, h->size));
	KUNIT_EXPECT_TRUE(test, uc_test_chunk_is(a, 0x5a));
	KUNIT_EXPECT_TRUE(test, uc_test_chunk_is(h, 0xa5));
	KUNIT_EXPECT_EQ(test, uc_arena_check(arena), 0);
}

/* The periodic reaper would give blocks back while the tests count them. */
static int uc_shrinker_test_init(struct kunit *test)
{
	int err = uc_block_test_init(test);

	if (err)
		return err;
	uc_reap_hold();
	return kunit_add_action_or_reset(test, uc_test_unhold_action, NULL);
}

/*
 * The shrinker is NUMA aware: count and scan for a node see only that
 * node's arenas.  Free blocks on this node do not show in a count for a
 * node without memory, and a scan for that node gives none of them back;
 * a scan for this node does.
 */
static void shrinker_count_and_scan_are_per_node(struct kunit *test)
{
	struct shrink_control sc = { .gfp_mask = GFP_KERNEL };
	unsigned long released, i;
	struct uc_test_pop *pop;
	int nid = numa_mem_id(), other;

	/* A node without memory, so without arenas. */
	for (other = 0; other < MAX_NUMNODES; other++)
		if (!node_state(other, N_MEMORY))
			break;
	KUNIT_ASSERT_LT(test, other, MAX_NUMNODES);

	pop = uc_test_shrink_pop(test, 8);
	for (i = 0; i < pop->nr; i++)
		uc_test_chunk_free(pop->cache, &pop->chunks[i]);

	sc.nid = nid;
	KUNIT_EXPECT_NE(test, uc_shrink_count(NULL, &sc), SHRINK_EMPTY);
	/* Four free blocks, less the one the arena keeps. */
	KUNIT_EXPECT_GE(test, uc_shrink_count(NULL, &sc),
			3 * UNMAPPED_CACHE_BLOCK_PAGES);
	sc.nid = other;
	KUNIT_EXPECT_EQ(test, uc_shrink_count(NULL, &sc), SHRINK_EMPTY);

	released = uc_block_stat(UC_BLOCK_RELEASED);
	sc.nr_to_scan = UNMAPPED_CACHE_BLOCK_PAGES;
	sc.nr_scanned = UNMAPPED_CACHE_BLOCK_PAGES;
	KUNIT_EXPECT_EQ(test, uc_shrink_scan(NULL, &sc), SHRINK_STOP);
	KUNIT_EXPECT_EQ(test, uc_block_stat(UC_BLOCK_RELEASED), released);

	sc.nid = nid;
	KUNIT_EXPECT_EQ(test, uc_shrink_scan(NULL, &sc),
			UNMAPPED_CACHE_BLOCK_PAGES);
	KUNIT_EXPECT_EQ(test, uc_block_stat(UC_BLOCK_RELEASED), released + 1);
}

static struct kunit_case uc_shrinker_test_cases[] = {
	KUNIT_CASE(shrinker_count_reports_returnable_pages),
	KUNIT_CASE(shrinker_scan_drains_each_cpu_once),
	KUNIT_CASE(shrinker_counts_blocks_pinned_by_cpu_rounds),
	KUNIT_CASE(shrinker_scan_frees_what_is_asked),
	KUNIT_CASE(shrinker_scan_skips_arena_being_refilled),
	KUNIT_CASE(shrinker_keeps_blocks_with_live_chunks),
	KUNIT_CASE(shrinker_count_and_scan_are_per_node),
	{}
};

static struct kunit_suite uc_shrinker_test_suite = {
	.name = "unmapped_cache_shrinker",
	.suite_init = uc_shrinker_suite_init,
	.suite_exit = uc_shrinker_suite_exit,
	.init = uc_shrinker_test_init,
	.test_cases = uc_shrinker_test_cases,
};

kunit_test_suite(uc_shrinker_test_suite);
