// SPDX-License-Identifier: GPL-2.0
/*
 * range_harness: userspace test of the unmapped cache's range tree.
 *
 * mm/unmapped_cache/range.c is compiled unchanged against tools/include and
 * the headers in shim/; this file provides what those headers declare
 * (kmalloc()/kfree() with failure injection, the WARN counter, printk) and
 * the tests: deterministic edge cases, then a long randomized run checked
 * against a page bitmap model.  See README.
 *
 * Usage: range_harness [SEED [OPS]]
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

#include <linux/align.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/slab.h>
#include <linux/types.h>

#include <asm/page.h>

#include "range.h"

#define DEFAULT_SEED	0x5eed2024UL
#define DEFAULT_OPS	1200000UL
#define BPL		(8 * sizeof(unsigned long))

/* --- What the shim headers declare. ---------------------------------- */

unsigned long uc_shim_warnings;
static unsigned long failures;	/* failed checks, unexpected warnings */
static bool shim_quiet;		/* expected warnings: count, do not print */
static long shim_fail_next;	/* fail this many kmalloc()s from now */
static unsigned long shim_live;	/* kmalloc()ed and not yet kfree()d */

void uc_shim_warn(const char *file, int line, const char *cond, bool *warned)
{
	uc_shim_warnings++;
	if (shim_quiet)
		return;
	failures++;		/* nothing else is expected to warn */
	if (*warned)
		return;
	*warned = true;
	fprintf(stderr, "WARNING: %s:%d: WARN_ON(%s)\n", file, line, cond);
}

void uc_shim_printk(const char *fmt, ...)
{
	va_list ap;

	if (shim_quiet)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void *kmalloc(size_t size, gfp_t gfp)
{
	void *p;

	(void)gfp;
	if (shim_fail_next > 0) {
		shim_fail_next--;
		return NULL;
	}
	p = malloc(size);
	if (p)
		shim_live++;
	return p;
}

void kfree(void *p)
{
	if (!p)
		return;
	shim_live--;
	free(p);
}

/* --- Checking. -------------------------------------------------------- */

static const char *phase = "init";
static unsigned long cur_op;

static bool check(bool ok, int line, const char *what)
{
	if (!ok) {
		failures++;
		if (failures <= 20)
			fprintf(stderr, "FAIL [%s, op %lu] line %d: %s\n",
				phase, cur_op, line, what);
	}
	return ok;
}

#define CHECK(cond) check(!!(cond), __LINE__, #cond)

/* Warnings raised by @expr, evaluated quietly. */
#define WARNS(expr) ({					\
	unsigned long __w = uc_shim_warnings;		\
							\
	shim_quiet = true;				\
	expr;						\
	shim_quiet = false;				\
	uc_shim_warnings - __w;				\
})

static unsigned long rng_state;

static unsigned long rnd(void)
{
	/* splitmix64 */
	unsigned long z = (rng_state += 0x9e3779b97f4a7c15UL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9UL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebUL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n). */
static unsigned long rnd_below(unsigned long n)
{
	return n ? rnd() % n : 0;
}

/* --- Small helpers for the edge-case tests. ---------------------------- */

#define P		PAGE_SIZE
#define BASE		0xffffffffa0000000UL	/* x86-64 module area */
#define BLOCK		(512 * P)

static struct uc_range *new_node(void)
{
	struct uc_range *r = uc_range_node_alloc(GFP_KERNEL);

	CHECK(r);
	return r;
}

static int add(struct uc_range_tree *t, unsigned long start, unsigned long size)
{
	struct uc_range *node = new_node();
	int ret = uc_range_add(t, start, size, &node);

	uc_range_node_free(node);
	return ret;
}

static void fill(struct uc_range **spare, int n)
{
	int i;

	for (i = 0; i < UC_RANGE_SPARES; i++)
		spare[i] = i < n ? new_node() : NULL;
}

static int nr_spares(struct uc_range **spare)
{
	int i, n = 0;

	for (i = 0; i < UC_RANGE_SPARES; i++)
		n += !!spare[i];
	return n;
}

struct snapshot {
	unsigned long free_bytes, busy_bytes, nr_free, nr_busy, largest;
	unsigned long sum, nodes, deep;
};

/* Counters, and with @deep the free ranges and busy chunks too. */
static void snap(struct uc_range_tree *t, struct snapshot *s, bool deep)
{
	struct uc_range *r;
	struct rb_node *n;

	s->free_bytes = t->free_bytes;
	s->busy_bytes = t->busy_bytes;
	s->nr_free = t->nr_free;
	s->nr_busy = t->nr_busy;
	s->largest = uc_range_largest_free(t);
	s->nodes = shim_live;
	s->sum = 0;
	s->deep = deep;
	if (!deep)
		return;
	list_for_each_entry(r, &t->free_list, list)
		s->sum = s->sum * 31 + r->start * 7 + r->size;
	for (n = rb_first(&t->busy_root); n; n = rb_next(n)) {
		r = rb_entry(n, struct uc_range, rb_node);
		s->sum = s->sum * 37 + r->start * 5 + r->size;
	}
}

static bool unchanged(struct uc_range_tree *t, const struct snapshot *before)
{
	struct snapshot now;

	snap(t, &now, before->deep);
	return !memcmp(&now, before, sizeof(now));
}

/*
 * Allocate with @n spares; check the result's start (0: expect NULL, and
 * the tree unchanged) and the number of spares consumed.
 */
static struct uc_range *alloc_expect(struct uc_range_tree *t, unsigned long size,
				     unsigned long align, int n,
				     unsigned long start, int used)
{
	struct uc_range *spare[UC_RANGE_SPARES], *r;
	struct snapshot s;

	fill(spare, n);
	snap(t, &s, true);
	r = uc_range_alloc(t, size, align, t, spare);
	if (!start) {
		CHECK(!r);
		CHECK(unchanged(t, &s));
	} else if (CHECK(r)) {
		CHECK(r->start == start);
		CHECK(r->size == size);
		CHECK(r->owner == t);
		CHECK(uc_range_find_busy(t, start) == r);
	}
	CHECK(nr_spares(spare) == n - used);
	uc_range_spares_release(spare);
	CHECK(uc_range_tree_check(t) == 0);
	return r;
}

/* Does the free list hold exactly the @n (start, size) pairs in @want? */
static bool free_is(struct uc_range_tree *t, const unsigned long *want, int n)
{
	struct uc_range *r;
	int i = 0;

	list_for_each_entry(r, &t->free_list, list) {
		if (i >= n || r->start != want[2 * i] || r->size != want[2 * i + 1])
			return false;
		i++;
	}
	return i == n && t->nr_free == (unsigned long)n;
}

#define FREE_IS(t, ...) ({						\
	const unsigned long __w[] = { __VA_ARGS__ };			\
									\
	free_is(t, __w, ARRAY_SIZE(__w) / 2);		\
})

/* --- Deterministic edge cases. ----------------------------------------- */

