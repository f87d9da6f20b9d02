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
#include <linux/kasan.h>
#include <linux/list.h>
/* First: on PREEMPT_RT <linux/local_lock.h> uses spinlock_t unincluded. */
#include <linux/spinlock.h>
#include <linux/local_lock.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/unmapped_cache.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "arch_hooks.h"
#include "range.h"

/* Calls refused for bad input (uc_refuse()); shown in debugfs "blocks". */
extern atomic_long_t uc_bad_calls;

/**
 * uc_refuse() - Check a caller's input; count and warn if it is bad.
 * @cond: true if the call must be refused.
 *
 * WARN_ON_ONCE() for a bad argument passed to the cache (a double free, a
 * foreign pointer, a wrong size or cache...), which the caller then
 * refuses cleanly.  The warning is printed once per call site and boot;
 * uc_bad_calls counts every refusal, so that tests and administrators see
 * each one.  Not for the cache's own inconsistencies: those keep a plain
 * WARN_ON_ONCE().
 *
 * Return: @cond, as WARN_ON_ONCE() does.
 */
#define uc_refuse(cond) ({						\
	bool __uc_bad = !!(cond);					\
									\
	if (unlikely(__uc_bad))						\
		atomic_long_inc(&uc_bad_calls);				\
	WARN_ON_ONCE(__uc_bad);						\
})

/**
 * struct uc_block - A block held by the cache.
 * @page:  first of its %UNMAPPED_CACHE_BLOCK_PAGES pages.  The block was
 *         split_page()d when taken, so every page is an order-0 page with a
 *         reference count of its own.
 * @nid:   NUMA node the pages are on.
 * @owner: the user of the block (an arena), or NULL.  Set and cleared by
 *         the owner; the block layer only carries it.
 * @list:  free for the owner's use (the arena's list of blocks).
 * @addr:  where the owner placed the block: its address in the module area
 *         for a mapped arena, its physical address for a NONE arena.
 * @vspace: the reservation of virtual space the block is mapped in, if any.
 * @arch_state: what arch_unmapped_cache_unmap_block() left for the restore.
 * @retries: deferred releases tried (see uc_block_retire()).
 * @rcu:   frees the structure after a grace period: uc_block_lookup() may
 *         run concurrently with the release (see uc_arena_lookup()).
 *
 * Blocks are recorded in uc_blocks (block.c) from the moment they are taken
 * until they are back in the page allocator, so any pfn can be checked for
 * belonging to the cache with uc_block_lookup().  @owner and @addr change
 * while lockless readers may look at them: they are written with
 * WRITE_ONCE() and read with READ_ONCE().
 */
struct uc_block {
	struct page *page;
	int nid;
	void *owner;
	struct list_head list;
	unsigned long addr;
	struct uc_vspace *vspace;
	unsigned long arch_state;
	unsigned int retries;
	struct rcu_head rcu;
};

/* Blocks a mapped arena reserves virtual space for at a time (arena.c). */
#define UC_VSPACE_SLOTS	8UL

/**
 * struct uc_vspace - Virtual space reserved for blocks of a mapped arena.
 * @area:      the reservation, in the module area, 2M aligned, with the
 *             guard page vmalloc puts after it.
 * @node:      in the arena's vspaces list.
 * @nr_slots:  blocks it has room for (at most BITS_PER_LONG).
 * @nr_blocks: blocks mapped in it; the last one to leave frees it.
 * @used:      bitmap of the slots with a block mapped.
 *
 * Access under the owning arena's grow_lock (arena.c).
 */
struct uc_vspace {
	struct vm_struct *area;
	struct list_head node;
	unsigned long nr_slots;
	unsigned long nr_blocks;
	unsigned long used;
};

/* Blocks a grab asks for, past one in a 1 GiB leaf (see block.c). */
#define UC_BLOCK_GB_TRIES	8

