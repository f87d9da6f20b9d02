// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the unmapped cache: every public function with bad input.
 */

#include "kunit.h"

/*
 * The bad-input matrix: every public function with each kind of bad
 * argument.  Each row is one KUnit case, named after what it does and what
 * must happen; the table is the documentation of the behaviour.  A
 * refused call warns once per call site (WARN_ON_ONCE) and changes
 * nothing: after every row the test's live chunks are still owned, the
 * counts of the caches are as before and the range trees are consistent.
 * Each row also says how many of its calls must be refused: the cache
 * counts every refusal (uc_bad_calls), so a refusal that lost its warning,
 * or a call that is harmless and started warning, fails the row.
 */
struct uc_bad_ctx {
	struct kunit *test;
	struct unmapped_cache *rw, *other, *none;
	u8 *chunk;			/* 4 live pages of rw */
	u8 *round;			/* 1 live page of rw (a magazine round) */
	struct page *secret;		/* 1 live page of none */
	void *heap;			/* kmalloc memory */
	struct page *foreign;		/* a page from the page allocator */
};

#define UC_BAD_CHUNK	(4 * PAGE_SIZE)

/**
 * struct uc_bad_row - One row of the bad-input matrix.
 * @what:     the call and what must happen; the case's name.
 * @run:      makes the calls.
 * @refusals: how many of them are refused with a warning (0: none may).
 */
struct uc_bad_row {
	const char *what;
	void (*run)(struct uc_bad_ctx *c);
	unsigned int refusals;
};

static void bad_create_invalid_perm(struct uc_bad_ctx *c)
{
	KUNIT_EXPECT_NULL(c->test, unmapped_cache_create("bad", UNMAPPED_CACHE_NR_PERMS));
}

static void bad_create_null_name(struct uc_bad_ctx *c)
{
	KUNIT_EXPECT_NULL(c->test, unmapped_cache_create(NULL, UNMAPPED_CACHE_RW));
}

static void bad_destroy_null(struct uc_bad_ctx *c)
{
	unmapped_cache_destroy(NULL);
}

static void bad_destroy_live(struct uc_bad_ctx *c)
{
	struct unmapped_cache *tmp = unmapped_cache_create("bad", UNMAPPED_CACHE_RW);
	void *p;

	KUNIT_ASSERT_NOT_NULL(c->test, tmp);
	p = unmapped_cache_alloc(tmp, PAGE_SIZE, GFP_KERNEL);
	KUNIT_EXPECT_NOT_NULL(c->test, p);
	unmapped_cache_destroy(tmp);		/* refused: p is live */
	/* The cache is still there and still owns p. */
	KUNIT_EXPECT_TRUE(c->test, !p || unmapped_cache_owns(tmp, p, PAGE_SIZE));
	unmapped_cache_free(tmp, p, PAGE_SIZE);
	unmapped_cache_destroy(tmp);
}

static void bad_alloc_null_cache(struct uc_bad_ctx *c)
{
	KUNIT_EXPECT_NULL(c->test, unmapped_cache_alloc(NULL, PAGE_SIZE, GFP_KERNEL));
}

static void bad_alloc_none_cache(struct uc_bad_ctx *c)
{
	KUNIT_EXPECT_NULL(c->test, unmapped_cache_alloc(c->none, PAGE_SIZE, GFP_KERNEL));
}

static void bad_alloc_size_zero(struct uc_bad_ctx *c)
{
	KUNIT_EXPECT_NULL(c->test, unmapped_cache_alloc(c->rw, 0, GFP_KERNEL));
}

static void bad_alloc_size_too_big(struct uc_bad_ctx *c)
{
	KUNIT_EXPECT_NULL(c->test, unmapped_cache_alloc(c->rw, UNMAPPED_CACHE_MAX_CHUNK + 1,
							GFP_KERNEL));
	KUNIT_EXPECT_NULL(c->test, unmapped_cache_alloc(c->rw, SIZE_MAX, GFP_KERNEL));
}

static void bad_alloc_align_not_pow2(struct uc_bad_ctx *c)
{
	KUNIT_EXPECT_NULL(c->test, unmapped_cache_alloc_node(c->rw, PAGE_SIZE, 3 * PAGE_SIZE,
							     NUMA_NO_NODE, GFP_KERNEL));
}

static void bad_alloc_bad_node(struct uc_bad_ctx *c)
{
	KUNIT_EXPECT_NULL(c->test, unmapped_cache_alloc_node(c->rw, PAGE_SIZE, PAGE_SIZE,
							     MAX_NUMNODES, GFP_KERNEL));
	KUNIT_EXPECT_NULL(c->test, unmapped_cache_alloc_node(c->rw, PAGE_SIZE, PAGE_SIZE,
							     -2, GFP_KERNEL));
}

