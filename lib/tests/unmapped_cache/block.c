// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the unmapped cache: blocks: out of the direct map and back as one entry.
 */

#include "kunit.h"

#define UC_TEST_CYCLES		(UC_TEST_INSTRUMENTED ? 16 : 64)
#define UC_TEST_BLOCKS_PER_CYCLE 8

static void uc_test_release(struct kunit *test, struct uc_block *block)
{
	kunit_release_action(test, uc_test_release_action, block);
}

static bool uc_readable(unsigned long addr)
{
	unsigned long val;

	return !copy_from_kernel_nofault(&val, (void *)addr, sizeof(val));
}

/* Expect every page of the block at @addr to be (un)mapped by one PMD entry. */
static void uc_expect_block_state(struct kunit *test, unsigned long addr,
				  bool present)
{
	unsigned long i, bad_level = 0, bad_present = 0, bad_read = 0;

	for (i = 0; i < UNMAPPED_CACHE_BLOCK_PAGES; i++) {
		unsigned long page_addr = addr + i * PAGE_SIZE;
		struct unmapped_cache_entry e;

		arch_unmapped_cache_lookup(page_addr, &e);
		if (e.size != UNMAPPED_CACHE_BLOCK_SIZE)
			bad_level++;
		if (e.present != present)
			bad_present++;
		if (uc_readable(page_addr) != present)
			bad_read++;
	}
	KUNIT_EXPECT_EQ_MSG(test, bad_level, 0,
			    "pages of block %lx not covered by a PMD entry", addr);
	KUNIT_EXPECT_EQ_MSG(test, bad_present, 0,
			    "pages of block %lx with present != %d", addr, present);
	KUNIT_EXPECT_EQ_MSG(test, bad_read, 0,
			    "pages of block %lx with readable != %d", addr, present);
}

/* The block is order 9, aligned, on the node asked for, unmovable, zeroed. */
static void block_grab_takes_aligned_unmovable_block(struct kunit *test)
{
	int nid = numa_mem_id();
	struct uc_block *block;
	unsigned long pfn, i, bad_ref = 0;

	block = uc_test_grab(test, nid);
	KUNIT_ASSERT_NOT_NULL(test, block);
	KUNIT_ASSERT_NOT_NULL(test, block->page);

	pfn = page_to_pfn(block->page);
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED(pfn, UNMAPPED_CACHE_BLOCK_PAGES));
	KUNIT_EXPECT_EQ(test, block->nid, nid);
	KUNIT_EXPECT_EQ(test, page_to_nid(block->page), nid);
	KUNIT_EXPECT_NE(test, page_zonenum(block->page), ZONE_MOVABLE);
	KUNIT_EXPECT_FALSE(test, is_migrate_cma_page(block->page));

	for (i = 0; i < UNMAPPED_CACHE_BLOCK_PAGES; i++)
		if (page_ref_count(block->page + i) != UC_PAGE_REFS)
			bad_ref++;
	KUNIT_EXPECT_EQ(test, bad_ref, 0);

	KUNIT_EXPECT_PTR_EQ(test, uc_block_lookup(pfn), block);
	KUNIT_EXPECT_PTR_EQ(test, uc_block_lookup(pfn + UNMAPPED_CACHE_BLOCK_PAGES - 1),
			    block);
	KUNIT_EXPECT_PTR_NE(test, uc_block_lookup(pfn + UNMAPPED_CACHE_BLOCK_PAGES),
			    block);
}

/*
 * After the grab, the entry covering every page is the same PMD-level entry
 * and it is not present: the removal did not split it.
 */
static void block_grab_removes_one_pmd(struct kunit *test)
{
	struct uc_block *block = uc_test_grab(test, NUMA_NO_NODE);

	KUNIT_ASSERT_NOT_NULL(test, block);
	uc_expect_block_state(test, uc_block_addr(block), false);
}

static void uc_test_free_block_pages_action(void *data)
{
	__free_pages(data, UNMAPPED_CACHE_BLOCK_ORDER);
}

static void uc_test_free_contig_action(void *data)
{
	free_contig_range(page_to_pfn(data), UNMAPPED_CACHE_BLOCK_PAGES);
}

