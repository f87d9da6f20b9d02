// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the unmapped cache: every fault-injection point.
 */

#include "kunit.h"

#ifdef CONFIG_UNMAPPED_CACHE_FAULT_INJECTION

struct uc_fault_row {
	const char *what;
	struct fault_attr *attr;
	int space;		/* refill blocks that succeed before the fault */
	enum uc_block_stat counter;
};

static const struct uc_fault_row uc_fault_rows[] = {
	{ "order-9 allocation fails on the first block of a refill",
	  &fail_unmapped_cache_block, 0, UC_BLOCK_ALLOC_FAILED },
	{ "order-9 allocation fails on the third block of a refill",
	  &fail_unmapped_cache_block, 2, UC_BLOCK_ALLOC_FAILED },
	{ "direct-map removal fails on the first block of a refill",
	  &fail_unmapped_cache_direct_map, 0, UC_BLOCK_UNMAP_FAILED },
	{ "direct-map removal fails on the third block of a refill",
	  &fail_unmapped_cache_direct_map, 2, UC_BLOCK_UNMAP_FAILED },
	{ "virtual-space reservation fails",
	  &fail_unmapped_cache_vspace, 0, UC_BLOCK_STAT_COUNT },
};

static void uc_fault_row_desc(const struct uc_fault_row *row, char *desc)
{
	strscpy(desc, row->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(uc_fault_rows, uc_fault_rows, uc_fault_row_desc);

/* Every page the block layer took is in a held block or went back. */
static void uc_expect_blocks_balanced(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, uc_block_stat(UC_BLOCK_PAGES_IN) -
			uc_block_stat(UC_BLOCK_PAGES_OUT),
			uc_blocks_held() * (long)UNMAPPED_CACHE_BLOCK_PAGES);
}

/*
 * A refill of four blocks (an 8 MiB chunk of an RW cache, more than any
 * free range after a drain) meets the fault on its first or third block.
 */
static void faults_refill_fails_cleanly(struct kunit *test)
{
	const struct uc_fault_row *row = test->param_value;
	struct unmapped_cache *cache = uc_test_cache(test, UNMAPPED_CACHE_RW);
	struct uc_arena *arena = uc_arena_get(UNMAPPED_CACHE_RW, NUMA_NO_NODE);
	const size_t size = 4 * UNMAPPED_CACHE_BLOCK_SIZE;
	struct unmapped_cache_dm_counts before, after;
	long held, failed = 0, refill_failed, in, taken;
	void *p;

	KUNIT_ASSERT_NOT_NULL(test, cache);
	KUNIT_ASSERT_NOT_NULL(test, arena);
	uc_drain();
	held = uc_blocks_held();
	if (row->counter != UC_BLOCK_STAT_COUNT)
		failed = uc_block_stat(row->counter);
	refill_failed = uc_arena_stat(arena, UC_ARENA_REFILL_FAILED);
	in = uc_block_stat(UC_BLOCK_PAGES_IN);
	arch_unmapped_cache_direct_map_counts(&before);

	KUNIT_ASSERT_EQ(test, uc_fault_arm(test, row->attr), 0);
	/* should_fail() lets calls through while more than their size is left. */
	if (row->space)
		atomic_set(&row->attr->space,
			   row->space * UNMAPPED_CACHE_BLOCK_SIZE + 1);
	p = unmapped_cache_alloc(cache, size, GFP_KERNEL);
	if (p)
		unmapped_cache_free(cache, p, size);
	KUNIT_EXPECT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, atomic_read(&row->attr->times), 0);
	/*
	 * The fault hit where it was meant to: the blocks before it came
	 * in (a failed direct-map removal had its block allocated too).
	 */
	taken = row->space + (row->attr == &fail_unmapped_cache_direct_map);
	KUNIT_EXPECT_EQ(test, uc_block_stat(UC_BLOCK_PAGES_IN) - in,
			taken * (long)UNMAPPED_CACHE_BLOCK_PAGES);

	/* A clean error: nothing taken, nothing half done. */
	if (row->counter != UC_BLOCK_STAT_COUNT)
		KUNIT_EXPECT_EQ(test, uc_block_stat(row->counter), failed + 1);
	KUNIT_EXPECT_EQ(test, uc_arena_stat(arena, UC_ARENA_REFILL_FAILED),
			refill_failed + 1);
	KUNIT_EXPECT_EQ(test, uc_blocks_held(), held);
	uc_expect_blocks_balanced(test);
	KUNIT_EXPECT_EQ(test, uc_cache_live(cache, false), 0);
	KUNIT_EXPECT_EQ(test, uc_arena_check(arena), 0);
	arch_unmapped_cache_direct_map_counts(&after);
	KUNIT_EXPECT_EQ(test, after.pte, before.pte);
	KUNIT_EXPECT_EQ(test, after.pmd, before.pmd);

	/* The fault is gone: the same allocation works. */
	uc_fault_disarm(row->attr);
	p = unmapped_cache_alloc(cache, size, GFP_KERNEL);
	KUNIT_EXPECT_NOT_NULL(test, p);
	if (p) {
		memset(p, 0x5a, size);
		unmapped_cache_free(cache, p, size);
	}
	uc_drain();
	KUNIT_EXPECT_EQ(test, uc_blocks_held(), held);
	uc_expect_blocks_balanced(test);
}

