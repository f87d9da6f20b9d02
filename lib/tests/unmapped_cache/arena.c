// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the unmapped cache: arenas and the public interface.
 */

#include "kunit.h"

/*
 * Arenas and the public interface.
 *
 * Every test creates its own cache; what it allocates is freed and the
 * cache destroyed by KUnit actions, in reverse order, also when an
 * assertion fails.  Blocks stay with the arenas (they are shared); the
 * shrink test gives them back.
 */

/*
 * Chunks of arena_mixed_population().  Under KASAN the case's time goes
 * with the number of chunks more than with their size (smaller chunks did
 * not shorten it): a quarter as many there.
 */
#define UC_POP_CHUNKS		(IS_ENABLED(CONFIG_KASAN) ? 512 : 2048)

static bool uc_test_chunk_alloc(struct kunit *test, struct unmapped_cache *cache,
				enum unmapped_cache_perm perm,
				struct uc_test_chunk *c)
{
	if (perm == UNMAPPED_CACHE_NONE) {
		c->size = PAGE_SIZE;
		c->page = unmapped_cache_alloc_page(cache, GFP_KERNEL);
		return c->page;
	}
	c->size = (uc_test_rand_below(test, UC_POP_MAX_PAGES) + 1) * PAGE_SIZE;
	c->addr = unmapped_cache_alloc(cache, c->size, GFP_KERNEL | __GFP_ZERO);
	return c->addr;
}

/* Write a pattern into every page of a chunk, the way its owner would. */
static void uc_test_chunk_dirty(struct kunit *test, struct unmapped_cache *cache,
				struct uc_test_chunk *c)
{
	size_t off;
	void *p;

	if (c->page) {
		/* Test only: a NONE page's owner maps it elsewhere. */
		p = vmap(&c->page, 1, VM_MAP, PAGE_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p);
		memset(p, 0x5a, PAGE_SIZE);
		vunmap(p);
		return;
	}
	for (off = 0; off < c->size; off += PAGE_SIZE)
		KUNIT_EXPECT_EQ(test, unmapped_cache_write(cache, c->addr + off,
							   "dirty", 5), 0);
}

/* Every page of every live chunk: mapped as @perm asks, no direct map. */
static void uc_test_expect_mappings(struct kunit *test, struct uc_test_pop *pop,
				    enum unmapped_cache_perm perm)
{
	unsigned long bad_dm = 0, bad_prot = 0, bad_size = 0, checked = 0;
	bool want_w = perm == UNMAPPED_CACHE_RW;
	bool want_x = perm == UNMAPPED_CACHE_ROX;
	/* RO blocks are mapped page by page (arena.c). */
	unsigned long want_size = perm == UNMAPPED_CACHE_RO ? PAGE_SIZE :
			UNMAPPED_CACHE_BLOCK_SIZE;
	struct unmapped_cache_entry e;
	unsigned int i;
	size_t off;

	for (i = 0; i < pop->nr; i++) {
		struct uc_test_chunk *c = &pop->chunks[i];

		for (off = 0; off < c->size; off += PAGE_SIZE) {
			struct page *page = c->page;

			checked++;
			if (!page) {
				page = vmalloc_to_page(c->addr + off);
				arch_unmapped_cache_lookup((unsigned long)c->addr + off, &e);
				if (e.size != want_size)
					bad_size++;
				if (!e.present || e.writable != want_w || e.exec != want_x)
					bad_prot++;
			}
			arch_unmapped_cache_lookup((unsigned long)page_address(page), &e);
			if (e.present || e.size != UNMAPPED_CACHE_BLOCK_SIZE)
				bad_dm++;
		}
	}
	KUNIT_EXPECT_GT(test, checked, 0);
	KUNIT_EXPECT_EQ_MSG(test, bad_dm, 0,
			    "pages with a present or split direct-map entry");
	KUNIT_EXPECT_EQ_MSG(test, bad_prot, 0, "pages mapped with the wrong permission");
	KUNIT_EXPECT_EQ_MSG(test, bad_size, 0, "pages not mapped by a 2M entry (4K for RO)");
}

