// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the unmapped cache.
 *
 * These suites are built in and run from kernel_init_freeable(), before
 * system_state reaches SYSTEM_RUNNING, where the vmstat counters
 * direct_map_level{2,3}_splits do not count.  So they look at the direct
 * map itself: the level and presence of the entry that covers an address
 * (arch_unmapped_cache_direct_map_entry(), lookup_address() on x86) and the
 * number of entries at each level (the accounting behind the DirectMap
 * lines of /proc/meminfo).  Reads through the direct map use
 * copy_from_kernel_nofault(), so a broken cache fails a test instead of
 * crashing the kernel.
 *
 * Every block a test takes is released by a KUnit action, so a failed
 * assertion cannot leave a block out of the direct map.
 */

#include <kunit/test.h>
#include <linux/fault-inject.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/pfn.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/unmapped_cache.h>

#include "internal.h"

#define UC_TEST_CYCLES		64
#define UC_TEST_BLOCKS_PER_CYCLE 8

static void uc_test_release_action(void *data)
{
	uc_block_release(data);
}

/* Take a block that the test owns until it ends or calls uc_test_release(). */
static struct uc_block *uc_test_grab(struct kunit *test, int nid)
{
	struct uc_block *block = uc_block_grab(nid);

	if (block &&
	    kunit_add_action_or_reset(test, uc_test_release_action, block))
		return NULL;
	return block;
}

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
		unsigned long size;
		bool p;

		arch_unmapped_cache_direct_map_entry(page_addr, &size, &p);
		if (size != UNMAPPED_CACHE_BLOCK_SIZE)
			bad_level++;
		if (p != present)
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
		if (page_ref_count(block->page + i) != 1)
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

/* A block owned by somebody else, or with a page still in use, stays. */
static void block_release_refuses_foreign_and_busy(struct kunit *test)
{
	struct uc_block *block = uc_test_grab(test, NUMA_NO_NODE);
	struct uc_block fake;
	long refused = uc_block_stat(UC_BLOCK_RELEASE_REFUSED);
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
	block = uc_block_grab(NUMA_NO_NODE);
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
#else
static void block_grab_alloc_failure_is_clean(struct kunit *test)
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
	if (!unmapped_cache_enabled())
		kunit_skip(test, "unmapped cache not enabled");
	return 0;
}

static struct kunit_case uc_block_test_cases[] = {
	KUNIT_CASE(block_grab_takes_aligned_unmovable_block),
	KUNIT_CASE(block_grab_removes_one_pmd),
	KUNIT_CASE(block_release_restores_direct_map),
	KUNIT_CASE(block_cycles_do_not_split),
	KUNIT_CASE(block_release_refuses_foreign_and_busy),
	KUNIT_CASE(block_grab_alloc_failure_is_clean),
	KUNIT_CASE(block_grab_unmap_failure_is_clean),
	{}
};

static struct kunit_suite uc_block_test_suite = {
	.name = "unmapped_cache_block",
	.init = uc_block_test_init,
	.test_cases = uc_block_test_cases,
};

kunit_test_suite(uc_block_test_suite);

MODULE_DESCRIPTION("KUnit tests for the unmapped cache");
MODULE_LICENSE("GPL");
