// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the unmapped cache.
 *
 * These suites are built in and run from kernel_init_freeable(), before
 * system_state reaches SYSTEM_RUNNING, where the vmstat counters
 * direct_map_level{2,3}_splits do not count.  So they look at the direct
 * map itself: the level and presence of the entry that covers an address
 * (arch_unmapped_cache_lookup(), lookup_address() on x86) and the
 * number of entries at each level (the accounting behind the DirectMap
 * lines of /proc/meminfo).  Reads through the direct map use
 * copy_from_kernel_nofault(), so a broken cache fails a test instead of
 * crashing the kernel.
 *
 * Every block a test takes is released by a KUnit action, so a failed
 * assertion cannot leave a block out of the direct map.
 *
 * Random choices come from one seed per boot, printed before the first
 * test ("seed N"): boot with unmapped_cache_kunit.seed=N to replay them.
 * Each test draws from a generator of its own (test->priv), seeded with
 * the seed, its name and its parameter, so that what it draws does not
 * depend on which tests ran before it.  With unmapped_cache_kunit.shuffle=1
 * each suite runs its cases in an order drawn from the seed too: no case
 * may depend on another having run before it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/fault-inject.h>
#include <linux/irq_work.h>
#include <linux/kasan.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mmzone.h>
#include <linux/pfn.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/set_memory.h>
#include <linux/shrinker.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringhash.h>
#include <linux/timer.h>
#include <linux/uaccess.h>
#include <linux/unmapped_cache.h>
#include <linux/vmalloc.h>

#include "internal.h"

#define UC_TEST_CYCLES		64
#define UC_TEST_BLOCKS_PER_CYCLE 8

/* Built in: unmapped_cache_kunit.seed=N on the kernel command line. */
static unsigned int uc_test_seed_param;
module_param_named(seed, uc_test_seed_param, uint, 0444);
MODULE_PARM_DESC(seed, "Seed of the tests' random choices (0: one chosen at boot)");

/* The seed of this boot's tests; chosen and printed on the first call. */
static u32 uc_test_seed(void)
{
	static bool announced;

	/* Suites and their inits run one after the other: no lock needed. */
	if (!uc_test_seed_param)
		uc_test_seed_param = get_random_u32() ?: 1;
	if (!announced) {
		announced = true;
		pr_info("seed %u (replay with unmapped_cache_kunit.seed=%u)\n",
			uc_test_seed_param, uc_test_seed_param);
	}
	return uc_test_seed_param;
}

/* Built in: unmapped_cache_kunit.shuffle=1 on the kernel command line. */
static bool uc_test_shuffle_param;
module_param_named(shuffle, uc_test_shuffle_param, bool, 0444);
MODULE_PARM_DESC(shuffle, "Run each suite's cases in an order drawn from the seed");

/*
 * Called from each suite's suite_init, before KUnit walks the cases: put
 * them in an order drawn from the seed and the suite's name (a
 * Fisher-Yates shuffle of the suite's own, writable, array).
 */
static void uc_test_shuffle(struct kunit_suite *suite)
{
	struct kunit_case *c = suite->test_cases;
	struct rnd_state rnd;
	unsigned int n = 0, i, j;

	if (!uc_test_shuffle_param)
		return;
	while (c[n].run_case)
		n++;
	prandom_seed_state(&rnd, (u64)uc_test_seed() << 32 |
			   full_name_hash(NULL, suite->name, strlen(suite->name)));
	for (i = n; i > 1; i--) {
		j = prandom_u32_state(&rnd) % i;
		swap(c[i - 1], c[j]);
	}
	pr_info("%s: %u cases in an order drawn from seed %u\n", suite->name,
		n, uc_test_seed());
}

/* A number below @n from @rnd (as get_random_u32_below() does). */
static u32 uc_rand_below(struct rnd_state *rnd, u32 n)
{
	return ((u64)prandom_u32_state(rnd) * n) >> 32;
}

/* A number below @n from the test's own generator. */
static u32 uc_test_rand_below(struct kunit *test, u32 n)
{
	return uc_rand_below(test->priv, n);
}

static void uc_test_release_action(void *data)
{
	uc_block_release(data);
}

/* Take a block that the test owns until it ends or calls uc_test_release(). */
static struct uc_block *uc_test_grab(struct kunit *test, int nid)
{
	struct uc_block *block = uc_block_grab(nid, 0);

	if (block &&
	    kunit_add_action_or_reset(test, uc_test_release_action, block))
		return NULL;
	return block;
}

static void uc_test_release(struct kunit *test, struct uc_block *block)
{
	kunit_release_action(test, uc_test_release_action, block);
}

/*
 * Calls the cache refused for bad input so far.  WARN_ON_ONCE() prints once
 * per call site and boot; this counts every refusal (uc_refuse()), so a
 * test can check that each bad call it makes is refused with a warning.
 */