/* Whether a page of [@addr, @addr + @size) has a present entry. */
static bool uc_test_any_present(unsigned long addr, size_t size)
{
	struct unmapped_cache_entry e;
	size_t off;

	for (off = 0; off < size; off += PAGE_SIZE) {
		arch_unmapped_cache_lookup(addr + off, &e);
		if (e.present)
			return true;
	}
	return false;
}

static const enum unmapped_cache_perm uc_test_perms[] = {
	UNMAPPED_CACHE_NONE, UNMAPPED_CACHE_RO, UNMAPPED_CACHE_ROX, UNMAPPED_CACHE_RW,
};

static void uc_perm_desc(const enum unmapped_cache_perm *perm, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", uc_perm_names[*perm]);
}

KUNIT_ARRAY_PARAM(uc_perm, uc_test_perms, uc_perm_desc);

/*
 * For each permission: 2048 chunks of 1 to 64 pages (single pages for
 * NONE), free half of them in random order, allocate them again.  No
 * direct-map entry may be split, every page must be mapped with the
 * permission asked for and have no present direct-map entry, freed text
 * must read back as traps and reused chunks as zeroes.  The KASAN kernel
 * takes 512 chunks, and it and the KCSAN kernel chunks of at most 16 pages
 * (UC_POP_CHUNKS, UC_POP_MAX_PAGES).
 */