static void test_fit_cases(void)
{
	struct uc_range_tree t;
	struct uc_range *a;

	phase = "fit cases";
	uc_range_tree_init(&t);

	/* Exact fit: the free node becomes the busy node, no spare used. */
	CHECK(add(&t, BASE, 4 * P) == 0);
	a = alloc_expect(&t, 4 * P, P, 2, BASE, 0);
	CHECK(FREE_IS(&t));
	CHECK(t.free_bytes == 0 && t.busy_bytes == 4 * P);
	uc_range_free(&t, a);
	CHECK(FREE_IS(&t, BASE, 4 * P));
	CHECK(shim_live == 1);
	uc_range_tree_destroy(&t);

	/* Left edge: one spare for the busy chunk. */
	CHECK(add(&t, BASE, 8 * P) == 0);
	alloc_expect(&t, 2 * P, P, 2, BASE, 1);
	CHECK(FREE_IS(&t, BASE + 2 * P, 6 * P));
	uc_range_tree_destroy(&t);

	/* Right edge: the alignment padding stays free on the left. */
	CHECK(add(&t, BASE + P, 3 * P) == 0);
	alloc_expect(&t, 2 * P, 2 * P, 2, BASE + 2 * P, 1);
	CHECK(FREE_IS(&t, BASE + P, P));
	uc_range_tree_destroy(&t);

	/* Middle split: two spares; too few leave the tree unchanged. */
	CHECK(add(&t, BASE + P, 7 * P) == 0);
	alloc_expect(&t, 2 * P, 4 * P, 1, 0, 0);
	alloc_expect(&t, 2 * P, 4 * P, 0, 0, 0);
	CHECK(FREE_IS(&t, BASE + P, 7 * P));
	alloc_expect(&t, 2 * P, 4 * P, 2, BASE + 4 * P, 2);
	CHECK(FREE_IS(&t, BASE + P, 3 * P, BASE + 6 * P, 2 * P));
	/*
	 * Without spares: the policy picks [P, 4P) for 2 pages at 2P, a right
	 * edge needing a node, so NULL even though [6P, 8P) would fit exactly.
	 */
	CHECK(!uc_range_alloc(&t, 2 * P, 2 * P, NULL, NULL));
	/* An exact fit needs no spare, even with a NULL array. */
	a = uc_range_alloc(&t, 3 * P, P, NULL, NULL);
	CHECK(a && a->start == BASE + P);
	/* A left edge without spares fails. */
	alloc_expect(&t, P, P, 0, 0, 0);
	CHECK(FREE_IS(&t, BASE + 6 * P, 2 * P));
	uc_range_tree_destroy(&t);
	CHECK(shim_live == 0);

	/* Alignment padding at the left of a large range. */
	CHECK(add(&t, BASE + P, 1023 * P) == 0);
	alloc_expect(&t, P, 512 * P, 2, BASE + 512 * P, 2);
	CHECK(FREE_IS(&t, BASE + P, 511 * P, BASE + 513 * P, 511 * P));
	/* Alignment below PAGE_SIZE means PAGE_SIZE. */
	alloc_expect(&t, P, 64, 2, BASE + P, 1);
	alloc_expect(&t, P, 1, 2, BASE + 2 * P, 1);
	uc_range_tree_destroy(&t);

	/* Large chunks over runs of adjacent blocks (BASE is 512M aligned). */
	CHECK(add(&t, BASE + 3 * BLOCK, BLOCK) == 0);
	CHECK(add(&t, BASE + BLOCK, BLOCK) == 0);
	CHECK(add(&t, BASE + 2 * BLOCK, BLOCK) == 0);
	CHECK(FREE_IS(&t, BASE + BLOCK, 3 * BLOCK));
	alloc_expect(&t, 8 * BLOCK, BLOCK, 2, 0, 0);
	CHECK(add(&t, BASE + 5 * BLOCK, 4 * BLOCK) == 0);
	CHECK(add(&t, BASE + 4 * BLOCK, BLOCK) == 0);
	CHECK(FREE_IS(&t, BASE + BLOCK, 8 * BLOCK));
	alloc_expect(&t, 8 * BLOCK, BLOCK, 2, BASE + BLOCK, 0);	/* 16M */
	CHECK(add(&t, BASE + 17 * BLOCK, 16 * BLOCK) == 0);
	/* 16M at 16M: [24, 32) blocks, a middle split. */
	alloc_expect(&t, 8 * BLOCK, 8 * BLOCK, 2, BASE + 24 * BLOCK, 2);
	/* 16M at 32M: would be [32, 40), past the end at 33. */
	alloc_expect(&t, 8 * BLOCK, 16 * BLOCK, 2, 0, 0);
	/* 8M at 8M: no range of 16M - 4K is left; pass 2 finds [20, 24). */
	alloc_expect(&t, 4 * BLOCK, 4 * BLOCK, 2, BASE + 20 * BLOCK, 1);
	CHECK(FREE_IS(&t, BASE + 17 * BLOCK, 3 * BLOCK, BASE + 32 * BLOCK, BLOCK));
	uc_range_tree_destroy(&t);
	CHECK(shim_live == 0);
}

static void test_fit_policy(void)
{
	struct uc_range_tree t;

	phase = "fit policy";
	uc_range_tree_init(&t);

	/*
	 * Pass 2: a 2-page hole at an 8-page boundary is smaller than the
	 * worst case (9 pages) but fits exactly; a 3-page hole does not.
	 */
	CHECK(add(&t, BASE + 8 * P, 2 * P) == 0);
	CHECK(add(&t, BASE + 17 * P, 3 * P) == 0);
	CHECK(add(&t, BASE + 33 * P, 7 * P) == 0);
	alloc_expect(&t, 2 * P, 16 * P, 2, 0, 0);
	alloc_expect(&t, 3 * P, 8 * P, 2, 0, 0);
	/* Pass 1: [33P, 40P) holds 3 + 4 - 1 pages. */
	alloc_expect(&t, 3 * P, 4 * P, 2, BASE + 36 * P, 2);
	uc_range_tree_destroy(&t);

	CHECK(add(&t, BASE + 8 * P, 2 * P) == 0);
	CHECK(add(&t, BASE + 17 * P, 3 * P) == 0);
	CHECK(add(&t, BASE + 33 * P, 7 * P) == 0);
	alloc_expect(&t, 2 * P, 8 * P, 2, BASE + 8 * P, 0);
	/* Only misaligned holes are left for a 2-page, 8-page aligned chunk. */
	alloc_expect(&t, 2 * P, 8 * P, 2, 0, 0);
	CHECK(FREE_IS(&t, BASE + 17 * P, 3 * P, BASE + 33 * P, 7 * P));
	uc_range_tree_destroy(&t);

	/*
	 * Pass 1 wins when a range can hold the worst case: the lowest such
	 * range, even though a lower lucky hole exists.
	 */
	CHECK(add(&t, BASE + 8 * P, 2 * P) == 0);
	CHECK(add(&t, BASE + 64 * P, 64 * P) == 0);
	CHECK(add(&t, BASE + 256 * P, 512 * P) == 0);
	alloc_expect(&t, 2 * P, 8 * P, 2, BASE + 64 * P, 1);
	/* PAGE_SIZE alignment: plain lowest-address first fit. */
	alloc_expect(&t, 2 * P, P, 2, BASE + 8 * P, 0);
	alloc_expect(&t, 63 * P, P, 2, BASE + 256 * P, 1);
	CHECK(uc_range_largest_free(&t) == 449 * P);
	alloc_expect(&t, 450 * P, P, 2, 0, 0);
	uc_range_tree_destroy(&t);
	CHECK(uc_range_largest_free(&t) == 0);
	alloc_expect(&t, P, P, 2, 0, 0);
}

