// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the unmapped cache: the interfaces converted callers use.
 */

#include "kunit.h"

/*
 * A NONE page that others may hold too (the page cache's users do) is given
 * back with unmapped_cache_release_page(): cleared before that returns,
 * and handed out again only once nobody but the cache references it.
 * Whoever puts last, the count never drops below the cache's own
 * references, so the page never goes to the page allocator.
 */
static void callers_released_page_waits_for_its_references(struct kunit *test)
{
	struct unmapped_cache *cache = uc_test_cache(test, UNMAPPED_CACHE_NONE);
	struct unmapped_cache *other = uc_test_cache(test, UNMAPPED_CACHE_NONE);
	unsigned long released, settled;
	struct page *page, *next, *again, *taken[8];
	struct uc_arena *arena;
	unsigned long i, n;
	long pages;
	u8 *v;

	KUNIT_ASSERT_NOT_NULL(test, cache);
	KUNIT_ASSERT_NOT_NULL(test, other);
	/* The page goes to this CPU's magazine and comes back from there. */
	migrate_disable();
	page = unmapped_cache_alloc_page(cache, GFP_KERNEL);
	if (!page)
		migrate_enable();
	KUNIT_ASSERT_NOT_NULL(test, page);
	arena = uc_arena_get(UNMAPPED_CACHE_NONE, page_to_nid(page));
	KUNIT_EXPECT_EQ(test, page_ref_count(page), UC_PAGE_REFS + 1);
	KUNIT_EXPECT_TRUE(test, unmapped_cache_owns_page(cache, page));
	KUNIT_EXPECT_FALSE(test, unmapped_cache_owns_page(other, page));
	/* Test only: a mapping to write a secret and watch it go. */
	v = uc_test_vmap_pages(&page, 1);
	if (v)
		memset(v, 0x5a, PAGE_SIZE);

	/* Someone else holds it, as a truncation in progress does. */
	get_page(page);
	released = uc_released_pages();
	pages = uc_cache_live(cache, true);
	unmapped_cache_release_page(cache, page);
	KUNIT_EXPECT_EQ(test, uc_released_pages(), released + 1);
	KUNIT_EXPECT_FALSE(test, unmapped_cache_owns_page(cache, page));
	KUNIT_EXPECT_EQ(test, uc_cache_live(cache, true), pages - 1);
	KUNIT_EXPECT_TRUE(test, v && !memchr_inv(v, 0, PAGE_SIZE));
	KUNIT_EXPECT_FALSE(test, uc_test_mapped((unsigned long)page_address(page)));
	/* The owner's reference goes, as an unmapping drops it. */
	put_page(page);
	KUNIT_EXPECT_EQ(test, page_ref_count(page), UC_PAGE_REFS + 1);

	/* Still referenced: the next allocation here puts it aside. */
	settled = uc_arena_stat(arena, UC_ARENA_SETTLED);
	next = unmapped_cache_alloc_page(cache, GFP_KERNEL);
	KUNIT_EXPECT_NOT_NULL(test, next);
	KUNIT_EXPECT_PTR_NE(test, next, page);
	KUNIT_EXPECT_EQ(test, uc_arena_stat(arena, UC_ARENA_SETTLED), settled + 1);
	unmapped_cache_free_page(cache, next);

	/*
	 * The last other reference gone, it comes back before any page of
	 * the tree: settling pages go first, in the order they were put
	 * aside, so one that an earlier test or another user left there,
	 * now free, may come first.  Whichever it is, each goes back.
	 */
	put_page(page);
	n = READ_ONCE(arena->nr_settling);
	for (i = 0, again = NULL; i <= n && i < ARRAY_SIZE(taken); i++) {
		taken[i] = unmapped_cache_alloc_page(cache, GFP_KERNEL);
		if (!taken[i] || taken[i] == page) {
			again = taken[i++];
			break;
		}
	}
	migrate_enable();
	KUNIT_EXPECT_PTR_EQ(test, again, page);
	if (again)
		KUNIT_EXPECT_EQ(test, page_ref_count(again), UC_PAGE_REFS + 1);
	while (i--)
		unmapped_cache_free_page(cache, taken[i]);
	KUNIT_EXPECT_EQ(test, page_ref_count(page), UC_PAGE_REFS);
	if (v)
		vunmap(v);
}

/*
 * A stray put_page() on a page of any permission's cache cannot free it:
 * the cache's own reference keeps its count above zero.  The cache finds
 * the missing reference when the page comes back, warns, and puts the
 * reference back: the page is neither lost nor given to the page
 * allocator.
 */