static void arena_mixed_population(struct kunit *test)
{
	const enum unmapped_cache_perm perm =
		*(const enum unmapped_cache_perm *)test->param_value;
	u8 fresh = perm == UNMAPPED_CACHE_ROX ? ARCH_UNMAPPED_CACHE_TRAP_BYTE : 0;
	struct unmapped_cache_dm_counts before, after;
	unsigned long not_fresh = 0, not_scrubbed = 0, not_hidden = 0;
	unsigned long handed_out = 0;
	struct uc_arena_info info;
	struct uc_verify verify;
	struct uc_test_pop *pop;
	struct uc_arena *arena;
	unsigned int i, *order;

	pop = kunit_kzalloc(test, sizeof(*pop), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pop);
	pop->chunks = kunit_kcalloc(test, UC_POP_CHUNKS, sizeof(*pop->chunks),
				    GFP_KERNEL);
	order = kunit_kcalloc(test, UC_POP_CHUNKS, sizeof(*order), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pop->chunks);
	KUNIT_ASSERT_NOT_NULL(test, order);
	pop->cache = uc_test_cache(test, perm);
	KUNIT_ASSERT_NOT_NULL(test, pop->cache);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, uc_test_pop_action, pop), 0);
	arena = uc_arena_get(perm, NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, arena);

	arch_unmapped_cache_direct_map_counts(&before);
	for (i = 0; i < UC_POP_CHUNKS; i++) {
		struct uc_test_chunk *c = &pop->chunks[i];

		KUNIT_ASSERT_TRUE(test, uc_test_chunk_alloc(test, pop->cache, perm, c));
		pop->nr = i + 1;
		if (!uc_test_chunk_is(c, fresh))
			not_fresh++;
	}
	KUNIT_EXPECT_EQ(test, not_fresh, 0);

	/* Free half, in random order (Fisher-Yates over the indices). */
	for (i = 0; i < UC_POP_CHUNKS; i++)
		order[i] = i;
	for (i = UC_POP_CHUNKS - 1; i > 0; i--) {
		unsigned int j = uc_test_rand_below(test, i + 1);

		swap(order[i], order[j]);
	}
	for (i = 0; i < UC_POP_CHUNKS / 2; i++) {
		struct uc_test_chunk *c = &pop->chunks[order[i]];
		unsigned long addr = (unsigned long)c->addr;
		size_t size = c->size;

		/* Dirty it, so that reuse without a scrub would show. */
		uc_test_chunk_dirty(test, pop->cache, c);
		uc_test_chunk_free(pop->cache, c);
		/* Freed text reads back as traps through its own mapping. */
		if (perm == UNMAPPED_CACHE_ROX &&
		    uc_test_freed_memchr_inv((void *)addr,
					     ARCH_UNMAPPED_CACHE_TRAP_BYTE, size))
			not_scrubbed++;
		/* Freed read-only data has no present entry left. */
		if (perm == UNMAPPED_CACHE_RO && uc_test_any_present(addr, size))
			not_hidden++;
	}
	KUNIT_EXPECT_EQ(test, not_scrubbed, 0);
	KUNIT_EXPECT_EQ_MSG(test, not_hidden, 0,
			    "freed RO chunks still present in their mapping");
	KUNIT_EXPECT_EQ(test, uc_arena_check(arena), 0);

	/* Allocate the freed half again: it must come back clean. */
	not_fresh = 0;
	for (i = 0; i < UC_POP_CHUNKS / 2; i++) {
		struct uc_test_chunk *c = &pop->chunks[order[i]];

		KUNIT_ASSERT_TRUE(test, uc_test_chunk_alloc(test, pop->cache, perm, c));
		if (!uc_test_chunk_is(c, fresh))
			not_fresh++;
	}
	KUNIT_EXPECT_EQ(test, not_fresh, 0);
	KUNIT_EXPECT_EQ(test, uc_arena_check(arena), 0);

	uc_test_expect_mappings(test, pop, perm);
	/* Every block the cache holds, not only this test's: I1 and W^X. */
	uc_blocks_verify(&verify);
	KUNIT_EXPECT_GT(test, verify.blocks, 0);
	KUNIT_EXPECT_EQ(test, verify.dm_present, 0);
	KUNIT_EXPECT_EQ(test, verify.wx, 0);
	KUNIT_EXPECT_EQ(test, verify.ro_writable, 0);
	KUNIT_EXPECT_EQ(test, verify.rw_exec, 0);
	arch_unmapped_cache_direct_map_counts(&after);
	KUNIT_EXPECT_EQ_MSG(test, after.pte, before.pte,
			    "PTE-mapped direct-map pages changed: a PMD was split");

	for (i = 0; i < UC_POP_CHUNKS; i++)
		handed_out += pop->chunks[i].size >> PAGE_SHIFT;
	uc_arena_info(arena, &info);
	kunit_info(test, "%s: %u chunks, %lu pages handed out, %lu pages held in %lu blocks (%lu%% used), largest free %lu pages\n",
		   uc_perm_names[perm], UC_POP_CHUNKS, handed_out,
		   info.nr_blocks * UNMAPPED_CACHE_BLOCK_PAGES, info.nr_blocks,
		   info.nr_blocks ? handed_out * 100 /
				    (info.nr_blocks * UNMAPPED_CACHE_BLOCK_PAGES) : 0,
		   info.largest_free >> PAGE_SHIFT);
}

/* Give back every free block of an arena (their mappings go with them). */
static void uc_test_arena_giveback_action(void *data)
{
	struct uc_arena *arena = data;

	if (!arena)
		return;
	uc_mag_drain_arena(arena);
	uc_arena_shrink(arena, 0, ULONG_MAX, false);
}

/*
 * DESIGN I8 through the public interface: set_memory_ro() and
 * set_memory_x() on pages of an RW chunk change the module-area mapping
 * only; the chunk's not-present direct-map entry is not split.
 */