/* Forget a test block that must not go back to the page allocator. */
static void uc_test_leak_block(struct kunit *test, struct page *page)
{
	kunit_remove_action(test, uc_test_free_block_pages_action, page);
	kunit_remove_action(test, uc_test_free_contig_action, page);
}

#ifdef CONFIG_CONTIG_ALLOC

/*
 * A 2 MiB range taken with alloc_contig_range() where the direct map has
 * a present leaf of @size (PMD_SIZE or PUD_SIZE), freed when the test
 * ends, its entry in @e; NULL if there is none (or no free or movable
 * 2 MiB range under such a leaf).
 */
static struct page *uc_test_take_in_leaf(struct kunit *test,
					 unsigned long size,
					 struct unmapped_cache_entry *e)
{
	const unsigned long gib = PUD_SIZE >> PAGE_SHIFT;
	unsigned long pfn, start, first, end;
	pg_data_t *pgdat;
	struct page *page;

	for_each_online_pgdat(pgdat) {
		/*
		 * The node's blocks, a GiB at a time; its first GiB too, which
		 * need not start on a GiB (x86's first node starts at pfn 1).
		 */
		first = ALIGN(pgdat->node_start_pfn, UNMAPPED_CACHE_BLOCK_PAGES);
		end = pgdat_end_pfn(pgdat);
		for (pfn = ALIGN_DOWN(first, gib); pfn < end; pfn += gib) {
			for (start = max(pfn, first);
			     start < pfn + gib &&
			     start + UNMAPPED_CACHE_BLOCK_PAGES <= end;
			     start += UNMAPPED_CACHE_BLOCK_PAGES) {
				page = pfn_to_online_page(start);
				if (!page)
					continue;
				arch_unmapped_cache_lookup((unsigned long)page_address(page),
							   e);
				if (!e->present || e->size != size)
					continue;
				if (alloc_contig_range(start,
						       start + UNMAPPED_CACHE_BLOCK_PAGES,
						       MIGRATE_MOVABLE,
						       GFP_KERNEL | __GFP_NOWARN))
					continue;
				if (kunit_add_action_or_reset(test,
							      uc_test_free_contig_action,
							      page))
					return NULL;
				return page;
			}
		}
	}
	return NULL;
}

#else

static struct page *uc_test_take_in_leaf(struct kunit *test,
					 unsigned long size,
					 struct unmapped_cache_entry *e)
{
	return NULL;
}

#endif

/*
 * An order-9 page whose direct-map entry is one PMD, freed when the test
 * ends; its entry in @e.  With CONFIG_CONTIG_ALLOC, a 2 MiB range taken
 * in a GiB that PMDs map (the first GiB always is); otherwise a few
 * order-9 pages of the page allocator are tried, and they may all lie in
 * GiBs that 1 GiB entries still map (whether an earlier case split them
 * depends on the order the cases ran in).
 */
static struct page *uc_test_alloc_pmd_block(struct kunit *test,
					    struct unmapped_cache_entry *e)
{
	struct page *page;
	int tries, ret;

	/*
	 * Early in boot (the initramfs still being unpacked) every range may
	 * be busy for a moment: a few tries, a little apart.
	 */
	for (tries = 0; tries < 5; tries++) {
		page = uc_test_take_in_leaf(test, UNMAPPED_CACHE_BLOCK_SIZE, e);
		if (page)
			return page;
		msleep(100);
	}
	for (tries = 0; tries < 8; tries++) {
		page = alloc_pages(GFP_KERNEL | __GFP_NOWARN,
				   UNMAPPED_CACHE_BLOCK_ORDER);
		KUNIT_ASSERT_NOT_NULL(test, page);
		ret = kunit_add_action_or_reset(test,
						uc_test_free_block_pages_action,
						page);
		KUNIT_ASSERT_EQ(test, ret, 0);
		arch_unmapped_cache_lookup((unsigned long)page_address(page), e);
		if (e->present && e->size == UNMAPPED_CACHE_BLOCK_SIZE)
			return page;
	}
	KUNIT_FAIL_AND_ABORT(test, "no order-9 page mapped by one PMD in 8 tries");
	return NULL;
}