/*
 * No magazine can be had: every free of a single page falls back to the
 * range tree (scrubbed there, NONE pages cleared one by one), the next
 * owner still finds zeroes, and the magazines work again afterwards.
 */
static void faults_magazine_alloc_fails_cleanly(struct kunit *test)
{
	struct unmapped_cache *a = uc_test_cache(test, UNMAPPED_CACHE_NONE);
	struct unmapped_cache *b = uc_test_cache(test, UNMAPPED_CACHE_NONE);
	struct uc_arena *arena = uc_arena_get(UNMAPPED_CACHE_NONE, NUMA_NO_NODE);
	unsigned long misses, hits;
	struct page **pages;
	int i, n;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, arena);
	pages = kunit_kcalloc(test, UC_TEST_SECRETS, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	/*
	 * Nothing may free NONE pages behind the test's back (the reaper
	 * gives back execmem pages waiting for a flush), so that no other
	 * free takes a magazine before the fault is armed.
	 */
	uc_reap_hold();
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, uc_test_unhold_action,
							NULL), 0);
	uc_vmap_purge();
	/* No magazine left anywhere: every free needs a new one. */
	uc_mag_drain();

	KUNIT_ASSERT_EQ(test, uc_fault_arm(test, &fail_unmapped_cache_magazine), 0);
	atomic_set(&fail_unmapped_cache_magazine.times, -1);	/* every time */
	n = uc_test_take_pages(test, a, pages, UC_TEST_WRITE_SECRET);
	misses = uc_mag_stat(arena, UC_MAG_FREE_MISS);
	for (i = 0; i < n; i++)
		unmapped_cache_free_page(a, pages[i]);
	KUNIT_EXPECT_EQ(test, uc_mag_stat(arena, UC_MAG_FREE_MISS), misses + n);
	KUNIT_EXPECT_EQ(test, uc_cache_live(a, false), 0);
	KUNIT_EXPECT_EQ(test, uc_mag_rounds(arena), 0);
	KUNIT_EXPECT_EQ(test, uc_arena_check(arena), 0);

	/* The next owner finds zeroes. */
	n = uc_test_take_pages(test, b, pages, UC_TEST_EXPECT_ZERO);

	/* The fault is gone: frees go into magazines again. */
	uc_fault_disarm(&fail_unmapped_cache_magazine);
	hits = uc_mag_stat(arena, UC_MAG_FREE_HIT);
	for (i = 0; i < n; i++)
		unmapped_cache_free_page(b, pages[i]);
	KUNIT_EXPECT_EQ(test, uc_mag_stat(arena, UC_MAG_FREE_HIT), hits + n);
	KUNIT_EXPECT_EQ(test, uc_cache_live(b, false), 0);
	uc_drain();
	uc_expect_blocks_balanced(test);
}

/*
 * No free order-9 page (fail_unmapped_cache_no_free_block): a GFP_KERNEL
 * caller does not compact for a block itself but fails, and the arena's
 * worker compacts for it and adds the block, which the next caller takes
 * without any refill; a caller that passes __GFP_RETRY_MAYFAIL compacts
 * itself.
 */
