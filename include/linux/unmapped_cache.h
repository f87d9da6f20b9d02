/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unmapped cache: memory kept out of the kernel direct map in whole blocks,
 * so that taking it out never splits a large direct-map entry.
 *
 * See Documentation/mm/unmapped_cache.rst.
 */
#ifndef _LINUX_UNMAPPED_CACHE_H
#define _LINUX_UNMAPPED_CACHE_H

#include <linux/errno.h>
#include <linux/gfp_types.h>
#include <linux/pgtable.h>
#include <linux/types.h>

struct page;
struct unmapped_cache;

/**
 * enum unmapped_cache_perm - What the memory of a cache may be used for.
 * @UNMAPPED_CACHE_NONE: no kernel mapping at all; pages for users that map
 *                       them elsewhere (secretmem maps them in user space).
 *                       Page interface only.
 * @UNMAPPED_CACHE_RO:   read-only data, mapped in the module area.
 * @UNMAPPED_CACHE_ROX:  text, mapped read-only and executable in the module
 *                       area; never writable.
 * @UNMAPPED_CACHE_RW:   read-write data in the module area.
 * @UNMAPPED_CACHE_NR_PERMS: number of permissions.
 *
 * In every case the memory has no present direct-map entry while the cache
 * holds it.  RO and ROX memory is written only with unmapped_cache_write().
 */
enum unmapped_cache_perm {
	UNMAPPED_CACHE_NONE,
	UNMAPPED_CACHE_RO,
	UNMAPPED_CACHE_ROX,
	UNMAPPED_CACHE_RW,
	UNMAPPED_CACHE_NR_PERMS,
};

#ifdef CONFIG_UNMAPPED_CACHE

#include <linux/bits.h>

/* ARCH_UNMAPPED_CACHE_TRAP_BYTE: what free text is filled with. */
#include <asm/unmapped_cache.h>

/*
 * A block is what the cache takes from the page allocator and removes from
 * the direct map in one piece: a naturally aligned run of pages that one
 * PMD-level entry of the direct map covers (2 MiB on x86-64).
 */
#define UNMAPPED_CACHE_BLOCK_ORDER	(PMD_SHIFT - PAGE_SHIFT)
#define UNMAPPED_CACHE_BLOCK_PAGES	BIT(UNMAPPED_CACHE_BLOCK_ORDER)
#define UNMAPPED_CACHE_BLOCK_SIZE	(PAGE_SIZE << UNMAPPED_CACHE_BLOCK_ORDER)
/*
 * The largest chunk of an RO, ROX or RW cache (16 MiB on x86-64: more than
 * the largest BPF program); a NONE cache hands out single pages.
 */
#define UNMAPPED_CACHE_MAX_CHUNK	(8 * UNMAPPED_CACHE_BLOCK_SIZE)

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
 * unmapped_cache_requested() - Whether the cache is to be set up at all.
 *
 * For users that decide at boot, before the cache is initialised (execmem
 * decides which ranges hand out read-only memory): false if the kernel
 * command line says "unmapped_cache=off", with debug_pagealloc, or on a
 * machine the architecture cannot back the cache on.  The cache may still
 * fail to come up later, for want of memory (unmapped_cache_enabled()).
 *
 * Context: Boot (__init), once debug_pagealloc's static key is set
 * (mm_core_init()).
 * Return: true unless the cache is off by the command line or cannot work
 * on this machine.
 */
bool __init unmapped_cache_requested(void);

/**
 * unmapped_cache_secret_active() - Whether secret pages are in use.
 *
 * A page handed out by a NONE cache (secretmem's, for instance) is secret:
 * it has no kernel mapping and must never reach a hibernation image.  The
 * pages the cache itself maps for execmem are not secret, and neither is
 * any page the cache holds free (it was cleared when it was freed).
 * Hibernation is refused while this is true, as while secretmem_active().
 *
 * Context: Any context; lockless, a sum of per-CPU counters.
 * Return: true if at least one secret page is allocated.
 */
bool unmapped_cache_secret_active(void);

/**
 * unmapped_cache_holds_pfn() - Whether a page frame is in a block of the cache.
 * @pfn: page frame number.
 *
 * For code that finds a page without a direct-map entry and must know
 * whether the cache took that entry away (x86 CPA then leaves the alias
 * alone: the cache restores it when it gives the block back).
 *
 * Context: Any context.
 * Return: true while @pfn lies in a 2M block that the cache holds.
 */
bool unmapped_cache_holds_pfn(unsigned long pfn);

