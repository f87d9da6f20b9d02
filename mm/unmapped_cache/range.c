// SPDX-License-Identifier: GPL-2.0
/*
 * Range tree of the unmapped cache.
 *
 * An arena hands out page-granular chunks of an address space: virtual
 * addresses for the RO, ROX and RW arenas, physical ones for the NONE
 * arena.  The range tree only sees [start, start + size) intervals of
 * unsigned long, all multiples of PAGE_SIZE.  Space enters the tree a block
 * at a time (uc_range_add()), leaves it a block at a time when the block is
 * entirely free (uc_range_remove()), and in between is carved into chunks
 * (uc_range_alloc()) that come back with uc_range_free().  Nothing here
 * knows the block size: any page-aligned size works.
 *
 * Structure
 * =========
 *
 * The layout follows the free tree of mm/vmalloc.c.  A struct uc_range is
 * either a free range or a busy chunk:
 *
 * - Free ranges sit in free_root, an rbtree sorted by address and augmented
 *   with subtree_max_size (the largest free range below a node), and in
 *   free_list, in the same order.  Free ranges are always coalesced: two of
 *   them never touch.  The list gives a new range's neighbours in O(1)
 *   once its place in the tree is known.
 *
 * - Busy chunks sit in busy_root, a plain rbtree sorted by address, so that
 *   a free can be checked against what was really handed out.
 *
 * Memory
 * ======
 *
 * The tree runs under the arena's spinlock and never allocates.  An
 * operation that may need nodes takes them from a caller-supplied spare
 * array, preallocated before the lock was taken: uc_range_add() one,
 * uc_range_alloc() up to two, uc_range_remove() up to one.  Freeing needs
 * none, because the busy node becomes the free node; nodes that merging
 * makes redundant go back with uc_range_node_free(), which does not sleep.
 *
 * Fit policy
 * ==========
 *
 * An allocation takes the lowest-addressed free range that can hold the
 * chunk plus the worst-case alignment padding (size + align - PAGE_SIZE).
 * subtree_max_size leads straight to it, O(log n), as in vmalloc.  Low
 * addresses fill up first, which keeps the blocks at the top of the arena
 * free so that they can be given back.  Best fit would pack holes more
 * tightly but ignores addresses: a chunk would land in whichever block has
 * the snuggest hole, often one that was about to become entirely free, and
 * it would need a second, size-ordered index to be O(log n).
 *
 * An owner may set a floor (uc_range_tree.floor): then the chunk goes at
 * the lowest place at or above the floor where it fits, found by walking
 * the free ranges from the one at the floor upwards (O(log n) unless
 * alignment makes ranges large enough fail), and space below the floor is
 * used, as above, only when none fits.  An arena puts its floor at a
 * random page of its first block, so that what it hands out does not sit
 * at the same address every boot, while the policy above it stays lowest
 * first.
 *
 * The worst-case bound can miss a smaller free range that happens to be
 * aligned, so when no range is that large, a second pass walks the free
 * ranges at least as large as the chunk, in address order, and takes the
 * first where the aligned chunk fits.  That pass is O(k log n) for k such
 * ranges and runs only when no free range holds the worst case (the arena
 * is nearly full for this request); it makes NULL mean that no aligned
 * hole exists at all.
 *
 * The functions are documented in range.h.  All of them expect the caller
 * to hold the arena lock (or otherwise own the tree); none sleeps.  The
 * userspace harness in tools/testing/unmapped_cache/ builds this file
 * unchanged and checks it against a model.
 */

#define pr_fmt(fmt) "unmapped_cache: " fmt

#include <linux/align.h>
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/printk.h>
#include <linux/rbtree_augmented.h>
#include <linux/slab.h>
#include <linux/types.h>

#include <asm/page.h>

#include "range.h"

static inline struct uc_range *uc_rb_range(struct rb_node *n)
{
	return rb_entry(n, struct uc_range, rb_node);
}

static inline unsigned long uc_subtree_max(struct rb_node *n)
{
	return n ? uc_rb_range(n)->subtree_max_size : 0;
}

static inline unsigned long uc_range_size(const struct uc_range *r)
{
	return r->size;
}

RB_DECLARE_CALLBACKS_MAX(static, uc_free_augment, struct uc_range, rb_node,
			 unsigned long, subtree_max_size, uc_range_size)

