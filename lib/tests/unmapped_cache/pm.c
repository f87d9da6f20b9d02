// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the unmapped cache: hibernation, kcore and the private write mapping.
 */

#include "kunit.h"

/*
 * Hibernation and /proc/kcore: the snapshot reads every page of the cache
 * but the secret ones, without making any of them present in the direct
 * map; kcore may read the cache's own mappings but not the one through which
 * pages are copied and cleared.
 */

/* Copy @page as the hibernation snapshot does; false if it is not ours. */
static bool uc_test_hibernate_copy(struct page *page, void *dst)
{
	unsigned long flags;
	bool ours;

	local_irq_save(flags);
	ours = unmapped_cache_hibernate_copy_page(dst, page);
	local_irq_restore(flags);
	return ours;
}

/*
 * A page of a ROX chunk and an execmem page are copied with their
 * contents, through a mapping in this CPU's own mm, which is gone
 * afterwards; their blocks stay out of the direct map and nothing splits.
 * A page of the page allocator is left to the usual path.
 */
static void pm_hibernate_copy_reads_cache_pages_in_place(struct kunit *test)
{
	struct unmapped_cache *rox = uc_test_cache(test, UNMAPPED_CACHE_ROX);
	struct uc_test_pop *pop = kunit_kzalloc(test, sizeof(*pop), GFP_KERNEL);
	struct unmapped_cache_dm_counts before, after;
	u8 *buf = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	u8 *pattern = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	unsigned long copied, zeroed, copied0, zeroed0;
	struct page *text, *exec, *plain;
	u8 *x;

	KUNIT_ASSERT_NOT_NULL(test, rox);
	KUNIT_ASSERT_NOT_NULL(test, pop);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, pattern);
	pop->chunks = kunit_kcalloc(test, 1, sizeof(*pop->chunks), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pop->chunks);
	pop->cache = rox;
	pop->nr = 1;
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   uc_test_pop_action,
							   pop));
	pop->chunks[0].size = 2 * PAGE_SIZE;
	pop->chunks[0].addr = unmapped_cache_alloc(rox, 2 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pop->chunks[0].addr);
	memset(pattern, 0xc3, PAGE_SIZE);
	pattern[7] = 0x11;
	KUNIT_ASSERT_EQ(test, 0, unmapped_cache_write(rox, pop->chunks[0].addr,
						      pattern, PAGE_SIZE));
	text = vmalloc_to_page(pop->chunks[0].addr);
	KUNIT_ASSERT_NOT_NULL(test, text);

	x = unmapped_cache_vmap(PAGE_SIZE, PAGE_SIZE, VMALLOC_START, VMALLOC_END,
				PAGE_KERNEL, 0, (void *)_RET_IP_);
	KUNIT_ASSERT_NOT_NULL(test, x);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   uc_test_vunmap_action,
							   x));
	memset(x, 0x3c, PAGE_SIZE);
	exec = vmalloc_to_page(x);
	KUNIT_ASSERT_NOT_NULL(test, exec);

	uc_hibernate_stats(&copied0, &zeroed0);
	arch_unmapped_cache_direct_map_counts(&before);

	memset(buf, 0, PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, uc_test_hibernate_copy(text, buf));
	KUNIT_EXPECT_EQ(test, 0, memcmp(buf, pattern, PAGE_SIZE));

	KUNIT_EXPECT_TRUE(test, uc_test_hibernate_copy(exec, buf));
	KUNIT_EXPECT_NULL(test, memchr_inv(buf, 0x3c, PAGE_SIZE));

	/* The cache's own mappings may be read by kcore. */
	KUNIT_EXPECT_TRUE(test, unmapped_cache_alias_readable(x));
	KUNIT_EXPECT_TRUE(test, unmapped_cache_alias_readable(pop->chunks[0].addr));

	plain = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, plain);
	KUNIT_EXPECT_FALSE(test, uc_test_hibernate_copy(plain, buf));
	__free_page(plain);

	uc_hibernate_stats(&copied, &zeroed);
	arch_unmapped_cache_direct_map_counts(&after);
	KUNIT_EXPECT_EQ(test, copied, copied0 + 2);
	KUNIT_EXPECT_EQ(test, zeroed, zeroed0);
	KUNIT_EXPECT_EQ(test, after.pte, before.pte);
	KUNIT_EXPECT_EQ(test, after.pmd, before.pmd);
	KUNIT_EXPECT_FALSE(test, uc_test_mapped((unsigned long)page_address(text)));
	KUNIT_EXPECT_FALSE(test, uc_test_mapped((unsigned long)page_address(exec)));
}

/*
 * A secret page makes hibernation refuse while it is allocated, and never
 * reaches an image: if the snapshot met one anyway, it would copy zeroes
 * (and warn).
 */
