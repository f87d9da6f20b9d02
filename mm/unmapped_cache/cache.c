// SPDX-License-Identifier: GPL-2.0
/*
 * The public interface of the unmapped cache: caches, the handles users
 * allocate through.
 *
 * A cache is a name, a permission and counters.  It owns no memory of its
 * own: its chunks come from the arena of its permission on the node asked
 * for, and every chunk records the cache it was allocated for, so that a
 * free through the wrong cache is caught.  Caches of the same permission
 * share blocks.
 */

#define pr_fmt(fmt) "unmapped_cache: " fmt

#include <linux/bug.h>
#include <linux/cpuset.h>
#include <linux/list.h>
#include <linux/memcontrol.h>
#include <linux/mempolicy.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/unmapped_cache.h>
#include <linux/vmstat.h>
#include <linux/workqueue.h>

#include "internal.h"

#include <trace/events/unmapped_cache.h>

static LIST_HEAD(uc_caches);		/* under uc_caches_lock */
static DEFINE_MUTEX(uc_caches_lock);

static bool uc_none_cache_add(struct unmapped_cache *cache);
static void uc_none_cache_del(struct unmapped_cache *cache);

/**
 * unmapped_cache_create() - Create a cache.
 * @name: name for statistics; the string must outlive the cache.
 * @perm: what its memory may be used for.
 *
 * Context: Process context; may sleep.
 * Return: the cache, or NULL if the unmapped cache is not usable (see
 * unmapped_cache_enabled()), @perm is invalid, or memory is short.
 */
struct unmapped_cache *unmapped_cache_create(const char *name,
					     enum unmapped_cache_perm perm)
{
	return uc_cache_create(name, perm, perm == UNMAPPED_CACHE_NONE);
}

/*
 * unmapped_cache_create(), and for the cache's own users the choice of a
 * NONE cache whose pages are not secret (execmem's, which it maps).
 */
struct unmapped_cache *uc_cache_create(const char *name,
				       enum unmapped_cache_perm perm, bool secret)
{
	struct unmapped_cache *cache;

	if (uc_refuse(perm >= UNMAPPED_CACHE_NR_PERMS || !name))
		return NULL;
	if (!unmapped_cache_enabled())
		return NULL;

	cache = kzalloc(sizeof(*cache), GFP_KERNEL);
	if (!cache)
		return NULL;
	cache->count = alloc_percpu(struct uc_cache_count);
	if (!cache->count) {
		kfree(cache);
		return NULL;
	}
	cache->name = name;
	cache->perm = perm;
	cache->secret = secret && perm == UNMAPPED_CACHE_NONE;

	guard(mutex)(&uc_caches_lock);
	if (perm == UNMAPPED_CACHE_NONE && !uc_none_cache_add(cache)) {
		pr_warn("%s: too many NONE caches\n", name);
		free_percpu(cache->count);
		kfree(cache);
		return NULL;
	}
	list_add_tail(&cache->list, &uc_caches);
	return cache;
}

/* The vmstat counters of pages handed out follow enum unmapped_cache_perm. */
static_assert(NR_UNMAPPED_CACHE_RO - NR_UNMAPPED_CACHE_NONE == UNMAPPED_CACHE_RO);
static_assert(NR_UNMAPPED_CACHE_ROX - NR_UNMAPPED_CACHE_NONE == UNMAPPED_CACHE_ROX);
static_assert(NR_UNMAPPED_CACHE_RW - NR_UNMAPPED_CACHE_NONE == UNMAPPED_CACHE_RW);

/*
 * Count chunks and pages of @cache as allocated (+) or freed (-), and the
 * pages in the vmstat counter of its permission on node @nid, where they
 * live: all of them this-CPU operations, no shared cache line.
 */
static void uc_cache_count(struct unmapped_cache *cache, int nid, long chunks,
			   long pages)
{
	this_cpu_add(cache->count->chunks, chunks);
	this_cpu_add(cache->count->pages, pages);
	mod_node_page_state(NODE_DATA(nid), NR_UNMAPPED_CACHE_NONE + cache->perm,
			    pages);
}

/* Live chunks (or pages) of @cache: the sum over every CPU. */
long uc_cache_live(struct unmapped_cache *cache, bool pages)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct uc_cache_count *c = per_cpu_ptr(cache->count, cpu);

		sum += pages ? READ_ONCE(c->pages) : READ_ONCE(c->chunks);
	}
	return sum;
}