/* Page aligned, non-empty, and not wrapping past (or up to) the top. */
static bool uc_range_valid(unsigned long start, unsigned long size)
{
	return size && IS_ALIGNED(start, PAGE_SIZE) &&
	       IS_ALIGNED(size, PAGE_SIZE) && start + size > start;
}

void uc_range_tree_init(struct uc_range_tree *t)
{
	t->free_root = RB_ROOT;
	INIT_LIST_HEAD(&t->free_list);
	t->busy_root = RB_ROOT;
	t->free_bytes = 0;
	t->busy_bytes = 0;
	t->nr_free = 0;
	t->nr_busy = 0;
	t->unit_shift = 0;
	t->free_units = 0;
	t->floor = 0;
}

struct uc_range *uc_range_node_alloc(gfp_t gfp)
{
	struct uc_range *r = kmalloc(sizeof(*r), gfp);

	if (!r)
		return NULL;
	RB_CLEAR_NODE(&r->rb_node);
	INIT_LIST_HEAD(&r->list);
	r->start = 0;
	r->size = 0;
	r->subtree_max_size = 0;
	r->owner = NULL;
	return r;
}

void uc_range_node_free(struct uc_range *r)
{
	kfree(r);
}

int uc_range_spares_fill(struct uc_range **spare, gfp_t gfp)
{
	int i, ret = 0;

	for (i = 0; i < UC_RANGE_SPARES; i++) {
		if (spare[i])
			continue;
		spare[i] = uc_range_node_alloc(gfp);
		if (!spare[i])
			ret = -ENOMEM;
	}
	return ret;
}

void uc_range_spares_release(struct uc_range **spare)
{
	int i;

	for (i = 0; i < UC_RANGE_SPARES; i++) {
		uc_range_node_free(spare[i]);
		spare[i] = NULL;
	}
}

static unsigned int uc_spares_count(struct uc_range **spare)
{
	unsigned int i, n = 0;

	if (!spare)
		return 0;
	for (i = 0; i < UC_RANGE_SPARES; i++)
		if (spare[i])
			n++;
	return n;
}

/* Take a node out of @spare; the caller has counted them. */
static struct uc_range *uc_spare_take(struct uc_range **spare)
{
	struct uc_range *r;
	int i;

	for (i = 0; i < UC_RANGE_SPARES; i++) {
		if (spare[i]) {
			r = spare[i];
			spare[i] = NULL;
			return r;
		}
	}
	return NULL;
}

/*
 * Find the link where a range [start, end) goes in @root, whose ranges do
 * not overlap, and its parent.  The ranges that [start, end) could overlap
 * all lie on the search path, so NULL is returned, without a link, exactly
 * when it overlaps one of them.
 */
static struct rb_node **uc_range_link(struct rb_root *root, unsigned long start,
				      unsigned long end, struct rb_node **parent)
{
	struct rb_node **link = &root->rb_node;

	*parent = NULL;
	while (*link) {
		struct uc_range *r = uc_rb_range(*link);

		*parent = *link;
		if (end <= r->start)
			link = &(*link)->rb_left;
		else if (start >= uc_range_end(r))
			link = &(*link)->rb_right;
		else
			return NULL;
	}
	return link;
}

/* The range of @root (free or busy) containing @addr, or NULL. */
static struct uc_range *uc_range_containing(struct rb_root *root,
					    unsigned long addr)
{
	struct rb_node *n = root->rb_node;

	while (n) {
		struct uc_range *r = uc_rb_range(n);

		if (addr < r->start)
			n = n->rb_left;
		else if (addr >= uc_range_end(r))
			n = n->rb_right;
		else
			return r;
	}
	return NULL;
}

/*
 * Free ranges: linking, unlinking, resizing.  Callers keep free_bytes; these
 * keep nr_free and subtree_max_size.
 */

/*
 * Aligned units wholly inside free range @r (see uc_range_tree.free_units).
 * ALIGN() can wrap at the top of the address space: nothing fits then.
 */
