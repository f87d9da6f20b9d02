// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the unmapped cache: hardware poison in the cache's pages.
 */

#include "kunit.h"

/*
 * Hardware poison: memory_failure() on pages the cache holds, as a machine
 * check (or hwpoison-inject) would call it.  It cannot take such a page
 * (neither on an LRU list nor free in the buddy allocator): it flags it
 * and leaves it to the cache.
 */
struct uc_poison_ctx {
	struct unmapped_cache *cache;
	struct uc_arena *arena;
	struct page *page;
};

/* Whatever the test reached: unflag the page and give it back. */
static void uc_test_poison_cleanup(void *data)
{
	struct uc_poison_ctx *ctx = data;
	unsigned long phys = PFN_PHYS(page_to_pfn(ctx->page));

	if (PageHWPoison(ctx->page)) {
		ClearPageHWPoison(ctx->page);
		num_poisoned_pages_sub(page_to_pfn(ctx->page), 1);
	}
	if (uc_arena_owns(ctx->arena, phys, PAGE_SIZE, UC_OWNER_POISON))
		uc_arena_free(ctx->arena, phys, PAGE_SIZE, UC_OWNER_POISON);
	else if (unmapped_cache_owns_page(ctx->cache, ctx->page))
		unmapped_cache_free_page(ctx->cache, ctx->page);
}

static bool uc_test_poison(struct page *page)
{
	memory_failure(page_to_pfn(page), MF_SW_SIMULATED);
	return PageHWPoison(page);
}

/*
 * A NONE page flagged while its owner holds it keeps its contents when the
 * owner frees it (nothing clears a poisoned page), and never leaves the
 * magazine it went to: the next allocation on that CPU sets it aside for
 * good instead of handing it out.  Set aside, it keeps its block, which
 * stays out of the direct map through a drain.
 */
static void poison_page_is_set_aside_never_cleared(struct kunit *test)
{
	struct uc_poison_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	struct page **pages;
	unsigned long set_aside, phys;
	int i, n, seen = 0;
	u8 *v;

	if (!IS_ENABLED(CONFIG_MEMORY_FAILURE))
		kunit_skip(test, "needs CONFIG_MEMORY_FAILURE");
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->cache = uc_test_cache(test, UNMAPPED_CACHE_NONE);
	ctx->arena = uc_arena_get(UNMAPPED_CACHE_NONE, NUMA_NO_NODE);
	pages = kunit_kcalloc(test, UC_TEST_SECRETS, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->cache);
	KUNIT_ASSERT_NOT_NULL(test, ctx->arena);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	ctx->page = unmapped_cache_alloc_page(ctx->cache, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->page);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   uc_test_poison_cleanup,
							   ctx));
	phys = PFN_PHYS(page_to_pfn(ctx->page));
	/* Test only: a mapping to write the owner's data and look at it. */
	v = uc_test_vmap_pages(&ctx->page, 1);
	KUNIT_ASSERT_NOT_NULL(test, v);
	memset(v, 0x5a, PAGE_SIZE);

	KUNIT_EXPECT_TRUE(test, uc_test_poison(ctx->page));
	set_aside = uc_arena_stat(ctx->arena, UC_ARENA_POISON_SET_ASIDE);
	migrate_disable();
	unmapped_cache_free_page(ctx->cache, ctx->page);
	for (n = 0; n < UC_TEST_SECRETS; n++) {
		pages[n] = unmapped_cache_alloc_page(ctx->cache, GFP_KERNEL);
		if (!pages[n])
			break;
		if (pages[n] == ctx->page)
			seen++;
	}
	migrate_enable();
	for (i = 0; i < n; i++)
		if (pages[i] != ctx->page)
			unmapped_cache_free_page(ctx->cache, pages[i]);
	KUNIT_EXPECT_EQ(test, n, UC_TEST_SECRETS);
	KUNIT_EXPECT_EQ_MSG(test, seen, 0, "a poisoned page was handed out");
	KUNIT_EXPECT_NULL_MSG(test, memchr_inv(v, 0x5a, PAGE_SIZE),
			      "a poisoned page was written");
	vunmap(v);
	KUNIT_EXPECT_EQ(test, uc_arena_stat(ctx->arena, UC_ARENA_POISON_SET_ASIDE),
			set_aside + 1);
	KUNIT_EXPECT_TRUE(test, uc_arena_owns(ctx->arena, phys, PAGE_SIZE,
					      UC_OWNER_POISON));

	uc_drain();
	KUNIT_EXPECT_NOT_NULL(test, uc_block_lookup(page_to_pfn(ctx->page)));
	KUNIT_EXPECT_FALSE(test, uc_test_mapped((unsigned long)page_address(ctx->page)));
}

