// SPDX-License-Identifier: GPL-2.0
/*
 * What the unmapped cache's KUnit suites share: the seed and the shuffle,
 * the per-test generator, taking blocks and caches that KUnit actions give
 * back, and the populations of chunks.
 */

#include "kunit.h"

/* Built in: unmapped_cache_kunit.seed=N on the kernel command line. */
static unsigned int uc_test_seed_param;

module_param_named(seed, uc_test_seed_param, uint, 0444);

MODULE_PARM_DESC(seed, "Seed of the tests' random choices (0: one chosen at boot)");

/* The seed of this boot's tests; chosen and printed on the first call. */
u32 uc_test_seed(void)
{
	static bool announced;

	/* Suites and their inits run one after the other: no lock needed. */
	if (!uc_test_seed_param)
		uc_test_seed_param = get_random_u32() ?: 1;
	if (!announced) {
		announced = true;
		pr_info("seed %u (replay with unmapped_cache_kunit.seed=%u)\n",
			uc_test_seed_param, uc_test_seed_param);
	}
	return uc_test_seed_param;
}

/* Built in: unmapped_cache_kunit.shuffle=1 on the kernel command line. */
static bool uc_test_shuffle_param;

module_param_named(shuffle, uc_test_shuffle_param, bool, 0444);

MODULE_PARM_DESC(shuffle, "Run each suite's cases in an order drawn from the seed");

/*
 * Called from each suite's suite_init, before KUnit walks the cases: put
 * them in an order drawn from the seed and the suite's name (a
 * Fisher-Yates shuffle of the suite's own, writable, array).
 */
void uc_test_shuffle(struct kunit_suite *suite)
{
	struct kunit_case *c = suite->test_cases;
	struct rnd_state rnd;
	unsigned int n = 0, i, j;

	if (!uc_test_shuffle_param)
		return;
	while (c[n].run_case)
		n++;
	prandom_seed_state(&rnd, (u64)uc_test_seed() << 32 |
			   full_name_hash(NULL, suite->name, strlen(suite->name)));
	for (i = n; i > 1; i--) {
		j = prandom_u32_state(&rnd) % i;
		swap(c[i - 1], c[j]);
	}
	pr_info("%s: %u cases in an order drawn from seed %u\n", suite->name,
		n, uc_test_seed());
}

/* A number below @n from @rnd (as get_random_u32_below() does). */
u32 uc_rand_below(struct rnd_state *rnd, u32 n)
{
	return ((u64)prandom_u32_state(rnd) * n) >> 32;
}

/* A number below @n from the test's own generator. */
u32 uc_test_rand_below(struct kunit *test, u32 n)
{
	return uc_rand_below(test->priv, n);
}

void uc_test_release_action(void *data)
{
	uc_block_release(data);
}

/* Take a block that the test owns until it ends or calls uc_test_release(). */
struct uc_block *uc_test_grab(struct kunit *test, int nid)
{
	struct uc_block *block = uc_block_grab(nid, 0);

	if (block &&
	    kunit_add_action_or_reset(test, uc_test_release_action, block))
		return NULL;
	return block;
}

/*
 * Calls the cache refused for bad input so far.  WARN_ON_ONCE() prints once
 * per call site and boot; this counts every refusal (uc_refuse()), so a
 * test can check that each bad call it makes is refused with a warning.
 */
long uc_test_bad_calls(void)
{
	return atomic_long_read(&uc_bad_calls);
}

int uc_block_test_init(struct kunit *test)
{
	struct rnd_state *rnd = kunit_kzalloc(test, sizeof(*rnd), GFP_KERNEL);
	u32 name;

	if (!rnd)
		return -ENOMEM;
	name = full_name_hash(NULL, test->name, strlen(test->name));
	prandom_seed_state(rnd, (u64)uc_test_seed() << 32 |
				(name + test->param_index));
	test->priv = rnd;
	if (!unmapped_cache_enabled())
		kunit_skip(test, "unmapped cache not enabled");
	return 0;
}

/*
 * The periodic reaper would give blocks back and take the depot locks
 * while the tests count both: it waits until a suite is over.
 */
int uc_suite_init(struct kunit_suite *suite)
{
	uc_test_seed();
	uc_test_shuffle(suite);
	uc_reap_hold();
	uc_randomize_hold();
	return 0;
}

void uc_suite_exit(struct kunit_suite *suite)
{
	uc_randomize_unhold();
	uc_reap_unhold();
}

void uc_test_destroy_action(void *data)
{
	unmapped_cache_destroy(data);
}

struct unmapped_cache *uc_test_cache(struct kunit *test,
				     enum unmapped_cache_perm perm)
{
	struct unmapped_cache *cache = unmapped_cache_create("kunit", perm);

	if (cache &&
	    kunit_add_action_or_reset(test, uc_test_destroy_action, cache))
		return NULL;
	return cache;
}

void uc_test_chunk_free(struct unmapped_cache *cache,
			struct uc_test_chunk *c)
{
	if (c->page)
		unmapped_cache_free_page(cache, c->page);
	else if (c->addr)
		unmapped_cache_free(cache, c->addr, c->size);
	c->page = NULL;
	c->addr = NULL;
}