/* For debugfs "caches": one line per cache. */
void uc_caches_show(struct seq_file *seq)
{
	struct unmapped_cache *cache;

	guard(mutex)(&uc_caches_lock);
	list_for_each_entry(cache, &uc_caches, list)
		seq_printf(seq, "%s %s chunks=%ld pages=%ld\n", cache->name,
			   uc_perm_names[cache->perm],
			   uc_cache_live(cache, false),
			   uc_cache_live(cache, true));
}

/**
 * unmapped_cache_destroy() - Destroy a cache.
 * @cache: the cache, or NULL.
 *
 * The cache must have no live chunks.  If it has, it warns and leaves the
 * chunks (and the cache) allocated: memory that is still in use is never
 * handed to anybody else.
 *
 * Context: Process context; may sleep.
 */
void unmapped_cache_destroy(struct unmapped_cache *cache)
{
	long live;

	if (!cache)
		return;
	live = uc_cache_live(cache, false);
	if (uc_refuse(live)) {
		pr_warn("%s destroyed with %ld live chunks: kept\n",
			cache->name, live);
		return;
	}

	mutex_lock(&uc_caches_lock);
	list_del(&cache->list);
	if (cache->perm == UNMAPPED_CACHE_NONE)
		uc_none_cache_del(cache);
	mutex_unlock(&uc_caches_lock);
	/* unmapped_cache_secret_active() may still be reading its counts. */
	if (cache->perm == UNMAPPED_CACHE_NONE)
		synchronize_rcu();
	free_percpu(cache->count);
	kfree(cache);
}

/*
 * Single pages go through the magazines: a round from this CPU's magazines,
 * or on a miss one page from the arena, which becomes a round (owned by the
 * magazine layer in the range tree, tagged with @cache in its page).
 */
static unsigned long uc_cache_alloc_round(struct unmapped_cache *cache,
					  struct uc_arena *arena, gfp_t gfp,
					  unsigned long caller)
{
	struct page *page;
	unsigned long addr;

	while ((addr = uc_mag_alloc(arena, &page))) {
		/* A round poisoned while it sat in a magazine is set aside. */
		if (!uc_poison_seen() || !uc_arena_set_aside(arena, addr, PAGE_SIZE)) {
			uc_page_tag(page, cache);
			uc_arena_reveal(arena, addr, PAGE_SIZE);
			return addr;
		}
	}
	addr = uc_arena_alloc(arena, PAGE_SIZE, PAGE_SIZE, UC_OWNER_MAG, gfp);
	if (addr)
		uc_page_tag(uc_arena_page(arena, addr), cache);
	trace_unmapped_cache_alloc(cache->name, cache->perm, PAGE_SIZE, addr,
				   caller);
	return addr;
}

/*
 * Free a single page handed out as a round: scrub it (clear a NONE page
 * through this CPU's temporary mapping, see arch_unmapped_cache_clear_page();
 * an RW page only with init_on_free, see uc_arena_scrub()),
 * then into this CPU's magazines or, when they have no room, back to the
 * tree.  False if @addr is not a round of @cache; the caller then takes the
 * checked slow path, which warns.
 *
 * Only a round handed to @cache carries @cache in its page's ->private
 * (uc_page_tag()), so taking the tag off is the check that @addr is one,
 * and the fast path needs no lookup of the block: the arena follows from
 * the cache's permission and the page's node.
 */
static bool uc_cache_free_round(struct unmapped_cache *cache,
				unsigned long addr, struct page *page,
				bool put, unsigned long caller)
{
	struct uc_arena *arena;

	/* From here on a second free of @addr finds no tag and is refused. */
	if (!page || !PAGE_ALIGNED(addr) || !uc_page_untag(page, cache))
		return false;
	arena = uc_arena_get(cache->perm, page_to_nid(page));
	if (WARN_ON_ONCE(!arena)) {
		uc_page_tag(page, cache);
		return false;
	}
	/* A NONE page: its owner's reference (see uc_page_claim()). */
	if (put)
		page_ref_dec(page);
	uc_arena_scrub(arena, addr, PAGE_SIZE);
	if (!uc_mag_free(arena, addr, page)) {
		uc_arena_free_round(arena, addr);
		trace_unmapped_cache_free(cache->name, cache->perm, PAGE_SIZE,
					  addr, caller);
	}
	return true;
}

