// SPDX-License-Identifier: GPL-2.0
/*
 * Arenas: the blocks of one permission on one node, and the chunks carved
 * from them.
 *
 * Address space of an arena
 * -------------------------
 *
 * A NONE arena hands out pages that have no kernel mapping at all, so its
 * range tree works on physical addresses: a chunk is a run of pages of one
 * block, and cannot be larger than a block.
 *
 * RO, ROX and RW arenas map each block into the module area (so that code
 * keeps the relocation reach of module text) with its final permission,
 * using one PMD for the whole block, except RO blocks, which are mapped a
 * page at a time so that freed read-only memory can be made inaccessible
 * (below).  Their range tree works on those virtual addresses.  A refill
 * for a request larger than a block reserves virtual space for a run of
 * blocks and maps them side by side, so chunks of several blocks are
 * virtually, not physically, contiguous.  Each
 * reservation is a struct uc_vspace; it is freed when its last block
 * leaves the arena.
 *
 * What a chunk holds when it is handed out
 * ----------------------------------------
 *
 * A block enters the arena zeroed, except for ROX blocks, which are filled
 * with INT3 before they leave the direct map.  A freed chunk is scrubbed
 * before it goes back into the tree: ROX with INT3 and RO with zeroes,
 * both through a writable mapping only the freeing CPU sees, a page at a
 * time with interrupts off (arch_unmapped_cache_fill(): no lock, so an
 * owner may free with text_mutex held), NONE through mappings only the
 * freeing CPU sees (arch_unmapped_cache_clear_page()).  Single pages are
 * scrubbed the same way before they go into a magazine (cache.c).  So the
 * tree and the magazines hold only clean NONE, RO and ROX memory.
 *
 * Freed read-only memory faults
 * -----------------------------
 *
 * Once an RO chunk or round is scrubbed, each of its page entries is
 * replaced by a PAGE_NONE entry for the same page (uc_arena_ro_hide()), so
 * that a stale pointer into an unloaded module's read-only data faults, as
 * it does on freed vmalloc memory with the cache off, while
 * vmalloc_to_page() and the cache's own lookups still find the page.
 * Handing the memory out again puts the read-only entries back
 * (uc_arena_reveal()), which needs no TLB flush: a CPU caches no
 * translation of an entry that is not present.  The flush that takes the
 * old translations out of every TLB is batched, as vfree() purges lazily
 * freed areas: the next batch flush of execmem's mappings takes them along
 * (vmap.c: a module's data is freed with its rodata), and so do the
 * drains and the reaper; at the latest, every UC_RO_HIDE_BATCH frees.
 * Until then a CPU may still read a freed chunk through a translation it
 * had cached: the same page, zeroed, read-only.  Freed text stays mapped, INT3-filled, in its
 * 2M entry: a stale call or jump traps and a stale write faults, but a
 * stale read finds the traps (the price of the 2M mapping, as with
 * upstream's ROX cache).
 *
 * RW memory follows the page allocator instead: it is zeroed through its
 * own mapping when it is freed if init_on_free is on, and otherwise when
 * it is handed out to an owner that asks (__GFP_ZERO, or init_on_alloc);
 * an owner that does not ask may find an earlier RW owner's data, as in a
 * page from alloc_page().  The owner can write it, so nothing is lost by
 * leaving the zeroing to it, and the single-page pair then costs no more
 * than the page allocator's.
 *
 * Refills
 * -------
 *
 * A caller whose chunk does not fit in the tree refills the arena itself,
 * but only with free order-9 pages: the page allocator's slow path (direct
 * reclaim and compaction) would otherwise run under grow_lock from a
 * secretmem page fault, a module load, or register_kprobe() with text_mutex
 * and cpus_read_lock held.  When no free order-9 page is there, the caller
 * takes its stock path this once, and the refill is left to the arena's
 * worker (uc_arena_refill_fn(), on system_unbound_wq, as kcompactd works
 * beside the allocations that woke it): it takes the blocks with
 * reclaim and compaction allowed, holding no lock of the cache or of a
 * caller while the page allocator works, and adds them under grow_lock, so
 * that the next caller finds the space.  A caller that passes
 * __GFP_RETRY_MAYFAIL asks for the slow path itself and gets it.
 *
 * Locking
 * -------
 *
 * arena->lock (spinlock, irq-safe: frees come from any context) protects
 * the range tree; nothing under it sleeps or allocates: the range tree
 * takes preallocated nodes.  arena->grow_lock
 * (mutex) serializes refills and shrinks, which sleep (taking a block
 * changes the direct map).  Order: grow_lock, then lock.  Scrubbing a freed
 * chunk happens with neither held: the chunk is marked as being freed so
 * that a concurrent double free is still caught.
 */

#include <linux/bitmap.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include <linux/vmstat.h>
#include <asm/tlbflush.h>

#include "../internal.h"
#include "internal.h"

#include <trace/events/unmapped_cache.h>

/* Owner of a chunk that is being scrubbed on its way back to the tree. */
#define UC_CHUNK_FREEING	((void *)-1L)

const char *const uc_perm_names[UNMAPPED_CACHE_NR_PERMS] = {
	[UNMAPPED_CACHE_NONE]	= "none",
	[UNMAPPED_CACHE_RO]	= "ro",
	[UNMAPPED_CACHE_ROX]	= "rox",
	[UNMAPPED_CACHE_RW]	= "rw",
};

const char *const uc_arena_stat_names[] = {
	[UC_ARENA_ALLOCS]	= "allocations",
	[UC_ARENA_FREES]	= "frees",
	[UC_ARENA_REFILLS]	= "refills",
	[UC_ARENA_REFILL_FAILED] = "refills failed",
	[UC_ARENA_BLOCKS_IN]	= "blocks added",
	[UC_ARENA_BLOCKS_OUT]	= "blocks returned",
	[UC_ARENA_BAD_FREES]	= "bad frees",
	[UC_ARENA_POISON_SET_ASIDE] = "pages set aside for hardware poison",
	[UC_ARENA_SETTLED]	= "pages put aside until their references went",
	[UC_ARENA_STRAY_PUTS]	= "stray page puts repaired",
	[UC_ARENA_REFILLS_DEFERRED] = "refills left to the worker",
	[UC_ARENA_WORKER_REFILLS] = "refills by the worker",
	[UC_ARENA_WORKER_FAILED] = "refills by the worker failed",
};

static_assert(ARRAY_SIZE(uc_arena_stat_names) == UC_ARENA_STAT_COUNT);

struct uc_arena *uc_arenas[UNMAPPED_CACHE_NR_PERMS][MAX_NUMNODES];
LIST_HEAD(uc_arena_list);

static inline void uc_arena_count(struct uc_arena *arena,
				  enum uc_arena_stat item, long nr)
{
	atomic_long_add(nr, &arena->stats[item]);
}

static bool uc_arena_mapped(const struct uc_arena *arena)
{
	return arena->perm != UNMAPPED_CACHE_NONE;
}

static pgprot_t uc_arena_prot(const struct uc_arena *arena)
{
	switch (arena->perm) {
	case UNMAPPED_CACHE_RO:
		return PAGE_KERNEL_RO;
	case UNMAPPED_CACHE_ROX:
		return PAGE_KERNEL_ROX;
	default:
		return PAGE_KERNEL;
	}
}