static unsigned long uc_units(const struct uc_range_tree *t,
			      const struct uc_range *r)
{
	unsigned long unit, first, last;

	if (!t->unit_shift)
		return 0;
	unit = 1UL << t->unit_shift;
	first = ALIGN(r->start, unit);
	last = ALIGN_DOWN(uc_range_end(r), unit);
	if (first < r->start || last <= first)
		return 0;
	return (last - first) >> t->unit_shift;
}

/* Account free range @r's units: @sign 1 when it appears, -1 when it goes. */
static void uc_units_account(struct uc_range_tree *t, const struct uc_range *r,
			     long sign)
{
	WRITE_ONCE(t->free_units, t->free_units + sign * uc_units(t, r));
}

/* Recompute subtree_max_size from @r up, after @r's size changed. */
static void uc_free_propagate(struct uc_range *r)
{
	uc_free_augment_propagate(&r->rb_node, NULL);
}

/*
 * Link @r, which is not in the tree, at @link under @parent as found by
 * uc_range_link(), and put it next to @parent in the free list: a new left
 * child is its parent's predecessor, a new right child its successor.
 */
static void uc_free_link(struct uc_range_tree *t, struct uc_range *r,
			 struct rb_node *parent, struct rb_node **link)
{
	struct rb_node *n;

	/*
	 * rb_insert_augmented() wants the path to the new node up to date
	 * before it rebalances: raise the ancestors' maxima to r->size.
	 */
	r->subtree_max_size = r->size;
	for (n = parent; n; n = rb_parent(n)) {
		if (uc_rb_range(n)->subtree_max_size >= r->size)
			break;
		uc_rb_range(n)->subtree_max_size = r->size;
	}

	rb_link_node(&r->rb_node, parent, link);
	rb_insert_augmented(&r->rb_node, &t->free_root, &uc_free_augment);

	if (!parent)
		list_add(&r->list, &t->free_list);
	else if (link == &parent->rb_left)
		list_add_tail(&r->list, &uc_rb_range(parent)->list);
	else
		list_add(&r->list, &uc_rb_range(parent)->list);
	t->nr_free++;
	uc_units_account(t, r, 1);
}

static void uc_free_unlink(struct uc_range_tree *t, struct uc_range *r)
{
	uc_units_account(t, r, -1);
	rb_erase_augmented(&r->rb_node, &t->free_root, &uc_free_augment);
	RB_CLEAR_NODE(&r->rb_node);
	list_del_init(&r->list);
	t->nr_free--;
}

/*
 * Make @r, a node in no tree, free space, merging it with the free ranges
 * on either side:
 *
 *   |<-- prev -->|<---- r ---->|<-- next -->|   prev grows over r and
 *                                               next; r and next are freed
 *
 *   |<-- prev -->|<---- r ---->|    busy        prev grows over r; r is
 *                                               freed
 *
 *       busy     |<---- r ---->|<-- next -->|   next grows down over r; r
 *                                               is freed
 *
 *       busy     |<---- r ---->|    busy        r is linked as it is
 *
 * ("busy" here is anything but free space: a busy chunk or a hole.)
 *
 * Return: the free range now holding r's space, or NULL, with nothing
 * changed and @r still the caller's, if @r overlaps free space.
 */
static struct uc_range *uc_free_insert(struct uc_range_tree *t,
				       struct uc_range *r)
{
	unsigned long end = uc_range_end(r);
	struct uc_range *prev = NULL, *next = NULL, *p;
	struct rb_node **link, *parent;

	link = uc_range_link(&t->free_root, r->start, end, &parent);
	if (!link)
		return NULL;

	if (parent) {
		p = uc_rb_range(parent);
		if (link == &parent->rb_left) {
			next = p;
			if (p->list.prev != &t->free_list)
				prev = list_prev_entry(p, list);
		} else {
			prev = p;
			if (!list_is_last(&p->list, &t->free_list))
				next = list_next_entry(p, list);
		}
	}
	if (prev && uc_range_end(prev) != r->start)
		prev = NULL;
	if (next && next->start != end)
		next = NULL;

	r->owner = NULL;
	/* Read without the lock by the shrinker's count. */
	WRITE_ONCE(t->free_bytes, t->free_bytes + r->size);

	if (!prev && !next) {
		uc_free_link(t, r, parent, link);
		return r;
	}

