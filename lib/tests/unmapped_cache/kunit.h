/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests for the unmapped cache: what the suites share.
 *
 * One file per suite, in the order the cache's layers come: block.c,
 * arena.c, mag.c, shrinker.c, callers.c, poison.c, bad_input.c,
 * faults.c, pm.c; common.c holds the helpers declared here.
 *
 * These suites are built in and run from kernel_init_freeable(), before
 * system_state reaches SYSTEM_RUNNING, where the vmstat counters
 * direct_map_level{2,3}_splits do not count.  So they look at the direct
 * map itself: the level and presence of the entry that covers an address
 * (arch_unmapped_cache_lookup(), lookup_address() on x86) and the
 * number of entries at each level (the accounting behind the DirectMap
 * lines of /proc/meminfo).  Reads through the direct map use
 * copy_from_kernel_nofault(), so a broken cache fails a test instead of
 * crashing the kernel.
 *
 * Every block a test takes is released by a KUnit action, so a failed
 * assertion cannot leave a block out of the direct map.
 *
 * Random choices come from one seed per boot, printed before the first
 * test ("seed N"): boot with unmapped_cache_kunit.seed=N to replay them.
 * Each test draws from a generator of its own (test->priv), seeded with
 * the seed, its name and its parameter, so that what it draws does not
 * depend on which tests ran before it.  With unmapped_cache_kunit.shuffle=1
 * each suite runs its cases in an order drawn from the seed too: no case
 * may depend on another having run before it.
 */

#ifndef LIB_TESTS_UNMAPPED_CACHE_KUNIT_H
#define LIB_TESTS_UNMAPPED_CACHE_KUNIT_H

/* Every file of the suites includes this first. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/fault-inject.h>
#include <linux/irq_work.h>
#include <linux/kasan.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mmzone.h>
#include <linux/pfn.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/set_memory.h>
#include <linux/shrinker.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringhash.h>
#include <linux/timer.h>
#include <linux/uaccess.h>
#include <linux/unmapped_cache.h>
#include <linux/vmalloc.h>

#include "internal.h"

/*
 * The debug (KASAN) and RT (KCSAN) kernels check every access, which under
 * TCG makes the cases that write and read back hundreds of MiB take minutes:
 * they run the same operations over less memory.  The main kernel runs the
 * full sizes.
 */
#define UC_TEST_INSTRUMENTED	(IS_ENABLED(CONFIG_KASAN) || IS_ENABLED(CONFIG_KCSAN))

/* Largest chunk of arena_mixed_population(), in pages. */
#define UC_POP_MAX_PAGES	(UC_TEST_INSTRUMENTED ? 16 : 64)

#define UC_TEST_SECRETS	(UC_MAG_ROUNDS * 2 + 7)

#define UC_TEST_EXPECT_ZERO	BIT(0)	/* every page must read as zero */

#define UC_TEST_WRITE_SECRET	BIT(1)	/* then fill them with 0x5a */

struct uc_test_chunk {
	void *addr;		/* mapped arenas */
	struct page *page;	/* NONE */
	size_t size;
};

struct uc_test_pop {
	struct unmapped_cache *cache;
	struct uc_test_chunk *chunks;
	unsigned int nr;
};

/* A NONE page to give back to its cache when the test ends. */
struct uc_test_none_page {
	struct unmapped_cache *cache;
	struct page *page;
};

u32 uc_test_seed(void);
void uc_test_shuffle(struct kunit_suite *suite);
u32 uc_rand_below(struct rnd_state *rnd, u32 n);
u32 uc_test_rand_below(struct kunit *test, u32 n);
void uc_test_release_action(void *data);
struct uc_block *uc_test_grab(struct kunit *test, int nid);
long uc_test_bad_calls(void);
int uc_block_test_init(struct kunit *test);
int uc_suite_init(struct kunit_suite *suite);
void uc_suite_exit(struct kunit_suite *suite);
void uc_test_destroy_action(void *data);
struct unmapped_cache *uc_test_cache(struct kunit *test,
				     enum unmapped_cache_perm perm);
void uc_test_chunk_free(struct unmapped_cache *cache,
			struct uc_test_chunk *c);
void uc_test_pop_action(void *data);
void *uc_test_freed_memchr_inv(const void *p, int c, size_t n);
bool uc_test_chunk_is(struct uc_test_chunk *c, u8 byte);
u8 *uc_test_vmap_pages(struct page **pages, unsigned int nr);
unsigned long uc_test_nonzero_pages(const u8 *buf, unsigned int nr);
int uc_test_take_pages(struct kunit *test, struct unmapped_cache *cache,
		       struct page **pages, unsigned int how);
void uc_test_put_action(void *data);
void uc_test_none_page_free_action(void *data);
struct uc_test_none_page *uc_test_none_page(struct kunit *test,
					    struct unmapped_cache *cache);
bool uc_test_mapped(unsigned long addr);
void uc_test_vunmap_action(void *data);
void uc_test_unhold_action(void *data);
unsigned long uc_test_scan(unsigned long nr_to_scan);

#ifdef CONFIG_UNMAPPED_CACHE_FAULT_INJECTION
void uc_fault_disarm(void *data);
int uc_fault_arm(struct kunit *test, struct fault_attr *attr);
#endif

#endif /* LIB_TESTS_UNMAPPED_CACHE_KUNIT_H */