/* Virtual space for mapped arenas: the module area where there is one. */
#ifdef MODULES_VADDR
#define UC_VSPACE_START	MODULES_VADDR
#define UC_VSPACE_END	MODULES_END
#else
#define UC_VSPACE_START	VMALLOC_START
#define UC_VSPACE_END	VMALLOC_END
#endif

/*
 * Randomisation.  With the kernel's address randomisation on, the lowest
 * address at which a mapped arena reserves virtual space is a random
 * block-aligned address in the lower half of the area, chosen at boot
 * (falling back to the whole area when nothing fits above it), and each
 * mapped arena starts handing out chunks at a random page of its first
 * block (its range tree's floor), chosen again whenever it starts over
 * empty.  On x86-64 the module area is 1008 MiB: 252 starts, about 8 bits,
 * times 512 pages, 9 bits, so module text, rodata and data each land at
 * one of about 2^17 page addresses, against 2^10 for the stock module
 * load offset (1 to 1024 pages).
 */
static unsigned long uc_vspace_start __ro_after_init = UC_VSPACE_START;
static bool uc_randomize __ro_after_init;
/* uc_randomize_hold() callers: tests that count blocks. */
static atomic_t uc_randomize_held;

static void __init uc_randomize_init(void)
{
	unsigned long slots = (UC_VSPACE_END - UC_VSPACE_START) / 2 /
			      UNMAPPED_CACHE_BLOCK_SIZE;

	uc_randomize = arch_unmapped_cache_randomize();
	if (uc_randomize && slots)
		uc_vspace_start += get_random_u32_below(slots) *
				   UNMAPPED_CACHE_BLOCK_SIZE;
}

/* A random page of the block run at @start: a new floor for an arena. */
static unsigned long uc_random_floor(unsigned long start)
{
	if (!uc_randomize || atomic_read(&uc_randomize_held))
		return 0;
	return start + ((unsigned long)get_random_u32_below(UNMAPPED_CACHE_BLOCK_PAGES)
			<< PAGE_SHIFT);
}

/*
 * Map @block at @addr with the arena's permission: one PMD if possible,
 * page by page for RO (see "Freed read-only memory faults").
 */
static int uc_arena_map_block(struct uc_arena *arena, struct uc_block *block,
			      unsigned long addr, struct page **pages)
{
	unsigned int shift = arena->perm == UNMAPPED_CACHE_RO ? PAGE_SHIFT :
								PMD_SHIFT;
	unsigned long i;
	int err;

	for (i = 0; i < UNMAPPED_CACHE_BLOCK_PAGES; i++)
		pages[i] = block->page + i;
	err = vmap_pages_range_noflush(addr, addr + UNMAPPED_CACHE_BLOCK_SIZE,
				       uc_arena_prot(arena), pages, shift);
	if (err) {
		vunmap_range_noflush(addr, addr + UNMAPPED_CACHE_BLOCK_SIZE);
		return err;
	}
	flush_cache_vmap(addr, addr + UNMAPPED_CACHE_BLOCK_SIZE);
	return 0;
}

/* Frees of RO memory since the last flush of the module area's TLBs. */
#define UC_RO_HIDE_BATCH	256
static atomic_t uc_ro_hidden;

static int uc_ro_set_pte(pte_t *pte, unsigned long addr, void *data)
{
	pgprot_t *prot = data;

	set_pte_at(&init_mm, addr, pte, pfn_pte(pte_pfn(ptep_get(pte)), *prot));
	return 0;
}

/* Give the page entries of [@addr, @addr + @size) of an RO arena @prot. */
static void uc_arena_ro_protect(unsigned long addr, unsigned long size,
				pgprot_t prot)
{
	WARN_ON_ONCE(apply_to_existing_page_range(&init_mm, addr, size,
						  uc_ro_set_pte, &prot));
}

/**
 * uc_arena_ro_take_hidden() - Take over the flush freed RO chunks wait for.
 *
 * For uc_vmap_purge(), whose flush of every CPU's TLB then covers them.
 *
 * Return: true if some RO chunk was hidden since the last flush: the
 * caller must flush the whole kernel range now.
 */
bool uc_arena_ro_take_hidden(void)
{
	return atomic_xchg(&uc_ro_hidden, 0);
}

/* A freed, scrubbed RO chunk: no access until it is handed out again. */
static void uc_arena_ro_hide(unsigned long addr, unsigned long size)
{
	uc_arena_ro_protect(addr, size, PAGE_NONE);
	if (atomic_inc_return(&uc_ro_hidden) >= UC_RO_HIDE_BATCH &&
	    uc_arena_ro_take_hidden())
		flush_tlb_kernel_range(UC_VSPACE_START, UC_VSPACE_END);
}

/**
 * uc_arena_reveal() - Make memory being handed out accessible again.
 * @arena: the arena.
 * @addr:  a chunk or round taken from the tree or a magazine.
 * @size:  its size.
 *
 * Only RO memory is ever hidden (uc_arena_ro_hide()); for the other
 * arenas this does nothing.
 *
 * Context: Any context.
 */
void uc_arena_reveal(struct uc_arena *arena, unsigned long addr,
		     unsigned long size)
{
	if (arena->perm == UNMAPPED_CACHE_RO)
		uc_arena_ro_protect(addr, size, PAGE_KERNEL_RO);
}

static void uc_arena_unmap_block(struct uc_block *block)
{
	unsigned long addr = block->addr;

	vunmap_range_noflush(addr, addr + UNMAPPED_CACHE_BLOCK_SIZE);
	flush_tlb_kernel_range(addr, addr + UNMAPPED_CACHE_BLOCK_SIZE);
}

/*
 * Virtual space: a mapped arena reserves module-area space UC_VSPACE_SLOTS
 * blocks at a time (more for a larger chunk), 2M aligned, and maps blocks
 * into free slots of it as it grows, so that each reservation keeps the
 * guard page vmalloc puts after it without costing a 2M hole per block.
 * Slots not mapped are holes as well.  The last block out frees the
 * reservation.  Reservations are listed in arena->vspaces, under
 * grow_lock.
 */

static unsigned long uc_vspace_base(const struct uc_vspace *vspace)
{
	return (unsigned long)vspace->area->addr;
}

/* A free run of @nr slots for @align in an existing reservation, or NULL. */
static struct uc_vspace *uc_vspace_find(struct uc_arena *arena,
					unsigned long nr, unsigned long align,
					unsigned long *slot)
{
	unsigned long mask = align / UNMAPPED_CACHE_BLOCK_SIZE - 1;
	struct uc_vspace *vspace;
	unsigned long s, off;

	list_for_each_entry(vspace, &arena->vspaces, node) {
		off = (uc_vspace_base(vspace) / UNMAPPED_CACHE_BLOCK_SIZE) & mask;
		s = bitmap_find_next_zero_area_off(&vspace->used,
						   vspace->nr_slots, 0, nr,
						   mask, off);
		if (s + nr <= vspace->nr_slots) {
			*slot = s;
			return vspace;
		}
	}
	return NULL;
}