	if (prev) {
		uc_units_account(t, prev, -1);
		/* Unlink next first: the tree must be sound before prev grows. */
		if (next) {
			uc_free_unlink(t, next);
			prev->size += next->size;
			uc_range_node_free(next);
		}
		prev->size += r->size;
		p = prev;
	} else {
		/* next keeps its place in the tree: nothing lies in between. */
		uc_units_account(t, next, -1);
		next->start = r->start;
		next->size += r->size;
		p = next;
	}
	uc_units_account(t, p, 1);
	uc_range_node_free(r);
	uc_free_propagate(p);
	return p;
}

/*
 * How [start, start + size) lies in the free range that contains it.
 *
 * UC_FIT_EXACT: the range is the whole free range.
 *
 *     |<------------- free range ------------->|
 *     |<------------- chunk ------------------>|
 *
 * UC_FIT_LEFT: the range starts the free range, which keeps the rest.
 *
 *     |<------------- free range ------------->|
 *     |<--- chunk --->|<------ remains ------->|
 *
 * UC_FIT_RIGHT: the range ends the free range, which keeps the rest (on
 * allocation, the alignment padding).
 *
 *     |<------------- free range ------------->|
 *     |<------ remains ------->|<--- chunk --->|
 *
 * UC_FIT_MIDDLE: the free range keeps the left part and a new node takes
 * the right part.
 *
 *     |<------------- free range ------------->|
 *     |<-- remains -->|<-- chunk -->|<- new -->|
 *
 * uc_fit_nodes[] is what an allocation consumes from the spare array in
 * each case: a node for the busy chunk unless the free range's node
 * becomes it, plus one for the right part of a middle split.
 */
enum uc_fit {
	UC_FIT_EXACT,
	UC_FIT_LEFT,
	UC_FIT_RIGHT,
	UC_FIT_MIDDLE,
};

static const unsigned int uc_fit_nodes[] = {
	[UC_FIT_EXACT] = 0,
	[UC_FIT_LEFT] = 1,
	[UC_FIT_RIGHT] = 1,
	[UC_FIT_MIDDLE] = 2,
};

static enum uc_fit uc_classify(const struct uc_range *r, unsigned long start,
			       unsigned long size)
{
	bool left = start == r->start;
	bool right = start + size == uc_range_end(r);

	if (left && right)
		return UC_FIT_EXACT;
	if (left)
		return UC_FIT_LEFT;
	if (right)
		return UC_FIT_RIGHT;
	return UC_FIT_MIDDLE;
}

/*
 * Take [start, start + size), classified as @fit, out of free range @r.
 * After UC_FIT_EXACT @r is unlinked and belongs to the caller; UC_FIT_MIDDLE
 * uses @split for the right part.
 */
static void uc_free_carve(struct uc_range_tree *t, struct uc_range *r,
			  unsigned long start, unsigned long size,
			  enum uc_fit fit, struct uc_range *split)
{
	unsigned long end = start + size;
	struct rb_node **link, *parent;

	if (fit != UC_FIT_EXACT)
		uc_units_account(t, r, -1);
	switch (fit) {
	case UC_FIT_EXACT:
		uc_free_unlink(t, r);
		break;
	case UC_FIT_LEFT:
		r->start = end;
		r->size -= size;
		uc_units_account(t, r, 1);
		uc_free_propagate(r);
		break;
	case UC_FIT_RIGHT:
		r->size -= size;
		uc_units_account(t, r, 1);
		uc_free_propagate(r);
		break;
	case UC_FIT_MIDDLE:
		split->start = end;
		split->size = uc_range_end(r) - end;
		split->owner = NULL;
		r->size = start - r->start;
		uc_units_account(t, r, 1);
		uc_free_propagate(r);
		/* Cannot overlap: that space belonged to @r. */
		link = uc_range_link(&t->free_root, split->start,
				     uc_range_end(split), &parent);
		uc_free_link(t, split, parent, link);
		break;
	}
	WRITE_ONCE(t->free_bytes, t->free_bytes - size);
}

/*
 * Does an aligned chunk of @size bytes fit in @r?  If so, store its start
 * in *@start.  ALIGN() can wrap past the top of the address space, hence
 * the first test.
 */
static bool uc_fit_in(const struct uc_range *r, unsigned long size,
		      unsigned long align, unsigned long *start)
{
	unsigned long s = ALIGN(r->start, align);

	if (s < r->start || s >= uc_range_end(r) || uc_range_end(r) - s < size)
		return false;
	*start = s;
	return true;
}