/*
 * A block with a poisoned page is never restored to the direct map: its
 * release keeps it, held and unmapped, and a drain leaves it so.
 * unpoison_memory() refuses the page (the cache holds references to it);
 * once the flag is gone, the next drain releases the block.
 */
static void poison_block_is_kept_until_unpoisoned(struct kunit *test)
{
	long kept = uc_blocks_poisoned(), bad = uc_test_bad_calls();
	long stat = uc_block_stat(UC_BLOCK_POISON_KEPT), held;
	struct uc_poison_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	struct uc_block *block;
	struct uc_verify verify;
	unsigned long addr;

	if (!IS_ENABLED(CONFIG_MEMORY_FAILURE))
		kunit_skip(test, "needs CONFIG_MEMORY_FAILURE");
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->arena = uc_arena_get(UNMAPPED_CACHE_NONE, NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, ctx->arena);
	uc_drain();
	held = uc_blocks_held();
	block = uc_block_grab(NUMA_NO_NODE, 0);
	KUNIT_ASSERT_NOT_NULL(test, block);
	ctx->page = block->page + 7;
	addr = (unsigned long)page_address(ctx->page);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   uc_test_poison_cleanup,
							   ctx));

	KUNIT_EXPECT_TRUE(test, uc_test_poison(ctx->page));
	uc_blocks_verify(&verify);
	KUNIT_EXPECT_GE(test, verify.poisoned, 1);
	KUNIT_EXPECT_EQ(test, verify.dm_present, 0);
	uc_block_retire(block);
	KUNIT_EXPECT_EQ(test, uc_blocks_poisoned(), kept + 1);
	KUNIT_EXPECT_EQ(test, uc_block_stat(UC_BLOCK_POISON_KEPT), stat + 1);
	KUNIT_EXPECT_EQ(test, uc_blocks_held(), held + 1);
	uc_drain();
	KUNIT_EXPECT_EQ(test, uc_blocks_poisoned(), kept + 1);
	KUNIT_EXPECT_FALSE(test, uc_test_mapped(addr));

	/*
	 * unpoison_memory() leaves a page alone that others hold references
	 * to, and the cache always holds its own: nothing is put, nothing
	 * warns, the block stays kept.
	 */
	KUNIT_EXPECT_NE(test, unpoison_memory(page_to_pfn(ctx->page)), 0);
	KUNIT_EXPECT_TRUE(test, PageHWPoison(ctx->page));
	KUNIT_EXPECT_EQ(test, page_ref_count(ctx->page), UC_PAGE_REFS);
	KUNIT_EXPECT_EQ(test, uc_test_bad_calls(), bad);
	uc_drain();
	KUNIT_EXPECT_EQ(test, uc_blocks_poisoned(), kept + 1);
	/* The flag cleared (as only a test can), the next drain releases it. */
	ClearPageHWPoison(ctx->page);
	num_poisoned_pages_sub(page_to_pfn(ctx->page), 1);
	uc_drain();
	KUNIT_EXPECT_EQ(test, uc_blocks_poisoned(), kept);
	KUNIT_EXPECT_EQ(test, uc_blocks_held(), held);
	KUNIT_EXPECT_TRUE(test, uc_test_mapped(addr));
}

