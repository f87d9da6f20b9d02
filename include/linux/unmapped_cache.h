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
int unmapped_cache_vmap_write(void *dst, const void *src, size_t len);
bool unmapped_cache_hibernate_copy_page(void *dst, struct page *page);
bool unmapped_cache_alias_readable(const void *addr);

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

static inline int unmapped_cache_vmap_write(void *dst, const void *src,
					    size_t len)
{
	return -EINVAL;
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
