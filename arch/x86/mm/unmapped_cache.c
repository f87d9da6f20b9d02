// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 hooks for the unmapped cache (mm/unmapped_cache/).
 *
 * A block is 2 MiB and naturally aligned, so in the direct map it is covered
 * either by exactly one PMD-level leaf or by part of one PUD-level (1 GiB)
 * leaf.  set_memory_np_noalias() over the whole 2 MiB range keeps the large
 * entry: should_split_large_page() sees that the request covers all of the
 * PMD and rewrites it in place as not present.  Only when the block sits
 * inside a 1 GiB leaf does CPA split that leaf into 512 PMDs first (a
 * level-3 split, at most one per GiB, which never needs undoing for the
 * next block in the same GiB).  CPA flushes the TLB of every CPU once
 * (flush_tlb_all(): 512 pages exceed tlb_single_page_flush_ceiling).
 *
 * Removing an entry also clears its _PAGE_GLOBAL (CPA's rule for
 * not-present entries), so the restore is set_memory_p_noalias_noflush(),
 * which puts back _PAGE_PRESENT and the kernel's global bit: the PMD
 * comes back with exactly the flags it had.  It has nothing to split, so
 * it allocates nothing and cannot fail unless somebody changed
 * permissions on part of the not-present block, which is what the cache
 * must never let happen; and it needs no TLB flush, since x86 caches no
 * translation through a not-present entry.
 *
 * Blocks of freed kernel-image memory (init sections, the text/rodata
 * gap) have a second alias, in the kernel's high mapping.  Without PTI it
 * is still present, and is removed with the direct-map entry; with PTI,
 * free_kernel_image_pages() removed it already, and it is left alone.
 * The restore puts it back only if the removal took it away
 * (UC_X86_HIGHMAP in the block's state).
 */

#include <linux/fault-inject.h>
#include <linux/init.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/pgtable.h>
#include <linux/set_memory.h>
#include <linux/unmapped_cache.h>
#include <linux/vmalloc.h>

#include <asm/sections.h>
#include <asm/set_memory.h>
#include <asm/tlbflush.h>

#include "mm_internal.h"

/* The block's alias in the kernel-image high mapping was present. */
#define UC_X86_HIGHMAP	BIT(0)

/*
 * The high-mapping alias of a block, or 0 if it has none.  The kernel
 * image is 2M aligned and its high mapping ends on a 2M boundary, so a
 * block is either wholly inside or wholly outside.
 */
static unsigned long uc_highmap_alias(struct page *page)
{
	phys_addr_t phys = PFN_PHYS(page_to_pfn(page));

	if (phys < __pa_symbol(_text) ||
	    phys >= __pa_symbol(roundup((unsigned long)_brk_end, PMD_SIZE)))
		return 0;
	return __START_KERNEL_map + phys - phys_base;
}

static bool uc_mapped_present(unsigned long addr)
{
	unsigned int level;
	pte_t *pte = lookup_address(addr, &level);

	return pte && (pte_flags(*pte) & _PAGE_PRESENT);
}

int arch_unmapped_cache_unmap_block(struct page *page, unsigned long *state)
{
	unsigned long addr = (unsigned long)page_address(page);
	unsigned long high = uc_highmap_alias(page);
	int err;

	*state = 0;
	if (WARN_ON_ONCE(!IS_ALIGNED(addr, UNMAPPED_CACHE_BLOCK_SIZE)))
		return -EINVAL;

	if (unmapped_cache_should_fail_direct_map())
		return -ENOMEM;

	err = set_memory_np_noalias(addr, UNMAPPED_CACHE_BLOCK_PAGES);
	if (err || !high || !uc_mapped_present(high))
		return err;
	err = set_memory_np_noalias(high, UNMAPPED_CACHE_BLOCK_PAGES);
	if (err) {
		WARN_ON_ONCE(set_memory_p_noalias_noflush(addr,
							  UNMAPPED_CACHE_BLOCK_PAGES));
		return err;
	}
	*state = UC_X86_HIGHMAP;
	return 0;
}

bool arch_unmapped_cache_block_splits(struct page *page)
{
	unsigned int level;

	return lookup_address((unsigned long)page_address(page), &level) &&
	       level > PG_LEVEL_2M;
}

int arch_unmapped_cache_restore_block(struct page *page, unsigned long state)
{
	unsigned long addr = (unsigned long)page_address(page);
	int err;

	if (WARN_ON_ONCE(!IS_ALIGNED(addr, UNMAPPED_CACHE_BLOCK_SIZE)))
		return -EINVAL;

	err = set_memory_p_noalias_noflush(addr, UNMAPPED_CACHE_BLOCK_PAGES);
	if (err || !(state & UC_X86_HIGHMAP))
		return err;
	return set_memory_p_noalias_noflush(uc_highmap_alias(page),
					    UNMAPPED_CACHE_BLOCK_PAGES);
}

void arch_unmapped_cache_lookup(unsigned long addr,
				struct unmapped_cache_entry *entry)
{
	unsigned int level;
	pte_t *pte = lookup_address(addr, &level);
	pteval_t flags;

	memset(entry, 0, sizeof(*entry));
	if (!pte)
		return;

	/*
	 * For a large entry lookup_address() returns the PMD or PUD itself;
	 * its flag bits sit where a PTE's do.
	 */
	flags = pte_flags(*pte);
	entry->size = page_level_size(level);
	entry->present = flags & _PAGE_PRESENT;
	entry->writable = flags & _PAGE_RW;
	entry->exec = !(flags & _PAGE_NX);
	entry->flags = flags;
}

void arch_unmapped_cache_direct_map_counts(struct unmapped_cache_dm_counts *counts)
{
	counts->pte = direct_map_page_count(PG_LEVEL_4K);
	counts->pmd = direct_map_page_count(PG_LEVEL_2M);
	counts->pud = direct_map_page_count(PG_LEVEL_1G);
}

/*
 * Clearing pages that have no kernel mapping (NONE arena pages on their way
 * back from an owner).
 *
 * Each CPU owns a window of UNMAPPED_CACHE_CLEAR_BATCH pages of kernel
 * virtual space, whose page tables were allocated at boot.  To clear a
 * batch, the CPU maps each page at its own slot with interrupts off, clears
 * it, unmaps them all and then invalidates its own TLB once: no other CPU
 * ever uses those addresses, so no IPI is needed, and no lock is shared
 * (the way kmap_local() slots work on 32-bit highmem).  A batch of at most
 * tlb_single_page_flush_ceiling pages is invalidated page by page,
 * a larger one with one local flush of everything, the rule
 * flush_tlb_kernel_range() follows.  The pages are visible only to this CPU
 * and only until the end of the batch.
 */
static unsigned long uc_clear_base __ro_after_init;
static DEFINE_PER_CPU_READ_MOSTLY(pte_t *, uc_clear_pte[UNMAPPED_CACHE_CLEAR_BATCH]);

#define UC_CLEAR_WINDOW	(UNMAPPED_CACHE_CLEAR_BATCH * PAGE_SIZE)
/*
 * The span whose PTEs fill one cache line.  The windows start on such a
 * boundary and each is a whole number of them, so no two CPUs ever write
 * PTEs in the same cache line.
 */
#define UC_CLEAR_ALIGN	(L1_CACHE_BYTES / sizeof(pte_t) * PAGE_SIZE)
static_assert(UC_CLEAR_WINDOW % UC_CLEAR_ALIGN == 0);

static int __init uc_clear_pte_fn(pte_t *pte, unsigned long addr, void *data)
{
	unsigned long off = addr - uc_clear_base;

	per_cpu(uc_clear_pte[(off % UC_CLEAR_WINDOW) >> PAGE_SHIFT],
		off / UC_CLEAR_WINDOW) = pte;
	return 0;
}

int __init arch_unmapped_cache_init(void)
{
	struct vm_struct *area;

	area = get_vm_area(nr_cpu_ids * UC_CLEAR_WINDOW + UC_CLEAR_ALIGN -
			   PAGE_SIZE, VM_MAP);
	if (!area)
		return -ENOMEM;
	uc_clear_base = ALIGN((unsigned long)area->addr, UC_CLEAR_ALIGN);
	return apply_to_page_range(&init_mm, uc_clear_base,
				   nr_cpu_ids * UC_CLEAR_WINDOW,
				   uc_clear_pte_fn, NULL);
}

void arch_unmapped_cache_clear_pages(struct page **pages, unsigned int nr)
{
	unsigned long flags, base;
	pte_t **ptes;
	unsigned int i;

	if (WARN_ON_ONCE(nr > UNMAPPED_CACHE_CLEAR_BATCH))
		nr = UNMAPPED_CACHE_CLEAR_BATCH;

	local_irq_save(flags);
	base = uc_clear_base + smp_processor_id() * UC_CLEAR_WINDOW;
	ptes = this_cpu_ptr(uc_clear_pte);
	for (i = 0; i < nr; i++) {
		set_pte(ptes[i], mk_pte(pages[i], PAGE_KERNEL));
		clear_page((void *)(base + i * PAGE_SIZE));
	}
	for (i = 0; i < nr; i++)
		pte_clear(&init_mm, base + i * PAGE_SIZE, ptes[i]);
	if (nr > tlb_single_page_flush_ceiling) {
		__flush_tlb_all();
	} else {
		for (i = 0; i < nr; i++)
			flush_tlb_one_kernel(base + i * PAGE_SIZE);
	}
	local_irq_restore(flags);
}

void arch_unmapped_cache_clear_page(struct page *page)
{
	arch_unmapped_cache_clear_pages(&page, 1);
}

/*
 * RO and ROX chunks are written, and filled when freed, through the first
 * slot of the same window, page by page: the writable alias exists only on
 * this CPU, with interrupts off, for one page at a time, and is gone (with
 * a local invalidation) before the next page.  The memory written is not
 * live: a chunk being filled for its owner (a module being loaded, a BPF
 * image not yet published, a trampoline not yet installed) or a chunk
 * being given back.  Unlike text_poke_copy() this takes no text_mutex, so
 * owners may write or free with text_mutex held (the kprobe optimizer
 * frees instruction pages so, and text_poke_early() may run under it).
 * Live text is changed with text_poke() and friends, as before.
 */
static void uc_window_copy(unsigned long addr, const void *src, int c,
			   size_t len)
{
	unsigned long flags, base;
	size_t off, n;
	pte_t *pte;

	for (; len; len -= n, addr += n) {
		off = offset_in_page(addr);
		n = min_t(size_t, len, PAGE_SIZE - off);
		local_irq_save(flags);
		base = uc_clear_base + smp_processor_id() * UC_CLEAR_WINDOW;
		pte = this_cpu_ptr(uc_clear_pte)[0];
		set_pte(pte, mk_pte(vmalloc_to_page((void *)addr), PAGE_KERNEL));
		if (src) {
			memcpy((void *)(base + off), src, n);
			src += n;
		} else {
			memset((void *)(base + off), c, n);
		}
		pte_clear(&init_mm, base, pte);
		flush_tlb_one_kernel(base);
		local_irq_restore(flags);
	}
}

void arch_unmapped_cache_write(void *dst, const void *src, size_t len)
{
	uc_window_copy((unsigned long)dst, src, 0, len);
}

void arch_unmapped_cache_fill(void *dst, int c, size_t len)
{
	uc_window_copy((unsigned long)dst, NULL, c, len);
}

/*
 * The hibernation snapshot reads pages of the cache through the first slot
 * of the same window, read-only.  It runs with interrupts off, so no clear
 * can run on this CPU meanwhile.
 */
const void *arch_unmapped_cache_map_page_ro(struct page *page)
{
	lockdep_assert_irqs_disabled();
	set_pte(this_cpu_ptr(uc_clear_pte)[0], mk_pte(page, PAGE_KERNEL_RO));
	return (const void *)(uc_clear_base + smp_processor_id() * UC_CLEAR_WINDOW);
}

void arch_unmapped_cache_unmap_page_ro(const void *addr)
{
	unsigned long base = uc_clear_base + smp_processor_id() * UC_CLEAR_WINDOW;

	lockdep_assert_irqs_disabled();
	if (WARN_ON_ONCE((unsigned long)addr != base))
		return;
	pte_clear(&init_mm, base, this_cpu_ptr(uc_clear_pte)[0]);
	flush_tlb_one_kernel(base);
}

bool arch_unmapped_cache_in_window(unsigned long addr)
{
	return uc_clear_base && addr >= uc_clear_base &&
	       addr - uc_clear_base < nr_cpu_ids * UC_CLEAR_WINDOW;
}