/* Reserve room for max(@nr, UC_VSPACE_SLOTS) blocks, guard page after. */
static struct uc_vspace *uc_vspace_new(struct uc_arena *arena,
				       unsigned long nr, unsigned long align)
{
	unsigned long slots = max_t(unsigned long, nr, UC_VSPACE_SLOTS);
	unsigned long size = slots * UNMAPPED_CACHE_BLOCK_SIZE;
	struct uc_vspace *vspace;

	if (WARN_ON_ONCE(slots > BITS_PER_LONG))
		return NULL;
	vspace = kzalloc(sizeof(*vspace), GFP_KERNEL);
	if (!vspace)
		return NULL;
	if (uc_should_fail_vspace(size))
		goto err_free_vspace;
	vspace->area = get_vm_area_align(size, align, VM_MAP, uc_vspace_start,
					 UC_VSPACE_END, arena->nid,
					 __builtin_return_address(0));
	if (!vspace->area && uc_vspace_start != UC_VSPACE_START)
		vspace->area = get_vm_area_align(size, align, VM_MAP,
						 UC_VSPACE_START, UC_VSPACE_END,
						 arena->nid,
						 __builtin_return_address(0));
	if (!vspace->area)
		goto err_free_vspace;
	if (uc_kasan_shadow_alloc(vspace->area, size))
		goto err_free_area;
	/* Free space: a chunk is unpoisoned when it is handed out (cache.c). */
	kasan_poison_vmalloc(vspace->area->addr, size);
	vspace->nr_slots = slots;
	list_add(&vspace->node, &arena->vspaces);
	return vspace;

err_free_area:
	free_vm_area(vspace->area);
err_free_vspace:
	kfree(vspace);
	return NULL;
}

static void uc_vspace_free(struct uc_vspace *vspace)
{
	list_del(&vspace->node);
	free_vm_area(vspace->area);
	kfree(vspace);
}

/* Give @block's slot back (the block is unmapped). */
static void uc_vspace_release(struct uc_vspace *vspace, struct uc_block *block)
{
	__clear_bit((block->addr - uc_vspace_base(vspace)) /
		    UNMAPPED_CACHE_BLOCK_SIZE, &vspace->used);
	vspace->nr_blocks--;
}

/* Drop @block's hold on its virtual space; the last one frees it. */
static void uc_vspace_put(struct uc_vspace *vspace, struct uc_block *block)
{
	uc_vspace_release(vspace, block);
	if (!vspace->nr_blocks)
		uc_vspace_free(vspace);
}

/*
 * Give a block that holds no chunk back: out of the tree, unmapped from the
 * module area, back into the direct map and the page allocator.
 * Context: grow_lock held; the block's range was removed from the tree.
 */
static void uc_arena_drop_block(struct uc_arena *arena, struct uc_block *block)
{
	struct uc_vspace *vspace = block->vspace;
	unsigned long pfn = page_to_pfn(block->page), addr = block->addr;

	list_del(&block->list);
	WRITE_ONCE(arena->nr_blocks, arena->nr_blocks - 1);
	if (vspace) {
		uc_arena_unmap_block(block);
		uc_vspace_put(vspace, block);
	}
	WRITE_ONCE(block->owner, NULL);
	block->vspace = NULL;
	uc_block_retire(block);
	uc_arena_count(arena, UC_ARENA_BLOCKS_OUT, 1);
	trace_unmapped_cache_block_return(arena->nid, arena->perm, pfn, addr);
}

/* Undo the blocks a failed refill took (see uc_arena_grow()). */
static void uc_arena_unwind(struct list_head *added)
{
	struct uc_block *block, *next;

	list_for_each_entry_safe(block, next, added, list) {
		list_del(&block->list);
		if (block->vspace) {
			uc_arena_unmap_block(block);
			uc_vspace_release(block->vspace, block);
		}
		WRITE_ONCE(block->owner, NULL);
		block->vspace = NULL;
		uc_block_retire(block);
	}
}

/* What a fresh block of @arena is filled with: traps for text, or zeroes. */
static int uc_arena_fill(const struct uc_arena *arena)
{
	if (arena->perm == UNMAPPED_CACHE_ROX)
		return ARCH_UNMAPPED_CACHE_TRAP_BYTE;
	return 0;
}

/*
 * Take one block for @arena: one the refill worker took, or a new one
 * (fresh ROX blocks are filled with traps); @gfp as for __uc_block_grab().
 * Context: grow_lock held.
 */
static struct uc_block *uc_arena_take_block(struct uc_arena *arena,
					    struct list_head *added, gfp_t gfp)
{
	struct uc_block *block;

	block = list_first_entry_or_null(&arena->ready, struct uc_block, list);
	if (block)
		list_del(&block->list);
	else
		block = __uc_block_grab(arena->nid, uc_arena_fill(arena), gfp);
	if (!IS_ERR(block)) {
		WRITE_ONCE(block->owner, arena);
		list_add_tail(&block->list, added);
	}
	return block;
}

/*
 * Add blocks enough for @size bytes at @align to the arena: one block for
 * a NONE arena; for a mapped arena, a run of blocks mapped side by side in
 * free slots of one reservation of virtual space (a new one if none has
 * room).  @gfp: as for __uc_block_grab().
 * Context: grow_lock held; may sleep.
 * Return: 0, -EAGAIN if a block needed compaction that @gfp does not allow,
 * or another error.
 */
static int uc_arena_grow(struct uc_arena *arena, unsigned long size,
			 unsigned long align, gfp_t gfp)
{
	unsigned long flags;
	unsigned long nr = DIV_ROUND_UP(size, UNMAPPED_CACHE_BLOCK_SIZE);
	struct uc_vspace *vspace = NULL;
	struct uc_range *node;
	struct uc_block *block;
	struct page **pages;
	unsigned long i, start, slot = 0;
	bool first = false;
	LIST_HEAD(added);
	int err = -ENOMEM;

	lockdep_assert_held(&arena->grow_lock);
	uc_arena_count(arena, UC_ARENA_REFILLS, 1);

	if (!uc_arena_mapped(arena) &&
	    (nr > 1 || align > UNMAPPED_CACHE_BLOCK_SIZE)) {
		err = -E2BIG;
		goto err_count;
	}
	node = uc_range_node_alloc(GFP_KERNEL);
	if (!node)
		goto err_count;

	if (!uc_arena_mapped(arena)) {
		block = uc_arena_take_block(arena, &added, gfp);
		if (IS_ERR(block)) {
			err = PTR_ERR(block);
			goto err_free_node;
		}
		WRITE_ONCE(block->addr, PFN_PHYS(page_to_pfn(block->page)));
		start = block->addr;
		goto add;
	}

	align = max(align, UNMAPPED_CACHE_BLOCK_SIZE);
	/* Starting over empty: a new random floor once the run is added. */
	first = list_empty(&arena->vspaces);
	vspace = uc_vspace_find(arena, nr, align, &slot);
	if (!vspace)
		vspace = uc_vspace_new(arena, nr, align);
	if (!vspace)
		goto err_free_node;
	pages = kvmalloc_array(UNMAPPED_CACHE_BLOCK_PAGES, sizeof(*pages),
			       GFP_KERNEL);
	if (!pages)
		goto err_free_vspace;

	start = uc_vspace_base(vspace) + slot * UNMAPPED_CACHE_BLOCK_SIZE;
	for (i = 0; i < nr; i++) {
		block = uc_arena_take_block(arena, &added, gfp);
		if (IS_ERR(block)) {
			err = PTR_ERR(block);
			break;
		}
		WRITE_ONCE(block->addr, start + i * UNMAPPED_CACHE_BLOCK_SIZE);
		block->vspace = vspace;
		__set_bit(slot + i, &vspace->used);
		vspace->nr_blocks++;
		if (uc_arena_map_block(arena, block, block->addr, pages)) {
			/* Not mapped: do not let the unwind unmap it. */
			list_del(&block->list);
			uc_vspace_release(vspace, block);
			WRITE_ONCE(block->owner, NULL);
			block->vspace = NULL;
			uc_block_retire(block);
			break;
		}
	}
	kvfree(pages);
	if (i < nr) {
		uc_arena_unwind(&added);
		goto err_free_vspace;
	}

add:
	spin_lock_irqsave(&arena->lock, flags);
	err = uc_range_add(&arena->tree, start, nr * UNMAPPED_CACHE_BLOCK_SIZE,
			   &node);
	if (!err && first)
		arena->tree.floor = uc_random_floor(start);
	spin_unlock_irqrestore(&arena->lock, flags);
	if (WARN_ON_ONCE(err)) {
		uc_arena_unwind(&added);
		err = -ENOMEM;
		goto err_free_vspace;
	}

	WRITE_ONCE(arena->nr_blocks, arena->nr_blocks + nr);
	list_for_each_entry(block, &added, list)
		trace_unmapped_cache_block_add(arena->nid, arena->perm,
					       page_to_pfn(block->page),
					       block->addr);
	list_splice_tail(&added, &arena->blocks);
	uc_arena_count(arena, UC_ARENA_BLOCKS_IN, nr);
	uc_reap_arm();
	return 0;

err_free_vspace:
	if (vspace && !vspace->nr_blocks)
		uc_vspace_free(vspace);
err_free_node:
	if (node)
		uc_range_node_free(node);
err_count:
	uc_arena_count(arena, UC_ARENA_REFILL_FAILED, 1);
	count_vm_event(UNMAPPED_CACHE_REFILL_FAIL);
	return err;
}