static long uc_test_bad_calls(void)
{
	return atomic_long_read(&uc_bad_calls);
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
 * 64 cycles of taking 8 blocks and giving them back.  No PMD-level entry may
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
static void uc_fault_disarm(void *data)
{
	struct fault_attr *attr = data;

	attr->probability = 0;
	atomic_set(&attr->times, 0);
}

/* Make the next check of @attr fail, once. */
static int uc_fault_arm(struct kunit *test, struct fault_attr *attr)
{
	attr->verbose = 0;
	attr->interval = 1;
	attr->task_filter = false;
	atomic_set(&attr->space, 0);
	atomic_set(&attr->times, 1);
	attr->probability = 100;
	return kunit_add_action_or_reset(test, uc_fault_disarm, attr);
}

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

static int uc_block_test_init(struct kunit *test)
{
	struct rnd_state *rnd = kunit_kzalloc(test, sizeof(*rnd), GFP_KERNEL);
	u32 name;

	if (!rnd)
		return -ENOMEM;
	name = full_name_hash(NULL, test->name, strlen(test->name));
	prandom_seed_state(rnd, (u64)uc_test_seed() << 32 |
				(name + test->param_index));
	test->priv = rnd;
	if (!unmapped_cache_enabled())
		kunit_skip(test, "unmapped cache not enabled");
	return 0;
}

/*
 * The periodic reaper would give blocks back and take the depot locks
 * while the tests count both: it waits until a suite is over.
 */
static int uc_suite_init(struct kunit_suite *suite)
{
	uc_test_seed();
	uc_test_shuffle(suite);
	uc_reap_hold();
	uc_randomize_hold();
	return 0;
}

static void uc_suite_exit(struct kunit_suite *suite)
{
	uc_randomize_unhold();
	uc_reap_unhold();
}

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
 * Arenas and the public interface.
 *
 * Every test creates its own cache; what it allocates is freed and the
 * cache destroyed by KUnit actions, in reverse order, also when an
 * assertion fails.  Blocks stay with the arenas (they are shared); the
 * shrink test gives them back.
 */

#define UC_POP_CHUNKS		2048
#define UC_POP_MAX_PAGES	64

struct uc_test_chunk {
	void *addr;		/* mapped arenas */
	struct page *page;	/* NONE */
	size_t size;
};

struct uc_test_pop {
	struct unmapped_cache *cache;
	struct uc_test_chunk *chunks;
	unsigned int nr;
};

static void uc_test_destroy_action(void *data)
{
	unmapped_cache_destroy(data);
}

static struct unmapped_cache *uc_test_cache(struct kunit *test,
					    enum unmapped_cache_perm perm)
{
	struct unmapped_cache *cache = unmapped_cache_create("kunit", perm);

	if (cache &&
	    kunit_add_action_or_reset(test, uc_test_destroy_action, cache))
		return NULL;
	return cache;
}

static void uc_test_chunk_free(struct unmapped_cache *cache,
			       struct uc_test_chunk *c)
{
	if (c->page)
		unmapped_cache_free_page(cache, c->page);
	else if (c->addr)
		unmapped_cache_free(cache, c->addr, c->size);
	c->page = NULL;
	c->addr = NULL;
}

static void uc_test_pop_action(void *data)
{
	struct uc_test_pop *pop = data;
	unsigned int i;

	for (i = 0; i < pop->nr; i++)
		uc_test_chunk_free(pop->cache, &pop->chunks[i]);
}

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

/*
 * memchr_inv() of memory the test has just freed, to see how the free
 * left it: with KASAN_VMALLOC the cache poisons a freed chunk, and this
 * read, on purpose, must not be reported.
 */
static void *uc_test_freed_memchr_inv(const void *p, int c, size_t n)
{
	void *ret;

	kasan_disable_current();
	ret = memchr_inv(p, c, n);
	kasan_enable_current();
	return ret;
}

/* Read @len bytes of a chunk: directly, or through vmap() for NONE. */
static bool uc_test_chunk_is(struct uc_test_chunk *c, u8 byte)
{
	void *p = c->addr;
	bool ret;

	if (c->page) {
		p = vmap(&c->page, 1, VM_MAP, PAGE_KERNEL_RO);
		if (!p)
			return false;
	}
	ret = !memchr_inv(p, byte, c->size);
	if (c->page)
		vunmap(p);
	return ret;
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
 * must read back as traps and reused chunks as zeroes.
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
 * With nothing live, a drain (magazines, depot, then the arena's free
 * blocks) gives every block back to the page allocator.
 */
static void arena_shrink_returns_free_blocks(struct kunit *test)
{
	struct unmapped_cache *cache = uc_test_cache(test, UNMAPPED_CACHE_ROX);
	struct uc_arena *arena = uc_arena_get(UNMAPPED_CACHE_ROX, NUMA_NO_NODE);
	struct uc_arena_info info;
	long held = uc_blocks_held();
	void *p;

	KUNIT_ASSERT_NOT_NULL(test, cache);
	KUNIT_ASSERT_NOT_NULL(test, arena);
	p = unmapped_cache_alloc(cache, 3 * UNMAPPED_CACHE_BLOCK_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);

	/* A live chunk keeps its blocks. */
	uc_drain();
	uc_arena_info(arena, &info);
	KUNIT_EXPECT_GE(test, info.nr_blocks, 3);

	/* Magazines hold rounds of earlier tests: drain empties them too. */
	unmapped_cache_free(cache, p, 3 * UNMAPPED_CACHE_BLOCK_SIZE);
	uc_drain();
	uc_arena_info(arena, &info);
	KUNIT_EXPECT_EQ(test, info.nr_blocks, 0);
	KUNIT_EXPECT_EQ(test, info.free_bytes, 0);
	KUNIT_EXPECT_LE(test, uc_blocks_held(), held);
	KUNIT_EXPECT_EQ(test, uc_arena_check(arena), 0);
}

static void uc_test_put_action(void *data);

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

static unsigned long uc_test_scan(unsigned long nr_to_scan);

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

/* A CPU going offline gives its magazines to the depot. */
static void mag_cpu_offline_gives_magazines_back(struct kunit *test)
{
	struct unmapped_cache *cache = uc_test_cache(test, UNMAPPED_CACHE_RW);
	struct unmapped_cache *none = uc_test_cache(test, UNMAPPED_CACHE_NONE);
	struct uc_arena *arena = uc_arena_get(UNMAPPED_CACHE_RW, NUMA_NO_NODE);
	struct uc_arena *secrets = uc_arena_get(UNMAPPED_CACHE_NONE, NUMA_NO_NODE);
	struct uc_mag_cpu *mc, *smc;
	int cpu = cpumask_last(cpu_online_mask);
	void *p[UC_MAG_ROUNDS * 2];
	struct page *page[8];
	int i, err;

	KUNIT_ASSERT_NOT_NULL(test, cache);
	KUNIT_ASSERT_NOT_NULL(test, none);
	if (cpu == 0 || !IS_ENABLED(CONFIG_HOTPLUG_CPU))
		kunit_skip(test, "needs a second CPU that can go offline");

	/* Fill that CPU's magazines: allocate and free from it. */
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)), 0);
	for (i = 0; i < ARRAY_SIZE(p); i++)
		p[i] = unmapped_cache_alloc(cache, PAGE_SIZE, GFP_KERNEL);
	for (i = 0; i < ARRAY_SIZE(p); i++)
		unmapped_cache_free(cache, p[i], PAGE_SIZE);
	/* And NONE pages in its magazines. */
	for (i = 0; i < ARRAY_SIZE(page); i++)
		page[i] = unmapped_cache_alloc_page(none, GFP_KERNEL);
	for (i = 0; i < ARRAY_SIZE(page); i++)
		unmapped_cache_free_page(none, page[i]);
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	mc = per_cpu_ptr(arena->mags, cpu);
	smc = per_cpu_ptr(secrets->mags, cpu);
	KUNIT_EXPECT_NOT_NULL(test, mc->loaded);
	KUNIT_EXPECT_GT(test, READ_ONCE(smc->rounds), 0);

	err = remove_cpu(cpu);
	if (err)
		kunit_skip(test, "remove_cpu(%d) failed: %d", cpu, err);
	KUNIT_EXPECT_NULL(test, mc->loaded);
	KUNIT_EXPECT_NULL(test, mc->previous);
	KUNIT_EXPECT_NULL(test, smc->loaded);
	KUNIT_EXPECT_NULL(test, smc->previous);
	KUNIT_EXPECT_EQ(test, add_cpu(cpu), 0);
	KUNIT_EXPECT_EQ(test, uc_arena_check(arena), 0);
	KUNIT_EXPECT_EQ(test, uc_arena_check(secrets), 0);
}