static void pm_secret_pages_stay_out_of_hibernation(struct kunit *test)
{
	struct unmapped_cache *none = uc_test_cache(test, UNMAPPED_CACHE_NONE);
	u8 *buf = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	unsigned long copied, zeroed, copied0, zeroed0;
	struct uc_test_none_page *np;
	bool active;
	struct page *page;
	u8 *v;

	KUNIT_ASSERT_NOT_NULL(test, none);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	active = unmapped_cache_secret_active();
	KUNIT_ASSERT_FALSE_MSG(test, active, "secret pages in use before the test");
	np = uc_test_none_page(test, none);
	KUNIT_ASSERT_NOT_NULL(test, np);
	page = np->page;
	KUNIT_EXPECT_TRUE(test, unmapped_cache_secret_active());
	v = uc_test_vmap_pages(&page, 1);
	KUNIT_ASSERT_NOT_NULL(test, v);
	memset(v, 0x5a, PAGE_SIZE);
	vunmap(v);

	uc_hibernate_stats(&copied0, &zeroed0);
	memset(buf, 0xff, PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, uc_test_hibernate_copy(page, buf));
	KUNIT_EXPECT_NULL_MSG(test, memchr_inv(buf, 0, PAGE_SIZE),
			      "a secret page reached the image");
	uc_hibernate_stats(&copied, &zeroed);
	KUNIT_EXPECT_EQ(test, copied, copied0);
	KUNIT_EXPECT_EQ(test, zeroed, zeroed0 + 1);

	/* Freed, it was cleared: it may be copied like any free page. */
	kunit_release_action(test, uc_test_none_page_free_action, np);
	KUNIT_EXPECT_FALSE(test, unmapped_cache_secret_active());
	memset(buf, 0xff, PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, uc_test_hibernate_copy(page, buf));
	KUNIT_EXPECT_NULL(test, memchr_inv(buf, 0, PAGE_SIZE));
	uc_hibernate_stats(&copied, &zeroed);
	KUNIT_EXPECT_EQ(test, copied, copied0 + 1);
}

/*
 * The mapping through which the cache writes RO, ROX and NONE pages is seen
 * by the CPU that set it and by no other.  A helper on CPU A holds such a
 * mapping of a secret page, with a pattern written through it, while the
 * test on CPU B looks for it: there must be no entry for the address in
 * init_mm, and a read of it from B (through the kernel's page tables for a
 * kernel address, through B's own mm for a user-half one) must fault.
 * Controls, from B with the same probes: a vmalloc page holding the same
 * pattern and a page of B's own mm holding it are read back.
 */
struct uc_test_peek {
	struct page *page;
	u64 pattern;
	unsigned long addr;		/* where A maps the page */
	atomic_t state;			/* 0, 1: A holds the mapping, 2: B is done */
	bool a_saw_pattern;
	bool a_timed_out;
};

/*
 * On CPU A, interrupts off, with the page mapped at @addr.  KASAN has no
 * shadow for that address (see arch_unmapped_cache_with_poke()): this
 * function and uc_test_peek_get() are not instrumented.
 */
static __no_sanitize_address void uc_test_peek_hold(void *addr, void *arg)
{
	struct uc_test_peek *pk = arg;
	u64 deadline = ktime_get_mono_fast_ns() + 2 * NSEC_PER_SEC;

	WRITE_ONCE(*(u64 *)addr, pk->pattern);
	pk->a_saw_pattern = READ_ONCE(*(u64 *)addr) == pk->pattern;
	pk->addr = (unsigned long)addr;
	atomic_set_release(&pk->state, 1);
	while (atomic_read_acquire(&pk->state) != 2) {
		if (ktime_get_mono_fast_ns() > deadline) {
			pk->a_timed_out = true;
			break;
		}
		cpu_relax();
	}
}

static __no_sanitize_address void uc_test_peek_get(void *addr, void *arg)
{
	*(u64 *)arg = READ_ONCE(*(u64 *)addr);
}