static void arena_rw_permission_change_does_not_split(struct kunit *test)
{
	struct unmapped_cache *cache = uc_test_cache(test, UNMAPPED_CACHE_RW);
	struct unmapped_cache_dm_counts before, after;
	struct unmapped_cache_entry e;
	unsigned long addr;
	void *p;

	KUNIT_ASSERT_NOT_NULL(test, cache);
	p = unmapped_cache_alloc(cache, 8 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	addr = (unsigned long)p;
	/*
	 * The changes below split the block's 2M mapping in the module area
	 * for good: the block goes back to the page allocator when the test
	 * ends, so that no later case finds it (#28 item 7).
	 */
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   uc_test_arena_giveback_action,
							   uc_arena_lookup(UNMAPPED_CACHE_RW,
									   addr, NULL)));

	arch_unmapped_cache_direct_map_counts(&before);
	KUNIT_EXPECT_EQ(test, set_memory_ro(addr + 2 * PAGE_SIZE, 1), 0);
	KUNIT_EXPECT_EQ(test, set_memory_x(addr + 2 * PAGE_SIZE, 1), 0);
	arch_unmapped_cache_lookup(addr + 2 * PAGE_SIZE, &e);
	KUNIT_EXPECT_FALSE(test, e.writable);
	KUNIT_EXPECT_TRUE(test, e.exec);
	KUNIT_EXPECT_EQ(test, set_memory_nx(addr + 2 * PAGE_SIZE, 1), 0);
	KUNIT_EXPECT_EQ(test, set_memory_rw(addr + 2 * PAGE_SIZE, 1), 0);
	arch_unmapped_cache_direct_map_counts(&after);

	KUNIT_EXPECT_EQ(test, after.pte, before.pte);
	arch_unmapped_cache_lookup((unsigned long)page_address(vmalloc_to_page(p)), &e);
	KUNIT_EXPECT_FALSE(test, e.present);
	KUNIT_EXPECT_EQ(test, e.size, UNMAPPED_CACHE_BLOCK_SIZE);
	unmapped_cache_free(cache, p, 8 * PAGE_SIZE);
}

/*
 * A chunk larger than a block spans blocks mapped side by side: every page
 * of it is mapped writable (some may sit in a block whose 2M mapping an
 * earlier test split with set_memory_*(), so the size is not checked).
 */