/* Map NONE pages where the test can see them; vunmap() when done. */
static u8 *uc_test_vmap_pages(struct page **pages, unsigned int nr)
{
	return vmap(pages, nr, VM_MAP, PAGE_KERNEL);
}

/* Pages of @buf (@nr pages) that are not entirely zero. */
static unsigned long uc_test_nonzero_pages(const u8 *buf, unsigned int nr)
{
	unsigned long i, bad = 0;

	for (i = 0; i < nr; i++)
		if (memchr_inv(buf + i * PAGE_SIZE, 0, PAGE_SIZE))
			bad++;
	return bad;
}

#define UC_TEST_SECRETS	(UC_MAG_ROUNDS * 2 + 7)

#define UC_TEST_EXPECT_ZERO	BIT(0)	/* every page must read as zero */
#define UC_TEST_WRITE_SECRET	BIT(1)	/* then fill them with 0x5a */

/*
 * Allocate UC_TEST_SECRETS pages of @cache into @pages (expecting all of
 * them), look at them through a temporary mapping as @how says, and
 * return how many were allocated.
 */
static int uc_test_take_pages(struct kunit *test, struct unmapped_cache *cache,
			      struct page **pages, unsigned int how)
{
	int n;
	u8 *v;

	for (n = 0; n < UC_TEST_SECRETS; n++) {
		pages[n] = unmapped_cache_alloc_page(cache, GFP_KERNEL);
		if (!pages[n])
			break;
	}
	KUNIT_EXPECT_EQ(test, n, UC_TEST_SECRETS);
	v = n ? uc_test_vmap_pages(pages, n) : NULL;
	KUNIT_EXPECT_TRUE(test, !n || v);
	if (v) {
		if (how & UC_TEST_EXPECT_ZERO)
			KUNIT_EXPECT_EQ_MSG(test, uc_test_nonzero_pages(v, n), 0,
					    "pages with a former owner's data");
		if (how & UC_TEST_WRITE_SECRET)
			memset(v, 0x5a, n * PAGE_SIZE);
		vunmap(v);
	}
	return n;
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
	int zero;