static bool uc_size_ok(struct unmapped_cache *cache, size_t size)
{
	size_t max = cache->perm == UNMAPPED_CACHE_NONE ?
		     UNMAPPED_CACHE_BLOCK_SIZE : UNMAPPED_CACHE_MAX_CHUNK;

	return size && size <= max;
}

static void *uc_cache_alloc(struct unmapped_cache *cache, size_t size,
			    unsigned long align, int nid, gfp_t gfp,
			    unsigned long caller)
{
	struct uc_arena *arena;
	unsigned long addr;

	if (uc_refuse(!cache || cache->perm == UNMAPPED_CACHE_NONE))
		return NULL;
	if (uc_refuse(!uc_size_ok(cache, size) ||
		      (align && !is_power_of_2(align))))
		return NULL;
	arena = uc_arena_get(cache->perm, nid);
	if (!arena)
		return NULL;

	size = PAGE_ALIGN(size);
	if (size == PAGE_SIZE && align <= PAGE_SIZE) {
		addr = uc_cache_alloc_round(cache, arena, gfp, caller);
	} else {
		addr = uc_arena_alloc(arena, size, max(align, PAGE_SIZE), cache,
				      gfp);
		trace_unmapped_cache_alloc(cache->name, cache->perm, size, addr,
					   caller);
	}
	if (!addr)
		return NULL;
	/* Poisoned while free (uc_arena_scrub()), as vmalloc space is. */
	addr = (unsigned long)kasan_unpoison_vmalloc((void *)addr, size,
						     KASAN_VMALLOC_PROT_NORMAL);
	/*
	 * RW memory is not scrubbed when it is freed (unless init_on_free
	 * is on): like a page from alloc_page(), it is zeroed on request.
	 */
	if (cache->perm == UNMAPPED_CACHE_RW && !want_init_on_free() &&
	    want_init_on_alloc(gfp))
		memset((void *)addr, 0, size);
	uc_cache_count(cache, arena->nid, 1, size >> PAGE_SHIFT);
	return (void *)addr;
}

/**
 * unmapped_cache_alloc_node() - Allocate a chunk on a node.
 * @cache: an RO, ROX or RW cache.
 * @size:  bytes, rounded up to whole pages; 1 byte to 16 MiB.
 * @align: alignment, a power of two; values below PAGE_SIZE mean PAGE_SIZE.
 * @nid:   node, or NUMA_NO_NODE for the local memory node.
 * @gfp:   GFP_KERNEL, or GFP_ATOMIC/GFP_NOWAIT to use only the space the
 *         arena already has (no refill); with __GFP_ZERO an RW chunk is
 *         zeroed.  A GFP_KERNEL refill takes free order-9 pages only and,
 *         if there is none, fails and leaves the refill to a worker that
 *         may reclaim and compact; add __GFP_RETRY_MAYFAIL to have the
 *         caller's own refill do that.
 *
 * The chunk is mapped in the module area with the cache's permission and
 * has no present direct-map entry.  An RO chunk is zeroed and a ROX chunk
 * filled with trap instructions, always.  An RW chunk is zeroed if @gfp
 * has __GFP_ZERO or init_on_alloc or init_on_free is on; otherwise it may
 * hold what an earlier owner of an RW chunk left there, as a page from
 * alloc_page() may.  Write RO and ROX chunks with unmapped_cache_write().
 *
 * Context: Process context with GFP_KERNEL; any context otherwise.
 * Return: the chunk, or NULL.
 */
void *unmapped_cache_alloc_node(struct unmapped_cache *cache, size_t size,
				unsigned long align, int nid, gfp_t gfp)
{
	return uc_cache_alloc(cache, size, align, nid, gfp, _RET_IP_);
}

/**
 * unmapped_cache_alloc() - Allocate a chunk.
 * @cache: an RO, ROX or RW cache.
 * @size:  bytes, rounded up to whole pages; 1 byte to 16 MiB.
 * @gfp:   as for unmapped_cache_alloc_node().
 *
 * Page aligned, on the local memory node; see unmapped_cache_alloc_node().
 *
 * Context: Process context with GFP_KERNEL; any context otherwise.
 * Return: the chunk, or NULL.
 */
