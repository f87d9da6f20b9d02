/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Range tree of the unmapped cache: the free and busy page-granular ranges
 * of one arena.  See range.c for the design.
 *
 * Locking: a range tree has no lock of its own.  Every function that takes
 * a struct uc_range_tree expects the caller to serialise it, normally with
 * the arena's spinlock, and none of them sleeps or allocates memory.  Nodes
 * are allocated beforehand with uc_range_node_alloc() (or
 * uc_range_spares_fill()) and handed in.
 */
#ifndef MM_UNMAPPED_CACHE_RANGE_H
#define MM_UNMAPPED_CACHE_RANGE_H

#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/types.h>

/*
 * Most nodes an operation can consume: an allocation that splits a free
 * range in the middle needs one for the busy chunk and one for the free
 * range right of it.
 */
#define UC_RANGE_SPARES 2

/**
 * struct uc_range - A free range or a busy chunk of a range tree.
 * @rb_node:          node in &uc_range_tree.free_root (free) or
 *                    &uc_range_tree.busy_root (busy).
 * @list:             free ranges: entry in &uc_range_tree.free_list, in
 *                    address order.  Busy chunks: unused (empty).
 * @start:            first byte; a multiple of PAGE_SIZE.
 * @size:             length in bytes; a non-zero multiple of PAGE_SIZE.
 * @subtree_max_size: free ranges: the largest @size in the subtree rooted at
 *                    this node.  Busy chunks: unused.
 * @owner:            busy chunks: the cookie passed to uc_range_alloc().
 *                    Free ranges: NULL.
 *
 * One structure serves both purposes, so that freeing a chunk turns its
 * node into a free range without allocating.
 */
struct uc_range {
	struct rb_node rb_node;
	struct list_head list;
	unsigned long start;
	unsigned long size;
	unsigned long subtree_max_size;
	void *owner;
};

/**
 * struct uc_range_tree - The address space managed by one arena.
 * @free_root:  free ranges by address, augmented with
 *              &uc_range.subtree_max_size.  Free ranges never overlap and
 *              never touch: adjacent free space is always one range.
 * @free_list:  the same free ranges in address order, so that the
 *              neighbours of a range are found in O(1).
 * @busy_root:  busy chunks by address.
 * @free_bytes: total size of the free ranges; written with WRITE_ONCE(),
 *              may be read without the owner's lock (READ_ONCE()).
 * @busy_bytes: total size of the busy chunks.
 * @nr_free:    number of free ranges.
 * @nr_busy:    number of busy chunks.
 * @unit_shift: 0, or log2 of the unit whose aligned, wholly free spans
 *              @free_units counts (the owner's block size: space enters the
 *              tree a whole aligned block at a time, so such a span is a
 *              free block).  Set by the owner before adding space.
 * @free_units: the number of @unit_shift-aligned spans of that size that
 *              lie wholly in free ranges; written with WRITE_ONCE(), may be
 *              read without the owner's lock.
 * @floor:      0, or where uc_range_alloc() starts looking: it takes the
 *              lowest place at or above @floor where the chunk fits, and
 *              space below @floor only when there is none.  Set by the
 *              owner under its lock (an arena's random start, which
 *              randomises the addresses of what it hands out).
 */
struct uc_range_tree {
	struct rb_root free_root;
	struct list_head free_list;
	struct rb_root busy_root;
	unsigned long free_bytes;
	unsigned long busy_bytes;
	unsigned long nr_free;
	unsigned long nr_busy;
	unsigned int unit_shift;
	unsigned long free_units;
	unsigned long floor;
};

/**
 * uc_range_end() - End of a range.
 * @r: a free range or busy chunk.
 *
 * Return: the first byte after @r.
 */
static inline unsigned long uc_range_end(const struct uc_range *r)
{
	return r->start + r->size;
}

/**
 * uc_range_tree_init() - Initialise an empty range tree.
 * @t: the tree.
 *
 * Context: any context.
 */