static void test_floor(void)
{
	struct uc_range_tree t;

	phase = "floor";
	uc_range_tree_init(&t);
	CHECK(add(&t, BASE, 16 * P) == 0);
	CHECK(add(&t, BASE + 32 * P, 16 * P) == 0);
	t.floor = BASE + 5 * P;
	/* At the floor, then upwards, lowest first. */
	alloc_expect(&t, 3 * P, P, 2, BASE + 5 * P, 2);
	alloc_expect(&t, 2 * P, P, 2, BASE + 8 * P, 1);
	/* Aligned above the floor: 10P is not 4P aligned, 12P is. */
	alloc_expect(&t, 2 * P, 4 * P, 2, BASE + 12 * P, 2);
	/* 5 pages do not fit in [10P, 12P) or [14P, 16P): the next range. */
	alloc_expect(&t, 5 * P, P, 2, BASE + 32 * P, 1);
	/* Nothing above the floor holds 12 pages: lowest first, from 37P. */
	alloc_expect(&t, 12 * P, P, 2, 0, 0);
	alloc_expect(&t, 11 * P, P, 2, BASE + 37 * P, 0);
	/* Above the floor nothing holds 4 pages; below it [0, 5P) does. */
	alloc_expect(&t, 4 * P, P, 2, BASE, 1);
	CHECK(FREE_IS(&t, BASE + 4 * P, P, BASE + 10 * P, 2 * P,
		      BASE + 14 * P, 2 * P));
	/* A floor above every free range: lowest first. */
	t.floor = BASE + 64 * P;
	alloc_expect(&t, 2 * P, P, 2, BASE + 10 * P, 0);
	/* A floor in a busy chunk: the first free range above it. */
	t.floor = BASE + 6 * P;
	alloc_expect(&t, P, P, 2, BASE + 14 * P, 1);
	uc_range_tree_destroy(&t);
	CHECK(shim_live == 0);
}

static void test_coalesce(void)
{
	struct uc_range_tree t;
	struct uc_range *a, *b, *c;

	phase = "coalesce";
	uc_range_tree_init(&t);

	CHECK(add(&t, BASE, 6 * P) == 0);
	a = alloc_expect(&t, 2 * P, P, 2, BASE, 1);
	b = alloc_expect(&t, 2 * P, P, 2, BASE + 2 * P, 1);
	c = alloc_expect(&t, 2 * P, P, 2, BASE + 4 * P, 0);
	CHECK(FREE_IS(&t));
	uc_range_free(&t, a);
	CHECK(FREE_IS(&t, BASE, 2 * P));
	uc_range_free(&t, c);
	CHECK(FREE_IS(&t, BASE, 2 * P, BASE + 4 * P, 2 * P));
	uc_range_free(&t, b);		/* merges with both sides */
	CHECK(FREE_IS(&t, BASE, 6 * P));
	CHECK(uc_range_tree_check(&t) == 0);
	CHECK(shim_live == 1);
	uc_range_tree_destroy(&t);

	/* Blocks coalesce on add: right neighbour, left neighbour, both. */
	CHECK(add(&t, BASE + BLOCK, BLOCK) == 0);
	CHECK(add(&t, BASE, BLOCK) == 0);
	CHECK(FREE_IS(&t, BASE, 2 * BLOCK));
	CHECK(add(&t, BASE + 3 * BLOCK, BLOCK) == 0);
	CHECK(add(&t, BASE + 2 * BLOCK, BLOCK) == 0);
	CHECK(FREE_IS(&t, BASE, 4 * BLOCK));
	CHECK(shim_live == 1);
	/* A block next to a busy chunk does not merge with it. */
	a = alloc_expect(&t, 4 * BLOCK, BLOCK, 2, BASE, 0);
	CHECK(add(&t, BASE + 4 * BLOCK, BLOCK) == 0);
	CHECK(FREE_IS(&t, BASE + 4 * BLOCK, BLOCK));
	uc_range_free(&t, a);
	CHECK(FREE_IS(&t, BASE, 5 * BLOCK));
	CHECK(shim_live == 1);
	uc_range_tree_destroy(&t);
	CHECK(shim_live == 0);
}

static void test_remove(void)
{
	struct uc_range *spare[UC_RANGE_SPARES];
	struct uc_range_tree t;
	struct snapshot s;
	struct uc_range *a;

	phase = "remove";
	uc_range_tree_init(&t);

	CHECK(add(&t, BASE, BLOCK) == 0);
	CHECK(add(&t, BASE + BLOCK, BLOCK) == 0);
	CHECK(add(&t, BASE + 2 * BLOCK, BLOCK) == 0);
	CHECK(FREE_IS(&t, BASE, 3 * BLOCK));

	/* The middle block splits the range: needs a spare. */
	CHECK(uc_range_is_free(&t, BASE + BLOCK, BLOCK));
	snap(&t, &s, true);
	CHECK(uc_range_remove(&t, BASE + BLOCK, BLOCK, NULL) == -ENOMEM);
	fill(spare, 0);
	CHECK(uc_range_remove(&t, BASE + BLOCK, BLOCK, spare) == -ENOMEM);
	CHECK(unchanged(&t, &s));
	fill(spare, 1);
	CHECK(uc_range_remove(&t, BASE + BLOCK, BLOCK, spare) == 0);
	CHECK(nr_spares(spare) == 0);
	CHECK(FREE_IS(&t, BASE, BLOCK, BASE + 2 * BLOCK, BLOCK));
	CHECK(!uc_range_is_free(&t, BASE + BLOCK, BLOCK));
	CHECK(!uc_range_is_free(&t, BASE + BLOCK - P, 2 * P));
	CHECK(uc_range_tree_check(&t) == 0);

	/* Exact: the node is freed. */
	CHECK(uc_range_remove(&t, BASE, BLOCK, NULL) == 0);
	CHECK(FREE_IS(&t, BASE + 2 * BLOCK, BLOCK));
	CHECK(shim_live == 1);

	/* Left and right edges need no spare. */
	CHECK(add(&t, BASE + 3 * BLOCK, 2 * BLOCK) == 0);
	CHECK(uc_range_remove(&t, BASE + 2 * BLOCK, BLOCK, NULL) == 0);
	CHECK(FREE_IS(&t, BASE + 3 * BLOCK, 2 * BLOCK));
	CHECK(uc_range_remove(&t, BASE + 4 * BLOCK, BLOCK, NULL) == 0);
	CHECK(FREE_IS(&t, BASE + 3 * BLOCK, BLOCK));
	CHECK(uc_range_tree_check(&t) == 0);

	/* Busy, absent and partly absent space is refused. */
	a = alloc_expect(&t, P, P, 2, BASE + 3 * BLOCK, 1);
	snap(&t, &s, true);
	fill(spare, 2);
	CHECK(uc_range_remove(&t, BASE + 3 * BLOCK, BLOCK, spare) == -EBUSY);
	CHECK(uc_range_remove(&t, BASE, BLOCK, spare) == -EBUSY);
	CHECK(uc_range_remove(&t, BASE + 4 * BLOCK - P, 2 * P, spare) == -EBUSY);
	CHECK(uc_range_remove(&t, BASE + 3 * BLOCK, P, spare) == -EBUSY);
	CHECK(!uc_range_is_free(&t, BASE + 3 * BLOCK, BLOCK));
	CHECK(uc_range_is_free(&t, BASE + 3 * BLOCK + P, BLOCK - P));
	CHECK(WARNS(CHECK(uc_range_remove(&t, BASE + 1, P, spare) == -EINVAL)) == 1);
	CHECK(WARNS(CHECK(uc_range_remove(&t, BASE, 0, spare) == -EINVAL)) == 1);
	CHECK(nr_spares(spare) == 2);
	uc_range_spares_release(spare);
	CHECK(unchanged(&t, &s));
	uc_range_free(&t, a);
	CHECK(uc_range_remove(&t, BASE + 3 * BLOCK, BLOCK, NULL) == 0);
	CHECK(FREE_IS(&t));
	CHECK(t.free_bytes == 0 && shim_live == 0);
	uc_range_tree_destroy(&t);
}