static void uc_test_put_page_action(void *data)
{
	put_page(data);
}

static void uc_test_drain_action(void *data)
{
	uc_drain();
}

/*
 * A poisoned page that somebody else still holds (memory_failure() may
 * keep its reference for good): the block's release keeps it for the
 * poison at once, instead of waiting, retried every UC_BLOCK_RETRY_DELAY,
 * for a reference that may never go.
 */
static void poison_held_page_keeps_block_at_once(struct kunit *test)
{
	long kept = uc_blocks_poisoned(), deferred = uc_blocks_deferred();
	struct uc_poison_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	struct uc_block *block;
	long held;

	if (!IS_ENABLED(CONFIG_MEMORY_FAILURE))
		kunit_skip(test, "needs CONFIG_MEMORY_FAILURE");
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->arena = uc_arena_get(UNMAPPED_CACHE_NONE, NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, ctx->arena);
	/* Last of the cleanups: the block goes once its page is clean. */
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   uc_test_drain_action,
							   NULL));
	uc_drain();
	held = uc_blocks_held();
	block = uc_block_grab(NUMA_NO_NODE, 0);
	KUNIT_ASSERT_NOT_NULL(test, block);
	ctx->page = block->page + 7;
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   uc_test_poison_cleanup,
							   ctx));
	KUNIT_EXPECT_TRUE(test, uc_test_poison(ctx->page));
	get_page(ctx->page);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   uc_test_put_page_action,
							   ctx->page));

	uc_block_retire(block);
	KUNIT_EXPECT_EQ(test, uc_blocks_poisoned(), kept + 1);
	KUNIT_EXPECT_EQ(test, uc_blocks_deferred(), deferred);
	KUNIT_EXPECT_EQ(test, uc_blocks_held(), held + 1);
}

/* A page of a mapped arena: its address there, for the cleanup. */
struct uc_poison_va {
	struct uc_arena *arena;
	unsigned long addr;
	struct page *page;
};

static void uc_test_poison_va_cleanup(void *data)
{
	struct uc_poison_va *pv = data;

	if (PageHWPoison(pv->page)) {
		ClearPageHWPoison(pv->page);
		num_poisoned_pages_sub(page_to_pfn(pv->page), 1);
	}
	if (uc_arena_owns(pv->arena, pv->addr, PAGE_SIZE, UC_OWNER_POISON))
		uc_arena_free(pv->arena, pv->addr, PAGE_SIZE, UC_OWNER_POISON);
}

/*
 * A chunk of several pages carved with one poisoned page in it: only that
 * page is set aside, as a chunk of its own, and the rest of the chunk goes
 * back to the arena (not 16 MiB lost for one bad page).
 */
