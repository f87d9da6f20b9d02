// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 hooks for the unmapped cache (mm/unmapped_cache/).
 *
 * A block is 2 MiB and naturally aligned, so in the direct map it is covered
 * either by exactly one PMD-level leaf or by part of one PUD-level (1 GiB)
 * leaf.  set_memory_np() over the whole 2 MiB range keeps the large entry:
 * should_split_large_page() sees that the request covers all of the PMD and
 * rewrites it in place as not present.  Only when the block sits inside a
 * 1 GiB leaf does CPA split that leaf into 512 PMDs first (a level-3 split,
 * at most one per GiB, which never needs undoing for the next block in the
 * same GiB).  set_memory_p() over the same range sets the present bit again
 * on the same PMD; it has nothing to split, so it allocates nothing and
 * cannot fail unless somebody changed permissions on part of the
 * not-present block, which is what the cache must never let happen.
 *
 * CPA flushes the TLB of every CPU once per call (flush_tlb_all(), since
 * 512 pages exceed tlb_single_page_flush_ceiling): one flush to take a block
 * out, one to put it back.
 */

#include <linux/fault-inject.h>
#include <linux/init.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/pgtable.h>
#include <linux/set_memory.h>
#include <linux/unmapped_cache.h>
#include <linux/vmalloc.h>

#include <asm/set_memory.h>
#include <asm/text-patching.h>
#include <asm/tlbflush.h>

int arch_unmapped_cache_unmap_block(struct page *page)
{
	unsigned long addr = (unsigned long)page_address(page);

	if (WARN_ON_ONCE(!IS_ALIGNED(addr, UNMAPPED_CACHE_BLOCK_SIZE)))
		return -EINVAL;

	if (unmapped_cache_should_fail_direct_map())
		return -ENOMEM;

	return set_memory_np(addr, UNMAPPED_CACHE_BLOCK_PAGES);
}

int arch_unmapped_cache_restore_block(struct page *page)
{
	unsigned long addr = (unsigned long)page_address(page);

	if (WARN_ON_ONCE(!IS_ALIGNED(addr, UNMAPPED_CACHE_BLOCK_SIZE)))
		return -EINVAL;

	return set_memory_p(addr, UNMAPPED_CACHE_BLOCK_PAGES);
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
}

void arch_unmapped_cache_direct_map_counts(struct unmapped_cache_dm_counts *counts)
{
	counts->pte = direct_map_page_count(PG_LEVEL_4K);
	counts->pmd = direct_map_page_count(PG_LEVEL_2M);
	counts->pud = direct_map_page_count(PG_LEVEL_1G);
}

/*
 * RO and ROX memory of the cache is written through text_poke's temporary
 * mm: the target page is mapped writable only in poking_mm, on this CPU,
 * for the duration of the copy, and the only TLB flush is local.
 */
void arch_unmapped_cache_write(void *dst, const void *src, size_t len)
{
	text_poke_copy(dst, src, len);
}

void arch_unmapped_cache_fill(void *dst, int c, size_t len)
{
	text_poke_set(dst, c, len);
}

/*
 * Clearing pages that have no kernel mapping (NONE arena pages on their way
 * to a new owner).
 *
 * Each CPU owns one page of kernel virtual space, uc_clear_base + cpu *
 * PAGE_SIZE, whose page table was allocated at boot.  To clear a page, the
 * CPU maps it there with interrupts off, clears it, unmaps it and
 * invalidates the entry in its own TLB only: no other CPU ever uses that
 * address, so no IPI is needed, and no lock is shared (the way kmap_local()
 * slots work on 32-bit highmem).  The page is visible only to this CPU and
 * only for the length of clear_page().
 */
static unsigned long uc_clear_base __ro_after_init;
static DEFINE_PER_CPU_READ_MOSTLY(pte_t *, uc_clear_pte);

static int __init uc_clear_pte_fn(pte_t *pte, unsigned long addr, void *data)
{
	per_cpu(uc_clear_pte, (addr - uc_clear_base) >> PAGE_SHIFT) = pte;
	return 0;
}

int __init arch_unmapped_cache_init(void)
{
	struct vm_struct *area;

	area = get_vm_area(nr_cpu_ids * PAGE_SIZE, VM_MAP);
	if (!area)
		return -ENOMEM;
	uc_clear_base = (unsigned long)area->addr;
	return apply_to_page_range(&init_mm, uc_clear_base,
				   nr_cpu_ids * PAGE_SIZE, uc_clear_pte_fn, NULL);
}

void arch_unmapped_cache_clear_page(struct page *page)
{
	unsigned long flags, addr;
	pte_t *ptep;

	local_irq_save(flags);
	addr = uc_clear_base + smp_processor_id() * PAGE_SIZE;
	ptep = this_cpu_read(uc_clear_pte);
	set_pte(ptep, mk_pte(page, PAGE_KERNEL));
	clear_page((void *)addr);
	pte_clear(&init_mm, addr, ptep);
	flush_tlb_one_kernel(addr);
	local_irq_restore(flags);
}