	KUNIT_ASSERT_NOT_NULL(test, cache);
	kunit_info(test, "init_on_free %d, init_on_alloc %d\n", on_free,
		   want_init_on_alloc(GFP_KERNEL));
	for (zero = 0; zero < 2; zero++) {
		migrate_disable();
		p = unmapped_cache_alloc(cache, PAGE_SIZE, GFP_KERNEL);
		if (p) {
			memset(p, 0x5a, PAGE_SIZE);
			unmapped_cache_free(cache, p, PAGE_SIZE);
		}
		q = unmapped_cache_alloc(cache, PAGE_SIZE,
					 GFP_KERNEL | (zero ? __GFP_ZERO : 0));
		migrate_enable();
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

/*
 * The interfaces for converted callers: deferred release of page-cache
 * pages (secretmem), cache pages mapped in vmalloc space (execmem), and
 * telling cache memory from fallback memory at free (BPF packs).
 */

static void uc_test_put_action(void *data)
{
	put_page(data);
}

/* A NONE page to give back to its cache when the test ends. */
struct uc_test_none_page {
	struct unmapped_cache *cache;
	struct page *page;
};

static void uc_test_none_page_free_action(void *data)
{
	struct uc_test_none_page *np = data;

	unmapped_cache_free_page(np->cache, np->page);
}

/* unmapped_cache_alloc_page(), freed when the test ends if not before. */
static struct uc_test_none_page *uc_test_none_page(struct kunit *test,
						   struct unmapped_cache *cache)
{
	struct uc_test_none_page *np = kunit_kzalloc(test, sizeof(*np),
						     GFP_KERNEL);

	if (!np)
		return NULL;
	np->cache = cache;
	np->page = unmapped_cache_alloc_page(cache, GFP_KERNEL);
	if (!np->page ||
	    kunit_add_action_or_reset(test, uc_test_none_page_free_action, np))
		return NULL;
	return np;
}

static bool uc_test_mapped(unsigned long addr)
{
	struct unmapped_cache_entry e;

	arch_unmapped_cache_lookup(addr, &e);
	return e.present;
}

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
	struct page *page, *next, *again;
	struct uc_arena *arena;
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

	/* The last other reference gone, it is the next page handed out. */
	put_page(page);
	again = unmapped_cache_alloc_page(cache, GFP_KERNEL);
	migrate_enable();
	KUNIT_EXPECT_PTR_EQ(test, again, page);
	if (again)
		KUNIT_EXPECT_EQ(test, page_ref_count(again), UC_PAGE_REFS + 1);
	unmapped_cache_free_page(cache, again);
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

static void uc_test_vunmap_action(void *data)
{
	unmapped_cache_vunmap(data);
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

/*
 * The bad-input matrix: every public function with each kind of bad
 * argument.  Each row is one KUnit case, named after what it does and what
 * must happen; the table is the documentation of the behaviour.  A
 * refused call warns once per call site (WARN_ON_ONCE) and changes
 * nothing: after every row the test's live chunks are still owned, the
 * counts of the caches are as before and the range trees are consistent.
 * Each row also says how many of its calls must be refused: the cache
 * counts every refusal (uc_bad_calls), so a refusal that lost its warning,
 * or a call that is harmless and started warning, fails the row.
 */
struct uc_bad_ctx {
	struct kunit *test;
	struct unmapped_cache *rw, *other, *none;
	u8 *chunk;			/* 4 live pages of rw */
	u8 *round;			/* 1 live page of rw (a magazine round) */
	struct page *secret;		/* 1 live page of none */
	void *heap;			/* kmalloc memory */
	struct page *foreign;		/* a page from the page allocator */
};

#define UC_BAD_CHUNK	(4 * PAGE_SIZE)

/**
 * struct uc_bad_row - One row of the bad-input matrix.
 * @what:     the call and what must happen; the case's name.
 * @run:      makes the calls.
 * @refusals: how many of them are refused with a warning (0: none may).
 */
struct uc_bad_row {
	const char *what;
	void (*run)(struct uc_bad_ctx *c);
	unsigned int refusals;
};

static void bad_create_invalid_perm(struct uc_bad_ctx *c)
{
	KUNIT_EXPECT_NULL(c->test, unmapped_cache_create("bad", UNMAPPED_CACHE_NR_PERMS));
}

static void bad_create_null_name(struct uc_bad_ctx *c)
{
	KUNIT_EXPECT_NULL(c->test, unmapped_cache_create(NULL, UNMAPPED_CACHE_RW));
}

static void bad_destroy_null(struct uc_bad_ctx *c)
{
	unmapped_cache_destroy(NULL);
}

static void bad_destroy_live(struct uc_bad_ctx *c)
{
	struct unmapped_cache *tmp = unmapped_cache_create("bad", UNMAPPED_CACHE_RW);
	void *p;

	KUNIT_ASSERT_NOT_NULL(c->test, tmp);
	p = unmapped_cache_alloc(tmp, PAGE_SIZE, GFP_KERNEL);
	KUNIT_EXPECT_NOT_NULL(c->test, p);
	unmapped_cache_destroy(tmp);		/* refused: p is live */
	/* The cache is still there and still owns p. */
	KUNIT_EXPECT_TRUE(c->test, !p || unmapped_cache_owns(tmp, p, PAGE_SIZE));
	unmapped_cache_free(tmp, p, PAGE_SIZE);
	unmapped_cache_destroy(tmp);
}

static void bad_alloc_null_cache(struct uc_bad_ctx *c)
{
	KUNIT_EXPECT_NULL(c->test, unmapped_cache_alloc(NULL, PAGE_SIZE, GFP_KERNEL));
}

static void bad_alloc_none_cache(struct uc_bad_ctx *c)
{
	KUNIT_EXPECT_NULL(c->test, unmapped_cache_alloc(c->none, PAGE_SIZE, GFP_KERNEL));
}

static void bad_alloc_size_zero(struct uc_bad_ctx *c)
{
	KUNIT_EXPECT_NULL(c->test, unmapped_cache_alloc(c->rw, 0, GFP_KERNEL));
}

static void bad_alloc_size_too_big(struct uc_bad_ctx *c)
{
	KUNIT_EXPECT_NULL(c->test, unmapped_cache_alloc(c->rw, UNMAPPED_CACHE_MAX_CHUNK + 1,
							GFP_KERNEL));
	KUNIT_EXPECT_NULL(c->test, unmapped_cache_alloc(c->rw, SIZE_MAX, GFP_KERNEL));
}

static void bad_alloc_align_not_pow2(struct uc_bad_ctx *c)
{
	KUNIT_EXPECT_NULL(c->test, unmapped_cache_alloc_node(c->rw, PAGE_SIZE, 3 * PAGE_SIZE,
							     NUMA_NO_NODE, GFP_KERNEL));
}

static void bad_alloc_bad_node(struct uc_bad_ctx *c)
{
	KUNIT_EXPECT_NULL(c->test, unmapped_cache_alloc_node(c->rw, PAGE_SIZE, PAGE_SIZE,
							     MAX_NUMNODES, GFP_KERNEL));
	KUNIT_EXPECT_NULL(c->test, unmapped_cache_alloc_node(c->rw, PAGE_SIZE, PAGE_SIZE,
							     -2, GFP_KERNEL));
}

static void bad_free_null_addr(struct uc_bad_ctx *c)
{
	unmapped_cache_free(c->rw, NULL, PAGE_SIZE);
}

static void bad_free_null_cache(struct uc_bad_ctx *c)
{
	unmapped_cache_free(NULL, c->chunk, UC_BAD_CHUNK);
}

static void bad_free_none_cache(struct uc_bad_ctx *c)
{
	unmapped_cache_free(c->none, c->chunk, UC_BAD_CHUNK);
}

static void bad_free_middle(struct uc_bad_ctx *c)
{
	unmapped_cache_free(c->rw, c->chunk + PAGE_SIZE, PAGE_SIZE);
	unmapped_cache_free(c->rw, c->chunk + 1, UC_BAD_CHUNK);
}

static void bad_free_wrong_size(struct uc_bad_ctx *c)
{
	unmapped_cache_free(c->rw, c->chunk, 2 * PAGE_SIZE);
	unmapped_cache_free(c->rw, c->chunk, PAGE_SIZE);
	unmapped_cache_free(c->rw, c->round, 2 * PAGE_SIZE);
}

static void bad_free_wrong_cache(struct uc_bad_ctx *c)
{
	unmapped_cache_free(c->other, c->chunk, UC_BAD_CHUNK);
	unmapped_cache_free(c->other, c->round, PAGE_SIZE);
}

static void bad_free_heap(struct uc_bad_ctx *c)
{
	unmapped_cache_free(c->rw, c->heap, PAGE_SIZE);
	unmapped_cache_free(c->rw, page_address(c->foreign), PAGE_SIZE);
}

static void bad_free_twice(struct uc_bad_ctx *c)
{
	void *one = unmapped_cache_alloc(c->rw, PAGE_SIZE, GFP_KERNEL);
	void *two = unmapped_cache_alloc(c->rw, 3 * PAGE_SIZE, GFP_KERNEL);

	KUNIT_EXPECT_NOT_NULL(c->test, one);
	KUNIT_EXPECT_NOT_NULL(c->test, two);
	unmapped_cache_free(c->rw, one, PAGE_SIZE);
	unmapped_cache_free(c->rw, two, 3 * PAGE_SIZE);
	unmapped_cache_free(c->rw, one, PAGE_SIZE);
	unmapped_cache_free(c->rw, two, 3 * PAGE_SIZE);
}

static void bad_alloc_page_mapped_cache(struct uc_bad_ctx *c)
{
	KUNIT_EXPECT_NULL(c->test, unmapped_cache_alloc_page(c->rw, GFP_KERNEL));
	KUNIT_EXPECT_NULL(c->test, unmapped_cache_alloc_page(NULL, GFP_KERNEL));
}

static void bad_free_page_null(struct uc_bad_ctx *c)
{
	unmapped_cache_free_page(c->none, NULL);
}

static void bad_free_page_wrong_cache(struct uc_bad_ctx *c)
{
	unmapped_cache_free_page(c->rw, c->secret);
	unmapped_cache_free_page(NULL, c->secret);
}

static void bad_free_page_foreign(struct uc_bad_ctx *c)
{
	unmapped_cache_free_page(c->none, c->foreign);
	KUNIT_EXPECT_EQ(c->test, page_ref_count(c->foreign), 1);
}

static void bad_free_page_twice(struct uc_bad_ctx *c)
{
	struct page *page = unmapped_cache_alloc_page(c->none, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(c->test, page);
	unmapped_cache_free_page(c->none, page);
	unmapped_cache_free_page(c->none, page);
}

static void bad_free_page_referenced(struct uc_bad_ctx *c)
{
	get_page(c->secret);
	unmapped_cache_free_page(c->none, c->secret);	/* refused */
	put_page(c->secret);
	KUNIT_EXPECT_TRUE(c->test, unmapped_cache_owns_page(c->none, c->secret));
}

static void bad_owns(struct uc_bad_ctx *c)
{
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_owns(NULL, c->chunk, PAGE_SIZE));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_owns(c->rw, NULL, PAGE_SIZE));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_owns(c->rw, c->chunk, 0));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_owns(c->rw, c->chunk, UC_BAD_CHUNK + 1));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_owns(c->rw, c->chunk, SIZE_MAX));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_owns(c->other, c->chunk, PAGE_SIZE));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_owns(c->none, c->chunk, PAGE_SIZE));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_owns(c->rw, c->heap, 8));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_owns_page(c->none, c->foreign));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_owns_page(c->rw, c->secret));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_owns_page(NULL, c->secret));
}