static void arena_large_chunk(struct kunit *test)
{
	struct unmapped_cache *cache = uc_test_cache(test, UNMAPPED_CACHE_RW);
	const size_t size = UNMAPPED_CACHE_MAX_CHUNK;
	struct unmapped_cache_entry e;
	unsigned long off, wrong = 0;
	long bad;
	u8 *p;

	KUNIT_ASSERT_NOT_NULL(test, cache);
	p = unmapped_cache_alloc(cache, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	for (off = 0; off < size; off += PAGE_SIZE) {
		arch_unmapped_cache_lookup((unsigned long)p + off, &e);
		if (!e.present || !e.writable || e.exec)
			wrong++;
	}
	KUNIT_EXPECT_EQ(test, wrong, 0);
	p[0] = 1;
	p[size - 1] = 2;
	KUNIT_EXPECT_EQ(test, p[0] + p[size - 1], 3);
	unmapped_cache_free(cache, p, size);
	/* More than that is refused, with a warning. */
	bad = uc_test_bad_calls();
	KUNIT_EXPECT_NULL(test, unmapped_cache_alloc(cache, size + PAGE_SIZE,
						     GFP_KERNEL));
	KUNIT_EXPECT_EQ(test, uc_test_bad_calls(), bad + 1);
}

/*
 * Bad input: each call is refused with a warning (counted in uc_bad_calls)
 * and changes nothing; the chunk is still live and can be freed properly
 * afterwards.
 */
static void arena_bad_input_is_refused(struct kunit *test)
{
	struct unmapped_cache *cache = uc_test_cache(test, UNMAPPED_CACHE_RW);
	struct unmapped_cache *other = uc_test_cache(test, UNMAPPED_CACHE_RW);
	struct unmapped_cache *none = uc_test_cache(test, UNMAPPED_CACHE_NONE);
	struct uc_arena *arena = uc_arena_get(UNMAPPED_CACHE_RW, NUMA_NO_NODE);
	long bad = uc_arena_stat(arena, UC_ARENA_BAD_FREES);
	long refused;
	u8 *p, *q, *heap;

	KUNIT_ASSERT_NOT_NULL(test, cache);
	KUNIT_ASSERT_NOT_NULL(test, other);
	KUNIT_ASSERT_NOT_NULL(test, none);
	p = unmapped_cache_alloc(cache, 4 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	heap = kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, heap);
	refused = uc_test_bad_calls();

	/* Sizes: zero, absurd; a page allocation from a mapped cache. */
	KUNIT_EXPECT_NULL(test, unmapped_cache_alloc(cache, 0, GFP_KERNEL));
	KUNIT_EXPECT_NULL(test, unmapped_cache_alloc(cache, SIZE_MAX, GFP_KERNEL));
	KUNIT_EXPECT_NULL(test, unmapped_cache_alloc_page(cache, GFP_KERNEL));
	KUNIT_EXPECT_NULL(test, unmapped_cache_alloc(none, PAGE_SIZE, GFP_KERNEL));
	KUNIT_EXPECT_EQ(test, uc_test_bad_calls(), refused + 4);

	/* Frees: middle of a chunk, wrong size, wrong cache (counted). */
	unmapped_cache_free(cache, p + PAGE_SIZE, PAGE_SIZE);
	unmapped_cache_free(cache, p, 2 * PAGE_SIZE);
	unmapped_cache_free(other, p, 4 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, uc_arena_stat(arena, UC_ARENA_BAD_FREES), bad + 3);
	/* A pointer the cache never returned (heap memory) finds no arena. */
	unmapped_cache_free(cache, heap, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, uc_test_bad_calls(), refused + 8);
	/* Writes outside the chunk or to the wrong cache. */
	KUNIT_EXPECT_EQ(test, unmapped_cache_write(cache, p + 4 * PAGE_SIZE - 2, "abc", 3),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, unmapped_cache_write(other, p, "abc", 3), -EINVAL);
	KUNIT_EXPECT_EQ(test, uc_test_bad_calls(), refused + 10);
	/* Not supported for NONE, but not a bad call: no warning. */
	KUNIT_EXPECT_EQ(test, unmapped_cache_write(none, p, "abc", 3), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, uc_test_bad_calls(), refused + 10);

	/* The chunk survived all of that. */
	KUNIT_EXPECT_EQ(test, unmapped_cache_write(cache, p, "abc", 3), 0);
	KUNIT_EXPECT_EQ(test, memcmp(p, "abc", 3), 0);
	KUNIT_EXPECT_EQ(test, uc_arena_check(arena), 0);
	unmapped_cache_free(cache, p, 4 * PAGE_SIZE);

	/* Double free: refused, counted. */
	bad = uc_arena_stat(arena, UC_ARENA_BAD_FREES);
	q = unmapped_cache_alloc(cache, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q);
	unmapped_cache_free(cache, q, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, uc_test_bad_calls(), refused + 10);
	unmapped_cache_free(cache, q, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, uc_arena_stat(arena, UC_ARENA_BAD_FREES), bad + 1);
	KUNIT_EXPECT_EQ(test, uc_test_bad_calls(), refused + 11);
	KUNIT_EXPECT_EQ(test, uc_arena_check(arena), 0);
}

/*
 * A drain (magazines, depot, then the arena's free blocks) gives every
 * block with nothing live back to the page allocator: counted against the
 * arena as the case found it, so that chunks held by others, and whatever
 * an earlier case left in the magazines, do not change the verdict.
 */
static void arena_shrink_returns_free_blocks(struct kunit *test)
{
	struct unmapped_cache *cache = uc_test_cache(test, UNMAPPED_CACHE_ROX);
	struct uc_arena *arena = uc_arena_get(UNMAPPED_CACHE_ROX, NUMA_NO_NODE);
	struct uc_arena_info before, info;
	long held;
	void *p;

	KUNIT_ASSERT_NOT_NULL(test, cache);
	KUNIT_ASSERT_NOT_NULL(test, arena);
	/*
	 * What the arena keeps for chunks other users hold (none at boot):
	 * after a drain it has no free block, whatever earlier tests left.
	 */
	uc_drain();
	uc_arena_info(arena, &before);
	held = uc_blocks_held();
	p = unmapped_cache_alloc(cache, 3 * UNMAPPED_CACHE_BLOCK_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);

	/* A live chunk keeps its blocks. */
	uc_drain();
	uc_arena_info(arena, &info);
	KUNIT_EXPECT_GE(test, info.nr_blocks, before.nr_blocks + 3);

	/* Freed, its blocks go back: the arena is as it was before. */
	unmapped_cache_free(cache, p, 3 * UNMAPPED_CACHE_BLOCK_SIZE);
	uc_drain();
	uc_arena_info(arena, &info);
	KUNIT_EXPECT_EQ(test, info.nr_blocks, before.nr_blocks);
	KUNIT_EXPECT_EQ(test, info.free_bytes, before.free_bytes);
	KUNIT_EXPECT_LE(test, uc_blocks_held(), held);
	KUNIT_EXPECT_EQ(test, uc_arena_check(arena), 0);
}

/*
 * A page of a block the arena lets go of still has a reference somebody
 * else took (as a pfn walker's get_page_unless_zero() does for a moment):
 * the block waits, out of the direct map and still counted as held,
 * instead of belonging to nobody; once the reference is gone, the retry
 * gives it back.  No warning: a transient reference is not a bug.
 */
static void arena_retired_block_waits_for_extra_reference(struct kunit *test)
{
	struct unmapped_cache *cache = uc_test_cache(test, UNMAPPED_CACHE_RW);
	long held, deferred = uc_blocks_deferred();
	struct uc_verify verify;
	struct page *page;
	void *p;

	KUNIT_ASSERT_NOT_NULL(test, cache);
	uc_drain();
	held = uc_blocks_held();
	p = unmapped_cache_alloc(cache, UNMAPPED_CACHE_BLOCK_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	page = vmalloc_to_page(p + PAGE_SIZE);
	if (page)
		get_page(page);
	unmapped_cache_free(cache, p, UNMAPPED_CACHE_BLOCK_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, uc_test_put_action,
							page), 0);

	uc_drain();
	KUNIT_EXPECT_EQ(test, uc_blocks_deferred(), deferred + 1);
	KUNIT_EXPECT_EQ(test, uc_blocks_held(), held + 1);
	uc_blocks_verify(&verify);
	KUNIT_EXPECT_GE(test, verify.blocks, 1);
	KUNIT_EXPECT_EQ(test, verify.dm_present, 0);
	/* Still busy: a retry leaves it waiting. */
	uc_blocks_retry();
	KUNIT_EXPECT_EQ(test, uc_blocks_deferred(), deferred + 1);

	kunit_release_action(test, uc_test_put_action, page);
	uc_blocks_retry();
	KUNIT_EXPECT_EQ(test, uc_blocks_deferred(), deferred);
	KUNIT_EXPECT_EQ(test, uc_blocks_held(), held);
}

struct uc_test_remote_read {
	unsigned long addr;
	long err;
	u64 val;
};

static void uc_test_remote_read_fn(void *data)
{
	struct uc_test_remote_read *pk = data;

	pk->err = copy_from_kernel_nofault(&pk->val, (const void *)pk->addr,
					   sizeof(pk->val));
}

/*
 * A block that leaves an arena is unmapped and flushed from every CPU's TLB
 * (uc_arena_unmap_block()): another CPU that read the block just before,
 * and may still hold its translation, faults on it afterwards.  A page of
 * the block keeps an extra reference, so that the block waits out of the
 * arena instead of going back to the direct map, whose restore would
 * flush every TLB anyway and hide a missing flush.  The first read on the
 * other CPU is the control (it sees the value written).
 */
static void arena_unmap_flushes_other_cpus(struct kunit *test)
{
	struct unmapped_cache *cache = uc_test_cache(test, UNMAPPED_CACHE_RW);
	struct uc_arena *arena = uc_arena_get(UNMAPPED_CACHE_RW, NUMA_NO_NODE);
	struct uc_test_remote_read pk = { }, first;
	struct unmapped_cache_entry e;
	struct page *page;
	unsigned int other;
	long deferred;
	u64 *p;

	KUNIT_ASSERT_NOT_NULL(test, cache);
	KUNIT_ASSERT_NOT_NULL(test, arena);
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	/* Nothing free left anywhere: the shrink below releases only this. */
	uc_drain();
	deferred = uc_blocks_deferred();
	p = unmapped_cache_alloc(cache, 2 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	*p = 0x5a5a5a5a5a5a5a5aULL;
	pk.addr = (unsigned long)p;
	page = vmalloc_to_page(p);
	if (page)
		get_page(page);
	migrate_disable();
	other = cpumask_any_but(cpu_online_mask, smp_processor_id());
	smp_call_function_single(other, uc_test_remote_read_fn, &pk, 1);
	first = pk;
	unmapped_cache_free(cache, p, 2 * PAGE_SIZE);
	uc_arena_shrink(arena, 0, ULONG_MAX, false);
	arch_unmapped_cache_lookup(pk.addr, &e);
	pk.err = 0;
	pk.val = 0;
	smp_call_function_single(other, uc_test_remote_read_fn, &pk, 1);
	migrate_enable();
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, uc_test_put_action,
							page), 0);

	KUNIT_EXPECT_EQ(test, first.err, 0);
	KUNIT_EXPECT_EQ(test, first.val, 0x5a5a5a5a5a5a5a5aULL);
	KUNIT_EXPECT_FALSE_MSG(test, e.present, "the block is still mapped");
	KUNIT_EXPECT_EQ(test, uc_blocks_deferred(), deferred + 1);
	KUNIT_EXPECT_NE_MSG(test, pk.err, 0,
			    "CPU %u still read the unmapped block", other);

	kunit_release_action(test, uc_test_put_action, page);
	uc_blocks_retry();
	KUNIT_EXPECT_EQ(test, uc_blocks_deferred(), deferred);
}