/*
 * Leave a refill that needed compaction to the arena's worker (see
 * "Refills" at the top of this file).  Called without grow_lock.
 */
static void uc_arena_defer_refill(struct uc_arena *arena, unsigned long size,
				  unsigned long align)
{
	unsigned long flags;

	spin_lock_irqsave(&arena->lock, flags);
	arena->refill_size = max(arena->refill_size, size);
	arena->refill_align = max(arena->refill_align, align);
	spin_unlock_irqrestore(&arena->lock, flags);
	uc_arena_count(arena, UC_ARENA_REFILLS_DEFERRED, 1);
	queue_work(system_unbound_wq, &arena->refill_work);
}

/**
 * uc_arena_refill_fn() - The arena's refill worker.
 * @work: the arena's refill_work.
 *
 * Takes the blocks for the largest refill that callers left to it since it
 * last ran, with reclaim and compaction allowed and no lock held, then adds
 * them to the arena under grow_lock (uc_arena_grow() takes them from
 * arena->ready first).  Space that came in meanwhile for a request of one
 * block or less (a free, another refill) makes it do nothing.  Blocks the
 * refill did not use go back at once.
 *
 * Context: Process context (a kworker); may sleep.
 */
static void uc_arena_refill_fn(struct work_struct *work)
{
	struct uc_arena *arena = container_of(work, struct uc_arena,
					      refill_work);
	unsigned long flags, size, align, nr, i;
	struct uc_block *block, *next;
	LIST_HEAD(ready);
	int err = 0;

	spin_lock_irqsave(&arena->lock, flags);
	size = arena->refill_size;
	align = arena->refill_align;
	arena->refill_size = 0;
	arena->refill_align = 0;
	spin_unlock_irqrestore(&arena->lock, flags);
	if (!size)
		return;
	if (size <= UNMAPPED_CACHE_BLOCK_SIZE &&
	    READ_ONCE(arena->tree.free_units))
		return;

	nr = DIV_ROUND_UP(size, UNMAPPED_CACHE_BLOCK_SIZE);
	for (i = 0; i < nr; i++) {
		block = __uc_block_grab(arena->nid, uc_arena_fill(arena),
					GFP_KERNEL | __GFP_RETRY_MAYFAIL);
		if (IS_ERR(block)) {
			err = PTR_ERR(block);
			break;
		}
		list_add_tail(&block->list, &ready);
	}

	if (!err) {
		mutex_lock(&arena->grow_lock);
		list_splice_tail_init(&ready, &arena->ready);
		err = uc_arena_grow(arena, size, align,
				    GFP_KERNEL | __GFP_RETRY_MAYFAIL);
		list_splice_init(&arena->ready, &ready);
		mutex_unlock(&arena->grow_lock);
	}
	list_for_each_entry_safe(block, next, &ready, list) {
		list_del(&block->list);
		uc_block_retire(block);
	}
	uc_arena_count(arena, err ? UC_ARENA_WORKER_FAILED :
				    UC_ARENA_WORKER_REFILLS, 1);
}

/* uc_arena_alloc() without the check for poisoned pages. */
static unsigned long uc_arena_carve(struct uc_arena *arena, unsigned long size,
				    unsigned long align, void *owner, gfp_t gfp)
{
	unsigned long flags;
	struct uc_range *spare[UC_RANGE_SPARES] = { };
	struct uc_range *chunk = NULL;
	int attempt, err;

	if (uc_range_spares_fill(spare, gfp & GFP_RECLAIM_MASK))
		goto out;

	for (attempt = 0; attempt < 3; attempt++) {
		spin_lock_irqsave(&arena->lock, flags);
		chunk = uc_range_alloc(&arena->tree, size, align, owner, spare);
		spin_unlock_irqrestore(&arena->lock, flags);
		if (chunk || !gfpflags_allow_blocking(gfp))
			break;

		mutex_lock(&arena->grow_lock);
		err = uc_arena_grow(arena, size, align, gfp);
		if (err) {
			mutex_unlock(&arena->grow_lock);
			if (err == -EAGAIN)
				uc_arena_defer_refill(arena, size, align);
			break;
		}
		/*
		 * Carve the chunk before letting go of grow_lock: a shrink or
		 * drain (which takes it to drop blocks) would otherwise give
		 * the new, still empty block straight back, and a refill that
		 * loses that race every time would fail the allocation.
		 */
		spin_lock_irqsave(&arena->lock, flags);
		chunk = uc_range_alloc(&arena->tree, size, align, owner, spare);
		spin_unlock_irqrestore(&arena->lock, flags);
		mutex_unlock(&arena->grow_lock);
		if (chunk)
			break;
		/* Other CPUs took the new space first: retry. */
		if (uc_range_spares_fill(spare, gfp & GFP_RECLAIM_MASK))
			break;
	}
out:
	uc_range_spares_release(spare);
	if (!chunk)
		return 0;
	uc_arena_count(arena, UC_ARENA_ALLOCS, 1);
	return chunk->start;
}

/*
 * Hardware poison
 * ---------------
 * memory_failure() cannot take a page the cache holds (it is neither on an
 * LRU list nor free in the buddy allocator): it flags the page poisoned and
 * leaves it where it is.  From then on the cache must never hand the page
 * out, never clear or fill it, and never map it again.  It looks at the
 * flag where it hands out and scrubs memory, and only while some page of
 * the machine is poisoned (uc_pages_poisoned()): the poisoned pages of a
 * chunk found so when it is carved (the rest goes back to the tree), or a
 * round when it leaves a magazine, are set aside (owned by
 * UC_OWNER_POISON, never freed) and another chunk is taken;
 * a scrub writes around poisoned pages.  A chunk set aside keeps its
 * block busy, so the block is never restored to the direct map while the
 * rest of it stays in use; a block found poisoned on its release is kept
 * (block.c).  A page poisoned while its owner holds it (a secretmem page
 * in the page cache, say) stays with memory_failure(), which keeps its
 * reference: it never comes back to the cache.
 */