static void bad_write(struct uc_bad_ctx *c)
{
	KUNIT_EXPECT_EQ(c->test, unmapped_cache_write(c->none, c->chunk, "abc", 3),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(c->test, unmapped_cache_write(c->rw, c->chunk + UC_BAD_CHUNK - 2,
						      "abc", 3), -EINVAL);
	KUNIT_EXPECT_EQ(c->test, unmapped_cache_write(c->other, c->chunk, "abc", 3),
			-EINVAL);
	KUNIT_EXPECT_EQ(c->test, unmapped_cache_write(c->rw, c->heap, "abc", 3), -EINVAL);
	KUNIT_EXPECT_EQ(c->test, unmapped_cache_write(c->rw, c->chunk, "abc", SIZE_MAX),
			-EINVAL);
}

static void bad_vmap(struct uc_bad_ctx *c)
{
	void *v;

	KUNIT_EXPECT_NULL(c->test, unmapped_cache_vmap(0, PAGE_SIZE, VMALLOC_START,
						       VMALLOC_END, PAGE_KERNEL, 0,
						       __builtin_return_address(0)));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_vunmap(NULL));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_vunmap(c->heap));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_vunmap(c->chunk));
	v = unmapped_cache_vmap(2 * PAGE_SIZE, PAGE_SIZE, VMALLOC_START, VMALLOC_END,
				PAGE_KERNEL, 0, __builtin_return_address(0));
	KUNIT_ASSERT_NOT_NULL(c->test, v);
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_vunmap(v + PAGE_SIZE));
	KUNIT_EXPECT_TRUE(c->test, unmapped_cache_vunmap(v));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_vunmap(v));
}

static const struct uc_bad_row uc_bad_rows[] = {
	{ "create, invalid permission: NULL", bad_create_invalid_perm, 1 },
	{ "create, NULL name: NULL", bad_create_null_name, 1 },
	{ "destroy, NULL: nothing", bad_destroy_null, 0 },
	{ "destroy with a live chunk: refused, cache and chunk kept", bad_destroy_live, 1 },
	{ "alloc, NULL cache: NULL", bad_alloc_null_cache, 1 },
	{ "alloc from a NONE cache: NULL", bad_alloc_none_cache, 1 },
	{ "alloc, size 0: NULL", bad_alloc_size_zero, 1 },
	{ "alloc, size over 16 MiB or SIZE_MAX: NULL", bad_alloc_size_too_big, 2 },
	{ "alloc_node, alignment not a power of two: NULL", bad_alloc_align_not_pow2, 1 },
	{ "alloc_node, node out of range: NULL", bad_alloc_bad_node, 2 },
	{ "free, NULL address: nothing", bad_free_null_addr, 0 },
	{ "free, NULL cache: refused", bad_free_null_cache, 1 },
	{ "free through a NONE cache: refused", bad_free_none_cache, 1 },
	{ "free, address inside a chunk: refused", bad_free_middle, 2 },
	{ "free, wrong size (chunk and round): refused", bad_free_wrong_size, 3 },
	{ "free, wrong cache (chunk and round): refused", bad_free_wrong_cache, 2 },
	{ "free, heap or page-allocator pointer: refused", bad_free_heap, 2 },
	{ "free twice (round and chunk): second refused", bad_free_twice, 2 },
	{ "alloc_page from a mapped or NULL cache: NULL", bad_alloc_page_mapped_cache, 2 },
	{ "free_page, NULL page: nothing", bad_free_page_null, 0 },
	{ "free_page, wrong or NULL cache: refused", bad_free_page_wrong_cache, 2 },
	{ "free_page, page-allocator page: refused, page untouched", bad_free_page_foreign, 1 },
	{ "free_page twice: second refused", bad_free_page_twice, 1 },
	{ "free_page while referenced elsewhere: refused", bad_free_page_referenced, 1 },
	{ "owns/owns_page, bad cache, address, size or page: false", bad_owns, 0 },
	{ "write, NONE cache, outside the chunk, wrong cache, heap: error", bad_write, 4 },
	{ "vmap size 0: NULL; vunmap NULL, foreign, inside, twice: false", bad_vmap, 0 },
};