static void test_bad_input(void)
{
	struct uc_range_tree t;
	struct uc_range *a, *b, *node, fake;
	struct snapshot s;
	unsigned long start;

	phase = "bad input";
	uc_range_tree_init(&t);
	CHECK(add(&t, BASE, BLOCK) == 0);

	/* Double free: the chunk is gone from the busy tree. */
	a = alloc_expect(&t, 2 * P, P, 2, BASE, 1);
	start = a->start;
	CHECK(uc_range_find_busy(&t, start) == a);
	uc_range_free(&t, a);
	CHECK(!uc_range_find_busy(&t, start));
	CHECK(!uc_range_find_busy_containing(&t, start));

	/* A pointer into the middle of a chunk, a foreign pointer. */
	b = alloc_expect(&t, 4 * P, P, 2, BASE, 1);
	CHECK(!uc_range_find_busy(&t, BASE + P));
	CHECK(uc_range_find_busy_containing(&t, BASE + P) == b);
	CHECK(uc_range_find_busy_containing(&t, BASE + 4 * P - 1) == b);
	CHECK(!uc_range_find_busy_containing(&t, BASE + 4 * P));
	CHECK(!uc_range_find_busy_containing(&t, BASE - 1));
	CHECK(!uc_range_find_busy(&t, BASE + BLOCK));

	/* Overlapping, empty, unaligned and wrapping adds warn and fail. */
	snap(&t, &s, true);
	node = new_node();
	CHECK(WARNS(CHECK(uc_range_add(&t, BASE + 8 * P, P, &node) == -EINVAL)) == 1);
	CHECK(WARNS(CHECK(uc_range_add(&t, BASE, P, &node) == -EINVAL)) == 1);
	CHECK(WARNS(CHECK(uc_range_add(&t, BASE - P, 2 * P, &node) == -EINVAL)) == 1);
	CHECK(WARNS(CHECK(uc_range_add(&t, BASE + BLOCK - P, 2 * P, &node) == -EINVAL)) == 1);
	CHECK(WARNS(CHECK(uc_range_add(&t, BASE - P, BLOCK + 2 * P, &node) == -EINVAL)) == 1);
	CHECK(WARNS(CHECK(uc_range_add(&t, BASE + BLOCK, 0, &node) == -EINVAL)) == 1);
	CHECK(WARNS(CHECK(uc_range_add(&t, BASE + BLOCK + 8, P, &node) == -EINVAL)) == 1);
	CHECK(WARNS(CHECK(uc_range_add(&t, BASE + BLOCK, P + 8, &node) == -EINVAL)) == 1);
	CHECK(WARNS(CHECK(uc_range_add(&t, -4 * P, 4 * P, &node) == -EINVAL)) == 1);
	CHECK(WARNS(CHECK(uc_range_add(&t, -4 * P, 8 * P, &node) == -EINVAL)) == 1);
	CHECK(node);			/* the caller keeps it on failure */
	uc_range_node_free(node);
	CHECK(unchanged(&t, &s));

	/* Malformed allocations. */
	CHECK(WARNS(CHECK(!uc_range_alloc(&t, 0, P, NULL, NULL))) == 1);
	CHECK(WARNS(CHECK(!uc_range_alloc(&t, P + 1, P, NULL, NULL))) == 1);
	CHECK(WARNS(CHECK(!uc_range_alloc(&t, P, 3 * P, NULL, NULL))) == 1);
	CHECK(WARNS(CHECK(!uc_range_alloc(&t, P, 0, NULL, NULL))) == 1);
	CHECK(unchanged(&t, &s));

	/* Freeing something that is not a busy chunk of the tree. */
	memset(&fake, 0, sizeof(fake));
	fake.start = BASE;
	fake.size = 4 * P;
	CHECK(WARNS(uc_range_free(&t, &fake)) == 1);
	fake.start = BASE + 16 * P;
	CHECK(WARNS(uc_range_free(&t, &fake)) == 1);
	CHECK(WARNS(uc_range_free(&t, NULL)) == 1);
	CHECK(WARNS(CHECK(!uc_range_is_free(&t, BASE + BLOCK - P, 0))) == 1);
	CHECK(unchanged(&t, &s));
	CHECK(uc_range_tree_check(&t) == 0);
	uc_range_tree_destroy(&t);

	/* The top of the address space: ALIGN() wraps, adds must not. */
	CHECK(add(&t, -16 * P, 8 * P) == 0);
	alloc_expect(&t, P, 1UL << 40, 2, 0, 0);
	alloc_expect(&t, P, 1UL << 63, 2, 0, 0);
	alloc_expect(&t, 8 * P, 8 * P, 2, -16 * P, 0);
	CHECK(WARNS(CHECK(add(&t, -8 * P, 8 * P) == -EINVAL)) == 1);
	CHECK(add(&t, -24 * P, P) == 0);
	CHECK(uc_range_is_free(&t, -24 * P, P));
	CHECK(WARNS(CHECK(!uc_range_is_free(&t, -P, P))) == 1);
	uc_range_tree_destroy(&t);
	CHECK(shim_live == 0);
}

static void test_node_failure(void)
{
	struct uc_range *spare[UC_RANGE_SPARES] = { NULL, NULL };
	struct uc_range_tree t;
	struct uc_range *node;
	struct snapshot s;
	unsigned long w;

	phase = "node failure";
	uc_range_tree_init(&t);
	CHECK(add(&t, BASE + P, BLOCK - P) == 0);
	snap(&t, &s, true);
	w = uc_shim_warnings;

	shim_fail_next = 1;
	node = uc_range_node_alloc(GFP_KERNEL);
	CHECK(!node);
	CHECK(uc_range_add(&t, BASE + BLOCK, BLOCK, &node) == -ENOMEM);
	CHECK(uc_range_add(&t, BASE + BLOCK, BLOCK, NULL) == -ENOMEM);

	shim_fail_next = 1;
	CHECK(uc_range_spares_fill(spare, GFP_KERNEL) == -ENOMEM);
	CHECK(nr_spares(spare) == 1);
	/* A middle split (at 2P) needs two. */
	CHECK(!uc_range_alloc(&t, P, 2 * P, NULL, spare));
	CHECK(nr_spares(spare) == 1);
	uc_range_spares_release(spare);
	CHECK(!spare[0] && !spare[1]);

	shim_fail_next = 2;
	CHECK(uc_range_spares_fill(spare, GFP_KERNEL) == -ENOMEM);
	CHECK(!uc_range_alloc(&t, P, P, NULL, spare));
	CHECK(uc_range_remove(&t, BASE + 2 * P, P, spare) == -ENOMEM);
	CHECK(unchanged(&t, &s));
	CHECK(uc_shim_warnings == w);
	CHECK(uc_range_tree_check(&t) == 0);

	CHECK(uc_range_spares_fill(spare, GFP_KERNEL) == 0);
	CHECK(uc_range_alloc(&t, P, 2 * P, NULL, spare));
	CHECK(nr_spares(spare) == 0);
	CHECK(FREE_IS(&t, BASE + P, P, BASE + 3 * P, BLOCK - 3 * P));
	uc_range_tree_destroy(&t);
	CHECK(shim_live == 0);
}