/*
 * The restore puts back exactly the entry that the removal took away: the
 * same PMD, with all of its flag bits, _PAGE_GLOBAL included (CPA clears
 * it with _PAGE_PRESENT; set_memory_p() did not put it back).  Checked on
 * a block-sized allocation of our own, to see its entry before the
 * removal.  The KUnit boot has PTI off (the entry is global), the RT
 * boot has it on (pti=on: it is not).
 */
static void block_restore_puts_back_exact_pmd_flags(struct kunit *test)
{
	struct unmapped_cache_entry before, during, after;
	unsigned long addr, state;
	struct page *page;

	page = uc_test_alloc_pmd_block(test, &before);
	addr = (unsigned long)page_address(page);
	kunit_info(test, "PMD flags before the removal: %#lx\n", before.flags);

	KUNIT_ASSERT_EQ(test, arch_unmapped_cache_unmap_block(page, &state), 0);
	arch_unmapped_cache_lookup(addr, &during);
	KUNIT_EXPECT_FALSE(test, during.present);
	KUNIT_EXPECT_EQ(test, during.size, UNMAPPED_CACHE_BLOCK_SIZE);

	if (arch_unmapped_cache_restore_block(page, state)) {
		/* Never hand the page allocator pages without a mapping. */
		uc_test_leak_block(test, page);
		KUNIT_FAIL(test, "restore failed: block leaked");
		return;
	}
	arch_unmapped_cache_lookup(addr, &after);
	KUNIT_EXPECT_EQ(test, after.size, UNMAPPED_CACHE_BLOCK_SIZE);
	KUNIT_EXPECT_EQ(test, after.flags, before.flags);
	/* This block is ordinary memory, not in the kernel image. */
	KUNIT_EXPECT_EQ(test, state, 0);
}

/*
 * After the release, every page is readable through a present PMD again,
 * and every page went back to the page allocator (its reference count
 * dropped to zero; nothing on this CPU allocates in between).
 */
static void block_release_restores_direct_map(struct kunit *test)
{
	struct uc_block *block = uc_test_grab(test, NUMA_NO_NODE);
	unsigned long addr, pfn, i, still_held = 0;
	struct page *page;

	KUNIT_ASSERT_NOT_NULL(test, block);
	addr = uc_block_addr(block);
	page = block->page;
	pfn = page_to_pfn(page);

	uc_test_release(test, block);
	for (i = 0; i < UNMAPPED_CACHE_BLOCK_PAGES; i++)
		if (page_ref_count(page + i))
			still_held++;
	KUNIT_EXPECT_EQ(test, still_held, 0);
	KUNIT_EXPECT_NULL(test, uc_block_lookup(pfn));
	uc_expect_block_state(test, addr, true);
}

/*
 * 64 cycles (16 on the KASAN and KCSAN kernels) of taking 8 blocks and
 * giving them back.  No PMD-level entry may
 * be split: the number of PTE-mapped direct-map pages stays the same, and the
 * only change allowed is a PUD-level (1 GiB) entry split into 512 PMD-level
 * ones, at most once for each GiB the blocks came from.
 */