struct uc_reaper uc_reaper = { .interval_ms = 15000 };

/**
 * uc_reap_arm() - Make sure a reap will come.
 *
 * Called when a block comes in: arms the reaper unless it is armed
 * already (an armed one is not pushed back).  The reaper re-arms itself
 * only while the cache holds blocks, so an idle cache has no timer.
 *
 * Context: Any context but NMI.
 */
void uc_reap_arm(void)
{
	unsigned int ms = READ_ONCE(uc_reaper.interval_ms);

	if (uc_reaper_ready() && ms && !atomic_read(&uc_reaper.held))
		queue_delayed_work(system_unbound_wq, &uc_reaper.work,
				   msecs_to_jiffies(ms));
}

/**
 * uc_arena_refs_repair() - uc_page_refs_repair(), counted in @arena.
 * @arena: the page's arena.
 * @page:  a page of one of its blocks.
 * @extra: as for uc_page_refs_repair().
 *
 * Context: Any context.
 * Return: as uc_page_refs_repair().
 */
bool uc_arena_refs_repair(struct uc_arena *arena, struct page *page, int extra)
{
	if (!uc_page_refs_repair(page, extra))
		return false;
	uc_arena_count(arena, UC_ARENA_STRAY_PUTS, 1);
	return true;
}

/**
 * uc_page_claim() - Take a free NONE page for a new owner.
 * @arena: its arena.
 * @page: a round of a NONE arena, just taken from a magazine or the tree.
 *
 * Context: Any context.
 * Return: true if nobody else held a reference: the page then has the
 * new owner's reference on top of UC_PAGE_REFS, and the flags its last
 * owner left (up to date, referenced...) are cleared, as the page
 * allocator's free path would have cleared them.  False if somebody still
 * holds one; the page is left as it was.
 */
bool uc_page_claim(struct uc_arena *arena, struct page *page)
{
	uc_arena_refs_repair(arena, page, 0);
	if (!page_ref_freeze(page, UC_PAGE_REFS))
		return false;
	/* Frozen: no one can take a reference and look at the flags. */
	page->flags &= ~PAGE_FLAGS_CHECK_AT_PREP;
	page_ref_unfreeze(page, UC_PAGE_REFS + 1);
	return true;
}

/**
 * uc_arena_settle() - Put aside a NONE round that someone still references.
 * @arena: its NONE arena.
 * @page:  the page, untagged (UC_PAGE_FREE), still a round in the tree.
 *
 * Context: Any context.
 */
void uc_arena_settle(struct uc_arena *arena, struct page *page)
{
	unsigned long flags;

	spin_lock_irqsave(&arena->lock, flags);
	list_add_tail(&page->lru, &arena->settling);
	WRITE_ONCE(arena->nr_settling, arena->nr_settling + 1);
	spin_unlock_irqrestore(&arena->lock, flags);
	uc_arena_count(arena, UC_ARENA_SETTLED, 1);
}

/* Whether nobody but the cache holds @page now (and, if @claim, claim it). */
static bool uc_page_settled(struct uc_arena *arena, struct page *page,
			    bool claim)
{
	/* A poisoned one goes back to the tree, whose carve sets it aside. */
	if (claim)
		return !uc_pages_poisoned(page, 1) && uc_page_claim(arena, page);
	uc_arena_refs_repair(arena, page, 0);
	return page_ref_count(page) == UC_PAGE_REFS;
}

/* The first settling page nobody references any more, off the list. */
static struct page *uc_arena_settled_pop(struct uc_arena *arena, bool claim)
{
	struct page *page, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&arena->lock, flags);
	list_for_each_entry(page, &arena->settling, lru) {
		if (!uc_page_settled(arena, page, claim))
			continue;
		list_del(&page->lru);
		WRITE_ONCE(arena->nr_settling, arena->nr_settling - 1);
		found = page;
		break;
	}
	spin_unlock_irqrestore(&arena->lock, flags);
	return found;
}

/**
 * uc_arena_settled_take() - A settling page that is free now, claimed.
 * @arena: a NONE arena.
 *
 * Context: Any context.
 * Return: a page claimed as uc_page_claim() does, still a round of the
 * tree, or NULL.
 */
struct page *uc_arena_settled_take(struct uc_arena *arena)
{
	if (likely(!READ_ONCE(arena->nr_settling)))
		return NULL;
	return uc_arena_settled_pop(arena, true);
}

/**
 * uc_arena_settled_flush() - Give settling pages that are free back to the tree.
 * @arena: any arena.
 *
 * For drains, reaps and the shrinker, so that a block whose last page
 * settled can go back.
 *
 * Context: Any context.
 * Return: the number of pages given back.
 */
unsigned long uc_arena_settled_flush(struct uc_arena *arena)
{
	unsigned long n = 0;
	struct page *page;

	if (likely(!READ_ONCE(arena->nr_settling)))
		return 0;
	while ((page = uc_arena_settled_pop(arena, false))) {
		uc_arena_free_round(arena, PFN_PHYS(page_to_pfn(page)));
		n++;
	}
	return n;
}

/**
 * uc_arena_page() - The page behind an address of an arena.
 * @arena: the arena.
 * @addr:  an address inside one of its blocks.
 *
 * A NONE arena's addresses are direct-map addresses (not mapped); a mapped
 * arena's are in its module-area mapping (a walk of the page tables).
 *
 * Context: Any context.
 * Return: the struct page.
 */
struct page *uc_arena_page(struct uc_arena *arena, unsigned long addr)
{
	if (arena->perm == UNMAPPED_CACHE_NONE)
		return pfn_to_page(PHYS_PFN(addr));
	return vmalloc_to_page((void *)addr);
}

/*
 * The pages of @arena from @addr up to the end of its block or @end,
 * whichever comes first (*@next): a block is physically contiguous and
 * mapped in order, so one lookup (vmalloc_to_page() for a mapped arena)
 * gives every page of it.  Returns the page at @addr, or NULL.
 */
static struct page *uc_arena_run(struct uc_arena *arena, unsigned long addr,
				 unsigned long end, unsigned long *next)
{
	*next = min(ALIGN(addr + 1, UNMAPPED_CACHE_BLOCK_SIZE), end);
	return uc_arena_page(arena, addr);
}

/* Whether a page of [@addr, @addr + @size) of @arena is poisoned. */
static bool uc_arena_poisoned(struct uc_arena *arena, unsigned long addr,
			      unsigned long size)
{
	unsigned long end = addr + size, next;
	struct page *page;

	if (!uc_poison_seen())
		return false;
	for (; addr < end; addr = next) {
		page = uc_arena_run(arena, addr, end, &next);
		if (page && uc_pages_poisoned(page, (next - addr) >> PAGE_SHIFT))
			return true;
	}
	return false;
}

/* Poisoned pages of one chunk set aside one by one, at most. */
#define UC_POISON_PAGES_MAX	8

/*
 * The poisoned pages of [@addr, @addr + @size), up to @max of them, in
 * @pages (their addresses in the arena); returns how many there are, or
 * @max + 1 if there are more.
 */