static void test_check_detects(void)
{
	struct uc_range_tree t;
	struct uc_range *a, *r;
	unsigned long saved;

	phase = "check detects corruption";
	uc_range_tree_init(&t);
	CHECK(add(&t, BASE, BLOCK) == 0);
	CHECK(add(&t, BASE + 2 * BLOCK, BLOCK) == 0);
	CHECK(add(&t, BASE + 4 * BLOCK, BLOCK) == 0);
	a = alloc_expect(&t, P, P, 2, BASE, 1);
	r = list_last_entry(&t.free_list, struct uc_range, list);

	r->subtree_max_size += P;
	CHECK(WARNS(CHECK(uc_range_tree_check(&t) == -EINVAL)) == 1);
	r->subtree_max_size -= P;

	t.free_bytes += P;
	CHECK(WARNS(CHECK(uc_range_tree_check(&t) == -EINVAL)) == 1);
	t.free_bytes -= P;

	t.nr_busy++;
	CHECK(WARNS(CHECK(uc_range_tree_check(&t) == -EINVAL)) == 1);
	t.nr_busy--;

	saved = r->start;			/* touches its left neighbour */
	r->start = BASE + 3 * BLOCK;
	r->size += BLOCK;
	CHECK(WARNS(CHECK(uc_range_tree_check(&t) == -EINVAL)) == 1);
	r->start = saved;
	r->size -= BLOCK;

	a->size += P;				/* busy overlaps free */
	t.busy_bytes += P;
	CHECK(WARNS(CHECK(uc_range_tree_check(&t) == -EINVAL)) == 1);
	a->size -= P;
	t.busy_bytes -= P;

	CHECK(uc_range_tree_check(&t) == 0);
	/* Destroy frees busy chunks too. */
	uc_range_tree_destroy(&t);
	CHECK(shim_live == 0);
	CHECK(RB_EMPTY_ROOT(&t.busy_root) && RB_EMPTY_ROOT(&t.free_root));
	CHECK(uc_range_tree_check(&t) == 0);
}

/* --- Randomized run against a page bitmap model. ----------------------- */

#define MAX_SLOTS	128

struct chunk {
	struct uc_range *r;
	unsigned long start, size;	/* bytes */
	void *owner;
};

struct stats {
	unsigned long alloc_ok, alloc_nofit, alloc_nospare, alloc_grow;
	unsigned long frees, adds, add_nomem, add_bad, removes, remove_busy;
	unsigned long remove_nomem, queries, checks, max_chunks, max_free;
};

struct sim {
	struct uc_range_tree t;
	unsigned long base, block_pages, npages, nwords, max_present;
	unsigned long *present, *busy;	/* page bitmaps */
	bool slot[MAX_SLOTS];
	unsigned long nr_present, free_pages, busy_pages;
	struct chunk *chunks;
	unsigned long nchunks, cap, next_owner;
	bool floors;			/* this run moves the tree's floor */
	bool has_floor;
	unsigned long floor_pg;
	struct stats st;
};

static unsigned long addr_of(struct sim *s, unsigned long pg)
{
	return s->base + pg * P;
}

static unsigned long page_of(struct sim *s, unsigned long addr)
{
	return (addr - s->base) / P;
}

static void bits_assign(unsigned long *map, unsigned long from, unsigned long n,
			bool val)
{
	while (n) {
		unsigned long b = from % BPL, k = n < BPL - b ? n : BPL - b;
		unsigned long mask = (k == BPL ? ~0UL : (1UL << k) - 1) << b;

		if (val)
			map[from / BPL] |= mask;
		else
			map[from / BPL] &= ~mask;
		from += k;
		n -= k;
	}
}

static unsigned long free_word(struct sim *s, unsigned long w)
{
	return s->present[w] & ~s->busy[w];
}

/* Are pages [from, from + n) all free?  Pages outside the window are not. */
static bool sim_all_free(struct sim *s, unsigned long from, unsigned long n)
{
	if (from >= s->npages || n > s->npages - from)
		return false;
	while (n) {
		unsigned long b = from % BPL, k = n < BPL - b ? n : BPL - b;
		unsigned long mask = (k == BPL ? ~0UL : (1UL << k) - 1) << b;

		if ((free_word(s, from / BPL) & mask) != mask)
			return false;
		from += k;
		n -= k;
	}
	return true;
}

static bool sim_page_free(struct sim *s, unsigned long pg)
{
	return pg < s->npages && (free_word(s, pg / BPL) >> (pg % BPL) & 1);
}

static bool sim_page_busy(struct sim *s, unsigned long pg)
{
	return pg < s->npages && (s->busy[pg / BPL] >> (pg % BPL) & 1);
}

/* First page >= @pg that is free (@want) or not free (!@want). */
static unsigned long sim_next(struct sim *s, unsigned long pg, bool want)
{
	unsigned long w, word;

	if (pg >= s->npages)
		return s->npages;
	w = pg / BPL;
	word = want ? free_word(s, w) : ~free_word(s, w);
	word &= ~0UL << (pg % BPL);
	while (!word) {
		if (++w == s->nwords)
			return s->npages;
		word = want ? free_word(s, w) : ~free_word(s, w);
	}
	pg = w * BPL + __builtin_ctzl(word);
	return pg < s->npages ? pg : s->npages;
}

/* The next maximal free run [*a, *b) at or after *b; start with *b = 0. */
static bool sim_next_run(struct sim *s, unsigned long *a, unsigned long *b)
{
	*a = sim_next(s, *b, true);
	if (*a >= s->npages)
		return false;
	*b = sim_next(s, *a, false);
	return true;
}

/*
 * Where the model says an aligned chunk of @size_pg pages goes, by the
 * documented policy, worked out by brute force over the free runs: with a
 * floor, the lowest place at or above it where the aligned chunk fits;
 * then the lowest run of size + align - 1 pages; failing that, the lowest
 * run where the aligned chunk fits.  Returns false only if no aligned hole
 * exists.
 */
static bool sim_fit(struct sim *s, unsigned long size_pg, unsigned long align,
		    unsigned long *start_pg, unsigned long *run_a,
		    unsigned long *run_b)
{
	unsigned long length = size_pg + align / P - 1, a, b, pass, addr, al;

	for (b = 0; s->has_floor && sim_next_run(s, &a, &b); ) {
		if (b <= s->floor_pg)
			continue;
		addr = addr_of(s, a > s->floor_pg ? a : s->floor_pg);
		if (__builtin_add_overflow(addr, align - 1, &al))
			continue;
		al &= ~(align - 1);
		if (page_of(s, al) + size_pg > b)
			continue;
		*start_pg = page_of(s, al);
		*run_a = a;
		*run_b = b;
		return true;
	}
	for (pass = 1; pass <= 2; pass++) {
		for (b = 0; sim_next_run(s, &a, &b); ) {
			if (pass == 1 && b - a < length)
				continue;
			addr = addr_of(s, a);
			if (__builtin_add_overflow(addr, align - 1, &al))
				goto next;
			al &= ~(align - 1);
			if (page_of(s, al) + size_pg > b)
				goto next;
			*start_pg = page_of(s, al);
			*run_a = a;
			*run_b = b;
			return true;
next:
			if (pass == 1)
				break;	/* pass 1 looks at the lowest run only */
		}
	}
	return false;
}

