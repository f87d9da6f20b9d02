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

#include <linux/cpufeature.h>
#include <linux/fault-inject.h>
#include <linux/init.h>
#include <linux/kasan.h>
#include <linux/mm.h>
#include <linux/mmu_context.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/pgtable.h>
#include <linux/set_memory.h>
#include <linux/unmapped_cache.h>
#include <linux/vmalloc.h>

#include <asm/sections.h>
#include <asm/setup.h>
#include <asm/text-patching.h>
#include <asm/set_memory.h>
#include <asm/tlbflush.h>

#include "mm_internal.h"
/* The hooks this file provides: mm/unmapped_cache/arch_hooks.h. */
#include "arch_hooks.h"

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

bool arch_unmapped_cache_randomize(void)
{
	/* What decides the stock module load offset (execmem_arch_setup()). */
	return kaslr_enabled();
}

void arch_unmapped_cache_direct_map_counts(struct unmapped_cache_dm_counts *counts)
{
	counts->pte = direct_map_page_count(PG_LEVEL_4K);
	counts->pmd = direct_map_page_count(PG_LEVEL_2M);
	counts->pud = direct_map_page_count(PG_LEVEL_1G);
}

/*
 * Writes into memory that has no writable kernel mapping: RO and ROX chunks
 * filled for their owner or scrubbed when freed, NONE pages (secret pages)
 * cleared, and pages of the cache copied for the hibernation image.
 *
 * Each CPU has an mm of its own, allocated at boot, with the page tables for
 * one page at a random address in its user half.  To reach a page, the CPU
 * sets that entry (never global, never user-accessible), loads the mm with
 * use_temporary_mm() with interrupts off, as text_poke() loads poking_mm,
 * copies, clears the entry and invalidates it with invlpg while the mm is
 * still loaded (that mm's PCID), and puts the previous mm back.  No other CPU
 * ever loads this mm, so no other CPU can translate the address while the
 * entry is set, whatever it reads or speculates; nothing is added to
 * init_mm, so /proc/kcore and vread never see it; no IPI and no shared lock.
 *
 * The entry is reached through a pointer kept from boot
 * (apply_to_page_range() allocates the tables and finds it): the mm never
 * unmaps anything, so its page tables live as long as it does, and no
 * page-table lock (a sleeping lock on PREEMPT_RT) is needed with
 * interrupts off.
 */
struct uc_poke {
	struct mm_struct *mm;
	unsigned long addr;
	pte_t *pte;
};

static DEFINE_PER_CPU_READ_MOSTLY(struct uc_poke, uc_poke);

/* What uc_poke_unmap() puts back. */
struct uc_poke_saved {
	unsigned long flags;
	struct mm_struct *prev;
};

/*
 * Map @page at this CPU's address with @prot, interrupts off, and load
 * this CPU's mm; uc_poke_unmap() undoes it all.
 */
static void *uc_poke_map(struct page *page, pgprot_t prot,
			 struct uc_poke_saved *saved)
{
	struct uc_poke *poke;

	local_irq_save(saved->flags);
	poke = this_cpu_ptr(&uc_poke);
	prot = __pgprot(pgprot_val(prot) & ~_PAGE_GLOBAL);
	set_pte_at(poke->mm, poke->addr, poke->pte, mk_pte(page, prot));
	/* A compiler barrier: the entry is set before the page is touched. */
	saved->prev = use_temporary_mm(poke->mm);
	/* KASAN has no shadow for a user-half address. */
	kasan_disable_current();
	return (void *)poke->addr;
}

static void uc_poke_unmap(struct uc_poke_saved *saved)
{
	struct uc_poke *poke = this_cpu_ptr(&uc_poke);

	barrier();
	kasan_enable_current();
	pte_clear(poke->mm, poke->addr, poke->pte);
	/* In the PCID of poke->mm, which is still loaded. */
	flush_tlb_one_user(poke->addr);
	unuse_temporary_mm(saved->prev);
	local_irq_restore(saved->flags);
}

static int __init uc_poke_pte_fn(pte_t *pte, unsigned long addr, void *data)
{
	struct uc_poke *poke = data;

	poke->pte = pte;
	return 0;
}