/* Counters of the block layer; see uc_block_stat_names[] in block.c. */
enum uc_block_stat {
	UC_BLOCK_GRABBED,		/* blocks taken out of the direct map */
	UC_BLOCK_RELEASED,		/* blocks given back to the page allocator */
	UC_BLOCK_ALLOC_FAILED,		/* no order-9 page on the node */
	UC_BLOCK_UNMAP_FAILED,		/* direct-map removal failed */
	UC_BLOCK_META_FAILED,		/* no memory for struct uc_block */
	UC_BLOCK_RELEASE_REFUSED,	/* release of a busy or foreign block */
	UC_BLOCK_RELEASE_DEFERRED,	/* retire of a busy block: retried later */
	UC_BLOCK_RESTORE_FAILED,	/* restore failed: block leaked on purpose */
	UC_BLOCK_POISON_KEPT,		/* release of a block with a poisoned page */
	UC_BLOCK_PAGES_IN,		/* pages taken from the page allocator */
	UC_BLOCK_PAGES_OUT,		/* pages handed back to the page allocator */
	UC_BLOCK_COMPACTED,		/* blocks found only by direct compaction */
	UC_BLOCK_GB_SPARED,		/* grabs that passed over a block in a 1G leaf */
	UC_BLOCK_PASSED_OVER,		/* blocks passed over so */
	UC_BLOCK_GB_SPLIT,		/* blocks taken out of a 1G leaf anyway */
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

struct uc_block *__uc_block_grab(int nid, int fill, gfp_t gfp);
struct uc_block *uc_block_grab(int nid, int fill);
int uc_block_release(struct uc_block *block);
void uc_block_retire(struct uc_block *block);
void uc_blocks_retry(void);
long uc_blocks_deferred(void);
long uc_blocks_poisoned(void);
bool uc_page_refs_repair(struct page *page, int extra);
bool uc_pages_poisoned(struct page *page, unsigned long nr);

/*
 * Whether memory_failure() ever flagged a page: the cheap gate before any
 * look at the pages' hardware-poison flags.
 */
static inline bool uc_poison_seen(void)
{
	return IS_ENABLED(CONFIG_MEMORY_FAILURE) &&
	       atomic_long_read(&num_poisoned_pages);
}

struct uc_block *uc_block_lookup(unsigned long pfn);

/*
 * A block in memory added after boot (virtio-mem, ACPI memory hotplug,
 * dax/kmem), which may be asked back: the arenas never keep such a block
 * when it is entirely free (uc_arena_shrink()), so that the reaper or
 * reclaim hands it back to the page allocator and offlining its memory
 * block can succeed, as it would if the cache had never used it.  A
 * block with a live chunk makes offlining fail, as any unmovable
 * allocation does.
 */
static inline bool uc_block_hot_added(const struct uc_block *block)
{
	return IS_ENABLED(CONFIG_MEMORY_HOTREMOVE) &&
	       !early_section(__pfn_to_section(page_to_pfn(block->page)));
}

/**
 * struct uc_verify - What uc_blocks_verify() and uc_vmaps_verify() found.
 * @blocks:      blocks held.
 * @pages:       their pages.
 * @dm_present:  pages with a present direct-map entry (must be 0).
 * @wx:          module-area pages mapped writable and executable (0).
 * @ro_writable: pages of RO and ROX blocks mapped writable (0).
 * @rw_exec:     pages of RW blocks mapped executable (0).
 * @vmaps:       mappings made by unmapped_cache_vmap() (execmem).
 * @vmap_pages:  their pages.
 * @vmap_exec:   those mapped executable (live module text, kprobe pages,
 *               trampolines): shows that the walk saw real code.
 * @vmap_dm_present: those with a present direct-map entry (0).
 * @vmap_wx:     those mapped writable and executable (0).
 * @poisoned:    pages of the blocks with a hardware-poison flag.
 */
struct uc_verify {
	unsigned long blocks;
	unsigned long pages;
	unsigned long dm_present;
	unsigned long wx;
	unsigned long ro_writable;
	unsigned long rw_exec;
	unsigned long vmaps;
	unsigned long vmap_pages;
	unsigned long vmap_exec;
	unsigned long vmap_dm_present;
	unsigned long vmap_wx;
	unsigned long poisoned;
};

#ifdef CONFIG_UNMAPPED_CACHE_TEST_HOOKS
void uc_blocks_verify(struct uc_verify *res);
void uc_vmaps_verify(struct uc_verify *res);
#endif

static inline unsigned long uc_block_addr(const struct uc_block *block)
{
	return (unsigned long)page_address(block->page);
}

/**
 * struct uc_cache_count - What a cache has live, counted on each CPU.
 * @chunks: chunks allocated minus chunks freed on this CPU.
 * @pages:  the same in pages.
 *
 * Per CPU so that the single-page fast path touches no shared cache line;
 * only the sum over all CPUs means anything.
 */
struct uc_cache_count {
	long chunks;
	long pages;
};

/**
 * struct unmapped_cache - A user's handle (see include/linux/unmapped_cache.h).
 * @name:  for statistics.
 * @perm:  which arenas its chunks come from.
 * @secret: a NONE cache whose pages nobody maps in the kernel: they never
 *         reach a hibernation image or /proc/kcore (pm.c).  Every NONE
 *         cache of unmapped_cache_create(); not execmem's (vmap.c).
 * @count: live chunks and pages, per CPU (uc_cache_live()).
 * @list:  in uc_caches; under uc_caches_lock (cache.c).
 */
struct unmapped_cache {
	const char *name;
	enum unmapped_cache_perm perm;
	bool secret;
	struct uc_cache_count __percpu *count;
	struct list_head list;
};

/* Rounds (single-page chunks) per magazine: 1016 bytes, a kmalloc-1k object. */
#define UC_MAG_ROUNDS	62

/* Range-tree owner of the chunks that are rounds of the magazine layer. */
#define UC_OWNER_MAG	((void *)-2L)
/*
 * ->private of a block's page that is not a round handed out: a page the
 * cache holds.
 */
extern const int uc_page_free_tag;
#define UC_PAGE_FREE	((unsigned long)&uc_page_free_tag)

/*
 * A page's ->private is written here and nowhere else.  A block's pages
 * carry UC_PAGE_FREE while the cache holds them; a single-page chunk (a
 * round of the magazine layer) handed to a cache carries that cache, so
 * that a free through the wrong cache, or twice, is caught.  The page
 * belongs to its owner while it holds the round, so only the freeing CPU
 * writes ->private; the cmpxchg of uc_page_untag() makes one of two
 * concurrent frees of the same page fail.
 */
static inline void uc_page_tag(struct page *page, void *owner)
{
	WRITE_ONCE(page->private, (unsigned long)owner);
}

/*
 * Check and clear the tag of a round given back by @owner.  Always inlined:
 * it is on the fast path, and its cmpxchg is the one atomic that path is
 * known to have (devtools/check-atomics.py lists it in the callers).
 */
static __always_inline bool uc_page_untag(struct page *page, void *owner)
{
	return page && try_cmpxchg(&page->private, (unsigned long *)&owner,
				   UC_PAGE_FREE);
}

static inline bool uc_page_owned_by(struct page *page, void *owner)
{
	return page && READ_ONCE(page->private) == (unsigned long)owner;
}

/*
 * The reference count of every page of a block the cache holds and has not
 * handed out: the one split_page() gave it, and one more the cache keeps so
 * that the count can never drop to zero anywhere else.  A page of the cache
 * therefore never reaches the page allocator's free path (which could not
 * use a page without a direct-map entry) but through uc_block_release():
 * a stray put_page() leaves it at one, which the cache finds, warns about
 * and repairs the next time it looks (arena.c, "References").  A NONE page
 * handed out has one more, its owner's.
 */
#define UC_PAGE_REFS	2
/* Owner of a chunk set aside for a hardware-poisoned page (arena.c). */
#define UC_OWNER_POISON	((void *)-3L)

/**
 * struct uc_magazine - A stack of single-page chunks (rounds) of one arena.
 * @list:   in the depot's full or empty list, under the depot lock.
 * @rounds: how many entries of @addr and @page are valid.
 * @addr:   the chunks' addresses (virtual, or physical for NONE).
 * @page:   their pages, whose ->private records the cache holding a round
 *          while it is handed out.
 */
struct uc_magazine {
	struct list_head list;
	unsigned long rounds;
	unsigned long addr[UC_MAG_ROUNDS];
	struct page *page[UC_MAG_ROUNDS];
};

/* Per-CPU counters of the magazine layer; see magazine.c. */
enum uc_mag_stat {
	UC_MAG_ALLOC_HIT,
	UC_MAG_ALLOC_MISS,
	UC_MAG_FREE_HIT,
	UC_MAG_FREE_MISS,
	UC_MAG_STAT_COUNT,
};

/**
 * struct uc_mag_cpu - One CPU's magazines of one arena.
 * @lock:     this CPU's local lock; the only lock of the fast path.
 * @loaded:   the magazine allocations pop from and frees push to.
 * @previous: the one before it; always full or empty.
 * @rounds:   pages in the two, for statistics (uc_mag_rounds()).
 * @stats:    counters, written by this CPU only.
 */
struct uc_mag_cpu {
	local_lock_t lock;
	struct uc_magazine *loaded;
	struct uc_magazine *previous;
	long rounds;
	unsigned long stats[UC_MAG_STAT_COUNT];
};

/* Counters of a depot, written under its lock; see magazine.c. */
enum uc_depot_stat {
	UC_DEPOT_LOCKED,
	UC_DEPOT_FULL_OUT,
	UC_DEPOT_FULL_IN,
	UC_DEPOT_REAPED,
	UC_DEPOT_STAT_COUNT,
};

/**
 * struct uc_depot - Full and empty magazines of an arena, for all CPUs.
 * @lock:      protects everything below.
 * @full:      full magazines.
 * @empty:     empty magazines.
 * @partial:   partly used magazines flushed from CPUs (drain, CPU
 *             offline); never handed out again; a drain empties them.
 * @partial_rounds: rounds of the magazines on @partial (read without
 *             the lock by the shrinker's count).
 * @nr_full:   length of @full (read without the lock as a hint).
 * @nr_empty:  length of @empty (likewise).
 * @min_full:  fewest full magazines since the last reap: the working set
 *             did not need them.
 * @min_empty: likewise for empty ones.
 * @stats:     counters.
 */
struct uc_depot {
	spinlock_t lock;	/* protects the lists, counts and stats */
	struct list_head full;
	struct list_head empty;
	struct list_head partial;
	unsigned long partial_rounds;
	unsigned long nr_full;
	unsigned long nr_empty;
	unsigned long min_full;
	unsigned long min_empty;
	unsigned long stats[UC_DEPOT_STAT_COUNT];
};

/* Counters of an arena; see uc_arena_stat_names[] in arena.c. */
enum uc_arena_stat {
	UC_ARENA_ALLOCS,
	UC_ARENA_FREES,
	UC_ARENA_REFILLS,
	UC_ARENA_REFILL_FAILED,
	UC_ARENA_BLOCKS_IN,
	UC_ARENA_BLOCKS_OUT,
	UC_ARENA_BAD_FREES,
	UC_ARENA_POISON_SET_ASIDE,
	UC_ARENA_SETTLED,
	UC_ARENA_STRAY_PUTS,
	UC_ARENA_REFILLS_DEFERRED,
	UC_ARENA_WORKER_REFILLS,
	UC_ARENA_WORKER_FAILED,
	UC_ARENA_STAT_COUNT,
};

/**
 * struct uc_arena - The blocks of one permission on one node.
 * @perm:      what the chunks may be used for.
 * @nid:       node the blocks come from.
 * @lock:      protects @tree; nothing under it sleeps or allocates.
 * @tree:      free and busy chunks; access under @lock.
 * @grow_lock: serializes refills and shrinks; taken before @lock.
 * @blocks:    the blocks, oldest first; access under @grow_lock.
 * @vspaces:   the mapped arena's reservations of module-area space
 *             (struct uc_vspace); access under @grow_lock.
 * @nr_blocks: length of @blocks; written under @grow_lock.
 * @stats:     counters, see enum uc_arena_stat.
 * @mags:      each CPU's magazines.
 * @depot:     the magazines no CPU has loaded.
 * @reap_allocs: allocations (from the tree and the magazines) counted at
 *             the last periodic reap; only the reaper touches it
 *             (shrinker.c).
 * @node:      in uc_arena_list.
 * @settling:  NONE rounds given back by their owner while somebody else
 *             still held a reference, linked by page->lru; under @lock.
 * @nr_settling: length of @settling; written under @lock.
 * @refill_work: the refill left to a worker (arena.c, "Refills").
 * @refill_size: the largest size a caller could not refill since the
 *             worker last ran; under @lock.
 * @refill_align: its alignment; under @lock.
 * @ready:     blocks the worker took, on their way into the arena; under
 *             @grow_lock.
 */
struct uc_arena {
	enum unmapped_cache_perm perm;
	int nid;
	spinlock_t lock;		/* protects tree */
	struct uc_range_tree tree;
	struct mutex grow_lock;		/* serializes refill and shrink */
	struct list_head blocks;
	struct list_head vspaces;
	unsigned long nr_blocks;
	atomic_long_t stats[UC_ARENA_STAT_COUNT];
	struct uc_mag_cpu __percpu *mags;
	struct uc_depot depot;
	long reap_allocs;
	struct list_head node;
	struct list_head settling;
	unsigned long nr_settling;
	struct work_struct refill_work;
	unsigned long refill_size;
	unsigned long refill_align;
	struct list_head ready;
};

/* What uc_arena_info() reports. */
struct uc_arena_info {
	unsigned long nr_blocks;
	unsigned long free_bytes;
	unsigned long busy_bytes;
	unsigned long largest_free;
};

/*
 * KASAN without KASAN_VMALLOC has no shadow for the module area until
 * whoever maps memory there allocates it, as execmem does; in the vmalloc
 * area, and in every other configuration, there is nothing to do.
 * free_vm_area() frees it again.
 */
static inline int uc_kasan_shadow_alloc(struct vm_struct *area, size_t size)
{
	if (is_vmalloc_addr(area->addr))
		return 0;
	return kasan_alloc_module_shadow(area->addr, size, GFP_KERNEL);
}

extern struct uc_arena *uc_arenas[UNMAPPED_CACHE_NR_PERMS][MAX_NUMNODES];
/* Every arena, linked by uc_arena.node; set up at boot, never changed. */
extern struct list_head uc_arena_list;
extern const char *const uc_perm_names[UNMAPPED_CACHE_NR_PERMS];
extern const char *const uc_arena_stat_names[UC_ARENA_STAT_COUNT];

static inline long uc_arena_stat(struct uc_arena *arena, enum uc_arena_stat item)
{
	return atomic_long_read(&arena->stats[item]);
}

int uc_arenas_init(void);
struct uc_arena *uc_arena_get(enum unmapped_cache_perm perm, int nid);
struct uc_arena *uc_arena_lookup(enum unmapped_cache_perm perm,
				 unsigned long addr, struct page **pagep);
unsigned long uc_arena_alloc(struct uc_arena *arena, unsigned long size,
			     unsigned long align, void *owner, gfp_t gfp);
bool uc_arena_set_aside(struct uc_arena *arena, unsigned long addr,
			unsigned long size);
int uc_arena_free(struct uc_arena *arena, unsigned long addr,
		  unsigned long size, void *owner);
unsigned long uc_arena_shrink(struct uc_arena *arena, unsigned long keep,
			      unsigned long max, bool trylock);
void uc_arena_free_round(struct uc_arena *arena, unsigned long addr);
void uc_arena_scrub(struct uc_arena *arena, unsigned long addr,
		    unsigned long size);
void uc_arena_reveal(struct uc_arena *arena, unsigned long addr,
		     unsigned long size);
bool uc_arena_ro_take_hidden(void);
bool uc_arena_refs_repair(struct uc_arena *arena, struct page *page, int extra);
bool uc_page_claim(struct uc_arena *arena, struct page *page);
void uc_arena_settle(struct uc_arena *arena, struct page *page);
struct page *uc_arena_settled_take(struct uc_arena *arena);
unsigned long uc_arena_settled_flush(struct uc_arena *arena);

extern const char *const uc_mag_stat_names[UC_MAG_STAT_COUNT];
extern const char *const uc_depot_stat_names[UC_DEPOT_STAT_COUNT];
int uc_mag_init(void);
unsigned long uc_mag_alloc(struct uc_arena *arena, struct page **pagep);
bool uc_mag_free(struct uc_arena *arena, unsigned long addr, struct page *page);
unsigned long uc_mag_drain(void);
unsigned long uc_mag_drain_arena(struct uc_arena *arena);
unsigned long uc_mag_drain_node(int nid);
unsigned long uc_mag_reap(int nid);
unsigned long uc_depot_rounds(struct uc_arena *arena);
unsigned long uc_mag_rounds(struct uc_arena *arena);
unsigned long uc_mag_drainable_rounds(struct uc_arena *arena);
unsigned long uc_mag_flushes_sent(void);
unsigned long uc_mag_stat(struct uc_arena *arena, enum uc_mag_stat item);
unsigned long uc_shrink_all(int nid, unsigned long keep, unsigned long max,
			    bool trylock);
unsigned long uc_drain(void);
struct shrinker;
struct shrink_control;
unsigned long uc_shrink_count(struct shrinker *shrinker,
			      struct shrink_control *sc);
unsigned long uc_shrink_scan(struct shrinker *shrinker,
			     struct shrink_control *sc);
struct seq_file;
void uc_caches_show(struct seq_file *seq);
long uc_cache_live(struct unmapped_cache *cache, bool pages);
unsigned long uc_released_pages(void);
struct unmapped_cache *uc_cache_create(const char *name,
				       enum unmapped_cache_perm perm, bool secret);
struct unmapped_cache *uc_none_cache_of(unsigned long tag);
void uc_hibernate_stats(unsigned long *copied, unsigned long *zeroed);
int uc_vmap_init(void);
long uc_vmap_stat_pages(void);
void uc_vmap_purge(void);
int uc_shrinker_init(void);
void uc_reap_init(void);
/* Blocks each arena keeps when the shrinker runs (shrinker.c). */
#define UC_SHRINK_KEEP	1
unsigned long uc_reap(void);

/**
 * struct uc_reaper - The timer of the periodic reaper.
 * @work:        runs the reaper (shrinker.c), which sets it up.
 * @interval_ms: unmapped_cache.reap_interval_ms; 0: never.
 * @ready:       @work is set up and the arenas exist (set once, with a
 *               release store; read with an acquire load).
 * @held:        uc_reap_hold() calls not undone yet.
 *
 * Lives in arena.c, which arms it when a block comes in (uc_reap_arm()),
 * so that the arenas need not call up into the shrinker's file.
 */
struct uc_reaper {
	struct delayed_work work;
	unsigned int interval_ms;
	bool ready;
	atomic_t held;
};

extern struct uc_reaper uc_reaper;

/* Whether the reaper's work is set up (by uc_reap_init()). */
static inline bool uc_reaper_ready(void)
{
	/* Acquire: pairs with the release in uc_reap_init(). */
	return smp_load_acquire(&uc_reaper.ready);
}

void uc_reap_arm(void);
void uc_arena_info(struct uc_arena *arena, struct uc_arena_info *info);
struct page *uc_arena_page(struct uc_arena *arena, unsigned long addr);
unsigned long uc_arena_hot_added_blocks(struct uc_arena *arena);
#ifdef CONFIG_UNMAPPED_CACHE_TEST_HOOKS
/* Self-checks and test switches: debugfs and KUnit only. */
void uc_reap_hold(void);
void uc_reap_unhold(void);
void uc_randomize_hold(void);
void uc_randomize_unhold(void);
int uc_arena_check(struct uc_arena *arena);
#endif
bool uc_arena_owns(struct uc_arena *arena, unsigned long addr,
		   unsigned long len, void *owner);
unsigned long uc_arena_chunk_size(struct uc_arena *arena, unsigned long addr,
				  void *owner);

/* setup.c: set by the initcall (init.c) once every layer is up. */
extern bool uc_enabled;
/* setup.c: "unmapped_cache=off" was given. */
extern bool uc_off __initdata;

#ifdef CONFIG_UNMAPPED_CACHE_FAULT_INJECTION
void uc_fault_debugfs_init(void);
extern struct fault_attr fail_unmapped_cache_block;
extern struct fault_attr fail_unmapped_cache_direct_map;
extern struct fault_attr fail_unmapped_cache_vspace;
extern struct fault_attr fail_unmapped_cache_magazine;
extern struct fault_attr fail_unmapped_cache_page_held;
extern struct fault_attr fail_unmapped_cache_gb_leaf;
extern struct fault_attr fail_unmapped_cache_no_free_block;
bool uc_should_fail_vspace(unsigned long size);
bool uc_should_fail_magazine(void);
bool uc_should_hold_page(void);
int uc_should_see_gb_leaf(void);
bool uc_should_find_no_free_block(void);
#else
static inline void uc_fault_debugfs_init(void) { }
static inline bool uc_should_fail_vspace(unsigned long size) { return false; }
static inline bool uc_should_fail_magazine(void) { return false; }
static inline bool uc_should_hold_page(void) { return false; }
static inline int uc_should_see_gb_leaf(void) { return -1; }
static inline bool uc_should_find_no_free_block(void) { return false; }
#endif

#ifdef CONFIG_UNMAPPED_CACHE_EXERCISE
void uc_exercise_show(struct seq_file *seq);
void uc_exercise_debugfs_init(struct dentry *root);
#else
static inline void uc_exercise_show(struct seq_file *seq) { }
static inline void uc_exercise_debugfs_init(struct dentry *root) { }
#endif

#ifdef CONFIG_UNMAPPED_CACHE_DEBUG
void uc_debugfs_init(struct dentry *root);
#else
static inline void uc_debugfs_init(struct dentry *root) { }
#endif

#endif /* MM_UNMAPPED_CACHE_INTERNAL_H */