void uc_range_tree_init(struct uc_range_tree *t);

/**
 * uc_range_node_alloc() - Allocate a node for later use by a range tree.
 * @gfp: allocation flags.
 *
 * Context: may sleep if @gfp allows it.  Call it before taking the arena
 * lock (or with a non-sleeping @gfp).
 * Return: an unlinked node, or NULL if out of memory.
 */
struct uc_range *uc_range_node_alloc(gfp_t gfp);

/**
 * uc_range_node_free() - Free a node.
 * @r: a node that is in no tree, or NULL.
 *
 * Context: any context; safe under a spinlock.
 */
void uc_range_node_free(struct uc_range *r);

/**
 * uc_range_spares_fill() - Fill the empty slots of a spare array.
 * @spare: array of %UC_RANGE_SPARES nodes; NULL entries are allocated.
 * @gfp:   allocation flags.
 *
 * Context: may sleep if @gfp allows it; call it without the arena lock.
 * Return: 0, or -ENOMEM if some slot stays empty.  Either way the caller
 * releases what is left with uc_range_spares_release().
 */
int uc_range_spares_fill(struct uc_range **spare, gfp_t gfp);

/**
 * uc_range_spares_release() - Free the nodes a spare array still holds.
 * @spare: array of %UC_RANGE_SPARES nodes; every entry is NULL afterwards.
 *
 * Context: any context; normally called after dropping the arena lock.
 */
void uc_range_spares_release(struct uc_range **spare);

/**
 * uc_range_add() - Add space (a new block) to the free space of a tree.
 * @t:     the tree.
 * @start: first byte; page aligned.
 * @size:  length in bytes; a non-zero multiple of PAGE_SIZE.  The range
 *         must not wrap around (or reach) the top of the address space.
 * @node:  a preallocated node.  On success *@node is set to NULL: it is
 *         either linked into the tree or freed because the new space merged
 *         into a neighbouring free range.  On failure the caller keeps it.
 *
 * Context: caller holds the arena lock.
 * Return: 0; -EINVAL (and a warning) if the range is malformed or overlaps
 * free or busy space of @t; -ENOMEM if @node or *@node is NULL.
 */
int uc_range_add(struct uc_range_tree *t, unsigned long start,
		 unsigned long size, struct uc_range **node);

/**
 * uc_range_alloc() - Allocate a chunk from the free space of a tree.
 * @t:     the tree.
 * @size:  length in bytes; a non-zero multiple of PAGE_SIZE.
 * @align: alignment of the chunk's start; a power of two.  Values below
 *         PAGE_SIZE mean PAGE_SIZE.
 * @owner: cookie stored in the busy chunk's &uc_range.owner.
 * @spare: array of %UC_RANGE_SPARES preallocated nodes (or NULL for none).
 *         The entries used are set to NULL; the caller frees the others,
 *         after dropping the lock, with uc_range_spares_release().
 *
 * With a &uc_range_tree.floor, the chunk goes at the lowest address at or
 * above the floor where it fits, if there is one.  Otherwise it is taken
 * from the lowest-addressed free range that holds @size bytes plus the
 * worst-case alignment padding; if there is none, from the
 * lowest-addressed free range where an aligned chunk fits at all.  So NULL
 * means that no aligned hole of @size bytes exists.
 *
 * Context: caller holds the arena lock.
 * Return: the busy chunk, or NULL if nothing fits, if a node that the fit
 * needed was missing from @spare, or (with a warning) if @size or @align
 * is malformed.  The tree is unchanged when NULL is returned.
 */
struct uc_range *uc_range_alloc(struct uc_range_tree *t, unsigned long size,
				unsigned long align, void *owner,
				struct uc_range **spare);

/**
 * uc_range_find_busy() - Find the busy chunk that starts at an address.
 * @t:     the tree.
 * @start: the address a caller wants to free.
 *
 * Context: caller holds the arena lock.
 * Return: the chunk, or NULL if no chunk starts at @start: a double free, a
 * foreign address or an address inside a chunk (uc_range_find_busy_containing()
 * tells these apart).
 */