void *unmapped_cache_alloc(struct unmapped_cache *cache, size_t size, gfp_t gfp)
{
	return uc_cache_alloc(cache, size, PAGE_SIZE, NUMA_NO_NODE, gfp,
			      _RET_IP_);
}

/**
 * unmapped_cache_free() - Free a chunk.
 * @cache: the cache it was allocated from.
 * @addr:  the chunk, or NULL.
 * @size:  the size it was allocated with.
 *
 * The chunk is scrubbed (trap-filled for ROX, zeroed for RO, and for RW
 * only when init_on_free is on) before it can be handed out again.  A
 * pointer the cache did not return, a pointer into the middle of a chunk,
 * a second free, a wrong size or the wrong cache is refused with a
 * warning; nothing is freed then.
 *
 * Context: Process context for RO and ROX caches (text_mutex may be held:
 * the scrub takes no lock); any context for RW.
 */
void unmapped_cache_free(struct unmapped_cache *cache, void *addr, size_t size)
{
	struct page *page = NULL;
	struct uc_arena *arena;
	int nid;

	if (!addr)
		return;
	if (uc_refuse(!cache || cache->perm == UNMAPPED_CACHE_NONE))
		return;
	if (PAGE_ALIGN(size) == PAGE_SIZE && is_vmalloc_or_module_addr(addr))
		page = vmalloc_to_page(addr);
	/* Before the free: from then on the page may be somebody else's. */
	nid = page ? page_to_nid(page) : NUMA_NO_NODE;
	if (!uc_cache_free_round(cache, (unsigned long)addr, page, false,
				 _RET_IP_)) {
		arena = uc_arena_lookup(cache->perm, (unsigned long)addr, NULL);
		if (uc_refuse(!arena))
			return;
		if (uc_arena_free(arena, (unsigned long)addr, PAGE_ALIGN(size),
				  cache))
			return;
		trace_unmapped_cache_free(cache->name, cache->perm,
					  PAGE_ALIGN(size), (unsigned long)addr,
					  _RET_IP_);
		nid = arena->nid;
	}
	uc_cache_count(cache, nid, -1, -(long)(PAGE_ALIGN(size) >> PAGE_SHIFT));
}

/*
 * The node a page for the current task comes from: the one its memory
 * policy picks (bind, preferred, interleave), as alloc_page() would; the
 * local memory node outside task context or without a policy.  If the
 * task's cpuset does not allow that node, the nearest one it allows, in
 * the order alloc_page() would try them.  Were that node's arena unable
 * to grow, the caller's stock path falls back along the policy's nodes as
 * before.  mems_allowed is read without read_mems_allowed_begin(): a
 * cpuset change racing with this costs at most a page on a node the
 * task's cpuset allowed a moment earlier.
 */
static int uc_policy_node(void)
{
#ifdef CONFIG_NUMA
	int nid = mempolicy_slab_node();
	struct zoneref *z;

	if (!in_task() || !cpusets_enabled() ||
	    node_isset(nid, cpuset_current_mems_allowed))
		return nid;
	z = first_zones_zonelist(node_zonelist(nid, GFP_KERNEL),
				 gfp_zone(GFP_KERNEL), &cpuset_current_mems_allowed);
	return zonelist_zone(z) ? zonelist_node_idx(z) : nid;
#else
	return NUMA_NO_NODE;
#endif
}

/* NONE pages given back by their page cache (unmapped_cache_release_page()). */
static DEFINE_PER_CPU(unsigned long, uc_pages_released);

unsigned long uc_released_pages(void)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu(uc_pages_released, cpu));
	return sum;
}

/* Claims that fail in a row before an allocation gives up. */
#define UC_CLAIM_TRIES	8