static unsigned int uc_arena_poisoned_pages(struct uc_arena *arena,
					    unsigned long addr,
					    unsigned long size,
					    unsigned long *pages,
					    unsigned int max)
{
	unsigned long end = addr + size, next, i;
	unsigned int n = 0;
	struct page *page;

	for (; addr < end; addr = next) {
		page = uc_arena_run(arena, addr, end, &next);
		for (i = 0; page && addr + i * PAGE_SIZE < next; i++) {
			if (!PageHWPoison(page + i))
				continue;
			if (n == max)
				return max + 1;
			pages[n++] = addr + i * PAGE_SIZE;
		}
	}
	return n;
}

/*
 * Give a carved chunk back but for its poisoned pages, each of which
 * becomes a chunk of UC_OWNER_POISON: free the chunk, then carve each page
 * at its own address (the tree's floor set to it: the lowest free place at
 * or above the floor is the page itself).  All under one hold of the lock,
 * with every node it can need allocated first, so that no poisoned page is
 * ever free in the tree; false, with nothing changed, if those nodes could
 * not be had.
 */
static bool uc_arena_set_aside_pages(struct uc_arena *arena, unsigned long addr,
				     unsigned long size, const unsigned long *pages,
				     unsigned int n)
{
	struct uc_range *pool[UC_POISON_PAGES_MAX * UC_RANGE_SPARES] = { };
	struct uc_range *spare[UC_RANGE_SPARES];
	struct uc_range *chunk;
	unsigned long flags, floor;
	unsigned int i, j, used = 0;
	bool done = false;

	for (i = 0; i < n * UC_RANGE_SPARES; i++) {
		pool[i] = uc_range_node_alloc(GFP_ATOMIC | __GFP_NOWARN);
		if (!pool[i])
			goto out;
	}
	spin_lock_irqsave(&arena->lock, flags);
	chunk = uc_range_find_busy(&arena->tree, addr);
	if (WARN_ON_ONCE(!chunk || chunk->size != size)) {
		spin_unlock_irqrestore(&arena->lock, flags);
		goto out;
	}
	uc_range_free(&arena->tree, chunk);
	floor = arena->tree.floor;
	for (i = 0; i < n; i++) {
		for (j = 0; j < UC_RANGE_SPARES; j++)
			spare[j] = pool[used + j];
		arena->tree.floor = pages[i];
		chunk = uc_range_alloc(&arena->tree, PAGE_SIZE, PAGE_SIZE,
				       UC_OWNER_POISON, spare);
		for (j = 0; j < UC_RANGE_SPARES; j++)
			pool[used + j] = spare[j];
		used += UC_RANGE_SPARES;
		/* The page was free: the lowest free place from it is itself. */
		WARN_ON_ONCE(!chunk || chunk->start != pages[i]);
	}
	arena->tree.floor = floor;
	spin_unlock_irqrestore(&arena->lock, flags);
	uc_arena_count(arena, UC_ARENA_POISON_SET_ASIDE, n);
	done = true;
out:
	/* The nodes the carves did not use. */
	for (i = 0; i < ARRAY_SIZE(pool); i++)
		uc_range_node_free(pool[i]);
	return done;
}

/**
 * uc_arena_set_aside() - Set the poisoned pages of a chunk aside for good.
 * @arena: the arena.
 * @addr:  a chunk just carved (or a round just taken from a magazine),
 *         not handed out yet.
 * @size:  its size.
 *
 * A chunk of one page is set aside whole.  A larger chunk goes back to the
 * tree but for its poisoned pages, each of which is set aside on its own
 * (a module's 16 MiB does not go for one bad page); a chunk with more
 * than UC_POISON_PAGES_MAX of them, or when memory for that is short, is
 * set aside whole.
 *
 * Context: Any context.
 * Return: true if a page of the chunk is poisoned: the chunk is not the
 * caller's any more and the caller must take another.
 */
bool uc_arena_set_aside(struct uc_arena *arena, unsigned long addr,
			unsigned long size)
{
	unsigned long pages[UC_POISON_PAGES_MAX];
	struct uc_range *chunk;
	unsigned long flags;
	unsigned int n;

	if (!uc_arena_poisoned(arena, addr, size))
		return false;
	if (size > PAGE_SIZE) {
		n = uc_arena_poisoned_pages(arena, addr, size, pages,
					    UC_POISON_PAGES_MAX);
		if (n && n <= UC_POISON_PAGES_MAX &&
		    uc_arena_set_aside_pages(arena, addr, size, pages, n))
			return true;
	}
	spin_lock_irqsave(&arena->lock, flags);
	chunk = uc_range_find_busy(&arena->tree, addr);
	if (!WARN_ON_ONCE(!chunk || chunk->size != size))
		chunk->owner = UC_OWNER_POISON;
	spin_unlock_irqrestore(&arena->lock, flags);
	uc_arena_count(arena, UC_ARENA_POISON_SET_ASIDE, size >> PAGE_SHIFT);
	return true;
}

/* Chunks set aside in a row before an allocation gives up. */
#define UC_POISON_TRIES	8

/**
 * uc_arena_alloc() - Carve a chunk out of an arena.
 * @arena: the arena.
 * @size:  bytes, a multiple of PAGE_SIZE.
 * @align: alignment, a power of two, at least PAGE_SIZE.
 * @owner: the cache the chunk belongs to; checked on free.
 * @gfp:   GFP_KERNEL to allow a refill; without __GFP_DIRECT_RECLAIM only
 *         the free space the arena already has is used.
 *
 * Context: Process context when a refill is allowed; any context otherwise.
 * Return: the address of the chunk (virtual, or physical for a NONE arena),
 * or 0.  The chunk is zeroed (INT3-filled for ROX).
 */
unsigned long uc_arena_alloc(struct uc_arena *arena, unsigned long size,
			     unsigned long align, void *owner, gfp_t gfp)
{
	unsigned long addr;
	int tries;

	for (tries = 0; tries < UC_POISON_TRIES; tries++) {
		addr = uc_arena_carve(arena, size, align, owner, gfp);
		if (!addr)
			return 0;
		if (!uc_arena_set_aside(arena, addr, size)) {
			uc_arena_reveal(arena, addr, size);
			return addr;
		}
	}
	return 0;
}

/* Make a freed chunk safe for its next owner; see the top of this file. */
static void __uc_arena_scrub(struct uc_arena *arena, unsigned long addr,
			     unsigned long size)
{
	switch (arena->perm) {
	case UNMAPPED_CACHE_ROX:
		arch_unmapped_cache_fill((void *)addr, ARCH_UNMAPPED_CACHE_TRAP_BYTE,
					 size);
		break;
	case UNMAPPED_CACHE_RO:
		arch_unmapped_cache_fill((void *)addr, 0, size);
		break;
	case UNMAPPED_CACHE_RW:
		/* Otherwise zeroed on request when handed out (cache.c). */
		if (want_init_on_free())
			memset((void *)addr, 0, size);
		break;
	case UNMAPPED_CACHE_NONE:
		for (; size; size -= PAGE_SIZE, addr += PAGE_SIZE)
			arch_unmapped_cache_clear_page(pfn_to_page(PHYS_PFN(addr)));
		break;
	default:
		break;
	}
}

/*
 * Nobody but the cache may hold a reference to a page of a mapped arena's
 * chunk; a count a stray put_page() lowered is repaired when the chunk
 * comes back (NONE pages are checked by their own free path, cache.c).
 */