/*
 * GFP_ATOMIC and GFP_NOWAIT use only the space an arena has: no refill
 * (which sleeps) and NULL when no free range is large enough, even with
 * interrupts off; the same request with GFP_KERNEL refills (the control).
 */
static void arena_atomic_alloc_does_not_refill(struct kunit *test)
{
	struct unmapped_cache *cache = uc_test_cache(test, UNMAPPED_CACHE_RW);
	struct uc_arena *arena = uc_arena_get(UNMAPPED_CACHE_RW, NUMA_NO_NODE);
	static const gfp_t flags[] = { GFP_ATOMIC, GFP_NOWAIT };
	struct uc_arena_info info;
	unsigned long irqs = 0;
	long refills;
	size_t size;
	void *p;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, cache);
	KUNIT_ASSERT_NOT_NULL(test, arena);
	/* No free block left: a free range is at most what live chunks leave. */
	uc_drain();
	uc_arena_info(arena, &info);
	size = PAGE_ALIGN(info.largest_free) + UNMAPPED_CACHE_BLOCK_SIZE;
	KUNIT_ASSERT_LE(test, size, UNMAPPED_CACHE_MAX_CHUNK);

	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		refills = atomic_long_read(&arena->stats[UC_ARENA_REFILLS]);
		/* PREEMPT_RT: arena->lock sleeps, callers are never atomic. */
		if (!IS_ENABLED(CONFIG_PREEMPT_RT))
			local_irq_save(irqs);
		p = unmapped_cache_alloc(cache, size, flags[i]);
		if (!IS_ENABLED(CONFIG_PREEMPT_RT))
			local_irq_restore(irqs);
		KUNIT_EXPECT_NULL(test, p);
		KUNIT_EXPECT_EQ(test, atomic_long_read(&arena->stats[UC_ARENA_REFILLS]),
				refills);
		if (p)
			unmapped_cache_free(cache, p, size);
	}

	refills = atomic_long_read(&arena->stats[UC_ARENA_REFILLS]);
	p = unmapped_cache_alloc(cache, size, GFP_KERNEL);
	KUNIT_EXPECT_NOT_NULL(test, p);
	KUNIT_EXPECT_GT(test, atomic_long_read(&arena->stats[UC_ARENA_REFILLS]),
			refills);
	if (p)
		unmapped_cache_free(cache, p, size);
}

