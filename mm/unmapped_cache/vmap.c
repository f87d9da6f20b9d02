// SPDX-License-Identifier: GPL-2.0
/*
 * Cache pages mapped page by page in a range of the kernel's virtual space:
 * the backing of execmem (module memory, kprobe instruction pages, ftrace
 * trampolines, BPF JIT images).
 *
 * Those users write their memory through an ordinary writable mapping and
 * then seal it with set_memory_ro() or set_memory_rox().  With vmalloc
 * pages behind it, each seal also changes the direct-map alias of every
 * page, splitting the large direct-map entry around it, and vfree() of a
 * sealed area changes the aliases back.  Here the pages come from a NONE
 * cache instead: they have no present direct-map entry, so the seal changes
 * only the mapping made here (cpa_process_alias() skips an alias that is
 * not present) and the free changes nothing in the direct map at all.
 *
 * The mapping is made of base pages, like vmalloc's, so that the owner can
 * change the permissions of any page range of it.  A freed mapping is
 * removed and flushed from every TLB before its pages go back to the cache.
 */

#define pr_fmt(fmt) "unmapped_cache: " fmt

#include <linux/cacheflush.h>
#include <linux/kmemleak.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/unmapped_cache.h>
#include <linux/vmalloc.h>
#include <linux/xarray.h>

#include <asm/tlbflush.h>

#include "../internal.h"
#include "internal.h"

/* Larger requests (none seen in practice) take the caller's usual path. */
#define UC_VMAP_MAX	SZ_256M

/**
 * struct uc_vmap - One mapping made by unmapped_cache_vmap().
 * @area:     its reservation of virtual space.
 * @node:     in uc_vmap_deferred once unmapped, until the TLB flush.
 * @nr_pages: pages mapped.
 * @pages:    the pages, from uc_vmap_cache.
 */
struct uc_vmap {
	struct vm_struct *area;
	struct list_head node;
	unsigned int nr_pages;
	struct page *pages[] __counted_by(nr_pages);
};

/* Mappings by their first page's virtual page number. */
static DEFINE_XARRAY(uc_vmaps);
static struct unmapped_cache *uc_vmap_cache __ro_after_init;
static atomic_long_t uc_vmap_pages;

static void uc_vmap_free_pages(struct uc_vmap *vm, unsigned int nr)
{
	while (nr--)
		unmapped_cache_free_page(uc_vmap_cache, vm->pages[nr]);
	kvfree(vm);
}

/*
 * Freed mappings are unmapped at once, but the TLB flush that must come
 * before their pages and virtual space have a new owner is done for up to
 * UC_VMAP_DEFER of them at a time (and by the reaper and uc_drain()): one
 * flush of every CPU's TLB per batch instead of one per free.  Until then
 * a CPU may still hold a stale read-only translation of a page, which
 * nobody uses (the owner freed it) and which still belongs to nobody else.
 */
#define UC_VMAP_DEFER	32

static LIST_HEAD(uc_vmap_deferred);
static DEFINE_SPINLOCK(uc_vmap_defer_lock);
static unsigned int uc_vmap_nr_deferred;

/*
 * Flush [@start, @end) (nothing if @start >= @end) together with the
 * mappings waiting for a flush, with one flush of every CPU's TLB, then
 * free those mappings.
 */
static void uc_vmap_flush(unsigned long start, unsigned long end)
{
	struct uc_vmap *vm, *next;
	unsigned long addr;
	LIST_HEAD(list);
	bool ro;

	spin_lock(&uc_vmap_defer_lock);
	list_splice_init(&uc_vmap_deferred, &list);
	uc_vmap_nr_deferred = 0;
	spin_unlock(&uc_vmap_defer_lock);
	/* Freed RO chunks waiting for a flush go with this one (arena.c). */
	ro = uc_arena_ro_take_hidden();
	if (list_empty(&list) && start >= end && !ro)
		return;

	list_for_each_entry(vm, &list, node) {
		addr = (unsigned long)vm->area->addr;
		start = min(start, addr);
		end = max(end, addr + ((unsigned long)vm->nr_pages << PAGE_SHIFT));
	}
	if (ro)
		flush_tlb_all();
	else
		flush_tlb_kernel_range(start, end);
	list_for_each_entry_safe(vm, next, &list, node) {
		free_vm_area(vm->area);
		atomic_long_sub(vm->nr_pages, &uc_vmap_pages);
		uc_vmap_free_pages(vm, vm->nr_pages);
	}
}