/**
 * unmapped_cache_alloc_page() - Allocate a page with no kernel mapping.
 * @cache: a NONE cache.
 * @gfp:   GFP_KERNEL to allow a refill, GFP_ATOMIC to use only pages the
 *         cache already has; a refill compacts only as for
 *         unmapped_cache_alloc_node().
 *
 * The page comes from the node the task's memory policy picks, the local
 * memory node by default, like a page from alloc_page().  It is zeroed and
 * has no present direct-map entry: the caller maps it where it needs it (in
 * user space, say) and must not expect page_address() to work.  Its
 * ->private and its reference count belong to the cache, which keeps
 * references of its own on the page (so that the count never drops to zero
 * and the page never reaches the page allocator): the caller holds one
 * reference on top of those, and others may take and drop more as on any
 * page.  The page comes back with unmapped_cache_free_page() when the
 * caller holds the only other reference, or with
 * unmapped_cache_release_page() when others may still hold one (the page
 * cache's users).  It is not put on an LRU list.
 *
 * Context: Process context with GFP_KERNEL; any context otherwise.
 * Return: the page, or NULL.
 */
struct page *unmapped_cache_alloc_page(struct unmapped_cache *cache, gfp_t gfp)
{
	struct uc_arena *arena;
	struct page *page;
	unsigned long phys;
	int tries;

	if (uc_refuse(!cache || cache->perm != UNMAPPED_CACHE_NONE))
		return NULL;
	arena = uc_arena_get(UNMAPPED_CACHE_NONE, uc_policy_node());
	if (!arena)
		return NULL;

	/* A page put aside until its last other reference went, first. */
	page = uc_arena_settled_take(arena);
	if (page) {
		uc_page_tag(page, cache);
		goto out;
	}
	for (tries = 0; tries < UC_CLAIM_TRIES; tries++) {
		phys = uc_cache_alloc_round(cache, arena, gfp, _RET_IP_);
		if (!phys)
			return NULL;
		page = pfn_to_page(PHYS_PFN(phys));
		if (uc_page_claim(arena, page))
			goto out;
		/* Still referenced (a page-cache lookup, say): later. */
		uc_page_untag(page, cache);
		uc_arena_settle(arena, page);
	}
	return NULL;
out:
	/* Clean: NONE pages are cleared when they are freed. */
	uc_cache_count(cache, arena->nid, 1, 1);
	return page;
}

/*
 * Give back a NONE page: untag, clear and keep it (a magazine or the tree).
 * @put: drop the owner's reference too.  False if @page is not a page of
 * @cache handed out (a double free, a foreign page): refused with a warning.
 */
static bool uc_cache_free_page(struct unmapped_cache *cache, struct page *page,
			       bool put, unsigned long caller)
{
	/*
	 * Read before the free: once the page is in a magazine another task
	 * may take it and write its flags (secretmem_fault(), KCSAN saw it).
	 */
	int nid = page_to_nid(page);
	unsigned long phys;
	struct uc_arena *arena;

	if (uc_refuse(!cache || cache->perm != UNMAPPED_CACHE_NONE))
		return false;
	phys = PFN_PHYS(page_to_pfn(page));
	if (!uc_cache_free_round(cache, phys, page, put, caller)) {
		arena = uc_arena_lookup(UNMAPPED_CACHE_NONE, phys, NULL);
		if (uc_refuse(!arena))
			return false;
		if (uc_arena_free(arena, phys, PAGE_SIZE, cache))
			return false;
		if (put)
			page_ref_dec(page);
		trace_unmapped_cache_free(cache->name, cache->perm, PAGE_SIZE,
					  phys, caller);
	}
	uc_cache_count(cache, nid, -1, -1);
	return true;
}

/**
 * unmapped_cache_free_page() - Free a page of a NONE cache.
 * @cache: the cache it was allocated from.
 * @page:  the page, or NULL.
 *
 * The caller gives back the reference unmapped_cache_alloc_page() gave it,
 * and must have dropped every other reference it took.  A page that
 * somebody else still references, or that the cache did not hand out, is
 * refused with a warning.  A page whose caller's reference a stray
 * put_page() dropped already is taken back with a warning.
 *
 * Context: Any context.
 */
void unmapped_cache_free_page(struct unmapped_cache *cache, struct page *page)
{
	int refs;

	if (!page)
		return;
	/*
	 * A double free or a foreign page, refused before its count is read:
	 * only a page handed out by @cache carries @cache in ->private (the
	 * free's cmpxchg of the tag checks it again), so no block lookup.
	 */
	if (uc_refuse(!uc_page_owned_by(page, cache)))
		return;
	refs = page_ref_count(page);
	if (uc_refuse(!refs || refs > UC_PAGE_REFS + 1))
		return;
	/* The caller's reference gone already (a stray put_page()): repaired. */
	uc_arena_refs_repair(uc_arena_get(UNMAPPED_CACHE_NONE, page_to_nid(page)),
			     page, 1);
	uc_cache_free_page(cache, page, true, _RET_IP_);
}