/* Free runs, the largest, and 2M-aligned 2M spans wholly inside them. */
static unsigned long sim_runs(struct sim *s, unsigned long *largest,
			      unsigned long *units)
{
	unsigned long a, b, n = 0, lo, first, last, unit = 512 * P;

	*largest = 0;
	*units = 0;
	for (b = 0; sim_next_run(s, &a, &b); ) {
		n++;
		if (b - a > *largest)
			*largest = b - a;
		/* Every aligned span in the run, one by one. */
		lo = addr_of(s, a);
		first = (lo + unit - 1) & ~(unit - 1);
		last = addr_of(s, b - 1) + P;	/* b may be past the top */
		for (; first >= lo && first < last && last - first >= unit; first += unit)
			++*units;
	}
	return n;
}

/* Cheap checks after every operation. */
static bool sim_quick_check(struct sim *s)
{
	return CHECK(s->t.free_bytes == s->free_pages * P) &&
	       CHECK(s->t.busy_bytes == s->busy_pages * P) &&
	       CHECK(s->t.nr_busy == s->nchunks) &&
	       CHECK(shim_live == s->t.nr_free + s->t.nr_busy);
}

static bool sim_full_check(struct sim *s)
{
	unsigned long largest, units, runs = sim_runs(s, &largest, &units);

	s->st.checks++;
	return CHECK(uc_range_tree_check(&s->t) == 0) &&
	       CHECK(s->t.nr_free == runs) &&
	       CHECK(s->t.free_units == units) &&
	       CHECK(uc_range_largest_free(&s->t) == largest * P) &&
	       sim_quick_check(s);
}

static unsigned long rnd_size_pages(void)
{
	unsigned long r = rnd_below(1000);

	if (r < 650)
		return 1 + rnd_below(4);
	if (r < 850)
		return 1 + rnd_below(32);
	if (r < 950)
		return 1 + rnd_below(256);
	if (r < 990)
		return 1 + rnd_below(1024);
	return rnd_below(4) ? 1 + rnd_below(4096) : 4096;
}

static unsigned long rnd_align(void)
{
	unsigned long r = rnd_below(1000);

	if (r < 480)
		return P;
	if (r < 500)
		return 1UL << rnd_below(PAGE_SHIFT);	/* below a page */
	if (r < 970)
		return P << (1 + rnd_below(9));		/* up to 2 MiB */
	return P << (10 + rnd_below(4));		/* 4 to 32 MiB */
}

static bool sim_add_slot(struct sim *s, unsigned long slot)
{
	unsigned long pg = slot * s->block_pages, n = s->block_pages;
	unsigned long nr_free = s->t.nr_free;
	bool before = pg && sim_page_free(s, pg - 1);
	bool after = sim_page_free(s, pg + n);
	struct uc_range *node;
	struct snapshot sn;
	int ret;

	if (!rnd_below(16)) {
		snap(&s->t, &sn, !rnd_below(8));
		shim_fail_next = 1;
		node = uc_range_node_alloc(GFP_KERNEL);
		if (!CHECK(!node) ||
		    !CHECK(uc_range_add(&s->t, addr_of(s, pg), n * P, &node) == -ENOMEM) ||
		    !CHECK(unchanged(&s->t, &sn)))
			return false;
		s->st.add_nomem++;
	}

	node = uc_range_node_alloc(GFP_KERNEL);
	if (!CHECK(node))
		return false;
	ret = uc_range_add(&s->t, addr_of(s, pg), n * P, &node);
	if (!CHECK(ret == 0) || !CHECK(!node))
		return false;
	if (!CHECK(s->t.nr_free == nr_free + 1 - before - after))
		return false;
	bits_assign(s->present, pg, n, true);
	s->slot[slot] = true;
	s->nr_present++;
	s->free_pages += n;
	s->st.adds++;
	return CHECK(uc_range_is_free(&s->t, addr_of(s, pg), n * P));
}

/* Add a range that overlaps present space: must warn and fail. */
static bool sim_bad_add(struct sim *s)
{
	unsigned long slot = rnd_below(MAX_SLOTS), pg, n, w;
	struct uc_range *node;
	struct snapshot sn;
	int ret;

	if (slot * s->block_pages >= s->npages || !s->slot[slot])
		return true;
	pg = slot * s->block_pages + rnd_below(s->block_pages);
	n = 1 + rnd_below(2 * s->block_pages);
	if (pg && rnd_below(2)) {	/* start before it, maybe outside */
		w = 1 + rnd_below(pg < 8 ? pg : 8);
		pg -= w;
		n += w;
	}
	snap(&s->t, &sn, !rnd_below(8));
	node = uc_range_node_alloc(GFP_KERNEL);
	if (!CHECK(node))
		return false;
	w = WARNS(ret = uc_range_add(&s->t, addr_of(s, pg), n * P, &node));
	s->st.add_bad++;
	if (!CHECK(ret == -EINVAL) || !CHECK(w == 1) || !CHECK(node))
		return false;
	uc_range_node_free(node);
	return CHECK(unchanged(&s->t, &sn));
}

static bool sim_remove_slot(struct sim *s, unsigned long slot)
{
	unsigned long pg = slot * s->block_pages, n = s->block_pages;
	struct uc_range *spare[UC_RANGE_SPARES];
	bool all_free = sim_all_free(s, pg, n);
	bool middle = pg && sim_page_free(s, pg - 1) && sim_page_free(s, pg + n);
	unsigned long nr_free = s->t.nr_free;
	int nsp = rnd_below(8) ? 1 : 0;
	struct snapshot sn;
	int ret;

	if (!CHECK(uc_range_is_free(&s->t, addr_of(s, pg), n * P) == all_free))
		return false;
	fill(spare, nsp);
	snap(&s->t, &sn, !rnd_below(8));
	ret = uc_range_remove(&s->t, addr_of(s, pg), n * P, spare);
	if (!all_free) {
		s->st.remove_busy++;
		if (!CHECK(ret == -EBUSY) || !CHECK(unchanged(&s->t, &sn)))
			return false;
	} else if (middle && !nsp) {
		s->st.remove_nomem++;
		if (!CHECK(ret == -ENOMEM) || !CHECK(unchanged(&s->t, &sn)))
			return false;
	} else {
		bool before = pg && sim_page_free(s, pg - 1);
		bool after = sim_page_free(s, pg + n);

		if (!CHECK(ret == 0) ||
		    !CHECK(nr_spares(spare) == nsp - middle) ||
		    !CHECK(s->t.nr_free == nr_free - 1 + before + after))
			return false;
		bits_assign(s->present, pg, n, false);
		s->slot[slot] = false;
		s->nr_present--;
		s->free_pages -= n;
		s->st.removes++;
	}
	uc_range_spares_release(spare);
	return true;
}