void uc_test_pop_action(void *data)
{
	struct uc_test_pop *pop = data;
	unsigned int i;

	for (i = 0; i < pop->nr; i++)
		uc_test_chunk_free(pop->cache, &pop->chunks[i]);
}

/*
 * memchr_inv() of memory the test has just freed, to see how the free
 * left it: with KASAN_VMALLOC the cache poisons a freed chunk, and this
 * read, on purpose, must not be reported.
 */
void *uc_test_freed_memchr_inv(const void *p, int c, size_t n)
{
	void *ret;

	kasan_disable_current();
	ret = memchr_inv(p, c, n);
	kasan_enable_current();
	return ret;
}

/* Read @len bytes of a chunk: directly, or through vmap() for NONE. */
bool uc_test_chunk_is(struct uc_test_chunk *c, u8 byte)
{
	void *p = c->addr;
	bool ret;

	if (c->page) {
		p = vmap(&c->page, 1, VM_MAP, PAGE_KERNEL_RO);
		if (!p)
			return false;
	}
	ret = !memchr_inv(p, byte, c->size);
	if (c->page)
		vunmap(p);
	return ret;
}

/* Map NONE pages where the test can see them; vunmap() when done. */
u8 *uc_test_vmap_pages(struct page **pages, unsigned int nr)
{
	return vmap(pages, nr, VM_MAP, PAGE_KERNEL);
}

/* Pages of @buf (@nr pages) that are not entirely zero. */
unsigned long uc_test_nonzero_pages(const u8 *buf, unsigned int nr)
{
	unsigned long i, bad = 0;

	for (i = 0; i < nr; i++)
		if (memchr_inv(buf + i * PAGE_SIZE, 0, PAGE_SIZE))
			bad++;
	return bad;
}

/*
 * Allocate UC_TEST_SECRETS pages of @cache into @pages (expecting all of
 * them), look at them through a temporary mapping as @how says, and
 * return how many were allocated.
 */
int uc_test_take_pages(struct kunit *test, struct unmapped_cache *cache,
		       struct page **pages, unsigned int how)
{
	int n;
	u8 *v;

	for (n = 0; n < UC_TEST_SECRETS; n++) {
		pages[n] = unmapped_cache_alloc_page(cache, GFP_KERNEL);
		if (!pages[n])
			break;
	}
	KUNIT_EXPECT_EQ(test, n, UC_TEST_SECRETS);
	v = n ? uc_test_vmap_pages(pages, n) : NULL;
	KUNIT_EXPECT_TRUE(test, !n || v);
	if (v) {
		if (how & UC_TEST_EXPECT_ZERO)
			KUNIT_EXPECT_EQ_MSG(test, uc_test_nonzero_pages(v, n), 0,
					    "pages with a former owner's data");
		if (how & UC_TEST_WRITE_SECRET)
			memset(v, 0x5a, n * PAGE_SIZE);
		vunmap(v);
	}
	return n;
}

/*
 * The interfaces for converted callers: deferred release of page-cache
 * pages (secretmem), cache pages mapped in vmalloc space (execmem), and
 * telling cache memory from fallback memory at free (BPF packs).
 */

void uc_test_put_action(void *data)
{
	put_page(data);
}

void uc_test_none_page_free_action(void *data)
{
	struct uc_test_none_page *np = data;

	unmapped_cache_free_page(np->cache, np->page);
}

/* unmapped_cache_alloc_page(), freed when the test ends if not before. */
struct uc_test_none_page *uc_test_none_page(struct kunit *test,
					    struct unmapped_cache *cache)
{
	struct uc_test_none_page *np = kunit_kzalloc(test, sizeof(*np),
						     GFP_KERNEL);

	if (!np)
		return NULL;
	np->cache = cache;
	np->page = unmapped_cache_alloc_page(cache, GFP_KERNEL);
	if (!np->page ||
	    kunit_add_action_or_reset(test, uc_test_none_page_free_action, np))
		return NULL;
	return np;
}

bool uc_test_mapped(unsigned long addr)
{
	struct unmapped_cache_entry e;

	arch_unmapped_cache_lookup(addr, &e);
	return e.present;
}

void uc_test_vunmap_action(void *data)
{
	unmapped_cache_vunmap(data);
}

void uc_test_unhold_action(void *data)
{
	uc_reap_unhold();
}

unsigned long uc_test_scan(unsigned long nr_to_scan)
{
	struct shrink_control sc = {
		.gfp_mask = GFP_KERNEL,
		.nr_to_scan = nr_to_scan,
		.nr_scanned = nr_to_scan,
	};

	return uc_shrink_scan(NULL, &sc);
}

#ifdef CONFIG_UNMAPPED_CACHE_FAULT_INJECTION
void uc_fault_disarm(void *data)
{
	struct fault_attr *attr = data;

	attr->probability = 0;
	atomic_set(&attr->times, 0);
}

/* Make the next check of @attr fail, once. */
int uc_fault_arm(struct kunit *test, struct fault_attr *attr)
{
	attr->verbose = 0;
	attr->interval = 1;
	attr->task_filter = false;
	atomic_set(&attr->space, 0);
	atomic_set(&attr->times, 1);
	attr->probability = 100;
	return kunit_add_action_or_reset(test, uc_fault_disarm, attr);
}
#endif

MODULE_DESCRIPTION("KUnit tests for the unmapped cache");
MODULE_LICENSE("GPL");