static void callers_stray_put_is_repaired(struct kunit *test)
{
	enum unmapped_cache_perm perm;

	for (perm = 0; perm < UNMAPPED_CACHE_NR_PERMS; perm++) {
		struct unmapped_cache *cache = uc_test_cache(test, perm);
		long bad = uc_test_bad_calls(), strays;
		struct uc_arena *arena;
		struct page *page;
		void *p = NULL;
		int refs;

		KUNIT_ASSERT_NOT_NULL(test, cache);
		if (perm == UNMAPPED_CACHE_NONE) {
			page = unmapped_cache_alloc_page(cache, GFP_KERNEL);
		} else {
			p = unmapped_cache_alloc(cache, PAGE_SIZE, GFP_KERNEL);
			page = p ? vmalloc_to_page(p) : NULL;
		}
		KUNIT_ASSERT_NOT_NULL(test, page);
		arena = uc_arena_get(perm, page_to_nid(page));
		strays = uc_arena_stat(arena, UC_ARENA_STRAY_PUTS);
		refs = page_ref_count(page);
		KUNIT_EXPECT_EQ(test, refs, UC_PAGE_REFS + !p);

		put_page(page);		/* the stray put */
		KUNIT_EXPECT_EQ(test, page_ref_count(page), refs - 1);
		KUNIT_EXPECT_NOT_NULL(test, uc_block_lookup(page_to_pfn(page)));

		if (p)
			unmapped_cache_free(cache, p, PAGE_SIZE);
		else
			unmapped_cache_free_page(cache, page);
		KUNIT_EXPECT_EQ_MSG(test, uc_test_bad_calls(), bad + 1,
				    "%s", uc_perm_names[perm]);
		KUNIT_EXPECT_EQ(test, uc_arena_stat(arena, UC_ARENA_STRAY_PUTS),
				strays + 1);
		KUNIT_EXPECT_EQ(test, page_ref_count(page), UC_PAGE_REFS);
		KUNIT_EXPECT_NOT_NULL(test, uc_block_lookup(page_to_pfn(page)));
	}
}

/*
 * unmapped_cache_vmap() maps zeroed cache pages with base pages; the
 * owner's permission changes touch that mapping only, and the pages never
 * reappear in the direct map.  Only the start of such a mapping is
 * accepted by unmapped_cache_vunmap(), once.
 */
static void callers_vmap_maps_cache_pages(struct kunit *test)
{
	struct unmapped_cache_dm_counts before, after;
	struct unmapped_cache_entry e;
	const unsigned long nr = 5;
	unsigned long i, bad = 0;
	struct page *pages[5];
	void *v;
	u8 *p;

	arch_unmapped_cache_direct_map_counts(&before);
	p = unmapped_cache_vmap(nr * PAGE_SIZE - 100, PAGE_SIZE, VMALLOC_START,
				VMALLOC_END, PAGE_KERNEL, 0, (void *)_RET_IP_);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   uc_test_vunmap_action,
							   p));
	for (i = 0; i < nr; i++) {
		u8 *q = p + i * PAGE_SIZE;

		pages[i] = vmalloc_to_page(q);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		arch_unmapped_cache_lookup((unsigned long)q, &e);
		if (e.size != PAGE_SIZE || !e.present || !e.writable || e.exec)
			bad++;
		if (uc_test_mapped((unsigned long)page_address(pages[i])))
			bad++;
		if (memchr_inv(q, 0, PAGE_SIZE))
			bad++;
		memset(q, i + 1, PAGE_SIZE);
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ(test, p[nr * PAGE_SIZE - 1], nr);

	KUNIT_EXPECT_EQ(test, set_memory_ro((unsigned long)p, nr), 0);
	arch_unmapped_cache_lookup((unsigned long)p, &e);
	KUNIT_EXPECT_TRUE(test, e.present && !e.writable);
	KUNIT_EXPECT_EQ(test, set_memory_rw((unsigned long)p, nr), 0);
	arch_unmapped_cache_direct_map_counts(&after);
	KUNIT_EXPECT_EQ(test, after.pte, before.pte);

	/* Not the start of a cache mapping: nothing is done. */
	KUNIT_EXPECT_FALSE(test, unmapped_cache_vunmap(p + PAGE_SIZE));
	KUNIT_EXPECT_FALSE(test, unmapped_cache_vunmap(p + 1));
	v = vmalloc(PAGE_SIZE);
	KUNIT_EXPECT_FALSE(test, v && unmapped_cache_vunmap(v));
	vfree(v);

	kunit_remove_action(test, uc_test_vunmap_action, p);
	KUNIT_EXPECT_TRUE(test, unmapped_cache_vunmap(p));
	KUNIT_EXPECT_FALSE(test, unmapped_cache_vunmap(p));
	KUNIT_EXPECT_FALSE(test, uc_test_mapped((unsigned long)p));
	/* Leave nothing waiting for a flush for the later suites. */
	uc_vmap_purge();
	for (i = 0; i < nr; i++)
		KUNIT_EXPECT_FALSE(test,
				   uc_test_mapped((unsigned long)page_address(pages[i])));
}