/* Add @k adjacent absent slots somewhere, in random order; false if none. */
static bool sim_grow(struct sim *s, unsigned long k, bool *ok)
{
	unsigned long nslots = s->npages / s->block_pages, cand[MAX_SLOTS];
	unsigned long i, j, run = 0, nc = 0, order[MAX_SLOTS], tmp;

	*ok = true;
	if (!k || k > nslots || s->nr_present + k > s->max_present)
		return false;
	for (i = 0; i < nslots; i++) {
		run = s->slot[i] ? 0 : run + 1;
		if (run >= k)
			cand[nc++] = i + 1 - k;
	}
	if (!nc)
		return false;
	i = cand[rnd_below(nc)];
	for (j = 0; j < k; j++)
		order[j] = i + j;
	for (j = k - 1; j > 0; j--) {
		unsigned long x = rnd_below(j + 1);

		tmp = order[j];
		order[j] = order[x];
		order[x] = tmp;
	}
	for (j = 0; j < k && *ok; j++)
		*ok = sim_add_slot(s, order[j]);
	return true;
}

/*
 * Nodes an allocation consumes, given whether free space remains left and
 * right of the chunk in its free range: none for an exact fit (the free node
 * becomes the busy one), one for an edge, two for a middle split.
 */
static int fit_nodes(bool left_remains, bool right_remains)
{
	return left_remains + right_remains;
}

static bool sim_alloc(struct sim *s, bool may_grow)
{
	unsigned long size_pg = rnd_size_pages(), align = rnd_align();
	unsigned long al = align < P ? P : align, start_pg = 0, ra = 0, rb = 0;
	struct uc_range *spare[UC_RANGE_SPARES], *r;
	bool exact, fits = false, ok;
	unsigned long nr_free;
	int nsp, need = 0;
	struct snapshot sn;
	void *owner;

retry:
	/*
	 * One allocation in four is checked against the policy's exact
	 * answer, which also tells how many spares it needs, so it may get
	 * fewer.  The others get two spares; their result is checked against
	 * the model, and a NULL by brute force.
	 */
	exact = !rnd_below(4);
	nsp = exact && !rnd_below(10) ? (int)rnd_below(2) : 2;
	nr_free = s->t.nr_free;
	if (exact) {
		fits = sim_fit(s, size_pg, al, &start_pg, &ra, &rb);
		if (fits)
			need = fit_nodes(start_pg != ra, start_pg + size_pg != rb);
	}
	fill(spare, nsp);
	snap(&s->t, &sn, exact && (!fits || need > nsp));
	owner = (void *)(16 * ++s->next_owner);
	r = uc_range_alloc(&s->t, size_pg * P, align, owner,
			   rnd_below(4) || nsp ? spare : NULL);

	if (!r) {
		if (!exact)
			fits = sim_fit(s, size_pg, al, &start_pg, &ra, &rb);
		if (!CHECK(!fits || need > nsp) || !CHECK(unchanged(&s->t, &sn)) ||
		    !CHECK(nr_spares(spare) == nsp))
			return false;
		uc_range_spares_release(spare);
		if (fits) {
			s->st.alloc_nospare++;
			return true;
		}
		s->st.alloc_nofit++;
		/* Grow the arena like a caller would, and try again. */
		if (may_grow && rnd_below(2)) {
			unsigned long k = (size_pg + al / P - 1 + s->block_pages - 1) /
					  s->block_pages;

			if (sim_grow(s, k, &ok)) {
				if (!ok)
					return false;
				s->st.alloc_grow++;
				may_grow = false;
				goto retry;
			}
		}
		return true;
	}

	if (exact && (!CHECK(fits && need <= nsp) ||
		      !CHECK(r->start == addr_of(s, start_pg))))
		return false;
	start_pg = page_of(s, r->start);
	if (!CHECK(r->start >= s->base) || !CHECK(r->size == size_pg * P) ||
	    !CHECK(r->owner == owner) || !CHECK(IS_ALIGNED(r->start, al)) ||
	    !CHECK(sim_all_free(s, start_pg, size_pg)))
		return false;
	/* The fit case, from the free pages around the chunk. */
	need = fit_nodes(start_pg && sim_page_free(s, start_pg - 1),
			 sim_page_free(s, start_pg + size_pg));
	if (!CHECK(nr_spares(spare) == nsp - need) ||
	    !CHECK(s->t.nr_free == nr_free + need - 1) ||
	    !CHECK(uc_range_find_busy(&s->t, r->start) == r))
		return false;
	uc_range_spares_release(spare);

	bits_assign(s->busy, start_pg, size_pg, true);
	s->free_pages -= size_pg;
	s->busy_pages += size_pg;
	if (s->nchunks == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->chunks = realloc(s->chunks, s->cap * sizeof(*s->chunks));
		if (!s->chunks) {
			perror("realloc");
			exit(2);
		}
	}
	s->chunks[s->nchunks++] = (struct chunk){ r, r->start, r->size, owner };
	s->st.alloc_ok++;
	if (s->nchunks > s->st.max_chunks)
		s->st.max_chunks = s->nchunks;
	return true;
}

static bool sim_free(struct sim *s, unsigned long i)
{
	struct chunk c = s->chunks[i];
	unsigned long pg = page_of(s, c.start), n = c.size / P;
	unsigned long nr_free = s->t.nr_free, off;
	bool before = pg && sim_page_free(s, pg - 1);
	bool after = sim_page_free(s, pg + n);

	if (!CHECK(uc_range_find_busy(&s->t, c.start) == c.r) ||
	    !CHECK(c.r->owner == c.owner) || !CHECK(c.r->size == c.size))
		return false;
	if (n > 1 && !rnd_below(4)) {
		off = (1 + rnd_below(n - 1)) * P + rnd_below(P);
		if (!CHECK(!uc_range_find_busy(&s->t, c.start + off)) ||
		    !CHECK(uc_range_find_busy_containing(&s->t, c.start + off) == c.r))
			return false;
	}
	uc_range_free(&s->t, c.r);
	bits_assign(s->busy, pg, n, false);
	s->free_pages += n;
	s->busy_pages -= n;
	s->chunks[i] = s->chunks[--s->nchunks];
	s->st.frees++;
	return CHECK(!uc_range_find_busy(&s->t, c.start)) &&
	       CHECK(s->t.nr_free == nr_free + 1 - before - after) &&
	       CHECK(uc_range_is_free(&s->t, c.start, c.size));
}

static bool sim_query(struct sim *s)
{
	unsigned long pg = rnd_below(s->npages + 16), n = 1 + rnd_below(1024);
	unsigned long largest, units, addr;
	struct uc_range *r;

	/* Also probe a little below the window. */
	addr = s->base + pg * P - 8 * P;
	pg = page_of(s, addr);
	if (addr + n * P < addr)	/* near the top: do not wrap */
		n = 1;
	s->st.queries++;
	if (!CHECK(uc_range_is_free(&s->t, addr, n * P) == sim_all_free(s, pg, n)))
		return false;
	addr += rnd_below(P);
	r = uc_range_find_busy_containing(&s->t, addr);
	if (!CHECK(!r == !sim_page_busy(s, pg)))
		return false;
	if (r && (!CHECK(r->start <= addr && addr < uc_range_end(r)) ||
		  !CHECK(r->start == addr || !uc_range_find_busy(&s->t, addr))))
		return false;
	if (rnd_below(8))
		return true;
	sim_runs(s, &largest, &units);
	return CHECK(uc_range_largest_free(&s->t) == largest * P) &&
	       CHECK(s->t.free_units == units);
}

