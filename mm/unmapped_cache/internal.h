/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces of the unmapped cache, shared by its files and its
 * KUnit tests.  Nothing outside mm/unmapped_cache/ and lib/tests/ includes
 * this.
 */
#ifndef MM_UNMAPPED_CACHE_INTERNAL_H
#define MM_UNMAPPED_CACHE_INTERNAL_H

#include <linux/atomic.h>
#include <linux/fault-inject.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/unmapped_cache.h>

/**
 * struct uc_block - A block held by the cache.
 * @page:  first of its %UNMAPPED_CACHE_BLOCK_PAGES pages.  The block was
 *         split_page()d when taken, so every page is an order-0 page with a
 *         reference count of its own.
 * @nid:   NUMA node the pages are on.
 * @owner: the user of the block (an arena), or NULL.  Set and cleared by
 *         the owner; the block layer only carries it.
 * @list:  free for the owner's use.
 *
 * Blocks are recorded in uc_blocks (block.c) from the moment they are taken
 * until they are back in the page allocator, so any pfn can be checked for
 * belonging to the cache with uc_block_lookup().
 */
struct uc_block {
	struct page *page;
	int nid;
	void *owner;
	struct list_head list;
};

/* Counters of the block layer; see uc_block_stat_names[] in block.c. */
enum uc_block_stat {
	UC_BLOCK_GRABBED,		/* blocks taken out of the direct map */
	UC_BLOCK_RELEASED,		/* blocks given back to the page allocator */
	UC_BLOCK_ALLOC_FAILED,		/* no order-9 page on the node */
	UC_BLOCK_UNMAP_FAILED,		/* direct-map removal failed */
	UC_BLOCK_META_FAILED,		/* no memory for struct uc_block */
	UC_BLOCK_RELEASE_REFUSED,	/* release of a busy or foreign block */
	UC_BLOCK_RESTORE_FAILED,	/* restore failed: block leaked on purpose */
	UC_BLOCK_PAGES_IN,		/* pages taken from the page allocator */
	UC_BLOCK_PAGES_OUT,		/* pages handed back to the page allocator */
	UC_BLOCK_STAT_COUNT,
};

extern atomic_long_t uc_block_stats[UC_BLOCK_STAT_COUNT];
extern const char *const uc_block_stat_names[UC_BLOCK_STAT_COUNT];

static inline long uc_block_stat(enum uc_block_stat item)
{
	return atomic_long_read(&uc_block_stats[item]);
}

/* Blocks currently held, on all nodes. */
static inline long uc_blocks_held(void)
{
	return uc_block_stat(UC_BLOCK_GRABBED) - uc_block_stat(UC_BLOCK_RELEASED);
}

struct uc_block *uc_block_grab(int nid);
int uc_block_release(struct uc_block *block);
struct uc_block *uc_block_lookup(unsigned long pfn);

static inline unsigned long uc_block_addr(const struct uc_block *block)
{
	return (unsigned long)page_address(block->page);
}

#ifdef CONFIG_UNMAPPED_CACHE_FAULT_INJECTION
extern struct fault_attr fail_unmapped_cache_block;
extern struct fault_attr fail_unmapped_cache_direct_map;
#endif

#ifdef CONFIG_UNMAPPED_CACHE_DEBUG
void uc_debugfs_init(struct dentry *root);
#else
static inline void uc_debugfs_init(struct dentry *root) { }
#endif

#endif /* MM_UNMAPPED_CACHE_INTERNAL_H */