static void uc_bad_row_desc(const struct uc_bad_row *row, char *desc)
{
	strscpy(desc, row->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(uc_bad_rows, uc_bad_rows, uc_bad_row_desc);

static void uc_test_free_chunk_action(void *data)
{
	struct uc_bad_ctx *c = data;

	unmapped_cache_free(c->rw, c->chunk, UC_BAD_CHUNK);
	unmapped_cache_free(c->rw, c->round, PAGE_SIZE);
	unmapped_cache_free_page(c->none, c->secret);
}

static void bad_input_is_refused(struct kunit *test)
{
	const struct uc_bad_row *row = test->param_value;
	struct uc_bad_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	long chunks[3], pages[3], bad;
	struct uc_arena *rw, *none;

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->test = test;
	c->rw = uc_test_cache(test, UNMAPPED_CACHE_RW);
	c->other = uc_test_cache(test, UNMAPPED_CACHE_RW);
	c->none = uc_test_cache(test, UNMAPPED_CACHE_NONE);
	KUNIT_ASSERT_NOT_NULL(test, c->rw);
	KUNIT_ASSERT_NOT_NULL(test, c->other);
	KUNIT_ASSERT_NOT_NULL(test, c->none);
	c->heap = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->heap);
	c->foreign = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->foreign);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, uc_test_put_action,
							c->foreign), 0);
	c->chunk = unmapped_cache_alloc(c->rw, UC_BAD_CHUNK, GFP_KERNEL);
	c->round = unmapped_cache_alloc(c->rw, PAGE_SIZE, GFP_KERNEL);
	c->secret = unmapped_cache_alloc_page(c->none, GFP_KERNEL);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, uc_test_free_chunk_action,
							c), 0);
	KUNIT_ASSERT_NOT_NULL(test, c->chunk);
	KUNIT_ASSERT_NOT_NULL(test, c->round);
	KUNIT_ASSERT_NOT_NULL(test, c->secret);
	c->chunk[0] = 0xa5;
	rw = uc_arena_get(UNMAPPED_CACHE_RW, NUMA_NO_NODE);
	none = uc_arena_get(UNMAPPED_CACHE_NONE, NUMA_NO_NODE);

	chunks[0] = uc_cache_live(c->rw, false);
	chunks[1] = uc_cache_live(c->other, false);
	chunks[2] = uc_cache_live(c->none, false);
	pages[0] = uc_cache_live(c->rw, true);
	pages[1] = uc_cache_live(c->other, true);
	pages[2] = uc_cache_live(c->none, true);
	bad = uc_test_bad_calls();

	row->run(c);

	/* Every bad call was refused with a warning, and no other call was. */
	KUNIT_EXPECT_EQ_MSG(test, uc_test_bad_calls() - bad, (long)row->refusals,
			    "calls refused with a warning");

	/* Nothing changed hands. */
	KUNIT_EXPECT_EQ(test, uc_cache_live(c->rw, false), chunks[0]);
	KUNIT_EXPECT_EQ(test, uc_cache_live(c->other, false), chunks[1]);
	KUNIT_EXPECT_EQ(test, uc_cache_live(c->none, false), chunks[2]);
	KUNIT_EXPECT_EQ(test, uc_cache_live(c->rw, true), pages[0]);
	KUNIT_EXPECT_EQ(test, uc_cache_live(c->other, true), pages[1]);
	KUNIT_EXPECT_EQ(test, uc_cache_live(c->none, true), pages[2]);
	KUNIT_EXPECT_TRUE(test, unmapped_cache_owns(c->rw, c->chunk, UC_BAD_CHUNK));
	KUNIT_EXPECT_TRUE(test, unmapped_cache_owns(c->rw, c->round, PAGE_SIZE));
	KUNIT_EXPECT_TRUE(test, unmapped_cache_owns_page(c->none, c->secret));
	KUNIT_EXPECT_EQ(test, c->chunk[0], 0xa5);
	KUNIT_EXPECT_EQ(test, uc_arena_check(rw), 0);
	KUNIT_EXPECT_EQ(test, uc_arena_check(none), 0);
	KUNIT_EXPECT_EQ(test, page_ref_count(c->foreign), 1);
}

static struct kunit_case uc_bad_input_test_cases[] = {
	KUNIT_CASE_PARAM(bad_input_is_refused, uc_bad_rows_gen_params),
	{}
};

static struct kunit_suite uc_bad_input_test_suite = {
	.name = "unmapped_cache_bad_input",
	.suite_init = uc_suite_init,
	.suite_exit = uc_suite_exit,
	.init = uc_block_test_init,
	.test_cases = uc_bad_input_test_cases,
};

/*
 * Fault injection through the cache's interface: each fault point fails
 * while a caller allocates or frees.  The caller gets a clean error (NULL)
 * or its free still succeeds; no block is leaked or left half set up
 * (every page taken from the page allocator is either in a held block or
 * back); the direct map did not change; freed memory still reaches the
 * next owner clean; and once the fault is gone the cache works again.
 */
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