/**
 * unmapped_cache_release_page() - Give back a NONE page others may still hold.
 * @cache: the cache it was allocated from.
 * @page:  the page.
 *
 * For a page that lives where its owner does not control every reference:
 * secretmem's pages are in the page cache, where a lookup or a truncation
 * in progress holds one for a moment after the page left the file.  Once
 * the page is out of every user mapping and of the page cache (secretmem
 * calls this from its ->free_folio()), it is cleared here, before this
 * returns, and the cache hands it out again only once nobody but the cache
 * holds a reference (uc_page_claim()).  The references the page's users
 * still hold are theirs to put; the one unmapped_cache_alloc_page() gave
 * went with them.
 *
 * Context: Any context.
 */
void unmapped_cache_release_page(struct unmapped_cache *cache,
				 struct page *page)
{
	if (page && uc_cache_free_page(cache, page, false, _RET_IP_))
		this_cpu_inc(uc_pages_released);
}

/*
 * The NONE caches, for unmapped_cache_secret_active() and debugfs: a NONE
 * page handed out carries its cache in ->private (uc_page_tag()), every
 * other page of a block UC_PAGE_FREE.
 */
#define UC_NONE_CACHES		8
static struct unmapped_cache *uc_none_caches[UC_NONE_CACHES] __read_mostly;

/* Register a NONE cache; under uc_caches_lock. */
static bool uc_none_cache_add(struct unmapped_cache *cache)
{
	int i;

	lockdep_assert_held(&uc_caches_lock);
	for (i = 0; i < UC_NONE_CACHES; i++) {
		if (!uc_none_caches[i]) {
			WRITE_ONCE(uc_none_caches[i], cache);
			return true;
		}
	}
	return false;
}

static void uc_none_cache_del(struct unmapped_cache *cache)
{
	int i;

	lockdep_assert_held(&uc_caches_lock);
	for (i = 0; i < UC_NONE_CACHES; i++)
		if (uc_none_caches[i] == cache)
			WRITE_ONCE(uc_none_caches[i], NULL);
}

struct unmapped_cache *uc_none_cache_of(unsigned long tag)
{
	int i;

	for (i = 0; i < UC_NONE_CACHES; i++) {
		struct unmapped_cache *cache = READ_ONCE(uc_none_caches[i]);

		if (cache && (unsigned long)cache == tag)
			return cache;
	}
	return NULL;
}

/*
 * The NONE caches are read without uc_caches_lock (hibernation asks with
 * interrupts off): unmapped_cache_destroy() waits for a grace period
 * between taking a NONE cache out of uc_none_caches[] and freeing it.
 */
bool unmapped_cache_secret_active(void)
{
	bool active = false;
	int i;

	rcu_read_lock();
	for (i = 0; i < UC_NONE_CACHES && !active; i++) {
		struct unmapped_cache *cache = READ_ONCE(uc_none_caches[i]);

		active = cache && cache->secret && uc_cache_live(cache, true) > 0;
	}
	rcu_read_unlock();
	return active;
}

bool unmapped_cache_holds_pfn(unsigned long pfn)
{
	bool held;

	rcu_read_lock();
	held = uc_block_lookup(pfn);
	rcu_read_unlock();
	return held;
}

/**
 * unmapped_cache_owns_page() - Whether a page is held from a cache.
 * @cache: a NONE cache.
 * @page:  any page.
 *
 * For users that fall back to the page allocator when the cache is out of
 * memory and must tell the two kinds of page apart when they free them.
 *
 * Context: Any context.
 * Return: true if @page was allocated from @cache and not freed since.
 */
bool unmapped_cache_owns_page(struct unmapped_cache *cache, struct page *page)
{
	return cache && page && uc_block_lookup(page_to_pfn(page)) &&
	       uc_page_owned_by(page, cache);
}