/**
 * uc_vmap_purge() - Flush the TLBs and free the mappings waiting for it.
 *
 * Context: Process context; may sleep.
 */
void uc_vmap_purge(void)
{
	uc_vmap_flush(ULONG_MAX, 0);
}

/**
 * unmapped_cache_vmap() - Map cache pages in a range of virtual space.
 * @size:   bytes; rounded up to whole pages.
 * @align:  alignment of the start of the mapping (a power of two).
 * @start:  lowest address the mapping may use.
 * @end:    end of the range the mapping must fit in.
 * @prot:   protection of the mapping, PAGE_KERNEL for memory the caller
 *          fills before sealing it with set_memory_ro()/set_memory_rox().
 * @vm_flags: the caller's vmalloc flags.  VM_DEFER_KMEMLEAK is honoured:
 *          the mapping is then not registered with kmemleak here but by
 *          kasan_alloc_module_shadow(), once the KASAN shadow that a scan
 *          needs exists.  VM_FLUSH_RESET_PERMS needs nothing (the direct
 *          map is never touched); other flags are ignored.
 * @caller: shown in /proc/vmallocinfo.
 *
 * The pages are zeroed and have no present direct-map entry.  The caller
 * may change the permissions of the mapping with the set_memory_*()
 * functions; none of those changes touches the direct map.  Free with
 * unmapped_cache_vunmap().  As after __vmalloc_node_range(), a KASAN
 * shadow for module-area memory is the caller's to allocate
 * (kasan_alloc_module_shadow(), as execmem does); unmapped_cache_vunmap()
 * frees it with the mapping.  Like vmalloc memory, the mapping is scanned
 * by kmemleak for pointers to other objects.
 *
 * Context: Process context; may sleep.
 * Return: the start of the mapping, or NULL if the cache is disabled, has
 * no memory, or @size is 0 or too large, in which case the caller takes
 * its usual path.
 */
void *unmapped_cache_vmap(size_t size, unsigned long align,
			  unsigned long start, unsigned long end,
			  pgprot_t prot, unsigned long vm_flags,
			  const void *caller)
{
	unsigned long defer = vm_flags & VM_DEFER_KMEMLEAK;
	unsigned int i, nr = PAGE_ALIGN(size) >> PAGE_SHIFT;
	struct unmapped_cache *cache = READ_ONCE(uc_vmap_cache);
	unsigned long addr, len = (unsigned long)nr << PAGE_SHIFT;
	struct uc_vmap *vm;

	if (!cache || !size || size > UC_VMAP_MAX)
		return NULL;

	vm = kvzalloc(struct_size(vm, pages, nr), GFP_KERNEL);
	if (!vm)
		return NULL;
	vm->nr_pages = nr;
	for (i = 0; i < nr; i++) {
		vm->pages[i] = unmapped_cache_alloc_page(cache, GFP_KERNEL);
		if (!vm->pages[i])
			goto err_pages;
	}

	vm->area = get_vm_area_align(len, max(align, PAGE_SIZE), VM_MAP | defer,
				     start, end, NUMA_NO_NODE, caller);
	if (!vm->area)
		goto err_pages;
	addr = (unsigned long)vm->area->addr;
	if (vmap_pages_range_noflush(addr, addr + len, prot, vm->pages,
				     PAGE_SHIFT))
		goto err_area;
	flush_cache_vmap(addr, addr + len);

	if (xa_err(xa_store(&uc_vmaps, addr >> PAGE_SHIFT, vm, GFP_KERNEL)))
		goto err_area;
	/* Like vmalloc memory, scanned for pointers to other objects. */
	if (!defer)
		kmemleak_vmalloc(vm->area, len, GFP_KERNEL);
	atomic_long_add(nr, &uc_vmap_pages);
	return (void *)addr;

err_area:
	vunmap_range(addr, addr + len);
	free_vm_area(vm->area);
err_pages:
	uc_vmap_free_pages(vm, i);
	return NULL;
}

