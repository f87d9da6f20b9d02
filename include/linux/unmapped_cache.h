/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unmapped cache: memory kept out of the kernel direct map in whole blocks,
 * so that taking it out never splits a large direct-map entry.
 *
 * See Documentation/mm/unmapped_cache.rst.
 */
#ifndef _LINUX_UNMAPPED_CACHE_H
#define _LINUX_UNMAPPED_CACHE_H

#include <linux/types.h>

struct page;

#ifdef CONFIG_UNMAPPED_CACHE

#include <linux/bits.h>
#include <linux/pgtable.h>

/*
 * A block is what the cache takes from the page allocator and removes from
 * the direct map in one piece: a naturally aligned run of pages that one
 * PMD-level entry of the direct map covers (2 MiB on x86-64).
 */
#define UNMAPPED_CACHE_BLOCK_ORDER	(PMD_SHIFT - PAGE_SHIFT)
#define UNMAPPED_CACHE_BLOCK_PAGES	BIT(UNMAPPED_CACHE_BLOCK_ORDER)
#define UNMAPPED_CACHE_BLOCK_SIZE	(PAGE_SIZE << UNMAPPED_CACHE_BLOCK_ORDER)

/**
 * unmapped_cache_enabled() - Whether the unmapped cache is usable.
 *
 * Return: true once the cache has been initialised on a system where the
 * architecture can remove blocks from its direct map; false otherwise, in
 * which case callers must take their usual path.  May be called from any
 * context.
 */
bool unmapped_cache_enabled(void);

/**
 * struct unmapped_cache_dm_counts - How the direct map is mapped, by level.
 * @pte:  direct-map pages mapped by base-page (PTE) entries.
 * @pmd:  PMD-level leaf entries (2 MiB on x86-64).
 * @pud:  PUD-level leaf entries (1 GiB on x86-64).
 *
 * A split moves entries from a larger level to a smaller one; the cache must
 * never make @pte grow.
 */
struct unmapped_cache_dm_counts {
	unsigned long pte;
	unsigned long pmd;
	unsigned long pud;
};

/*
 * Architecture hooks, implemented by architectures that select
 * ARCH_HAS_UNMAPPED_CACHE (arch/x86/mm/unmapped_cache.c).  Only the cache
 * itself and its tests call them.
 */

/**
 * arch_unmapped_cache_unmap_block() - Remove a block from the direct map.
 * @page: first page of a naturally aligned block of
 *        %UNMAPPED_CACHE_BLOCK_PAGES pages.
 *
 * Makes the one PMD-level entry that maps the block not present and flushes
 * the TLB once.  May sleep (splitting a PUD-level entry that covers the block
 * allocates a page table).
 *
 * Return: 0 on success.  On error the direct map is as it was before.
 */
int arch_unmapped_cache_unmap_block(struct page *page);

/**
 * arch_unmapped_cache_restore_block() - Put a block back into the direct map.
 * @page: first page of a block removed by arch_unmapped_cache_unmap_block().
 *
 * Makes the same PMD-level entry present again.  It neither splits nor
 * allocates, so it cannot fail as long as nobody changed permissions inside
 * the not-present block.  May sleep.
 *
 * Return: 0 on success; an error means the architecture broke that promise
 * and the caller must not hand the block back to the page allocator.
 */
int arch_unmapped_cache_restore_block(struct page *page);

/**
 * arch_unmapped_cache_direct_map_entry() - Describe the direct-map entry at
 * an address.
 * @addr:    direct-map address.
 * @size:    set to the size mapped by the leaf entry covering @addr, or 0 if
 *           there is none.
 * @present: set to whether that entry is present.
 *
 * For tests and statistics; takes no locks and may race with changes.
 */
void arch_unmapped_cache_direct_map_entry(unsigned long addr,
					  unsigned long *size, bool *present);

/**
 * arch_unmapped_cache_direct_map_counts() - Read the direct-map accounting.
 * @counts: filled with the number of direct-map entries at each level, as
 *          reported in /proc/meminfo (DirectMap4k, DirectMap2M, DirectMap1G).
 */
void arch_unmapped_cache_direct_map_counts(struct unmapped_cache_dm_counts *counts);

#ifdef CONFIG_UNMAPPED_CACHE_FAULT_INJECTION
/*
 * Called by arch_unmapped_cache_unmap_block() before it touches the direct
 * map: true means "fail this removal" (fail_unmapped_cache_direct_map).
 */
bool unmapped_cache_should_fail_direct_map(void);
#else
static inline bool unmapped_cache_should_fail_direct_map(void) { return false; }
#endif

#else /* CONFIG_UNMAPPED_CACHE */

static inline bool unmapped_cache_enabled(void) { return false; }

#endif /* CONFIG_UNMAPPED_CACHE */

#endif /* _LINUX_UNMAPPED_CACHE_H */