static void uc_arena_check_refs(struct uc_arena *arena, unsigned long addr,
				unsigned long size)
{
	unsigned long end = addr + size, next, i;
	struct page *page;

	if (arena->perm == UNMAPPED_CACHE_NONE)
		return;
	for (; addr < end; addr = next) {
		page = uc_arena_run(arena, addr, end, &next);
		for (i = 0; page && i < (next - addr) >> PAGE_SHIFT; i++)
			uc_arena_refs_repair(arena, page + i, 0);
	}
}

void uc_arena_scrub(struct uc_arena *arena, unsigned long addr,
		    unsigned long size)
{
	unsigned long off;

	uc_arena_check_refs(arena, addr, size);
	if (!uc_arena_poisoned(arena, addr, size)) {
		__uc_arena_scrub(arena, addr, size);
	} else {
		/* A poisoned page is never written: around it, page by page. */
		for (off = 0; off < size; off += PAGE_SIZE)
			if (!uc_arena_poisoned(arena, addr + off, PAGE_SIZE))
				__uc_arena_scrub(arena, addr + off, PAGE_SIZE);
	}
	if (arena->perm == UNMAPPED_CACHE_RO)
		uc_arena_ro_hide(addr, size);
	/*
	 * With KASAN_VMALLOC, a stale access through an old owner's pointer
	 * is reported, as after vfree(): that is how a stale read of freed
	 * text, which stays mapped in its block, gets noticed.
	 */
	if (arena->perm != UNMAPPED_CACHE_NONE)
		kasan_poison_vmalloc((void *)addr, size);
}

/**
 * uc_arena_free() - Give a chunk back to its arena.
 * @arena: the arena the chunk came from.
 * @addr:  its address, as uc_arena_alloc() returned it.
 * @size:  its size, as passed to uc_arena_alloc().
 * @owner: the cache it was allocated for.
 *
 * A chunk that is not live (double free, foreign address), an address in
 * the middle of a chunk, a wrong size or a wrong owner is refused with a
 * warning and the arena is left as it was.
 *
 * Context: Process context for RO and ROX arenas; any context for the
 * others.
 * Return: 0, or -EINVAL for a refused free.
 */
int uc_arena_free(struct uc_arena *arena, unsigned long addr,
		  unsigned long size, void *owner)
{
	unsigned long flags;
	struct uc_range *chunk;

	spin_lock_irqsave(&arena->lock, flags);
	chunk = uc_range_find_busy(&arena->tree, addr);
	if (uc_refuse(!chunk || chunk->owner != owner || chunk->size != size)) {
		spin_unlock_irqrestore(&arena->lock, flags);
		uc_arena_count(arena, UC_ARENA_BAD_FREES, 1);
		return -EINVAL;
	}
	chunk->owner = UC_CHUNK_FREEING;
	spin_unlock_irqrestore(&arena->lock, flags);

	uc_arena_scrub(arena, addr, size);

	spin_lock_irqsave(&arena->lock, flags);
	uc_range_free(&arena->tree, chunk);
	spin_unlock_irqrestore(&arena->lock, flags);
	uc_arena_count(arena, UC_ARENA_FREES, 1);
	return 0;
}

/**
 * uc_arena_free_round() - Give a magazine round back to the tree.
 * @arena: the arena.
 * @addr:  a single-page chunk owned by the magazine layer, already scrubbed.
 *
 * Context: Any context.
 */
void uc_arena_free_round(struct uc_arena *arena, unsigned long addr)
{
	unsigned long flags;
	struct uc_range *chunk;

	spin_lock_irqsave(&arena->lock, flags);
	chunk = uc_range_find_busy(&arena->tree, addr);
	if (WARN_ON_ONCE(!chunk || chunk->owner != UC_OWNER_MAG ||
			 chunk->size != PAGE_SIZE)) {
		spin_unlock_irqrestore(&arena->lock, flags);
		return;
	}
	uc_range_free(&arena->tree, chunk);
	spin_unlock_irqrestore(&arena->lock, flags);
}

/**
 * uc_arena_shrink() - Give fully free blocks back to the page allocator.
 * @arena:   the arena.
 * @keep:    number of blocks to keep, free or not.
 * @max:     give back at most this many blocks (ULONG_MAX: no limit).
 * @trylock: do nothing if a refill or shrink is under way (the shrinker
 *           may run from reclaim inside a refill of this very arena).
 *
 * Blocks are looked at newest first; a block with a live chunk stays.  A
 * free block in hot-added memory goes even if fewer than @keep blocks are
 * left (uc_block_hot_added()): the next refill takes another block
 * rather than pin memory that may be unplugged.
 *
 * Context: Process context; may sleep.
 * Return: the number of blocks given back.
 */
unsigned long uc_arena_shrink(struct uc_arena *arena, unsigned long keep,
			      unsigned long max, bool trylock)
{
	unsigned long flags;
	struct uc_range *spare[UC_RANGE_SPARES] = { };
	struct uc_block *block, *next;
	unsigned long freed = 0;
	int err;

	/* A block whose pages settled can go too. */
	uc_arena_settled_flush(arena);
	if (trylock) {
		if (!mutex_trylock(&arena->grow_lock))
			return 0;
	} else {
		mutex_lock(&arena->grow_lock);
	}
	list_for_each_entry_safe_reverse(block, next, &arena->blocks, list) {
		if (freed >= max)
			break;
		if (arena->nr_blocks <= keep && !uc_block_hot_added(block))
			continue;
		if (uc_range_spares_fill(spare, trylock ? GFP_NOWAIT : GFP_KERNEL))
			break;
		spin_lock_irqsave(&arena->lock, flags);
		err = uc_range_remove(&arena->tree, block->addr,
				      UNMAPPED_CACHE_BLOCK_SIZE, spare);
		spin_unlock_irqrestore(&arena->lock, flags);
		if (err)
			continue;	/* -EBUSY: a chunk is live in it */
		uc_arena_drop_block(arena, block);
		freed++;
	}
	mutex_unlock(&arena->grow_lock);
	uc_range_spares_release(spare);
	return freed;
}

/**
 * uc_shrink_all() - Shrink every arena, or every arena of a node.
 * @nid:     the node whose arenas to shrink, NUMA_NO_NODE for all.
 * @keep:    blocks each arena keeps.
 * @max:     blocks to give back at most, over all arenas (ULONG_MAX: no
 *           limit); arenas are taken in uc_arena_list order.
 * @trylock: as for uc_arena_shrink().
 *
 * Context: Process context; may sleep.
 * Return: the number of blocks given back.
 */
unsigned long uc_shrink_all(int nid, unsigned long keep, unsigned long max,
			    bool trylock)
{
	struct uc_arena *arena;
	unsigned long freed = 0;

	list_for_each_entry(arena, &uc_arena_list, node) {
		if (freed >= max)
			break;
		if (nid != NUMA_NO_NODE && arena->nid != nid)
			continue;
		freed += uc_arena_shrink(arena, keep, max - freed, trylock);
	}
	return freed;
}

/**
 * uc_arena_lookup() - Find the arena that owns an address.
 * @perm:  permission of the arena to look in.
 * @addr:  virtual address for mapped arenas, physical for NONE.
 * @pagep: if not NULL, set to the page at @addr.
 *
 * Context: Any context for NONE; for mapped arenas, any context that may
 * call vmalloc_to_page().
 * Return: the arena, or NULL if @addr is not in a block of an arena of
 * that permission.
 */