static void block_cycles_do_not_split(struct kunit *test)
{
	struct unmapped_cache_dm_counts before, after;
	struct uc_block *blocks[UC_TEST_BLOCKS_PER_CYCLE];
	unsigned long addrs[UC_TEST_BLOCKS_PER_CYCLE];
	DECLARE_BITMAP(gib_seen, 64) = { };
	unsigned long gibs = 0, pud_splits;
	int cycle, i;

	arch_unmapped_cache_direct_map_counts(&before);
	if (!before.pte && !before.pmd && !before.pud)
		kunit_skip(test, "no direct-map accounting (CONFIG_PROC_FS=n)");

	for (cycle = 0; cycle < UC_TEST_CYCLES; cycle++) {
		for (i = 0; i < UC_TEST_BLOCKS_PER_CYCLE; i++) {
			unsigned long gib;

			blocks[i] = uc_test_grab(test, NUMA_NO_NODE);
			KUNIT_ASSERT_NOT_NULL(test, blocks[i]);
			addrs[i] = uc_block_addr(blocks[i]);
			uc_expect_block_state(test, addrs[i], false);

			gib = PFN_PHYS(page_to_pfn(blocks[i]->page)) >> PUD_SHIFT;
			if (gib >= 64)
				gibs++;	/* not tracked: count each time */
			else if (!__test_and_set_bit(gib, gib_seen))
				gibs++;
		}
		for (i = 0; i < UC_TEST_BLOCKS_PER_CYCLE; i++) {
			uc_test_release(test, blocks[i]);
			uc_expect_block_state(test, addrs[i], true);
		}
	}

	arch_unmapped_cache_direct_map_counts(&after);
	KUNIT_EXPECT_EQ_MSG(test, after.pte, before.pte,
			    "PTE-mapped direct-map pages changed: a PMD was split");
	KUNIT_ASSERT_GE(test, before.pud, after.pud);
	pud_splits = before.pud - after.pud;
	KUNIT_EXPECT_LE(test, pud_splits, gibs);
	KUNIT_EXPECT_EQ_MSG(test, after.pmd, before.pmd + pud_splits * PTRS_PER_PMD,
			    "PMD entries lost: a PMD was split");
}

static void uc_test_vunmap(void *addr)
{
	vunmap(addr);
}

/*
 * Changing the permissions of a page of a removed block through another
 * mapping of it (as module loading and BPF do through the module area)
 * must not split the block's not-present direct-map entry (DESIGN I8).
 * Stock cpa_process_alias() applies the change to the direct-map alias
 * too, and one page out of a not-present 2M entry splits it.
 *
 *   direct map:  [ not present, 2M ..................... ]  before and after
 *   vmap():      [4K][4K][4K][RO][4K] ...                   page 3 made RO, then X
 */
static void block_alias_permission_change_does_not_split(struct kunit *test)
{
	struct uc_block *block = uc_test_grab(test, NUMA_NO_NODE);
	struct unmapped_cache_dm_counts before, after;
	unsigned long i, page3;
	struct page **pages;
	void *vaddr;

	KUNIT_ASSERT_NOT_NULL(test, block);
	pages = kunit_kmalloc_array(test, UNMAPPED_CACHE_BLOCK_PAGES,
				    sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	for (i = 0; i < UNMAPPED_CACHE_BLOCK_PAGES; i++)
		pages[i] = block->page + i;

	/* Registered after the block's release, so it runs before it. */
	vaddr = vmap(pages, UNMAPPED_CACHE_BLOCK_PAGES, VM_MAP, PAGE_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, vaddr);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, uc_test_vunmap, vaddr), 0);
	page3 = (unsigned long)vaddr + 3 * PAGE_SIZE;

	arch_unmapped_cache_direct_map_counts(&before);
	KUNIT_EXPECT_EQ(test, set_memory_ro(page3, 1), 0);
	KUNIT_EXPECT_EQ(test, set_memory_x(page3, 1), 0);
	KUNIT_EXPECT_EQ(test, set_memory_nx(page3, 1), 0);
	KUNIT_EXPECT_EQ(test, set_memory_rw(page3, 1), 0);
	arch_unmapped_cache_direct_map_counts(&after);

	KUNIT_EXPECT_EQ_MSG(test, after.pte, before.pte,
			    "a permission change through the alias split a PMD");
	uc_expect_block_state(test, uc_block_addr(block), false);
	/* The vmap() alias itself works: the page reads back as zero. */
	KUNIT_EXPECT_EQ(test, *(unsigned long *)page3, 0);
}

/*
 * Take @page's block out of the direct map and put it back, as a refill
 * and a release do, and check arch_unmapped_cache_block_splits() against
 * what CPA did: the count of 1 GiB direct-map entries drops by one
 * exactly when it said the block splits one, and no 2 MiB entry is split.
 * Returns false if the block could not be mapped back (it must then not
 * be freed).
 */