static void poison_sets_aside_only_the_bad_page(struct kunit *test)
{
	struct uc_poison_va *pv = kunit_kzalloc(test, sizeof(*pv), GFP_KERNEL);
	struct unmapped_cache *cache = uc_test_cache(test, UNMAPPED_CACHE_RW);
	const size_t size = 4 * PAGE_SIZE;
	unsigned long set_aside, a, flags;
	bool below_free, clear;
	void *p, *q;

	if (!IS_ENABLED(CONFIG_MEMORY_FAILURE))
		kunit_skip(test, "needs CONFIG_MEMORY_FAILURE");
	KUNIT_ASSERT_NOT_NULL(test, pv);
	KUNIT_ASSERT_NOT_NULL(test, cache);
	pv->arena = uc_arena_get(UNMAPPED_CACHE_RW, NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, pv->arena);
	/* Chunks are placed lowest first (uc_suite_init()): q carves p's place. */
	p = unmapped_cache_alloc(cache, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	a = (unsigned long)p;
	pv->addr = a + 2 * PAGE_SIZE;
	pv->page = vmalloc_to_page((void *)pv->addr);
	unmapped_cache_free(cache, p, size);
	KUNIT_ASSERT_NOT_NULL(test, pv->page);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   uc_test_poison_va_cleanup,
							   pv));
	KUNIT_EXPECT_TRUE(test, uc_test_poison(pv->page));

	set_aside = uc_arena_stat(pv->arena, UC_ARENA_POISON_SET_ASIDE);
	q = unmapped_cache_alloc(cache, size, GFP_KERNEL);
	KUNIT_EXPECT_NOT_NULL(test, q);
	KUNIT_EXPECT_EQ(test, uc_arena_stat(pv->arena, UC_ARENA_POISON_SET_ASIDE),
			set_aside + 1);
	KUNIT_EXPECT_TRUE(test, uc_arena_owns(pv->arena, pv->addr, PAGE_SIZE,
					      UC_OWNER_POISON));
	clear = !q || (unsigned long)q >= pv->addr + PAGE_SIZE ||
		(unsigned long)q + size <= pv->addr;
	KUNIT_EXPECT_TRUE_MSG(test, clear, "the new chunk holds the bad page");
	/* The two pages below the bad one went back to the tree. */
	spin_lock_irqsave(&pv->arena->lock, flags);
	below_free = uc_range_is_free(&pv->arena->tree, a, 2 * PAGE_SIZE);
	spin_unlock_irqrestore(&pv->arena->lock, flags);
	KUNIT_EXPECT_TRUE(test, below_free);
	if (q)
		unmapped_cache_free(cache, q, size);
	KUNIT_EXPECT_EQ(test, uc_arena_check(pv->arena), 0);
}

/*
 * The 1:1 map changes of machine-check recovery leave a cache page alone:
 * set_mce_nospec() (after memory_failure() of a machine check) must not
 * split the block's not-present 2M entry, and clear_mce_nospec() (pmem,
 * once the poison is cleared) must not map the page there again, which
 * for a secret page would expose it.
 */
static void poison_mce_nospec_leaves_the_block_alone(struct kunit *test)
{
	struct unmapped_cache_entry e;
	struct uc_block *block;
	unsigned long addr, pfn;

	if (!IS_ENABLED(CONFIG_X86_64) || !IS_ENABLED(CONFIG_MEMORY_FAILURE))
		kunit_skip(test, "needs x86-64 and CONFIG_MEMORY_FAILURE");
	block = uc_test_grab(test, NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, block);
	pfn = page_to_pfn(block->page + 7);
	addr = (unsigned long)page_address(block->page + 7);

	KUNIT_EXPECT_EQ(test, set_mce_nospec(pfn), 0);
	arch_unmapped_cache_lookup(addr, &e);
	KUNIT_EXPECT_EQ(test, e.size, UNMAPPED_CACHE_BLOCK_SIZE);
	KUNIT_EXPECT_FALSE(test, e.present);

	KUNIT_EXPECT_EQ(test, clear_mce_nospec(pfn), 0);
	arch_unmapped_cache_lookup(addr, &e);
	KUNIT_EXPECT_EQ(test, e.size, UNMAPPED_CACHE_BLOCK_SIZE);
	KUNIT_EXPECT_FALSE(test, e.present);
}

static struct kunit_case uc_poison_test_cases[] = {
	KUNIT_CASE(poison_page_is_set_aside_never_cleared),
	KUNIT_CASE(poison_block_is_kept_until_unpoisoned),
	KUNIT_CASE(poison_held_page_keeps_block_at_once),
	KUNIT_CASE(poison_mce_nospec_leaves_the_block_alone),
	KUNIT_CASE(poison_sets_aside_only_the_bad_page),
	{}
};

static struct kunit_suite uc_poison_test_suite = {
	.name = "unmapped_cache_poison",
	.suite_init = uc_suite_init,
	.suite_exit = uc_suite_exit,
	.init = uc_block_test_init,
	.test_cases = uc_poison_test_cases,
};

kunit_test_suite(uc_poison_test_suite);