static void bad_free_null_addr(struct uc_bad_ctx *c)
{
	unmapped_cache_free(c->rw, NULL, PAGE_SIZE);
}

static void bad_free_null_cache(struct uc_bad_ctx *c)
{
	unmapped_cache_free(NULL, c->chunk, UC_BAD_CHUNK);
}

static void bad_free_none_cache(struct uc_bad_ctx *c)
{
	unmapped_cache_free(c->none, c->chunk, UC_BAD_CHUNK);
}

static void bad_free_middle(struct uc_bad_ctx *c)
{
	unmapped_cache_free(c->rw, c->chunk + PAGE_SIZE, PAGE_SIZE);
	unmapped_cache_free(c->rw, c->chunk + 1, UC_BAD_CHUNK);
}

static void bad_free_wrong_size(struct uc_bad_ctx *c)
{
	unmapped_cache_free(c->rw, c->chunk, 2 * PAGE_SIZE);
	unmapped_cache_free(c->rw, c->chunk, PAGE_SIZE);
	unmapped_cache_free(c->rw, c->round, 2 * PAGE_SIZE);
}

static void bad_free_wrong_cache(struct uc_bad_ctx *c)
{
	unmapped_cache_free(c->other, c->chunk, UC_BAD_CHUNK);
	unmapped_cache_free(c->other, c->round, PAGE_SIZE);
}

static void bad_free_heap(struct uc_bad_ctx *c)
{
	unmapped_cache_free(c->rw, c->heap, PAGE_SIZE);
	unmapped_cache_free(c->rw, page_address(c->foreign), PAGE_SIZE);
}

static void bad_free_twice(struct uc_bad_ctx *c)
{
	void *one = unmapped_cache_alloc(c->rw, PAGE_SIZE, GFP_KERNEL);
	void *two = unmapped_cache_alloc(c->rw, 3 * PAGE_SIZE, GFP_KERNEL);

	KUNIT_EXPECT_NOT_NULL(c->test, one);
	KUNIT_EXPECT_NOT_NULL(c->test, two);
	unmapped_cache_free(c->rw, one, PAGE_SIZE);
	unmapped_cache_free(c->rw, two, 3 * PAGE_SIZE);
	unmapped_cache_free(c->rw, one, PAGE_SIZE);
	unmapped_cache_free(c->rw, two, 3 * PAGE_SIZE);
}

static void bad_alloc_page_mapped_cache(struct uc_bad_ctx *c)
{
	KUNIT_EXPECT_NULL(c->test, unmapped_cache_alloc_page(c->rw, GFP_KERNEL));
	KUNIT_EXPECT_NULL(c->test, unmapped_cache_alloc_page(NULL, GFP_KERNEL));
}

static void bad_free_page_null(struct uc_bad_ctx *c)
{
	unmapped_cache_free_page(c->none, NULL);
}

static void bad_free_page_wrong_cache(struct uc_bad_ctx *c)
{
	unmapped_cache_free_page(c->rw, c->secret);
	unmapped_cache_free_page(NULL, c->secret);
}

static void bad_free_page_foreign(struct uc_bad_ctx *c)
{
	unmapped_cache_free_page(c->none, c->foreign);
	KUNIT_EXPECT_EQ(c->test, page_ref_count(c->foreign), 1);
}

static void bad_free_page_twice(struct uc_bad_ctx *c)
{
	struct page *page = unmapped_cache_alloc_page(c->none, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(c->test, page);
	unmapped_cache_free_page(c->none, page);
	unmapped_cache_free_page(c->none, page);
}

static void bad_free_page_referenced(struct uc_bad_ctx *c)
{
	get_page(c->secret);
	unmapped_cache_free_page(c->none, c->secret);	/* refused */
	put_page(c->secret);
	KUNIT_EXPECT_TRUE(c->test, unmapped_cache_owns_page(c->none, c->secret));
}

static void bad_owns(struct uc_bad_ctx *c)
{
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_owns(NULL, c->chunk, PAGE_SIZE));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_owns(c->rw, NULL, PAGE_SIZE));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_owns(c->rw, c->chunk, 0));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_owns(c->rw, c->chunk, UC_BAD_CHUNK + 1));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_owns(c->rw, c->chunk, SIZE_MAX));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_owns(c->other, c->chunk, PAGE_SIZE));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_owns(c->none, c->chunk, PAGE_SIZE));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_owns(c->rw, c->heap, 8));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_owns_page(c->none, c->foreign));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_owns_page(c->rw, c->secret));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_owns_page(NULL, c->secret));
}