static bool uc_test_splits_as_predicted(struct kunit *test, struct page *page,
					bool want)
{
	struct unmapped_cache_dm_counts before, after;
	bool predicted = arch_unmapped_cache_block_splits(page);
	unsigned long state;

	KUNIT_EXPECT_EQ(test, predicted, want);
	arch_unmapped_cache_direct_map_counts(&before);
	if (arch_unmapped_cache_unmap_block(page, &state)) {
		KUNIT_FAIL(test, "the block could not be taken out");
		return true;
	}
	if (arch_unmapped_cache_restore_block(page, state)) {
		KUNIT_FAIL(test, "restore failed: block leaked");
		return false;
	}
	arch_unmapped_cache_direct_map_counts(&after);
	KUNIT_EXPECT_EQ_MSG(test, before.pud - after.pud, predicted ? 1UL : 0UL,
			    "1 GiB entries %lu -> %lu, predicted split: %d",
			    before.pud, after.pud, predicted);
	KUNIT_EXPECT_EQ(test, after.pte, before.pte);
	return true;
}

/*
 * arch_unmapped_cache_block_splits() says yes exactly for a block inside a
 * direct-map entry larger than a block, and that is what CPA does: checked
 * on an order-9 page of the page allocator mapped by a 2 MiB entry, and
 * on a 2 MiB range taken with alloc_contig_range() inside a GiB that one
 * 1 GiB entry still maps (the positive case, skipped without
 * CONFIG_CONTIG_ALLOC or such a GiB).  The second case splits that GiB
 * for good, as a block the cache took there would.
 */
static void block_splits_only_in_a_1g_leaf(struct kunit *test)
{
	struct unmapped_cache_dm_counts dm;
	struct unmapped_cache_entry e;
	struct page *page;

	arch_unmapped_cache_direct_map_counts(&dm);
	if (!dm.pte && !dm.pmd && !dm.pud)
		kunit_skip(test, "no direct-map accounting (CONFIG_PROC_FS=n)");

	page = uc_test_alloc_pmd_block(test, &e);
	if (!uc_test_splits_as_predicted(test, page, false))
		uc_test_leak_block(test, page);

	page = uc_test_take_in_leaf(test, PUD_SIZE, &e);
	if (!page)
		kunit_skip(test, "no 2 MiB range to take in a GiB mapped by a 1 GiB entry");
	if (!uc_test_splits_as_predicted(test, page, true))
		uc_test_leak_block(test, page);
}

/*
 * Positive control of block_alias_permission_change_does_not_split(): CPA
 * leaves a not-present direct-map alias alone only when the cache holds
 * the page.  A page of the page allocator taken out of the direct map by
 * somebody else still has its alias changed with the primary mapping:
 * set_memory_rw() through a vmap() of it sets _PAGE_RW on the not-present
 * direct-map entry, as stock CPA does (set_direct_map_invalid_noflush()
 * had cleared it).
 */
static void block_alias_of_a_foreign_page_is_still_changed(struct kunit *test)
{
	struct unmapped_cache_entry e;
	struct page *page;
	unsigned long dm;
	void *vaddr;

	page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	dm = (unsigned long)page_address(page);
	KUNIT_EXPECT_FALSE(test, unmapped_cache_holds_pfn(page_to_pfn(page)));
	if (set_direct_map_invalid_noflush(page)) {
		__free_page(page);
		KUNIT_FAIL(test, "set_direct_map_invalid_noflush() failed");
		return;
	}
	flush_tlb_kernel_range(dm, dm + PAGE_SIZE);
	arch_unmapped_cache_lookup(dm, &e);
	KUNIT_EXPECT_FALSE(test, e.present);
	KUNIT_EXPECT_FALSE(test, e.writable);

	vaddr = vmap(&page, 1, VM_MAP, PAGE_KERNEL_RO);
	KUNIT_EXPECT_NOT_NULL(test, vaddr);
	if (vaddr) {
		KUNIT_EXPECT_EQ(test, set_memory_rw((unsigned long)vaddr, 1), 0);
		arch_unmapped_cache_lookup(dm, &e);
		KUNIT_EXPECT_FALSE(test, e.present);
		KUNIT_EXPECT_TRUE_MSG(test, e.writable,
				      "CPA skipped the alias of a page the cache does not hold");
		vunmap(vaddr);
	}
	KUNIT_EXPECT_EQ(test, set_direct_map_default_noflush(page), 0);
	__free_page(page);
}