/*
 * The lowest-addressed free range of at least @size bytes in the subtree
 * rooted at @n, whose subtree_max_size must be at least @size.
 */
static struct uc_range *uc_lowest_at_least(struct rb_node *n,
					   unsigned long size)
{
	while (n) {
		if (uc_subtree_max(n->rb_left) >= size) {
			n = n->rb_left;
			continue;
		}
		if (uc_rb_range(n)->size >= size)
			return uc_rb_range(n);
		/* Not left, not here: subtree_max_size says it is right. */
		n = n->rb_right;
	}
	return NULL;
}

/*
 * The next free range after @r, in address order, of at least @size bytes:
 * the lowest in @r's right subtree, or else the first ancestor that @r is
 * left of, or the lowest in that ancestor's right subtree, and so on up.
 * Subtrees without such a range are skipped whole.
 */
static struct uc_range *uc_next_at_least(struct uc_range *r,
					 unsigned long size)
{
	struct rb_node *n = &r->rb_node, *parent;

	if (uc_subtree_max(n->rb_right) >= size)
		return uc_lowest_at_least(n->rb_right, size);

	while ((parent = rb_parent(n))) {
		if (parent->rb_left == n) {
			if (uc_rb_range(parent)->size >= size)
				return uc_rb_range(parent);
			if (uc_subtree_max(parent->rb_right) >= size)
				return uc_lowest_at_least(parent->rb_right,
							  size);
		}
		n = parent;
	}
	return NULL;
}

/* The free range containing @addr, or else the lowest one above it. */
static struct uc_range *uc_free_from(struct uc_range_tree *t,
				     unsigned long addr)
{
	struct rb_node *n = t->free_root.rb_node;
	struct uc_range *above = NULL;

	while (n) {
		struct uc_range *r = uc_rb_range(n);

		if (addr < r->start) {
			above = r;
			n = n->rb_left;
		} else if (addr >= uc_range_end(r)) {
			n = n->rb_right;
		} else {
			return r;
		}
	}
	return above;
}

/*
 * Pass 0, for a tree with a floor: the lowest place at or above the floor
 * where an aligned chunk of @size bytes fits.  Every range visited but the
 * first holds @size bytes, so only alignment can make it fail.
 */
static struct uc_range *uc_find_fit_above(struct uc_range_tree *t,
					  unsigned long size,
					  unsigned long align,
					  unsigned long *start)
{
	unsigned long floor = t->floor, s;
	struct uc_range *r = uc_free_from(t, floor);

	if (r && r->size < size)
		r = uc_next_at_least(r, size);
	for (; r; r = uc_next_at_least(r, size)) {
		s = ALIGN(max(r->start, floor), align);
		if (s >= r->start && s < uc_range_end(r) &&
		    uc_range_end(r) - s >= size) {
			*start = s;
			return r;
		}
	}
	return NULL;
}

/*
 * Find where an aligned chunk of @size bytes goes: see "Fit policy" at the
 * top of this file.  Return the free range and store the chunk's start in
 * *@start, or return NULL if no aligned hole of @size bytes exists.
 */
static struct uc_range *uc_find_fit(struct uc_range_tree *t, unsigned long size,
				    unsigned long align, unsigned long *start)
{
	struct rb_node *root = t->free_root.rb_node;
	unsigned long length = size + align - PAGE_SIZE;
	struct uc_range *r;

	if (uc_subtree_max(root) < size)
		return NULL;

	if (t->floor) {
		r = uc_find_fit_above(t, size, align, start);
		if (r)
			return r;
	}

	/*
	 * Pass 1: any range of @length bytes holds the chunk whatever its
	 * alignment (except when ALIGN() would wrap at the very top of the
	 * address space, which uc_fit_in() catches).
	 */
	if (length >= size && uc_subtree_max(root) >= length) {
		r = uc_lowest_at_least(root, length);
		if (r && uc_fit_in(r, size, align, start))
			return r;
	}
	if (align == PAGE_SIZE)
		return NULL;

	/* Pass 2: every range of @size bytes, lowest first. */
	for (r = uc_lowest_at_least(root, size); r;
	     r = uc_next_at_least(r, size))
		if (uc_fit_in(r, size, align, start))
			return r;
	return NULL;
}