/* Is [@dst, @dst + @len) inside one live chunk (or round) of @cache? */
static bool uc_cache_owns(struct unmapped_cache *cache, struct uc_arena *arena,
			  void *dst, size_t len)
{
	unsigned long addr = (unsigned long)dst;

	if (uc_arena_owns(arena, addr, len, cache))
		return true;
	/* A round: a single page, owned by @cache per its tag. */
	return len <= PAGE_SIZE - offset_in_page(addr) &&
	       uc_arena_owns(arena, addr, len, UC_OWNER_MAG) &&
	       uc_page_owned_by(uc_arena_page(arena, addr), cache);
}

/**
 * unmapped_cache_owns() - Whether a range is inside a live chunk of a cache.
 * @cache: an RO, ROX or RW cache.
 * @addr:  any address.
 * @size:  bytes from @addr.
 *
 * For users that fall back to another allocator when the cache is off or
 * out of memory and must tell the two kinds of memory apart when they free
 * them.
 *
 * Context: Any context.
 * Return: true if [@addr, @addr + @size) lies inside one chunk that was
 * allocated from @cache and not freed since.
 */
bool unmapped_cache_owns(struct unmapped_cache *cache, const void *addr,
			 size_t size)
{
	struct uc_arena *arena;

	if (!cache || cache->perm == UNMAPPED_CACHE_NONE || !addr || !size)
		return false;
	arena = uc_arena_lookup(cache->perm, (unsigned long)addr, NULL);
	return arena && uc_cache_owns(cache, arena, (void *)addr, size);
}

/**
 * unmapped_cache_size() - The size of a live chunk of a cache.
 * @cache: an RO, ROX or RW cache.
 * @addr:  what unmapped_cache_alloc() returned, or any address.
 *
 * For users that free by address alone, as execmem_free() does: the size
 * to pass to unmapped_cache_free(), and at the same time whether @addr is
 * memory of @cache at all.
 *
 * Context: Any context.
 * Return: the chunk's size in bytes (a multiple of PAGE_SIZE), or 0 if no
 * live chunk of @cache starts at @addr.
 */
size_t unmapped_cache_size(struct unmapped_cache *cache, const void *addr)
{
	unsigned long a = (unsigned long)addr;
	struct uc_arena *arena;
	size_t size;

	if (!cache || cache->perm == UNMAPPED_CACHE_NONE || !PAGE_ALIGNED(a))
		return 0;
	arena = uc_arena_lookup(cache->perm, a, NULL);
	if (!arena)
		return 0;
	size = uc_arena_chunk_size(arena, a, cache);
	if (size)
		return size;
	/* A round: a single page, owned by @cache per its tag. */
	if (uc_arena_owns(arena, a, PAGE_SIZE, UC_OWNER_MAG) &&
	    uc_page_owned_by(uc_arena_page(arena, a), cache))
		return PAGE_SIZE;
	return 0;
}

/**
 * unmapped_cache_write() - Copy into a chunk of a cache.
 * @cache: the cache the chunk belongs to.
 * @dst:   destination inside one live chunk of @cache.
 * @src:   source.
 * @len:   bytes; [@dst, @dst + @len) must not leave the chunk.
 *
 * The only way to write RO and ROX chunks: the copy goes through a
 * temporary mapping that only this CPU sees, one page at a time with
 * interrupts off, so no writable alias of the memory is ever visible to
 * another CPU.  RW chunks are copied into directly.  This is for memory
 * that is not live yet (or no longer); code that may be running is changed
 * with text_poke() and friends.
 *
 * Context: Any context but NMI; does not sleep and takes no sleeping lock.
 * Return: 0, or -EINVAL if the range is not inside one live chunk of
 * @cache (with a warning), -EOPNOTSUPP for a NONE cache.
 */
int unmapped_cache_write(struct unmapped_cache *cache, void *dst,
			 const void *src, size_t len)
{
	struct uc_arena *arena;

	if (uc_refuse(!cache))
		return -EINVAL;
	if (cache->perm == UNMAPPED_CACHE_NONE)
		return -EOPNOTSUPP;
	if (!len)
		return 0;
	arena = uc_arena_lookup(cache->perm, (unsigned long)dst, NULL);
	if (uc_refuse(!arena || !uc_cache_owns(cache, arena, dst, len)))
		return -EINVAL;

	if (cache->perm == UNMAPPED_CACHE_RW)
		memcpy(dst, src, len);
	else
		arch_unmapped_cache_write(dst, src, len);
	return 0;
}