struct uc_arena *uc_arena_lookup(enum unmapped_cache_perm perm,
				 unsigned long addr, struct page **pagep)
{
	struct uc_block *block;
	struct uc_arena *arena;
	struct page *page;
	unsigned long pfn;

	if (perm == UNMAPPED_CACHE_NONE) {
		pfn = PHYS_PFN(addr);
		if (!pfn_valid(pfn))
			return NULL;
		page = pfn_to_page(pfn);
	} else {
		if (!is_vmalloc_or_module_addr((void *)addr))
			return NULL;
		page = vmalloc_to_page((void *)addr);
		if (!page)
			return NULL;
		pfn = page_to_pfn(page);
	}
	if (pagep)
		*pagep = page;
	/*
	 * @addr may be a bad pointer from a caller, in a block that another
	 * CPU is releasing: the block structure is freed after a grace
	 * period, and the arenas are never freed.
	 */
	rcu_read_lock();
	block = uc_block_lookup(pfn);
	arena = block ? READ_ONCE(block->owner) : NULL;
	rcu_read_unlock();
	if (!arena || arena->perm != perm)
		return NULL;
	return arena;
}

/**
 * uc_arena_get() - The arena of a permission on a node.
 * @perm: permission.
 * @nid:  node, or NUMA_NO_NODE for the local memory node.
 *
 * Return: the arena, or NULL if the node has no memory (or no arena could
 * be set up for it at boot).
 */
struct uc_arena *uc_arena_get(enum unmapped_cache_perm perm, int nid)
{
	if (nid == NUMA_NO_NODE)
		nid = numa_mem_id();
	if (uc_refuse(perm >= UNMAPPED_CACHE_NR_PERMS || nid < 0 ||
		      nid >= MAX_NUMNODES))
		return NULL;
	return uc_arenas[perm][nid];
}

/**
 * uc_arena_info() - Snapshot of an arena's state, for debugfs and tests.
 * @arena: the arena.
 * @info:  filled in.
 */
void uc_arena_info(struct uc_arena *arena, struct uc_arena_info *info)
{
	unsigned long flags;

	spin_lock_irqsave(&arena->lock, flags);
	info->free_bytes = arena->tree.free_bytes;
	info->busy_bytes = arena->tree.busy_bytes;
	info->largest_free = uc_range_largest_free(&arena->tree);
	spin_unlock_irqrestore(&arena->lock, flags);
	info->nr_blocks = READ_ONCE(arena->nr_blocks);
}

/**
 * uc_arena_hot_added_blocks() - How many of an arena's blocks lie in memory
 * added after boot (uc_block_hot_added()).
 * @arena: the arena.
 *
 * Context: Process context; takes the arena's grow_lock.
 * Return: the number of such blocks, free or not.
 */
unsigned long uc_arena_hot_added_blocks(struct uc_arena *arena)
{
	struct uc_block *block;
	unsigned long n = 0;

	guard(mutex)(&arena->grow_lock);
	list_for_each_entry(block, &arena->blocks, list)
		if (uc_block_hot_added(block))
			n++;
	return n;
}

/**
 * uc_arena_chunk_size() - The size of the live chunk of an owner that
 * starts at an address.
 * @arena: the arena.
 * @addr:  the chunk's first byte.
 * @owner: the owner it must have.
 *
 * Context: Any context.
 * Return: the chunk's size in bytes, or 0 if no live chunk of @owner
 * starts at @addr.
 */
unsigned long uc_arena_chunk_size(struct uc_arena *arena, unsigned long addr,
				  void *owner)
{
	unsigned long flags, size = 0;
	struct uc_range *chunk;

	spin_lock_irqsave(&arena->lock, flags);
	chunk = uc_range_find_busy_containing(&arena->tree, addr);
	if (chunk && chunk->owner == owner && chunk->start == addr)
		size = chunk->size;
	spin_unlock_irqrestore(&arena->lock, flags);
	return size;
}

/**
 * uc_arena_owns() - Whether a range lies in one live chunk of an owner.
 * @arena: the arena.
 * @addr:  start of the range.
 * @len:   its length in bytes, not zero.
 * @owner: the cache that must own the chunk.
 *
 * Context: Any context.
 * Return: true if [@addr, @addr + @len) is inside one live chunk of @owner.
 */
bool uc_arena_owns(struct uc_arena *arena, unsigned long addr,
		   unsigned long len, void *owner)
{
	unsigned long flags;
	struct uc_range *chunk;
	bool ret = false;

	if (!len || addr + len < addr)
		return false;
	spin_lock_irqsave(&arena->lock, flags);
	chunk = uc_range_find_busy_containing(&arena->tree, addr);
	if (chunk && chunk->owner == owner &&
	    addr + len <= chunk->start + chunk->size)
		ret = true;
	spin_unlock_irqrestore(&arena->lock, flags);
	return ret;
}

#ifdef CONFIG_UNMAPPED_CACHE_TEST_HOOKS
/* Run the range tree's consistency check (tests and debugging). */
int uc_arena_check(struct uc_arena *arena)
{
	unsigned long flags;
	int err;

	spin_lock_irqsave(&arena->lock, flags);
	err = uc_range_tree_check(&arena->tree);
	spin_unlock_irqrestore(&arena->lock, flags);
	return err;
}
#endif

#ifdef CONFIG_UNMAPPED_CACHE_TEST_HOOKS
/**
 * uc_randomize_hold() - Place chunks lowest first until uc_randomize_unhold().
 *
 * For tests that count the blocks a pattern of chunks takes: a random
 * floor leaves up to a block's worth of pages below it, which can cost one
 * more block.  Clears the floor of every arena; new ones are set again
 * once the last holder is gone.
 */
void uc_randomize_hold(void)
{
	struct uc_arena *arena;
	unsigned long flags;

	atomic_inc(&uc_randomize_held);
	list_for_each_entry(arena, &uc_arena_list, node) {
		spin_lock_irqsave(&arena->lock, flags);
		arena->tree.floor = 0;
		spin_unlock_irqrestore(&arena->lock, flags);
	}
}

void uc_randomize_unhold(void)
{
	atomic_dec(&uc_randomize_held);
}
#endif

int __init uc_arenas_init(void)
{
	enum unmapped_cache_perm perm;
	struct uc_arena *arena;
	int nid;

	uc_randomize_init();
	for_each_node_state(nid, N_MEMORY) {
		for (perm = 0; perm < UNMAPPED_CACHE_NR_PERMS; perm++) {
			arena = kzalloc_node(sizeof(*arena), GFP_KERNEL, nid);
			if (!arena)
				return -ENOMEM;
			arena->perm = perm;
			arena->nid = nid;
			spin_lock_init(&arena->lock);
			mutex_init(&arena->grow_lock);
			INIT_LIST_HEAD(&arena->blocks);
			INIT_LIST_HEAD(&arena->settling);
			INIT_LIST_HEAD(&arena->vspaces);
			INIT_LIST_HEAD(&arena->ready);
			INIT_WORK(&arena->refill_work, uc_arena_refill_fn);
			uc_range_tree_init(&arena->tree);
			/* Whole free blocks, for the shrinker's count. */
			arena->tree.unit_shift = ilog2(UNMAPPED_CACHE_BLOCK_SIZE);
			uc_arenas[perm][nid] = arena;
			list_add_tail(&arena->node, &uc_arena_list);
		}
	}
	return 0;
}