static int uc_test_peek_fn(void *data)
{
	struct uc_test_peek *pk = data;

	arch_unmapped_cache_with_poke(pk->page, uc_test_peek_hold, pk);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/* A read that faults rather than oopses, from this CPU's page tables. */
static long uc_test_peek_read(unsigned long addr, u64 *val)
{
	if (addr < TASK_SIZE_MAX)
		return copy_from_user_nofault(val, (const void __user *)addr,
					      sizeof(*val));
	return copy_from_kernel_nofault(val, (const void *)addr, sizeof(*val));
}

static void pm_poke_mapping_is_not_visible_from_other_cpus(struct kunit *test)
{
	struct unmapped_cache *none = uc_test_cache(test, UNMAPPED_CACHE_NONE);
	struct uc_test_peek *pk = kunit_kzalloc(test, sizeof(*pk), GFP_KERNEL);
	struct uc_test_none_page *np;
	long err = 0, ctrl_err, user_err;
	u64 val = 0, ctrl_val = 0, user_val = 0, got = 0;
	bool in_init_mm = false, ctrl_in_init_mm;
	struct task_struct *task;
	unsigned long uaddr;
	u64 deadline;
	int cpu_a;
	u64 *ctrl;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	KUNIT_ASSERT_NOT_NULL(test, none);
	KUNIT_ASSERT_NOT_NULL(test, pk);
	pk->pattern = 0x5ec7e75ec7e7ULL ^ get_random_u64();
	np = uc_test_none_page(test, none);
	KUNIT_ASSERT_NOT_NULL(test, np);
	pk->page = np->page;
	ctrl = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, ctrl);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   uc_test_vunmap_action,
							   ctrl));
	*ctrl = pk->pattern;
	/* A page of this thread's own mm (KUnit gives the thread one). */
	uaddr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			      MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE(test, 0, uaddr);
	KUNIT_ASSERT_EQ(test, 0, copy_to_user((void __user *)uaddr, &pk->pattern,
					      sizeof(pk->pattern)));

	/* This thread is CPU B; the helper holds the mapping on CPU A. */
	migrate_disable();
	cpu_a = cpumask_any_but(cpu_online_mask, smp_processor_id());
	task = kthread_create(uc_test_peek_fn, pk, "uc_peek/%d", cpu_a);
	if (IS_ERR(task)) {
		migrate_enable();
		KUNIT_FAIL(test, "kthread_create: %ld", PTR_ERR(task));
		return;
	}
	get_task_struct(task);
	kthread_bind(task, cpu_a);
	wake_up_process(task);

	deadline = ktime_get_mono_fast_ns() + 10 * NSEC_PER_SEC;
	while (atomic_read_acquire(&pk->state) != 1 &&
	       ktime_get_mono_fast_ns() < deadline)
		cpu_relax();
	if (atomic_read(&pk->state) == 1) {
		in_init_mm = uc_test_mapped(pk->addr);
		err = uc_test_peek_read(pk->addr, &val);
	}
	ctrl_in_init_mm = uc_test_mapped((unsigned long)ctrl);
	ctrl_err = uc_test_peek_read((unsigned long)ctrl, &ctrl_val);
	user_err = uc_test_peek_read(uaddr, &user_val);
	atomic_set_release(&pk->state, 2);
	migrate_enable();
	kthread_stop(task);
	put_task_struct(task);

	KUNIT_ASSERT_NE_MSG(test, pk->addr, 0, "the helper never mapped the page");
	KUNIT_EXPECT_FALSE(test, pk->a_timed_out);
	KUNIT_EXPECT_TRUE_MSG(test, pk->a_saw_pattern,
			      "CPU A did not read back what it wrote");
	KUNIT_EXPECT_FALSE_MSG(test, in_init_mm,
			       "init_mm maps the write mapping at %lx", pk->addr);
	KUNIT_EXPECT_NE_MSG(test, err, 0,
			    "CPU %d read CPU %d's write mapping at %lx",
			    smp_processor_id(), cpu_a, pk->addr);
	KUNIT_EXPECT_NE(test, val, pk->pattern);
	/* The same probes see mapped pages of both halves. */
	KUNIT_EXPECT_TRUE(test, ctrl_in_init_mm);
	KUNIT_EXPECT_EQ(test, ctrl_err, 0);
	KUNIT_EXPECT_EQ(test, ctrl_val, pk->pattern);
	KUNIT_EXPECT_EQ(test, user_err, 0);
	KUNIT_EXPECT_EQ(test, user_val, pk->pattern);
	/* And the write reached the page. */
	arch_unmapped_cache_with_poke(pk->page, uc_test_peek_get, &got);
	KUNIT_EXPECT_EQ(test, got, pk->pattern);
}

static struct kunit_case uc_pm_test_cases[] = {
	KUNIT_CASE(pm_hibernate_copy_reads_cache_pages_in_place),
	KUNIT_CASE(pm_secret_pages_stay_out_of_hibernation),
	KUNIT_CASE(pm_poke_mapping_is_not_visible_from_other_cpus),
	{}
};

static struct kunit_suite uc_pm_test_suite = {
	.name = "unmapped_cache_pm",
	.suite_init = uc_suite_init,
	.suite_exit = uc_suite_exit,
	.init = uc_block_test_init,
	.test_cases = uc_pm_test_cases,
};

kunit_test_suite(uc_pm_test_suite);
