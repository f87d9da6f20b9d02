/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unmapped cache: what an architecture that selects ARCH_HAS_UNMAPPED_CACHE
 * provides to the cache (arch/x86/mm/unmapped_cache.c), and what it may
 * call back.  Only the cache, its tests and the architecture's file include
 * this; users of the cache see <linux/unmapped_cache.h> only.
 */
#ifndef _MM_UNMAPPED_CACHE_ARCH_HOOKS_H
#define _MM_UNMAPPED_CACHE_ARCH_HOOKS_H

#include <linux/init.h>
#include <linux/types.h>
#include <linux/unmapped_cache.h>

struct page;

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
 * @page:  first page of a naturally aligned block of
 *         %UNMAPPED_CACHE_BLOCK_PAGES pages.
 * @state: set to what the restore needs to know (the architecture's own
 *         encoding; for instance, other aliases it removed as well).
 *
 * Makes the one PMD-level entry that maps the block not present and flushes
 * the TLB once.  May sleep (splitting a PUD-level entry that covers the block
 * allocates a page table).
 *
 * Return: 0 on success.  On error the direct map is as it was before.
 */
int arch_unmapped_cache_unmap_block(struct page *page, unsigned long *state);

/**
 * arch_unmapped_cache_block_splits() - Whether removing a block splits an entry.
 * @page: first page of a naturally aligned block of
 *        %UNMAPPED_CACHE_BLOCK_PAGES pages, in the direct map.
 *
 * Tells whether arch_unmapped_cache_unmap_block() would have to split a
 * direct-map entry larger than the block (a 1 GiB leaf on x86) to remove
 * it, so that the cache can prefer blocks in parts of the direct map that
 * are split already.  Takes no lock; the answer may be stale by the time
 * the block is removed, which costs at most the split it tried to avoid.
 *
 * Return: true if removing the block would split a larger entry.
 */
bool arch_unmapped_cache_block_splits(struct page *page);

/**
 * arch_unmapped_cache_restore_block() - Put a block back into the direct map.
 * @page:  first page of a block removed by arch_unmapped_cache_unmap_block().
 * @state: what arch_unmapped_cache_unmap_block() set.
 *
 * Makes the same PMD-level entry present again, with exactly the flags it
 * had before the removal.  It neither splits nor allocates, so it cannot
 * fail as long as nobody changed permissions inside the not-present block.
 * Needs no TLB flush where the architecture caches no not-present entry
 * (x86).  May sleep.
 *
 * Return: 0 on success; an error means the architecture broke that promise
 * and the caller must not hand the block back to the page allocator.
 */
int arch_unmapped_cache_restore_block(struct page *page, unsigned long state);

/**
 * struct unmapped_cache_entry - A kernel page-table leaf entry, decoded.
 * @size:     bytes it maps (PAGE_SIZE, PMD_SIZE, ...), 0 if there is none.
 * @present:  it is present.
 * @writable: it allows writes.
 * @exec:     it allows instruction fetches.
 * @flags:    all of the entry's flag bits, in the architecture's encoding
 *            (for comparing an entry before and after a change).
 */
struct unmapped_cache_entry {
	unsigned long size;
	bool present;
	bool writable;
	bool exec;
	unsigned long flags;
};

/**
 * arch_unmapped_cache_lookup() - Describe the kernel mapping of an address.
 * @addr:  kernel virtual address (direct map, module area, ...).
 * @entry: filled in from the leaf entry that covers @addr.
 *
 * For tests and statistics; takes no locks and may race with changes.
 */
void arch_unmapped_cache_lookup(unsigned long addr,
				struct unmapped_cache_entry *entry);

/**
 * arch_unmapped_cache_direct_map_counts() - Read the direct-map accounting.
 * @counts: filled with the number of direct-map entries at each level, as
 *          reported in /proc/meminfo (DirectMap4k, DirectMap2M, DirectMap1G).
 */