/**
 * unmapped_cache_vunmap() - Free a mapping made by unmapped_cache_vmap().
 * @addr: its start, or any other address.
 *
 * Removes the mapping and gives the pages back to the cache once it is
 * flushed from every TLB, which is done for a batch of freed mappings at a
 * time.  The permissions the owner set on the mapping disappear
 * with it; the direct map is not touched.
 *
 * Context: Process context; may sleep.
 * Return: true if @addr was the start of such a mapping and it is freed;
 * false otherwise (nothing is done: the caller frees @addr its usual way).
 */
bool unmapped_cache_vunmap(const void *addr)
{
	unsigned long start = (unsigned long)addr;
	struct uc_vmap *vm;
	unsigned int nr;
	bool full;

	if (!addr || !PAGE_ALIGNED(start))
		return false;
	vm = xa_erase(&uc_vmaps, start >> PAGE_SHIFT);
	if (!vm)
		return false;

	nr = vm->nr_pages;
	kmemleak_free(addr);
	/*
	 * No CPU may keep a translation once the pages have a new owner:
	 * unmapped now, flushed with the next batch (uc_vmap_purge()).
	 */
	vunmap_range_noflush(start, start + ((unsigned long)nr << PAGE_SHIFT));
	spin_lock(&uc_vmap_defer_lock);
	list_add_tail(&vm->node, &uc_vmap_deferred);
	full = ++uc_vmap_nr_deferred >= UC_VMAP_DEFER;
	spin_unlock(&uc_vmap_defer_lock);
	if (full)
		uc_vmap_purge();
	return true;
}

/* The mapping that starts at @addr and holds @size bytes, or NULL. */
static struct uc_vmap *uc_vmap_find(const void *addr, size_t size)
{
	unsigned long start = (unsigned long)addr;
	struct uc_vmap *vm;

	if (!addr || !size || !PAGE_ALIGNED(start))
		return NULL;
	vm = xa_load(&uc_vmaps, start >> PAGE_SHIFT);
	if (!vm || PAGE_ALIGN(size) > ((unsigned long)vm->nr_pages << PAGE_SHIFT))
		return NULL;
	return vm;
}

static int uc_vmap_exec_pte(pte_t *pte, unsigned long addr, void *data)
{
	struct unmapped_cache_entry e;

	arch_unmapped_cache_lookup(addr, &e);
	return e.present && !e.exec ? 0 : -EINVAL;
}

/**
 * unmapped_cache_vmap_nx() - Whether a mapping is not executable already.
 * @addr: the start of a mapping made by unmapped_cache_vmap().
 * @size: bytes from @addr.
 *
 * For owners that would make the range non-executable with set_memory_nx()
 * when it is so already, without the aliases purge and the TLB flush that
 * a permission change through CPA costs.
 *
 * Context: Process context.
 * Return: true if @addr starts such a mapping, which holds @size bytes,
 * and none of them is executable.
 */
bool unmapped_cache_vmap_nx(const void *addr, size_t size)
{
	unsigned long start = (unsigned long)addr;

	return uc_vmap_find(addr, size) &&
	       !apply_to_existing_page_range(&init_mm, start, PAGE_ALIGN(size),
					     uc_vmap_exec_pte, NULL);
}

static int uc_vmap_wrprotect_pte(pte_t *pte, unsigned long addr, void *data)
{
	set_pte_at(&init_mm, addr, pte, pte_wrprotect(ptep_get(pte)));
	return 0;
}

/**
 * unmapped_cache_vmap_write() - Copy into sealed memory of the vmalloc space.
 * @dst: destination, in memory that execmem sealed read-only (a mapping of
 *       unmapped_cache_vmap() or of vmalloc).
 * @src: source.
 * @len: bytes.
 *
 * For execmem's read-only types when the memory did not come from a cache
 * (the cache was not up or had no block): the copy goes through the same
 * mapping that only this CPU sees as unmapped_cache_write()'s, a page at
 * a time.
 *
 * Context: Any context but NMI.
 * Return: 0, or -EINVAL (with a warning) if [@dst, @dst + @len) is not in
 * the vmalloc space or the cache is not up.
 */