static void uc_test_unhold_action(void *data)
{
	uc_reap_unhold();
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

static unsigned long uc_test_scan(unsigned long nr_to_scan)
{
	struct shrink_control sc = {
		.gfp_mask = GFP_KERNEL,
		.nr_to_scan = nr_to_scan,
		.nr_scanned = nr_to_scan,
	};

	return uc_shrink_scan(NULL, &sc);
}

/*
 * What a scan of node 0 could give back, worked out block by block under
 * the arenas' locks: each arena's wholly free blocks, at most all its
 * blocks but the one it keeps, and the rounds of its depot.
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
		rounds += uc_depot_rounds(arena);
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
 * the node's arenas but the one each keeps, and the depots' rounds;
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
	 * magazines, whose rounds count (the CPU's own do not).
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
	KUNIT_EXPECT_EQ(test, uc_test_count(), uc_test_returnable_pages());
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

/*
 * Hibernation and /proc/kcore: the snapshot reads every page of the cache
 * but the secret ones, without making any of them present in the direct
 * map; kcore may read the cache's own mappings but not the one through which
 * pages are copied and cleared.
 */

/* Copy @page as the hibernation snapshot does; false if it is not ours. */
static bool uc_test_hibernate_copy(struct page *page, void *dst)
{
	unsigned long flags;
	bool ours;

	local_irq_save(flags);
	ours = unmapped_cache_hibernate_copy_page(dst, page);
	local_irq_restore(flags);
	return ours;
}

/*
 * A page of a ROX chunk and an execmem page are copied with their
 * contents, through a mapping in this CPU's own mm, which is gone
 * afterwards; their blocks stay out of the direct map and nothing splits.
 * A page of the page allocator is left to the usual path.
 */
static void pm_hibernate_copy_reads_cache_pages_in_place(struct kunit *test)
{
	struct unmapped_cache *rox = uc_test_cache(test, UNMAPPED_CACHE_ROX);
	struct uc_test_pop *pop = kunit_kzalloc(test, sizeof(*pop), GFP_KERNEL);
	struct unmapped_cache_dm_counts before, after;
	u8 *buf = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	u8 *pattern = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	unsigned long copied, zeroed, copied0, zeroed0;
	struct page *text, *exec, *plain;
	u8 *x;

	KUNIT_ASSERT_NOT_NULL(test, rox);
	KUNIT_ASSERT_NOT_NULL(test, pop);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, pattern);
	pop->chunks = kunit_kcalloc(test, 1, sizeof(*pop->chunks), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pop->chunks);
	pop->cache = rox;
	pop->nr = 1;
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   uc_test_pop_action,
							   pop));
	pop->chunks[0].size = 2 * PAGE_SIZE;
	pop->chunks[0].addr = unmapped_cache_alloc(rox, 2 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pop->chunks[0].addr);
	memset(pattern, 0xc3, PAGE_SIZE);
	pattern[7] = 0x11;
	KUNIT_ASSERT_EQ(test, 0, unmapped_cache_write(rox, pop->chunks[0].addr,
						      pattern, PAGE_SIZE));
	text = vmalloc_to_page(pop->chunks[0].addr);
	KUNIT_ASSERT_NOT_NULL(test, text);

	x = unmapped_cache_vmap(PAGE_SIZE, PAGE_SIZE, VMALLOC_START, VMALLOC_END,
				PAGE_KERNEL, 0, (void *)_RET_IP_);
	KUNIT_ASSERT_NOT_NULL(test, x);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   uc_test_vunmap_action,
							   x));
	memset(x, 0x3c, PAGE_SIZE);
	exec = vmalloc_to_page(x);
	KUNIT_ASSERT_NOT_NULL(test, exec);

	uc_hibernate_stats(&copied0, &zeroed0);
	arch_unmapped_cache_direct_map_counts(&before);

	memset(buf, 0, PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, uc_test_hibernate_copy(text, buf));
	KUNIT_EXPECT_EQ(test, 0, memcmp(buf, pattern, PAGE_SIZE));

	KUNIT_EXPECT_TRUE(test, uc_test_hibernate_copy(exec, buf));
	KUNIT_EXPECT_NULL(test, memchr_inv(buf, 0x3c, PAGE_SIZE));

	/* The cache's own mappings may be read by kcore. */
	KUNIT_EXPECT_TRUE(test, unmapped_cache_alias_readable(x));
	KUNIT_EXPECT_TRUE(test, unmapped_cache_alias_readable(pop->chunks[0].addr));

	plain = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, plain);
	KUNIT_EXPECT_FALSE(test, uc_test_hibernate_copy(plain, buf));
	__free_page(plain);

	uc_hibernate_stats(&copied, &zeroed);
	arch_unmapped_cache_direct_map_counts(&after);
	KUNIT_EXPECT_EQ(test, copied, copied0 + 2);
	KUNIT_EXPECT_EQ(test, zeroed, zeroed0);
	KUNIT_EXPECT_EQ(test, after.pte, before.pte);
	KUNIT_EXPECT_EQ(test, after.pmd, before.pmd);
	KUNIT_EXPECT_FALSE(test, uc_test_mapped((unsigned long)page_address(text)));
	KUNIT_EXPECT_FALSE(test, uc_test_mapped((unsigned long)page_address(exec)));
}

/*
 * A secret page makes hibernation refuse while it is allocated, and never
 * reaches an image: if the snapshot met one anyway, it would copy zeroes
 * (and warn).
 */
static void pm_secret_pages_stay_out_of_hibernation(struct kunit *test)
{
	struct unmapped_cache *none = uc_test_cache(test, UNMAPPED_CACHE_NONE);
	u8 *buf = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	unsigned long copied, zeroed, copied0, zeroed0;
	struct uc_test_none_page *np;
	bool active;
	struct page *page;
	u8 *v;

	KUNIT_ASSERT_NOT_NULL(test, none);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	active = unmapped_cache_secret_active();
	KUNIT_ASSERT_FALSE_MSG(test, active, "secret pages in use before the test");
	np = uc_test_none_page(test, none);
	KUNIT_ASSERT_NOT_NULL(test, np);
	page = np->page;
	KUNIT_EXPECT_TRUE(test, unmapped_cache_secret_active());
	v = uc_test_vmap_pages(&page, 1);
	KUNIT_ASSERT_NOT_NULL(test, v);
	memset(v, 0x5a, PAGE_SIZE);
	vunmap(v);

	uc_hibernate_stats(&copied0, &zeroed0);
	memset(buf, 0xff, PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, uc_test_hibernate_copy(page, buf));
	KUNIT_EXPECT_NULL_MSG(test, memchr_inv(buf, 0, PAGE_SIZE),
			      "a secret page reached the image");
	uc_hibernate_stats(&copied, &zeroed);
	KUNIT_EXPECT_EQ(test, copied, copied0);
	KUNIT_EXPECT_EQ(test, zeroed, zeroed0 + 1);

	/* Freed, it was cleared: it may be copied like any free page. */
	kunit_release_action(test, uc_test_none_page_free_action, np);
	KUNIT_EXPECT_FALSE(test, unmapped_cache_secret_active());
	memset(buf, 0xff, PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, uc_test_hibernate_copy(page, buf));
	KUNIT_EXPECT_NULL(test, memchr_inv(buf, 0, PAGE_SIZE));
	uc_hibernate_stats(&copied, &zeroed);
	KUNIT_EXPECT_EQ(test, copied, copied0 + 1);
}

/*
 * The mapping through which the cache writes RO, ROX and NONE pages is seen
 * by the CPU that set it and by no other.  A helper on CPU A holds such a
 * mapping of a secret page, with a pattern written through it, while the
 * test on CPU B looks for it: there must be no entry for the address in
 * init_mm, and a read of it from B (through the kernel's page tables for a
 * kernel address, through B's own mm for a user-half one) must fault.
 * Controls, from B with the same probes: a vmalloc page holding the same
 * pattern and a page of B's own mm holding it are read back.
 */
struct uc_test_peek {
	struct page *page;
	u64 pattern;
	unsigned long addr;		/* where A maps the page */
	atomic_t state;			/* 0, 1: A holds the mapping, 2: B is done */
	bool a_saw_pattern;
	bool a_timed_out;
};

/*
 * On CPU A, interrupts off, with the page mapped at @addr.  KASAN has no
 * shadow for that address (see arch_unmapped_cache_with_poke()): this
 * function and uc_test_peek_get() are not instrumented.
 */