struct uc_range *uc_range_find_busy(struct uc_range_tree *t,
				    unsigned long start);

/**
 * uc_range_find_busy_containing() - Find the busy chunk containing an address.
 * @t:    the tree.
 * @addr: any address.
 *
 * For diagnostics.
 *
 * Context: caller holds the arena lock.
 * Return: the busy chunk with start <= @addr < end, or NULL.
 */
struct uc_range *uc_range_find_busy_containing(struct uc_range_tree *t,
					       unsigned long addr);

/**
 * uc_range_free() - Return a busy chunk to the free space.
 * @t:    the tree.
 * @busy: a busy chunk of @t, as returned by uc_range_alloc() or
 *        uc_range_find_busy().
 *
 * The chunk's node becomes a free range, or is freed if the chunk merges
 * with a neighbouring free range, so this never needs memory.  A @busy that
 * is not a busy chunk of @t is reported with a warning and ignored.
 *
 * Context: caller holds the arena lock.
 */
void uc_range_free(struct uc_range_tree *t, struct uc_range *busy);

/**
 * uc_range_is_free() - Check whether a range is entirely free.
 * @t:     the tree.
 * @start: first byte.
 * @size:  length in bytes, non-zero.
 *
 * Context: caller holds the arena lock.
 * Return: true if every byte of [@start, @start + @size) is free space of
 * @t; false if some byte is busy or not in @t.
 */
bool uc_range_is_free(struct uc_range_tree *t, unsigned long start,
		      unsigned long size);

/**
 * uc_range_remove() - Take free space (a block leaving the arena) out of a tree.
 * @t:     the tree.
 * @start: first byte; page aligned.
 * @size:  length in bytes; a non-zero multiple of PAGE_SIZE.
 * @spare: array of %UC_RANGE_SPARES preallocated nodes (or NULL for none).
 *         Removing space from the middle of a free range consumes one.
 *
 * A free range that becomes empty is unlinked and its node freed.
 *
 * Context: caller holds the arena lock.
 * Return: 0; -EBUSY if some byte of the range is busy or not in @t;
 * -ENOMEM if a node was needed and @spare had none; -EINVAL (and a warning)
 * if the range is malformed.  The tree is unchanged on error.
 */
int uc_range_remove(struct uc_range_tree *t, unsigned long start,
		    unsigned long size, struct uc_range **spare);

/**
 * uc_range_largest_free() - Size of the largest free range.
 * @t: the tree.
 *
 * An allocation of this size with PAGE_SIZE alignment succeeds; larger
 * alignments may need more.
 *
 * Context: caller holds the arena lock.
 * Return: the size in bytes, 0 if there is no free space.
 */
unsigned long uc_range_largest_free(struct uc_range_tree *t);

/**
 * uc_range_tree_check() - Verify every invariant of a tree.
 * @t: the tree.
 *
 * Checks that the free ranges are well formed, sorted, neither overlapping
 * nor adjacent, that the free list and the free tree hold them in the same
 * order, that every &uc_range.subtree_max_size is right, that busy chunks
 * overlap neither each other nor free space, and that the counters of @t
 * match.  O(n): for tests and debugging only.
 *
 * Context: caller holds the arena lock.
 * Return: 0, or -EINVAL after reporting the first violation (and warning
 * once).
 */
int uc_range_tree_check(struct uc_range_tree *t);

/**
 * uc_range_tree_destroy() - Free every node of a tree.
 * @t: the tree; empty afterwards.
 *
 * Frees the free ranges and the busy chunks alike: the caller has dealt
 * with chunks still allocated (or leaks them on purpose).
 *
 * Context: caller holds the arena lock or has the only reference to @t.
 */
void uc_range_tree_destroy(struct uc_range_tree *t);

#endif /* MM_UNMAPPED_CACHE_RANGE_H */