void arch_unmapped_cache_direct_map_counts(struct unmapped_cache_dm_counts *counts);

/**
 * arch_unmapped_cache_write() - Copy into RO or ROX memory of the cache.
 * @dst: destination, in a mapping without write permission.
 * @src: source.
 * @len: bytes.
 *
 * Writes a page at a time, with interrupts off, through a mapping in an mm
 * that only this CPU ever loads (as text_poke() does): no writable alias
 * of the memory exists in init_mm or on any other CPU.  For memory that
 * is not live; takes no lock.
 * Context: any context but NMI.
 */
void arch_unmapped_cache_write(void *dst, const void *src, size_t len);

/**
 * arch_unmapped_cache_fill() - Set free RO or ROX memory of the cache to a byte.
 * @dst: destination, in a mapping without write permission, that nobody
 *       uses or executes (a chunk being freed or handed out).
 * @c:   the byte.
 * @len: bytes.
 *
 * As arch_unmapped_cache_write(); takes no lock that an owner of text may
 * hold (text_mutex on x86), so owners may free with it held.
 * Context: any context but NMI.
 */
void arch_unmapped_cache_fill(void *dst, int c, size_t len);

/**
 * arch_unmapped_cache_clear_page() - Zero a page that has no kernel mapping.
 * @page: the page.
 *
 * Through the mapping arch_unmapped_cache_write() uses, which only this
 * CPU can translate, and only during the call; sends no IPI.
 * Context: any context but NMI.
 */
void arch_unmapped_cache_clear_page(struct page *page);

/**
 * arch_unmapped_cache_copy_page() - Copy a page of the cache.
 * @dst:  a page-sized destination in the direct map.
 * @page: a page without a present direct-map entry.
 *
 * Copies @page through a read-only mapping in this CPU's own mm (the one
 * arch_unmapped_cache_write() uses): no other CPU ever translates it, no
 * writable or executable alias appears, and the direct map is not
 * touched.
 * Context: any context but NMI.
 */
void arch_unmapped_cache_copy_page(void *dst, struct page *page);

#ifdef CONFIG_UNMAPPED_CACHE_TEST_HOOKS
/*
 * For the KUnit suite: call @fn(addr, @arg) with @page mapped writable at
 * addr as arch_unmapped_cache_write() maps it, interrupts off.
 */
void arch_unmapped_cache_with_poke(struct page *page,
				   void (*fn)(void *addr, void *arg), void *arg);
#endif

/**
 * arch_unmapped_cache_randomize() - Whether to randomise addresses.
 *
 * Return: true if the kernel randomises its own and its modules' addresses
 * at this boot (KASLR): the arenas then place their virtual space and
 * their chunks at random, as the module loader would.
 */
bool arch_unmapped_cache_randomize(void);

/**
 * arch_unmapped_cache_supported() - Whether this machine can back the cache.
 *
 * Context: boot (__init), after setup_arch().
 * Return: false if it has no large direct-map entries, or page tables the
 * kernel does not own.
 */
bool __init arch_unmapped_cache_supported(void);

/**
 * arch_unmapped_cache_init() - Set up what the hooks above need.
 *
 * Context: boot, from the cache's initcall.
 * Return: 0; -EOPNOTSUPP if this machine cannot back the cache (no large
 * direct-map entries, or page tables the kernel does not own); another
 * error if setup failed.  Either leaves the cache disabled.
 */
int arch_unmapped_cache_init(void);

#ifdef CONFIG_UNMAPPED_CACHE_FAULT_INJECTION
/*
 * Called by arch_unmapped_cache_unmap_block() before it touches the direct
 * map: true means "fail this removal" (fail_unmapped_cache_direct_map).
 */
bool unmapped_cache_should_fail_direct_map(void);
#else
static inline bool unmapped_cache_should_fail_direct_map(void) { return false; }
#endif

#endif /* _MM_UNMAPPED_CACHE_ARCH_HOOKS_H */