/* A block owned by somebody else, or with a page still in use, stays. */
static void block_release_refuses_foreign_and_busy(struct kunit *test)
{
	struct uc_block *block = uc_test_grab(test, NUMA_NO_NODE);
	struct uc_block fake;
	long refused = uc_block_stat(UC_BLOCK_RELEASE_REFUSED);
	long bad = uc_test_bad_calls();
	long held;

	KUNIT_ASSERT_NOT_NULL(test, block);
	held = uc_blocks_held();

	/* Same pages, but not the block the cache recorded. */
	fake = *block;
	KUNIT_EXPECT_EQ(test, uc_block_release(&fake), -EINVAL);
	KUNIT_EXPECT_EQ(test, uc_block_release(NULL), -EINVAL);

	/* One page still referenced by its (pretend) user. */
	get_page(block->page + 5);
	KUNIT_EXPECT_EQ(test, uc_block_release(block), -EBUSY);
	put_page(block->page + 5);

	KUNIT_EXPECT_EQ(test, uc_block_stat(UC_BLOCK_RELEASE_REFUSED), refused + 3);
	/* Each refusal warned (once per site) and was counted. */
	KUNIT_EXPECT_EQ(test, uc_test_bad_calls(), bad + 3);
	KUNIT_EXPECT_EQ(test, uc_blocks_held(), held);
	KUNIT_EXPECT_PTR_EQ(test, uc_block_lookup(page_to_pfn(block->page)), block);
	uc_expect_block_state(test, uc_block_addr(block), false);
}

#ifdef CONFIG_UNMAPPED_CACHE_FAULT_INJECTION

static void uc_test_grab_fails_cleanly(struct kunit *test,
				       struct fault_attr *attr,
				       enum uc_block_stat failure)
{
	long in = uc_block_stat(UC_BLOCK_PAGES_IN);
	long out = uc_block_stat(UC_BLOCK_PAGES_OUT);
	long failed = uc_block_stat(failure);
	long held = uc_blocks_held();
	struct uc_block *block;

	KUNIT_ASSERT_EQ(test, uc_fault_arm(test, attr), 0);
	block = uc_block_grab(NUMA_NO_NODE, 0);
	if (block)
		uc_block_release(block);
	KUNIT_ASSERT_NULL(test, block);

	KUNIT_EXPECT_EQ(test, uc_block_stat(failure), failed + 1);
	KUNIT_EXPECT_EQ(test, uc_blocks_held(), held);
	/* Whatever was taken from the page allocator went back to it. */
	KUNIT_EXPECT_EQ(test, uc_block_stat(UC_BLOCK_PAGES_IN) - in,
			uc_block_stat(UC_BLOCK_PAGES_OUT) - out);
	KUNIT_EXPECT_EQ(test, atomic_read(&attr->times), 0);

	/* With the fault gone, the cache works again. */
	block = uc_test_grab(test, NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, block);
	uc_expect_block_state(test, uc_block_addr(block), false);
}

/* No order-9 page to be had: the grab fails and takes nothing. */
static void block_grab_alloc_failure_is_clean(struct kunit *test)
{
	long in = uc_block_stat(UC_BLOCK_PAGES_IN);

	uc_test_grab_fails_cleanly(test, &fail_unmapped_cache_block,
				   UC_BLOCK_ALLOC_FAILED);
	/* Only the block of the final, successful grab came in. */
	KUNIT_EXPECT_EQ(test, uc_block_stat(UC_BLOCK_PAGES_IN) - in,
			UNMAPPED_CACHE_BLOCK_PAGES);
}

/* The direct map cannot be changed: the pages go straight back. */
static void block_grab_unmap_failure_is_clean(struct kunit *test)
{
	long out = uc_block_stat(UC_BLOCK_PAGES_OUT);

	uc_test_grab_fails_cleanly(test, &fail_unmapped_cache_direct_map,
				   UC_BLOCK_UNMAP_FAILED);
	KUNIT_EXPECT_EQ(test, uc_block_stat(UC_BLOCK_PAGES_OUT) - out,
			UNMAPPED_CACHE_BLOCK_PAGES);
}

/*
 * A candidate block in a 1 GiB leaf of the direct map is passed over
 * while another can be had (the fault point makes the first ones look
 * so): the grab takes a later one, gives back the ones it passed over and
 * splits nothing.  When every candidate looks so, it takes the first.
 */