static int __init uc_poke_init_cpu(struct uc_poke *poke)
{
	int err;

	poke->mm = mm_alloc();
	if (!poke->mm)
		return -ENOMEM;
	/* Xen PV pins the page tables of an mm before it is loaded. */
	paravirt_enter_mmap(poke->mm);
	poke->addr = TASK_UNMAPPED_BASE;
	if (IS_ENABLED(CONFIG_RANDOMIZE_BASE))
		poke->addr += (get_random_long() & PAGE_MASK) %
			      (TASK_SIZE - TASK_UNMAPPED_BASE - PAGE_SIZE);
	/* Allocates the page tables down to the entry, and finds it. */
	err = apply_to_page_range(poke->mm, poke->addr, PAGE_SIZE,
				  uc_poke_pte_fn, poke);
	if (err || !poke->pte) {
		mmput(poke->mm);
		poke->mm = NULL;
		return err ?: -ENOMEM;
	}
	return 0;
}

bool __init arch_unmapped_cache_supported(void)
{
	/*
	 * Blocks leave the direct map as whole 2M entries, which need PSE
	 * (always there on x86-64, as upstream's execmem ROX cache also
	 * requires).  A Xen PV guest's page tables are the hypervisor's: no
	 * large entries, and every change a hypercall.
	 */
	return cpu_feature_enabled(X86_FEATURE_PSE) &&
	       !cpu_feature_enabled(X86_FEATURE_XENPV);
}

int __init arch_unmapped_cache_init(void)
{
	struct uc_poke *poke;
	int cpu, err;

	if (!arch_unmapped_cache_supported())
		return -EOPNOTSUPP;

	for_each_possible_cpu(cpu) {
		err = uc_poke_init_cpu(per_cpu_ptr(&uc_poke, cpu));
		if (err)
			goto undo;
	}
	return 0;
undo:
	for_each_possible_cpu(cpu) {
		poke = per_cpu_ptr(&uc_poke, cpu);
		if (poke->mm)
			mmput(poke->mm);
		poke->mm = NULL;
	}
	return err;
}

/*
 * Copy or set [addr, addr + len), which lies in pages mapped by the
 * kernel (a chunk of an RO or ROX arena), a page at a time.
 */
static void uc_poke_copy(unsigned long addr, const void *src, int c, size_t len)
{
	struct uc_poke_saved saved;
	struct page *page;
	size_t off, n;
	void *dst;

	for (; len; len -= n, addr += n) {
		off = offset_in_page(addr);
		n = min_t(size_t, len, PAGE_SIZE - off);
		page = vmalloc_to_page((void *)addr);
		if (WARN_ON_ONCE(!page))
			return;
		dst = uc_poke_map(page, PAGE_KERNEL, &saved) + off;
		if (src) {
			memcpy(dst, src, n);
			src += n;
		} else {
			memset(dst, c, n);
		}
		uc_poke_unmap(&saved);
	}
}

void arch_unmapped_cache_write(void *dst, const void *src, size_t len)
{
	uc_poke_copy((unsigned long)dst, src, 0, len);
}

void arch_unmapped_cache_fill(void *dst, int c, size_t len)
{
	uc_poke_copy((unsigned long)dst, NULL, c, len);
}

void arch_unmapped_cache_clear_page(struct page *page)
{
	struct uc_poke_saved saved;

	clear_page(uc_poke_map(page, PAGE_KERNEL, &saved));
	uc_poke_unmap(&saved);
}

/*
 * The hibernation snapshot copies a page of the cache through the same
 * mapping, read-only.  The copy is copy_page(), which no sanitizer
 * instruments: KASAN has no shadow for the address, and the caller's own
 * copy loop would fault on it.
 */
void arch_unmapped_cache_copy_page(void *dst, struct page *page)
{
	struct uc_poke_saved saved;

	copy_page(dst, uc_poke_map(page, PAGE_KERNEL_RO, &saved));
	uc_poke_unmap(&saved);
}

#ifdef CONFIG_UNMAPPED_CACHE_TEST_HOOKS
/*
 * For the KUnit suite: run @fn with @page mapped writable the way the
 * functions above map it, and the address it is mapped at.  KASAN has no
 * shadow for that address: @fn must not be instrumented
 * (__no_sanitize_address), since an inline check of a plain load or store
 * there would read a shadow that does not exist (an out-of-line memcpy()
 * of a variable size is checked, and KASAN is told to keep quiet).
 */
void arch_unmapped_cache_with_poke(struct page *page,
				   void (*fn)(void *addr, void *arg), void *arg)
{
	struct uc_poke_saved saved;

	fn(uc_poke_map(page, PAGE_KERNEL, &saved), arg);
	uc_poke_unmap(&saved);
}
#endif