int uc_range_add(struct uc_range_tree *t, unsigned long start,
		 unsigned long size, struct uc_range **node)
{
	struct rb_node *parent;
	struct uc_range *r;

	if (WARN_ON_ONCE(!uc_range_valid(start, size)))
		return -EINVAL;
	if (!node || !*node)
		return -ENOMEM;
	if (WARN_ON_ONCE(!uc_range_link(&t->busy_root, start, start + size,
					&parent)))
		return -EINVAL;

	r = *node;
	r->start = start;
	r->size = size;
	if (WARN_ON_ONCE(!uc_free_insert(t, r)))
		return -EINVAL;
	*node = NULL;
	return 0;
}

struct uc_range *uc_range_alloc(struct uc_range_tree *t, unsigned long size,
				unsigned long align, void *owner,
				struct uc_range **spare)
{
	struct uc_range *r, *busy, *split = NULL;
	struct rb_node **link, *parent;
	unsigned long start;
	enum uc_fit fit;

	if (WARN_ON_ONCE(!size || !IS_ALIGNED(size, PAGE_SIZE) ||
			 !is_power_of_2(align)))
		return NULL;
	if (align < PAGE_SIZE)
		align = PAGE_SIZE;

	r = uc_find_fit(t, size, align, &start);
	if (!r)
		return NULL;
	fit = uc_classify(r, start, size);
	if (uc_spares_count(spare) < uc_fit_nodes[fit])
		return NULL;
	/* Free space overlapping a busy chunk: the tree is corrupt. */
	link = uc_range_link(&t->busy_root, start, start + size, &parent);
	if (WARN_ON_ONCE(!link))
		return NULL;

	busy = fit == UC_FIT_EXACT ? r : uc_spare_take(spare);
	if (fit == UC_FIT_MIDDLE)
		split = uc_spare_take(spare);
	uc_free_carve(t, r, start, size, fit, split);

	busy->start = start;
	busy->size = size;
	busy->subtree_max_size = 0;
	busy->owner = owner;
	rb_link_node(&busy->rb_node, parent, link);
	rb_insert_color(&busy->rb_node, &t->busy_root);
	t->busy_bytes += size;
	t->nr_busy++;
	return busy;
}

struct uc_range *uc_range_find_busy(struct uc_range_tree *t,
				    unsigned long start)
{
	struct uc_range *r = uc_range_containing(&t->busy_root, start);

	return r && r->start == start ? r : NULL;
}

struct uc_range *uc_range_find_busy_containing(struct uc_range_tree *t,
					       unsigned long addr)
{
	return uc_range_containing(&t->busy_root, addr);
}

void uc_range_free(struct uc_range_tree *t, struct uc_range *busy)
{
	if (WARN_ON_ONCE(!busy || uc_range_find_busy(t, busy->start) != busy))
		return;

	rb_erase(&busy->rb_node, &t->busy_root);
	RB_CLEAR_NODE(&busy->rb_node);
	t->busy_bytes -= busy->size;
	t->nr_busy--;

	/* Only a corrupt tree has free space where a chunk was. */
	if (WARN_ON_ONCE(!uc_free_insert(t, busy)))
		uc_range_node_free(busy);
}

bool uc_range_is_free(struct uc_range_tree *t, unsigned long start,
		      unsigned long size)
{
	struct uc_range *r;

	if (WARN_ON_ONCE(!size || start + size < start))
		return false;
	/* Free ranges are coalesced, so free space lies in one of them. */
	r = uc_range_containing(&t->free_root, start);
	return r && start + size <= uc_range_end(r);
}

int uc_range_remove(struct uc_range_tree *t, unsigned long start,
		    unsigned long size, struct uc_range **spare)
{
	struct uc_range *r, *split = NULL;
	enum uc_fit fit;

	if (WARN_ON_ONCE(!uc_range_valid(start, size)))
		return -EINVAL;

	r = uc_range_containing(&t->free_root, start);
	if (!r || start + size > uc_range_end(r))
		return -EBUSY;

	fit = uc_classify(r, start, size);
	if (fit == UC_FIT_MIDDLE) {
		if (!uc_spares_count(spare))
			return -ENOMEM;
		split = uc_spare_take(spare);
	}
	uc_free_carve(t, r, start, size, fit, split);
	if (fit == UC_FIT_EXACT)
		uc_range_node_free(r);
	return 0;
}