static void bad_write(struct uc_bad_ctx *c)
{
	KUNIT_EXPECT_EQ(c->test, unmapped_cache_write(c->none, c->chunk, "abc", 3),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(c->test, unmapped_cache_write(c->rw, c->chunk + UC_BAD_CHUNK - 2,
						      "abc", 3), -EINVAL);
	KUNIT_EXPECT_EQ(c->test, unmapped_cache_write(c->other, c->chunk, "abc", 3),
			-EINVAL);
	KUNIT_EXPECT_EQ(c->test, unmapped_cache_write(c->rw, c->heap, "abc", 3), -EINVAL);
	KUNIT_EXPECT_EQ(c->test, unmapped_cache_write(c->rw, c->chunk, "abc", SIZE_MAX),
			-EINVAL);
}

static void bad_vmap(struct uc_bad_ctx *c)
{
	void *v;

	KUNIT_EXPECT_NULL(c->test, unmapped_cache_vmap(0, PAGE_SIZE, VMALLOC_START,
						       VMALLOC_END, PAGE_KERNEL, 0,
						       __builtin_return_address(0)));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_vunmap(NULL));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_vunmap(c->heap));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_vunmap(c->chunk));
	v = unmapped_cache_vmap(2 * PAGE_SIZE, PAGE_SIZE, VMALLOC_START, VMALLOC_END,
				PAGE_KERNEL, 0, __builtin_return_address(0));
	KUNIT_ASSERT_NOT_NULL(c->test, v);
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_vunmap(v + PAGE_SIZE));
	KUNIT_EXPECT_TRUE(c->test, unmapped_cache_vunmap(v));
	KUNIT_EXPECT_FALSE(c->test, unmapped_cache_vunmap(v));
}

static const struct uc_bad_row uc_bad_rows[] = {
	{ "create, invalid permission: NULL", bad_create_invalid_perm, 1 },
	{ "create, NULL name: NULL", bad_create_null_name, 1 },
	{ "destroy, NULL: nothing", bad_destroy_null, 0 },
	{ "destroy with a live chunk: refused, cache and chunk kept", bad_destroy_live, 1 },
	{ "alloc, NULL cache: NULL", bad_alloc_null_cache, 1 },
	{ "alloc from a NONE cache: NULL", bad_alloc_none_cache, 1 },
	{ "alloc, size 0: NULL", bad_alloc_size_zero, 1 },
	{ "alloc, size over 16 MiB or SIZE_MAX: NULL", bad_alloc_size_too_big, 2 },
	{ "alloc_node, alignment not a power of two: NULL", bad_alloc_align_not_pow2, 1 },
	{ "alloc_node, node out of range: NULL", bad_alloc_bad_node, 2 },
	{ "free, NULL address: nothing", bad_free_null_addr, 0 },
	{ "free, NULL cache: refused", bad_free_null_cache, 1 },
	{ "free through a NONE cache: refused", bad_free_none_cache, 1 },
	{ "free, address inside a chunk: refused", bad_free_middle, 2 },
	{ "free, wrong size (chunk and round): refused", bad_free_wrong_size, 3 },
	{ "free, wrong cache (chunk and round): refused", bad_free_wrong_cache, 2 },
	{ "free, heap or page-allocator pointer: refused", bad_free_heap, 2 },
	{ "free twice (round and chunk): second refused", bad_free_twice, 2 },
	{ "alloc_page from a mapped or NULL cache: NULL", bad_alloc_page_mapped_cache, 2 },
	{ "free_page, NULL page: nothing", bad_free_page_null, 0 },
	{ "free_page, wrong or NULL cache: refused", bad_free_page_wrong_cache, 2 },
	{ "free_page, page-allocator page: refused, page untouched", bad_free_page_foreign, 1 },
	{ "free_page twice: second refused", bad_free_page_twice, 1 },
	{ "free_page while referenced elsewhere: refused", bad_free_page_referenced, 1 },
	{ "owns/owns_page, bad cache, address, size or page: false", bad_owns, 0 },
	{ "write, NONE cache, outside the chunk, wrong cache, heap: error", bad_write, 4 },
	{ "vmap size 0: NULL; vunmap NULL, foreign, inside, twice: false", bad_vmap, 0 },
};