int unmapped_cache_vmap_write(void *dst, const void *src, size_t len)
{
	if (!len)
		return 0;
	if (uc_refuse(!unmapped_cache_enabled() ||
		      !is_vmalloc_or_module_addr(dst) ||
		      !is_vmalloc_or_module_addr(dst + len - 1)))
		return -EINVAL;
	arch_unmapped_cache_write(dst, src, len);
	return 0;
}

/**
 * unmapped_cache_vmap_seal_ro() - Make a mapping read-only, for good.
 * @addr: the start of a mapping made by unmapped_cache_vmap().
 * @size: bytes from @addr to make read-only.
 *
 * The pages of the mapping have no other mapping (no direct-map entry, no
 * lazily freed alias: unmapped_cache_vunmap() flushes before pages change
 * hands), so unlike set_memory_ro() this needs no vm_unmap_aliases(),
 * which flushes every CPU's TLB whenever vmalloc has lazily freed areas:
 * only the range itself is flushed, once, and with it the mappings freed
 * since the last flush.  For module ro_after_init data.
 *
 * Context: Process context; may sleep.
 * Return: true if @addr starts such a mapping, which holds @size bytes, and
 * the range is now read-only; false if not (nothing done: the caller uses
 * set_memory_ro()).
 */
bool unmapped_cache_vmap_seal_ro(const void *addr, size_t size)
{
	unsigned long start = (unsigned long)addr, len = PAGE_ALIGN(size);

	if (!uc_vmap_find(addr, size))
		return false;
	if (WARN_ON_ONCE(apply_to_existing_page_range(&init_mm, start, len,
						      uc_vmap_wrprotect_pte,
						      NULL)))
		return false;
	/* The same flush serves the freed mappings waiting for one. */
	uc_vmap_flush(start, start + len);
	return true;
}

#ifdef CONFIG_UNMAPPED_CACHE_TEST_HOOKS
/**
 * uc_vmaps_verify() - Check every mapping made by unmapped_cache_vmap().
 * @res: its vmap fields are filled in; the others are left as they are.
 *
 * The owner of a mapping sets its permissions page by page, so only what
 * holds for every owner can be checked: no page is mapped writable and
 * executable at once (W^X), and no page has a present direct-map entry
 * (the pages are NONE pages, I1).  uc_blocks_verify() checks the blocks
 * those pages come from, but not these mappings.  The xarray lock is held
 * throughout: unmapped_cache_vunmap() erases a mapping from uc_vmaps
 * before it takes it down, and unmapped_cache_vmap() stores it only once
 * it is mapped, so every mapping seen here is complete and stays so.
 * An owner may change permissions meanwhile; set_memory_rox() clears
 * write and sets exec in one change of each entry, so no W+X state is
 * ever visible in between.
 *
 * Context: Process context.
 */
void uc_vmaps_verify(struct uc_verify *res)
{
	struct unmapped_cache_entry e;
	unsigned long index, addr, dm;
	struct uc_vmap *vm;
	unsigned int i;

	res->vmaps = 0;
	res->vmap_pages = 0;
	res->vmap_exec = 0;
	res->vmap_dm_present = 0;
	res->vmap_wx = 0;
	xa_lock(&uc_vmaps);
	xa_for_each(&uc_vmaps, index, vm) {
		res->vmaps++;
		addr = (unsigned long)vm->area->addr;
		for (i = 0; i < vm->nr_pages; i++, addr += PAGE_SIZE) {
			res->vmap_pages++;
			arch_unmapped_cache_lookup(addr, &e);
			if (e.present && e.exec)
				res->vmap_exec++;
			if (e.present && e.writable && e.exec)
				res->vmap_wx++;
			dm = (unsigned long)page_address(vm->pages[i]);
			arch_unmapped_cache_lookup(dm, &e);
			if (e.present)
				res->vmap_dm_present++;
		}
	}
	xa_unlock(&uc_vmaps);
}
#endif

long uc_vmap_stat_pages(void)
{
	return atomic_long_read(&uc_vmap_pages);
}

int __init uc_vmap_init(void)
{
	uc_vmap_cache = uc_cache_create("execmem", UNMAPPED_CACHE_NONE, false);
	return uc_vmap_cache ? 0 : -ENOMEM;
}