static void block_grab_spares_a_1g_leaf(struct kunit *test)
{
	struct fault_attr *attr = &fail_unmapped_cache_gb_leaf;
	long in = uc_block_stat(UC_BLOCK_PAGES_IN);
	long spared = uc_block_stat(UC_BLOCK_GB_SPARED);
	long passed = uc_block_stat(UC_BLOCK_PASSED_OVER);
	long split = uc_block_stat(UC_BLOCK_GB_SPLIT);
	struct uc_block *block;

	KUNIT_ASSERT_EQ(test, uc_fault_arm(test, attr), 0);
	atomic_set(&attr->times, 3);
	block = uc_test_grab(test, NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, block);
	KUNIT_EXPECT_EQ(test, atomic_read(&attr->times), 0);
	KUNIT_EXPECT_EQ(test, uc_block_stat(UC_BLOCK_GB_SPARED), spared + 1);
	KUNIT_EXPECT_EQ(test, uc_block_stat(UC_BLOCK_PASSED_OVER), passed + 3);
	KUNIT_EXPECT_EQ(test, uc_block_stat(UC_BLOCK_GB_SPLIT), split);
	/* Only the block taken came in; the others went straight back. */
	KUNIT_EXPECT_EQ(test, uc_block_stat(UC_BLOCK_PAGES_IN) - in,
			UNMAPPED_CACHE_BLOCK_PAGES);
	uc_expect_block_state(test, uc_block_addr(block), false);

	atomic_set(&attr->times, -1);		/* every candidate */
	block = uc_test_grab(test, NUMA_NO_NODE);
	uc_fault_disarm(attr);
	KUNIT_ASSERT_NOT_NULL(test, block);
	KUNIT_EXPECT_EQ(test, uc_block_stat(UC_BLOCK_GB_SPARED), spared + 1);
	KUNIT_EXPECT_EQ(test, uc_block_stat(UC_BLOCK_PASSED_OVER),
			passed + 3 + UC_BLOCK_GB_TRIES);
	KUNIT_EXPECT_EQ(test, uc_block_stat(UC_BLOCK_GB_SPLIT), split + 1);
	uc_expect_block_state(test, uc_block_addr(block), false);
}

#else

static void block_grab_alloc_failure_is_clean(struct kunit *test)
{
	kunit_skip(test, "requires CONFIG_UNMAPPED_CACHE_FAULT_INJECTION");
}

static void block_grab_spares_a_1g_leaf(struct kunit *test)
{
	kunit_skip(test, "requires CONFIG_UNMAPPED_CACHE_FAULT_INJECTION");
}

static void block_grab_unmap_failure_is_clean(struct kunit *test)
{
	kunit_skip(test, "requires CONFIG_UNMAPPED_CACHE_FAULT_INJECTION");
}

#endif

static struct kunit_case uc_block_test_cases[] = {
	KUNIT_CASE(block_grab_takes_aligned_unmovable_block),
	KUNIT_CASE(block_grab_removes_one_pmd),
	KUNIT_CASE(block_release_restores_direct_map),
	KUNIT_CASE(block_restore_puts_back_exact_pmd_flags),
	KUNIT_CASE(block_cycles_do_not_split),
	KUNIT_CASE(block_release_refuses_foreign_and_busy),
	KUNIT_CASE(block_alias_permission_change_does_not_split),
	KUNIT_CASE(block_alias_of_a_foreign_page_is_still_changed),
	KUNIT_CASE(block_grab_alloc_failure_is_clean),
	KUNIT_CASE(block_grab_unmap_failure_is_clean),
	KUNIT_CASE(block_grab_spares_a_1g_leaf),
	KUNIT_CASE(block_splits_only_in_a_1g_leaf),
	{}
};

static struct kunit_suite uc_block_test_suite = {
	.name = "unmapped_cache_block",
	.suite_init = uc_suite_init,
	.suite_exit = uc_suite_exit,
	.init = uc_block_test_init,
	.test_cases = uc_block_test_cases,
};

kunit_test_suite(uc_block_test_suite);