static __no_sanitize_address void uc_test_peek_hold(void *addr, void *arg)
{
	struct uc_test_peek *pk = arg;
	u64 deadline = ktime_get_mono_fast_ns() + 2 * NSEC_PER_SEC;

	WRITE_ONCE(*(u64 *)addr, pk->pattern);
	pk->a_saw_pattern = READ_ONCE(*(u64 *)addr) == pk->pattern;
	pk->addr = (unsigned long)addr;
	atomic_set_release(&pk->state, 1);
	while (atomic_read_acquire(&pk->state) != 2) {
		if (ktime_get_mono_fast_ns() > deadline) {
			pk->a_timed_out = true;
			break;
		}
		cpu_relax();
	}
}

static __no_sanitize_address void uc_test_peek_get(void *addr, void *arg)
{
	*(u64 *)arg = READ_ONCE(*(u64 *)addr);
}

static int uc_test_peek_fn(void *data)
{
	struct uc_test_peek *pk = data;

	arch_unmapped_cache_with_poke(pk->page, uc_test_peek_hold, pk);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/* A read that faults rather than oopses, from this CPU's page tables. */
static long uc_test_peek_read(unsigned long addr, u64 *val)
{
	if (addr < TASK_SIZE_MAX)
		return copy_from_user_nofault(val, (const void __user *)addr,
					      sizeof(*val));
	return copy_from_kernel_nofault(val, (const void *)addr, sizeof(*val));
}

static void pm_poke_mapping_is_not_visible_from_other_cpus(struct kunit *test)
{
	struct unmapped_cache *none = uc_test_cache(test, UNMAPPED_CACHE_NONE);
	struct uc_test_peek *pk = kunit_kzalloc(test, sizeof(*pk), GFP_KERNEL);
	struct uc_test_none_page *np;
	long err = 0, ctrl_err, user_err;
	u64 val = 0, ctrl_val = 0, user_val = 0, got = 0;
	bool in_init_mm = false, ctrl_in_init_mm;
	struct task_struct *task;
	unsigned long uaddr;
	u64 deadline;
	int cpu_a;
	u64 *ctrl;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	KUNIT_ASSERT_NOT_NULL(test, none);
	KUNIT_ASSERT_NOT_NULL(test, pk);
	pk->pattern = 0x5ec7e75ec7e7ULL ^ get_random_u64();
	np = uc_test_none_page(test, none);
	KUNIT_ASSERT_NOT_NULL(test, np);
	pk->page = np->page;
	ctrl = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, ctrl);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   uc_test_vunmap_action,
							   ctrl));
	*ctrl = pk->pattern;
	/* A page of this thread's own mm (KUnit gives the thread one). */
	uaddr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			      MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE(test, 0, uaddr);
	KUNIT_ASSERT_EQ(test, 0, copy_to_user((void __user *)uaddr, &pk->pattern,
					      sizeof(pk->pattern)));

	/* This thread is CPU B; the helper holds the mapping on CPU A. */
	migrate_disable();
	cpu_a = cpumask_any_but(cpu_online_mask, smp_processor_id());
	task = kthread_create(uc_test_peek_fn, pk, "uc_peek/%d", cpu_a);
	if (IS_ERR(task)) {
		migrate_enable();
		KUNIT_FAIL(test, "kthread_create: %ld", PTR_ERR(task));
		return;
	}
	get_task_struct(task);
	kthread_bind(task, cpu_a);
	wake_up_process(task);

	deadline = ktime_get_mono_fast_ns() + 10 * NSEC_PER_SEC;
	while (atomic_read_acquire(&pk->state) != 1 &&
	       ktime_get_mono_fast_ns() < deadline)
		cpu_relax();
	if (atomic_read(&pk->state) == 1) {
		in_init_mm = uc_test_mapped(pk->addr);
		err = uc_test_peek_read(pk->addr, &val);
	}
	ctrl_in_init_mm = uc_test_mapped((unsigned long)ctrl);
	ctrl_err = uc_test_peek_read((unsigned long)ctrl, &ctrl_val);
	user_err = uc_test_peek_read(uaddr, &user_val);
	atomic_set_release(&pk->state, 2);
	migrate_enable();
	kthread_stop(task);
	put_task_struct(task);

	KUNIT_ASSERT_NE_MSG(test, pk->addr, 0, "the helper never mapped the page");
	KUNIT_EXPECT_FALSE(test, pk->a_timed_out);
	KUNIT_EXPECT_TRUE_MSG(test, pk->a_saw_pattern,
			      "CPU A did not read back what it wrote");
	KUNIT_EXPECT_FALSE_MSG(test, in_init_mm,
			       "init_mm maps the write mapping at %lx", pk->addr);
	KUNIT_EXPECT_NE_MSG(test, err, 0,
			    "CPU %d read CPU %d's write mapping at %lx",
			    smp_processor_id(), cpu_a, pk->addr);
	KUNIT_EXPECT_NE(test, val, pk->pattern);
	/* The same probes see mapped pages of both halves. */
	KUNIT_EXPECT_TRUE(test, ctrl_in_init_mm);
	KUNIT_EXPECT_EQ(test, ctrl_err, 0);
	KUNIT_EXPECT_EQ(test, ctrl_val, pk->pattern);
	KUNIT_EXPECT_EQ(test, user_err, 0);
	KUNIT_EXPECT_EQ(test, user_val, pk->pattern);
	/* And the write reached the page. */
	arch_unmapped_cache_with_poke(pk->page, uc_test_peek_get, &got);
	KUNIT_EXPECT_EQ(test, got, pk->pattern);
}

static struct kunit_case uc_pm_test_cases[] = {
	KUNIT_CASE(pm_hibernate_copy_reads_cache_pages_in_place),
	KUNIT_CASE(pm_secret_pages_stay_out_of_hibernation),
	KUNIT_CASE(pm_poke_mapping_is_not_visible_from_other_cpus),
	{}
};

static struct kunit_suite uc_pm_test_suite = {
	.name = "unmapped_cache_pm",
	.suite_init = uc_suite_init,
	.suite_exit = uc_suite_exit,
	.init = uc_block_test_init,
	.test_cases = uc_pm_test_cases,
};

kunit_test_suites(&uc_block_test_suite, &uc_arena_test_suite,
		  &uc_mag_test_suite, &uc_shrinker_test_suite,
		  &uc_callers_test_suite, &uc_poison_test_suite,
		  &uc_bad_input_test_suite, &uc_faults_test_suite,
		  &uc_pm_test_suite);

MODULE_DESCRIPTION("KUnit tests for the unmapped cache");
MODULE_LICENSE("GPL");