/*
 * A mapped arena reserves module-area space UC_VSPACE_SLOTS blocks at a
 * time, with vmalloc's guard page after it (no VM_NO_GUARD), and maps
 * later blocks into free slots of the same reservation: slots not mapped
 * and the guard page are holes, and two blocks cost one reservation.
 */
static void arena_vspace_has_slots_and_a_guard_page(struct kunit *test)
{
	struct unmapped_cache *cache = uc_test_cache(test, UNMAPPED_CACHE_RW);
	struct uc_block *a = NULL, *b = NULL;
	struct vm_struct *area = NULL;
	unsigned long base, end;
	void *p, *q;

	KUNIT_ASSERT_NOT_NULL(test, cache);
	uc_drain();
	p = unmapped_cache_alloc(cache, UNMAPPED_CACHE_BLOCK_SIZE, GFP_KERNEL);
	q = unmapped_cache_alloc(cache, UNMAPPED_CACHE_BLOCK_SIZE, GFP_KERNEL);
	KUNIT_EXPECT_NOT_NULL(test, p);
	KUNIT_EXPECT_NOT_NULL(test, q);
	if (p && q) {
		rcu_read_lock();
		a = uc_block_lookup(vmalloc_to_pfn(p));
		b = uc_block_lookup(vmalloc_to_pfn(q));
		rcu_read_unlock();
	}
	KUNIT_EXPECT_NOT_NULL(test, a);
	KUNIT_EXPECT_NOT_NULL(test, b);
	if (a && b) {
		KUNIT_EXPECT_PTR_EQ(test, a->vspace, b->vspace);
		area = a->vspace ? a->vspace->area : NULL;
	}
	KUNIT_EXPECT_NOT_NULL(test, area);
	if (area) {
		base = (unsigned long)area->addr;
		end = base + UC_VSPACE_SLOTS * UNMAPPED_CACHE_BLOCK_SIZE;
		KUNIT_EXPECT_FALSE(test, area->flags & VM_NO_GUARD);
		KUNIT_EXPECT_EQ(test, get_vm_area_size(area),
				UC_VSPACE_SLOTS * UNMAPPED_CACHE_BLOCK_SIZE);
		KUNIT_EXPECT_EQ(test, area->size, get_vm_area_size(area) + PAGE_SIZE);
		KUNIT_EXPECT_TRUE(test, IS_ALIGNED(base, UNMAPPED_CACHE_BLOCK_SIZE));
		KUNIT_EXPECT_NULL(test, vmalloc_to_page((void *)end));
		KUNIT_EXPECT_NULL(test, vmalloc_to_page((void *)end - PAGE_SIZE));
		KUNIT_EXPECT_NOT_NULL(test, vmalloc_to_page((void *)base));
		kunit_info(test, "reservation %#lx-%#lx (%lu slots), blocks at +%#lx and +%#lx\n",
			   base, end, UC_VSPACE_SLOTS, a->addr - base, b->addr - base);
	}
	unmapped_cache_free(cache, p, UNMAPPED_CACHE_BLOCK_SIZE);
	unmapped_cache_free(cache, q, UNMAPPED_CACHE_BLOCK_SIZE);
	uc_drain();
}

static struct kunit_case uc_arena_test_cases[] = {
	KUNIT_CASE_PARAM(arena_mixed_population, uc_perm_gen_params),
	KUNIT_CASE(arena_rw_permission_change_does_not_split),
	KUNIT_CASE(arena_large_chunk),
	KUNIT_CASE(arena_bad_input_is_refused),
	KUNIT_CASE(arena_shrink_returns_free_blocks),
	KUNIT_CASE(arena_retired_block_waits_for_extra_reference),
	KUNIT_CASE(arena_vspace_has_slots_and_a_guard_page),
	KUNIT_CASE(arena_unmap_flushes_other_cpus),
	KUNIT_CASE(arena_atomic_alloc_does_not_refill),
	{}
};

static struct kunit_suite uc_arena_test_suite = {
	.name = "unmapped_cache_arena",
	.suite_init = uc_suite_init,
	.suite_exit = uc_suite_exit,
	.init = uc_block_test_init,
	.test_cases = uc_arena_test_cases,
};

kunit_test_suite(uc_arena_test_suite);