/*
 * unmapped_cache_vunmap() takes the mapping down at once but gives the
 * pages back only after the TLB flush, which it does for a batch of freed
 * mappings at a time (uc_vmap_purge()).  Until then the pages stay counted
 * as mapped, so that no new owner can get them.
 */
static void callers_vunmap_gives_pages_back_after_the_flush(struct kunit *test)
{
	long before;
	u8 *p;

	p = unmapped_cache_vmap(2 * PAGE_SIZE, PAGE_SIZE, VMALLOC_START,
				VMALLOC_END, PAGE_KERNEL, 0, (void *)_RET_IP_);
	KUNIT_ASSERT_NOT_NULL(test, p);
	uc_vmap_purge();
	before = uc_vmap_stat_pages();
	KUNIT_EXPECT_TRUE(test, unmapped_cache_vunmap(p));
	KUNIT_EXPECT_FALSE(test, uc_test_mapped((unsigned long)p));
	KUNIT_EXPECT_EQ_MSG(test, uc_vmap_stat_pages(), before,
			    "pages given back before the TLB flush");
	uc_vmap_purge();
	KUNIT_EXPECT_EQ(test, uc_vmap_stat_pages(), before - 2);
}

/*
 * execmem asks for VM_DEFER_KMEMLEAK when it adds a KASAN shadow to module
 * memory: kmemleak must not scan the memory before its shadow exists, so
 * kasan_alloc_module_shadow() registers it afterwards, if the area carries
 * the flag.  The flag reaches the mapping's area (on the debug kernel,
 * which has KASAN; elsewhere the flag is 0); without it the area has none.
 */
static void callers_vmap_defers_kmemleak_when_asked(struct kunit *test)
{
	struct vm_struct *area;
	unsigned long flags;
	void *p, *q;

	p = unmapped_cache_vmap(PAGE_SIZE, PAGE_SIZE, VMALLOC_START, VMALLOC_END,
				PAGE_KERNEL, VM_DEFER_KMEMLEAK | VM_FLUSH_RESET_PERMS,
				(void *)_RET_IP_);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   uc_test_vunmap_action,
							   p));
	q = unmapped_cache_vmap(PAGE_SIZE, PAGE_SIZE, VMALLOC_START, VMALLOC_END,
				PAGE_KERNEL, 0, (void *)_RET_IP_);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   uc_test_vunmap_action,
							   q));
	area = find_vm_area(p);
	KUNIT_ASSERT_NOT_NULL(test, area);
	flags = area->flags;
	area = find_vm_area(q);
	KUNIT_ASSERT_NOT_NULL(test, area);
	/* VM_DEFER_KMEMLEAK is 0 without KASAN: then there is nothing to defer. */
	KUNIT_EXPECT_EQ(test, flags, area->flags | VM_DEFER_KMEMLEAK);
	KUNIT_EXPECT_FALSE(test, area->flags & VM_DEFER_KMEMLEAK);
	/* The direct map is never touched: nothing to reset on free. */
	KUNIT_EXPECT_FALSE(test, flags & VM_FLUSH_RESET_PERMS);
}

/*
 * unmapped_cache_owns(): live chunks of this cache only, whole range inside;
 * unmapped_cache_size(): their size, asked with their first byte only.
 */