static bool sim_reap(struct sim *s)
{
	unsigned long slot, nslots = s->npages / s->block_pages;

	for (slot = 0; slot < nslots; slot++)
		if (s->slot[slot] &&
		    sim_all_free(s, slot * s->block_pages, s->block_pages) &&
		    !sim_remove_slot(s, slot))
			return false;
	return true;
}

/*
 * One random operation.  The mix alternates between filling phases, which
 * fragment the arena until allocations fail, and draining phases, which
 * free chunks until whole blocks can leave.
 */
static bool sim_step(struct sim *s, bool filling)
{
	unsigned long r = rnd_below(1000), slot;
	unsigned long nslots = s->npages / s->block_pages;
	unsigned long a = filling ? 500 : 350;
	bool ok;

	if (r < a || (r < 850 && !s->nchunks))
		return sim_alloc(s, true);
	if (r < 850)
		return sim_free(s, rnd_below(s->nchunks));
	if (r < (filling ? 910 : 880)) {
		if (!rnd_below(16))
			return sim_bad_add(s);
		if (!rnd_below(4)) {	/* a run of adjacent blocks */
			sim_grow(s, 2 + rnd_below(7), &ok);
			return ok;
		}
		slot = rnd_below(nslots);
		if (s->slot[slot] || s->nr_present >= s->max_present)
			return true;
		return sim_add_slot(s, slot);
	}
	if (r < 940) {
		slot = rnd_below(nslots);
		return !s->slot[slot] || sim_remove_slot(s, slot);
	}
	if (r < 945)
		return sim_reap(s);
	if (s->floors && r < 950) {	/* a new floor, or none */
		s->has_floor = rnd_below(4);
		s->floor_pg = rnd_below(s->npages);
		s->t.floor = s->has_floor ? addr_of(s, s->floor_pg) : 0;
		return true;
	}
	return sim_query(s);
}

/*
 * One randomized run of @ops operations on a window of MAX_SLOTS blocks of
 * @block_pages pages at @base.
 */
static bool sim_run(const char *name, unsigned long base,
		    unsigned long block_pages, unsigned long max_present,
		    bool floors, unsigned long ops, unsigned long *done)
{
	struct sim *s = calloc(1, sizeof(*s));
	unsigned long i;
	bool ok = true;

	phase = name;
	if (!s)
		exit(2);
	uc_range_tree_init(&s->t);
	s->t.unit_shift = 21;		/* count free 2M-aligned 2M spans */
	s->base = base;
	s->block_pages = block_pages;
	s->npages = MAX_SLOTS * block_pages;
	s->nwords = (s->npages + BPL - 1) / BPL;
	s->max_present = max_present;
	s->floors = floors;
	s->present = calloc(s->nwords, sizeof(unsigned long));
	s->busy = calloc(s->nwords, sizeof(unsigned long));
	if (!s->present || !s->busy)
		exit(2);

	for (i = 0; i < ops && ok; i++) {
		cur_op = i;
		ok = sim_step(s, i / 20000 % 2 == 0) && sim_quick_check(s);
		if (ok && (i % 1024 == 0 || i == ops - 1))
			ok = sim_full_check(s);
		if (s->t.nr_free > s->st.max_free)
			s->st.max_free = s->t.nr_free;
	}
	*done += i;
	ops = i;

	/* Drain: free every chunk, remove every block, the tree is empty. */
	while (ok && s->nchunks)
		ok = sim_free(s, rnd_below(s->nchunks)) && sim_quick_check(s);
	ok = ok && sim_full_check(s);
	for (i = 0; ok && i < MAX_SLOTS; i++)
		while (ok && s->slot[i])	/* -ENOMEM when it had no spare */
			ok = sim_remove_slot(s, i);
	ok = ok && sim_full_check(s) && CHECK(s->nr_present == 0) &&
	     CHECK(s->t.free_bytes == 0) && CHECK(shim_live == 0);

	printf("  %s: %lu ops\n", name, ops);
	printf("    alloc: %lu ok, %lu no fit (then grew %lu times), %lu short of spares\n",
	       s->st.alloc_ok, s->st.alloc_nofit, s->st.alloc_grow,
	       s->st.alloc_nospare);
	printf("    free: %lu; add: %lu (%lu -ENOMEM, %lu overlapping)\n",
	       s->st.frees, s->st.adds, s->st.add_nomem, s->st.add_bad);
	printf("    remove: %lu (%lu -EBUSY, %lu -ENOMEM); queries: %lu; full checks: %lu\n",
	       s->st.removes, s->st.remove_busy, s->st.remove_nomem,
	       s->st.queries, s->st.checks);
	printf("    peak: %lu chunks, %lu free ranges\n",
	       s->st.max_chunks, s->st.max_free);

	uc_range_tree_destroy(&s->t);
	free(s->present);
	free(s->busy);
	free(s->chunks);
	free(s);
	return ok;
}

int main(int argc, char **argv)
{
	unsigned long seed = DEFAULT_SEED, ops = DEFAULT_OPS, done = 0;
	struct timespec t0, t1;
	double secs;
	bool ok;

	if (argc > 1)
		seed = strtoul(argv[1], NULL, 0);
	if (argc > 2)
		ops = strtoul(argv[2], NULL, 0);
	if (argc > 3 || !ops) {
		fprintf(stderr, "usage: %s [SEED [OPS]]\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	printf("range_harness: seed %#lx, %lu randomized ops\n", seed, ops);

	test_fit_cases();
	test_fit_policy();
	test_floor();
	test_coalesce();
	test_remove();
	test_bad_input();
	test_node_failure();
	test_check_detects();
	printf("  edge cases: %s\n", failures ? "FAIL" : "ok");

	rng_state = seed;
	ok = !failures;
	/* Module-area addresses, 2 MiB blocks. */
	ok = ok && sim_run("va, 2M blocks", BASE, 512, 96, false, ops / 4,
			   &done);
	/* The same with a floor that moves (an arena's random start). */
	ok = ok && sim_run("va, 2M blocks, floors", BASE, 512, 96, true,
			   ops / 4, &done);
	/* Physical addresses, blocks not 2 MiB aligned. */
	ok = ok && sim_run("pa, misaligned blocks", 0x100000000UL + 5 * P,
			   512, 96, false, ops / 4, &done);
	/* Odd block size, window ending just below the top, floors. */
	ok = ok && sim_run("odd blocks near top",
			   0UL - (MAX_SLOTS * 37UL + 16) * P, 37, 100, true,
			   ops - 3 * (ops / 4), &done);

	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	ok = ok && !failures;
#ifdef __SANITIZE_ADDRESS__
	/* Check for leaks now rather than at exit, so the verdict is last. */
	if (ok && __lsan_do_recoverable_leak_check()) {
		phase = "leak check";
		failures++;
		ok = false;
	}
#endif
	printf("range_harness: %lu ops, seed %#lx, %.2f s: ", done, seed, secs);
	if (ok)
		printf("PASS\n");
	else
		printf("FAIL (%lu failed checks, in %s)\n", failures, phase);
	fflush(stdout);
	fflush(stderr);
	_exit(ok ? 0 : 1);	/* no second leak check at exit */
}