static void uc_bad_row_desc(const struct uc_bad_row *row, char *desc)
{
	strscpy(desc, row->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(uc_bad_rows, uc_bad_rows, uc_bad_row_desc);

static void uc_test_free_chunk_action(void *data)
{
	struct uc_bad_ctx *c = data;

	unmapped_cache_free(c->rw, c->chunk, UC_BAD_CHUNK);
	unmapped_cache_free(c->rw, c->round, PAGE_SIZE);
	unmapped_cache_free_page(c->none, c->secret);
}

static void bad_input_is_refused(struct kunit *test)
{
	const struct uc_bad_row *row = test->param_value;
	struct uc_bad_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	long chunks[3], pages[3], bad;
	struct uc_arena *rw, *none;

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->test = test;
	c->rw = uc_test_cache(test, UNMAPPED_CACHE_RW);
	c->other = uc_test_cache(test, UNMAPPED_CACHE_RW);
	c->none = uc_test_cache(test, UNMAPPED_CACHE_NONE);
	KUNIT_ASSERT_NOT_NULL(test, c->rw);
	KUNIT_ASSERT_NOT_NULL(test, c->other);
	KUNIT_ASSERT_NOT_NULL(test, c->none);
	c->heap = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->heap);
	c->foreign = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->foreign);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, uc_test_put_action,
							c->foreign), 0);
	c->chunk = unmapped_cache_alloc(c->rw, UC_BAD_CHUNK, GFP_KERNEL);
	c->round = unmapped_cache_alloc(c->rw, PAGE_SIZE, GFP_KERNEL);
	c->secret = unmapped_cache_alloc_page(c->none, GFP_KERNEL);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, uc_test_free_chunk_action,
							c), 0);
	KUNIT_ASSERT_NOT_NULL(test, c->chunk);
	KUNIT_ASSERT_NOT_NULL(test, c->round);
	KUNIT_ASSERT_NOT_NULL(test, c->secret);
	c->chunk[0] = 0xa5;
	rw = uc_arena_get(UNMAPPED_CACHE_RW, NUMA_NO_NODE);
	none = uc_arena_get(UNMAPPED_CACHE_NONE, NUMA_NO_NODE);

	chunks[0] = uc_cache_live(c->rw, false);
	chunks[1] = uc_cache_live(c->other, false);
	chunks[2] = uc_cache_live(c->none, false);
	pages[0] = uc_cache_live(c->rw, true);
	pages[1] = uc_cache_live(c->other, true);
	pages[2] = uc_cache_live(c->none, true);
	bad = uc_test_bad_calls();

	row->run(c);

	/* Every bad call was refused with a warning, and no other call was. */
	KUNIT_EXPECT_EQ_MSG(test, uc_test_bad_calls() - bad, (long)row->refusals,
			    "calls refused with a warning");

	/* Nothing changed hands. */
	KUNIT_EXPECT_EQ(test, uc_cache_live(c->rw, false), chunks[0]);
	KUNIT_EXPECT_EQ(test, uc_cache_live(c->other, false), chunks[1]);
	KUNIT_EXPECT_EQ(test, uc_cache_live(c->none, false), chunks[2]);
	KUNIT_EXPECT_EQ(test, uc_cache_live(c->rw, true), pages[0]);
	KUNIT_EXPECT_EQ(test, uc_cache_live(c->other, true), pages[1]);
	KUNIT_EXPECT_EQ(test, uc_cache_live(c->none, true), pages[2]);
	KUNIT_EXPECT_TRUE(test, unmapped_cache_owns(c->rw, c->chunk, UC_BAD_CHUNK));
	KUNIT_EXPECT_TRUE(test, unmapped_cache_owns(c->rw, c->round, PAGE_SIZE));
	KUNIT_EXPECT_TRUE(test, unmapped_cache_owns_page(c->none, c->secret));
	KUNIT_EXPECT_EQ(test, c->chunk[0], 0xa5);
	KUNIT_EXPECT_EQ(test, uc_arena_check(rw), 0);
	KUNIT_EXPECT_EQ(test, uc_arena_check(none), 0);
	KUNIT_EXPECT_EQ(test, page_ref_count(c->foreign), 1);
}

static struct kunit_case uc_bad_input_test_cases[] = {
	KUNIT_CASE_PARAM(bad_input_is_refused, uc_bad_rows_gen_params),
	{}
};

static struct kunit_suite uc_bad_input_test_suite = {
	.name = "unmapped_cache_bad_input",
	.suite_init = uc_suite_init,
	.suite_exit = uc_suite_exit,
	.init = uc_block_test_init,
	.test_cases = uc_bad_input_test_cases,
};

kunit_test_suite(uc_bad_input_test_suite);