static void callers_owns_tells_cache_memory_apart(struct kunit *test)
{
	struct unmapped_cache *cache = uc_test_cache(test, UNMAPPED_CACHE_ROX);
	struct unmapped_cache *other = uc_test_cache(test, UNMAPPED_CACHE_ROX);
	struct uc_test_pop *pop = kunit_kzalloc(test, sizeof(*pop), GFP_KERNEL);
	struct uc_test_chunk *big, *one;
	void *v;

	KUNIT_ASSERT_NOT_NULL(test, cache);
	KUNIT_ASSERT_NOT_NULL(test, other);
	KUNIT_ASSERT_NOT_NULL(test, pop);
	pop->chunks = kunit_kcalloc(test, 2, sizeof(*pop->chunks), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pop->chunks);
	pop->cache = cache;
	pop->nr = 2;
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   uc_test_pop_action,
							   pop));
	big = &pop->chunks[0];
	one = &pop->chunks[1];
	big->size = 3 * PAGE_SIZE;
	big->addr = unmapped_cache_alloc(cache, big->size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, big->addr);
	/* A single page comes through the magazines. */
	one->size = PAGE_SIZE;
	one->addr = unmapped_cache_alloc(cache, one->size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, one->addr);

	KUNIT_EXPECT_TRUE(test, unmapped_cache_owns(cache, big->addr, big->size));
	KUNIT_EXPECT_TRUE(test, unmapped_cache_owns(cache, big->addr + PAGE_SIZE + 8, 100));
	KUNIT_EXPECT_TRUE(test, unmapped_cache_owns(cache, one->addr, PAGE_SIZE));
	KUNIT_EXPECT_FALSE(test, unmapped_cache_owns(other, big->addr, big->size));
	KUNIT_EXPECT_FALSE(test, unmapped_cache_owns(other, one->addr, PAGE_SIZE));
	KUNIT_EXPECT_FALSE(test, unmapped_cache_owns(cache, big->addr,
						     big->size + PAGE_SIZE));
	/* The page below @big, unless @one is that page (a round can be). */
	KUNIT_EXPECT_FALSE(test, big->addr - PAGE_SIZE != one->addr &&
			   unmapped_cache_owns(cache, big->addr - PAGE_SIZE,
					       PAGE_SIZE));
	KUNIT_EXPECT_FALSE(test, unmapped_cache_owns(cache, one->addr + 8, PAGE_SIZE));
	KUNIT_EXPECT_FALSE(test, unmapped_cache_owns(NULL, big->addr, big->size));
	KUNIT_EXPECT_FALSE(test, unmapped_cache_owns(cache, NULL, PAGE_SIZE));
	KUNIT_EXPECT_FALSE(test, unmapped_cache_owns(cache, big->addr, 0));

	/* unmapped_cache_size(): a live chunk of this cache, by its start. */
	KUNIT_EXPECT_EQ(test, unmapped_cache_size(cache, big->addr), big->size);
	KUNIT_EXPECT_EQ(test, unmapped_cache_size(cache, one->addr), (size_t)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, unmapped_cache_size(cache, big->addr + PAGE_SIZE), (size_t)0);
	KUNIT_EXPECT_EQ(test, unmapped_cache_size(cache, one->addr + 8), (size_t)0);
	KUNIT_EXPECT_EQ(test, unmapped_cache_size(other, big->addr), (size_t)0);
	KUNIT_EXPECT_EQ(test, unmapped_cache_size(other, one->addr), (size_t)0);
	KUNIT_EXPECT_EQ(test, unmapped_cache_size(NULL, big->addr), (size_t)0);
	KUNIT_EXPECT_EQ(test, unmapped_cache_size(cache, NULL), (size_t)0);

	v = vmalloc(PAGE_SIZE);
	KUNIT_EXPECT_FALSE(test, v && unmapped_cache_owns(cache, v, PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, v ? unmapped_cache_size(cache, v) : 0, (size_t)0);
	vfree(v);

	v = big->addr;
	uc_test_chunk_free(cache, big);
	KUNIT_EXPECT_FALSE(test, unmapped_cache_owns(cache, v, 3 * PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, unmapped_cache_size(cache, v), (size_t)0);
	v = one->addr;
	uc_test_chunk_free(cache, one);
	KUNIT_EXPECT_FALSE(test, unmapped_cache_owns(cache, v, PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, unmapped_cache_size(cache, v), (size_t)0);
}

static struct kunit_case uc_callers_test_cases[] = {
	KUNIT_CASE(callers_released_page_waits_for_its_references),
	KUNIT_CASE(callers_stray_put_is_repaired),
	KUNIT_CASE(callers_vmap_maps_cache_pages),
	KUNIT_CASE(callers_vunmap_gives_pages_back_after_the_flush),
	KUNIT_CASE(callers_vmap_defers_kmemleak_when_asked),
	KUNIT_CASE(callers_owns_tells_cache_memory_apart),
	{}
};

static struct kunit_suite uc_callers_test_suite = {
	.name = "unmapped_cache_callers",
	.suite_init = uc_suite_init,
	.suite_exit = uc_suite_exit,
	.init = uc_block_test_init,
	.test_cases = uc_callers_test_cases,
};

kunit_test_suite(uc_callers_test_suite);