static void faults_refill_left_to_worker(struct kunit *test)
{
	struct unmapped_cache *cache = uc_test_cache(test, UNMAPPED_CACHE_RW);
	struct uc_arena *arena = uc_arena_get(UNMAPPED_CACHE_RW, NUMA_NO_NODE);
	struct fault_attr *attr = &fail_unmapped_cache_no_free_block;
	const size_t size = UNMAPPED_CACHE_BLOCK_SIZE;
	long deferred, worker, compacted;
	unsigned long blocks;
	void *p;

	KUNIT_ASSERT_NOT_NULL(test, cache);
	KUNIT_ASSERT_NOT_NULL(test, arena);
	/* The reaper must not give the worker's block back meanwhile. */
	uc_reap_hold();
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, uc_test_unhold_action,
							NULL), 0);
	flush_work(&arena->refill_work);
	uc_drain();
	deferred = uc_arena_stat(arena, UC_ARENA_REFILLS_DEFERRED);
	worker = uc_arena_stat(arena, UC_ARENA_WORKER_REFILLS);
	compacted = uc_block_stat(UC_BLOCK_COMPACTED);
	blocks = READ_ONCE(arena->nr_blocks);

	/* Fails the caller's look for a free block, then the worker's. */
	KUNIT_ASSERT_EQ(test, uc_fault_arm(test, attr), 0);
	atomic_set(&attr->times, 2);
	p = unmapped_cache_alloc(cache, size, GFP_KERNEL);
	if (p)
		unmapped_cache_free(cache, p, size);
	KUNIT_EXPECT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, uc_arena_stat(arena, UC_ARENA_REFILLS_DEFERRED),
			deferred + 1);
	flush_work(&arena->refill_work);
	KUNIT_EXPECT_EQ(test, atomic_read(&attr->times), 0);
	KUNIT_EXPECT_EQ(test, uc_arena_stat(arena, UC_ARENA_WORKER_REFILLS),
			worker + 1);
	KUNIT_EXPECT_EQ(test, uc_block_stat(UC_BLOCK_COMPACTED), compacted + 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(arena->nr_blocks), blocks + 1);

	/* The next caller finds the worker's block: no refill allowed. */
	p = unmapped_cache_alloc(cache, size, GFP_NOWAIT);
	KUNIT_EXPECT_NOT_NULL(test, p);
	if (p)
		unmapped_cache_free(cache, p, size);
	uc_drain();

	/* A caller that asks for compaction compacts itself. */
	KUNIT_ASSERT_EQ(test, uc_fault_arm(test, attr), 0);
	p = unmapped_cache_alloc(cache, size, GFP_KERNEL | __GFP_RETRY_MAYFAIL);
	KUNIT_EXPECT_NOT_NULL(test, p);
	if (p)
		unmapped_cache_free(cache, p, size);
	KUNIT_EXPECT_EQ(test, uc_block_stat(UC_BLOCK_COMPACTED), compacted + 2);
	KUNIT_EXPECT_EQ(test, uc_arena_stat(arena, UC_ARENA_REFILLS_DEFERRED),
			deferred + 1);
	uc_fault_disarm(attr);
	flush_work(&arena->refill_work);
	uc_drain();
	KUNIT_EXPECT_EQ(test, uc_arena_check(arena), 0);
	uc_expect_blocks_balanced(test);
}

static struct kunit_case uc_faults_test_cases[] = {
	KUNIT_CASE_PARAM(faults_refill_fails_cleanly, uc_fault_rows_gen_params),
	KUNIT_CASE(faults_magazine_alloc_fails_cleanly),
	KUNIT_CASE(faults_refill_left_to_worker),
	{}
};

#else

static void faults_need_fault_injection(struct kunit *test)
{
	kunit_skip(test, "requires CONFIG_UNMAPPED_CACHE_FAULT_INJECTION");
}

static struct kunit_case uc_faults_test_cases[] = {
	KUNIT_CASE(faults_need_fault_injection),
	{}
};

#endif

static struct kunit_suite uc_faults_test_suite = {
	.name = "unmapped_cache_faults",
	.suite_init = uc_suite_init,
	.suite_exit = uc_suite_exit,
	.init = uc_block_test_init,
	.test_cases = uc_faults_test_cases,
};

kunit_test_suite(uc_faults_test_suite);