struct unmapped_cache *unmapped_cache_create(const char *name,
					     enum unmapped_cache_perm perm);
void unmapped_cache_destroy(struct unmapped_cache *cache);
void *unmapped_cache_alloc(struct unmapped_cache *cache, size_t size, gfp_t gfp);
void *unmapped_cache_alloc_node(struct unmapped_cache *cache, size_t size,
				unsigned long align, int nid, gfp_t gfp);
void unmapped_cache_free(struct unmapped_cache *cache, void *addr, size_t size);
struct page *unmapped_cache_alloc_page(struct unmapped_cache *cache, gfp_t gfp);
void unmapped_cache_free_page(struct unmapped_cache *cache, struct page *page);
void unmapped_cache_release_page(struct unmapped_cache *cache,
				 struct page *page);
int unmapped_cache_write(struct unmapped_cache *cache, void *dst,
			 const void *src, size_t len);
bool unmapped_cache_owns_page(struct unmapped_cache *cache, struct page *page);
bool unmapped_cache_owns(struct unmapped_cache *cache, const void *addr,
			 size_t size);
size_t unmapped_cache_size(struct unmapped_cache *cache, const void *addr);
void *unmapped_cache_vmap(size_t size, unsigned long align,
			  unsigned long start, unsigned long end,
			  pgprot_t prot, unsigned long vm_flags,
			  const void *caller);
bool unmapped_cache_vunmap(const void *addr);
bool unmapped_cache_vmap_nx(const void *addr, size_t size);
bool unmapped_cache_vmap_seal_ro(const void *addr, size_t size);
bool unmapped_cache_hibernate_copy_page(void *dst, struct page *page);
bool unmapped_cache_alias_readable(const void *addr);

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

#else /* CONFIG_UNMAPPED_CACHE */

static inline bool unmapped_cache_enabled(void) { return false; }
static inline bool unmapped_cache_requested(void) { return false; }
static inline bool unmapped_cache_secret_active(void) { return false; }
static inline bool unmapped_cache_holds_pfn(unsigned long pfn) { return false; }

static inline struct unmapped_cache *
unmapped_cache_create(const char *name, enum unmapped_cache_perm perm)
{
	return NULL;
}

static inline void unmapped_cache_destroy(struct unmapped_cache *cache) { }

static inline void *unmapped_cache_alloc(struct unmapped_cache *cache,
					 size_t size, gfp_t gfp)
{
	return NULL;
}

static inline void *unmapped_cache_alloc_node(struct unmapped_cache *cache,
					      size_t size, unsigned long align,
					      int nid, gfp_t gfp)
{
	return NULL;
}

static inline void unmapped_cache_free(struct unmapped_cache *cache,
				       void *addr, size_t size) { }

static inline struct page *unmapped_cache_alloc_page(struct unmapped_cache *cache,
						     gfp_t gfp)
{
	return NULL;
}

static inline void unmapped_cache_free_page(struct unmapped_cache *cache,
					    struct page *page) { }

static inline void unmapped_cache_release_page(struct unmapped_cache *cache,
					       struct page *page) { }

static inline int unmapped_cache_write(struct unmapped_cache *cache, void *dst,
				       const void *src, size_t len)
{
	return -EOPNOTSUPP;
}

static inline bool unmapped_cache_owns_page(struct unmapped_cache *cache,
					    struct page *page)
{
	return false;
}

static inline bool unmapped_cache_owns(struct unmapped_cache *cache,
				       const void *addr, size_t size)
{
	return false;
}

static inline size_t unmapped_cache_size(struct unmapped_cache *cache,
					 const void *addr)
{
	return 0;
}

static inline void *unmapped_cache_vmap(size_t size, unsigned long align,
					unsigned long start, unsigned long end,
					pgprot_t prot, unsigned long vm_flags,
					const void *caller)
{
	return NULL;
}

static inline bool unmapped_cache_vunmap(const void *addr)
{
	return false;
}

static inline bool unmapped_cache_vmap_nx(const void *addr, size_t size)
{
	return false;
}

static inline bool unmapped_cache_vmap_seal_ro(const void *addr, size_t size)
{
	return false;
}

static inline bool unmapped_cache_hibernate_copy_page(void *dst,
						      struct page *page)
{
	return false;
}

static inline bool unmapped_cache_alias_readable(const void *addr)
{
	return false;
}

#endif /* CONFIG_UNMAPPED_CACHE */

#endif /* _LINUX_UNMAPPED_CACHE_H */