unsigned long uc_range_largest_free(struct uc_range_tree *t)
{
	return uc_subtree_max(t->free_root.rb_node);
}

static unsigned long uc_compute_max(struct uc_range *r)
{
	unsigned long max = r->size;

	if (uc_subtree_max(r->rb_node.rb_left) > max)
		max = uc_subtree_max(r->rb_node.rb_left);
	if (uc_subtree_max(r->rb_node.rb_right) > max)
		max = uc_subtree_max(r->rb_node.rb_right);
	return max;
}

static bool uc_children_linked(struct rb_node *n)
{
	return (!n->rb_left || rb_parent(n->rb_left) == n) &&
	       (!n->rb_right || rb_parent(n->rb_right) == n);
}

static int uc_check_failed(const char *why, const struct uc_range *r)
{
	if (r)
		pr_err("range tree: %s: [%#lx, %#lx)\n", why, r->start,
		       uc_range_end(r));
	else
		pr_err("range tree: %s\n", why);
	WARN_ON_ONCE(1);
	return -EINVAL;
}

int uc_range_tree_check(struct uc_range_tree *t)
{
	unsigned long bytes = 0, count = 0, units = 0;
	struct uc_range *r, *prev = NULL, *f;
	struct rb_node *n;

	/* Free ranges: walk the list and the tree side by side. */
	n = rb_first(&t->free_root);
	list_for_each_entry(r, &t->free_list, list) {
		if (n != &r->rb_node)
			return uc_check_failed("free list and free tree differ", r);
		if (!uc_range_valid(r->start, r->size))
			return uc_check_failed("malformed free range", r);
		if (prev && r->start < uc_range_end(prev))
			return uc_check_failed("free ranges unsorted or overlapping", r);
		if (prev && r->start == uc_range_end(prev))
			return uc_check_failed("free ranges not coalesced", r);
		if (!uc_children_linked(n))
			return uc_check_failed("bad parent link in free tree", r);
		if (r->subtree_max_size != uc_compute_max(r))
			return uc_check_failed("wrong subtree_max_size", r);
		if (r->owner)
			return uc_check_failed("free range has an owner", r);
		bytes += r->size;
		units += uc_units(t, r);
		count++;
		prev = r;
		n = rb_next(n);
	}
	if (n)
		return uc_check_failed("free tree has ranges not on the free list",
				       uc_rb_range(n));
	if (bytes != t->free_bytes || count != t->nr_free ||
	    units != t->free_units)
		return uc_check_failed("free counters wrong", NULL);

	/* Busy chunks, merged with the (sorted) free ranges. */
	bytes = 0;
	count = 0;
	prev = NULL;
	f = list_first_entry_or_null(&t->free_list, struct uc_range, list);
	for (n = rb_first(&t->busy_root); n; n = rb_next(n)) {
		r = uc_rb_range(n);
		if (!uc_range_valid(r->start, r->size))
			return uc_check_failed("malformed busy chunk", r);
		if (prev && r->start < uc_range_end(prev))
			return uc_check_failed("busy chunks overlap", r);
		if (!uc_children_linked(n))
			return uc_check_failed("bad parent link in busy tree", r);
		while (f && uc_range_end(f) <= r->start)
			f = list_is_last(&f->list, &t->free_list) ? NULL :
			    list_next_entry(f, list);
		if (f && f->start < uc_range_end(r))
			return uc_check_failed("busy chunk overlaps free space", r);
		bytes += r->size;
		count++;
		prev = r;
	}
	if (bytes != t->busy_bytes || count != t->nr_busy)
		return uc_check_failed("busy counters wrong", NULL);
	return 0;
}

void uc_range_tree_destroy(struct uc_range_tree *t)
{
	struct uc_range *r, *tmp;

	list_for_each_entry_safe(r, tmp, &t->free_list, list)
		uc_range_node_free(r);
	rbtree_postorder_for_each_entry_safe(r, tmp, &t->busy_root, rb_node)
		uc_range_node_free(r);
	uc_range_tree_init(t);
}
