// SPDX-License-Identifier: GPL-2.0
/*
 * Exercises and benchmarks of the unmapped cache, driven from user space
 * through debugfs (CONFIG_UNMAPPED_CACHE_EXERCISE, test kernels only).
 * Their results show in debugfs "blocks" and "bench_results".
 *
 * /sys/kernel/debug/unmapped_cache/exercise_population (0200)
 *	Writing N allocates N chunks in each of a NONE, a ROX and an RW cache,
 *	writes them, and frees them all, leaving free blocks in the arenas
 *	and pages in the magazines (see uc_exercise_population()).
 *
 * /sys/kernel/debug/unmapped_cache/bench (0200), bench_results (0444)
 *	Writing N times N single-page alloc/free pairs through the cache's
 *	magazines and through the paths callers use today; bench_results
 *	shows the mean cost of each (see uc_bench_run()).
 *
 * /sys/kernel/debug/unmapped_cache/exercise_blocks (0200)
 *	Writing N (1..UC_EXERCISE_MAX) takes N blocks, all held at once,
 *	checks that each one's direct-map entry is a not-present PMD-level
 *	entry, then releases them all and checks that each entry is present
 *	again at the same level.  The write fails with -ENOMEM if fewer than
 *	N blocks could be taken and with -EIO if a check failed; either way
 *	every block taken is released.  This lets a test in user space, where
 *	the vmstat split counters count, drive the block layer.
 *
 * /sys/kernel/debug/unmapped_cache/exercise_image_block (0200)
 *	Writing 1 takes a block of freed kernel-image memory (the 2 MiB of
 *	init data below, freed with the rest of init memory), removes it
 *	from the direct map as a block is removed, reads it through the
 *	kernel image's own mapping of it, puts it back and frees it; the
 *	result is the "image block" line of "blocks".  Fails with -EBUSY if
 *	the range could not be taken and -EIO if a check failed.  Only with
 *	CONFIG_CONTIG_ALLOC (alloc_contig_range() takes the range).
 *
 * /sys/kernel/debug/unmapped_cache/planted_race (0200, with KCSAN)
 *	Writing N runs a deliberately racy reader and writer for N ms, the
 *	positive control that KCSAN instruments the cache's own files.
 */

#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/init.h>
#include <linux/kthread.h>
#include <linux/vmalloc.h>
#include <linux/set_memory.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/tlbflush.h>

#include "internal.h"

#define UC_EXERCISE_MAX	4096

static DEFINE_MUTEX(uc_exercise_lock);

/* Result of the last exercise; access under uc_exercise_lock. */
static struct {
	unsigned long asked;
	unsigned long taken;
	unsigned long bad_unmapped;	/* not a not-present PMD entry */
	unsigned long bad_restored;	/* not a present PMD entry after */
} uc_exercise;

static bool uc_entry_is(unsigned long addr, bool want_present)
{
	struct unmapped_cache_entry e;

	arch_unmapped_cache_lookup(addr, &e);
	return e.size == UNMAPPED_CACHE_BLOCK_SIZE && e.present == want_present;
}

/* Result of the last image-block exercise; under uc_exercise_lock. */
static struct {
	int err;
	unsigned long state;		/* the architecture's block state */
	bool image_before, image_held, image_after;
	bool direct_held, direct_after;
	bool read_before, read_held, read_after;
	bool flags_kept;		/* the image entry's flags restored */
} uc_image_block = { .err = -ENODATA };

#ifdef CONFIG_CONTIG_ALLOC
/*
 * 2 MiB of init data, 2 MiB aligned: once the kernel frees its init
 * memory, a whole block of freed kernel-image memory, which has a second
 * alias in the kernel image's mapping (the high mapping on x86-64) that
 * must leave with the direct map's (see exercise_image_block).  Only its
 * address is kept; the memory itself is the page allocator's after boot.
 */
static char uc_image_pad[UNMAPPED_CACHE_BLOCK_SIZE] __initdata
	__aligned(UNMAPPED_CACHE_BLOCK_SIZE);
static unsigned long uc_image_pad_addr __ro_after_init;
static unsigned long uc_image_pad_pfn __ro_after_init;

static int __init uc_image_pad_note(void)
{
	uc_image_pad_addr = (unsigned long)uc_image_pad;
	uc_image_pad_pfn = PHYS_PFN(__pa_symbol(uc_image_pad));
	return 0;
}
early_initcall(uc_image_pad_note);

static bool uc_readable(unsigned long addr)
{
	char c;

	return !copy_from_kernel_nofault(&c, (void *)addr, 1);
}

/*
 * Memory of the kernel image freed after boot keeps its alias in the
 * image's mapping: a block taken there must lose that alias too, or the
 * block's memory stays readable and writable there.  The block layer
 * takes whatever order-9 page the page allocator gives, so this takes the
 * freed pad itself and runs it through the architecture's removal and
 * restore, reading it through the image mapping around each step.
 */
static int uc_exercise_image_block(void)
{
	unsigned long pfn = uc_image_pad_pfn, image = uc_image_pad_addr;
	struct unmapped_cache_entry before, e;
	struct page *page = pfn_to_page(pfn);
	unsigned long direct = (unsigned long)page_address(page);
	unsigned long state = 0;
	int err;

	guard(mutex)(&uc_exercise_lock);
	memset(&uc_image_block, 0, sizeof(uc_image_block));
	err = alloc_contig_range(pfn, pfn + UNMAPPED_CACHE_BLOCK_PAGES,
				 MIGRATE_MOVABLE, GFP_KERNEL | __GFP_NOWARN);
	if (err) {
		uc_image_block.err = -EBUSY;
		return -EBUSY;
	}

	arch_unmapped_cache_lookup(image, &before);
	uc_image_block.image_before = before.present;
	uc_image_block.read_before = uc_readable(image);

	err = arch_unmapped_cache_unmap_block(page, &state);
	if (err)
		goto out;
	uc_image_block.state = state;
	arch_unmapped_cache_lookup(image, &e);
	uc_image_block.image_held = e.present;
	uc_image_block.read_held = uc_readable(image);
	arch_unmapped_cache_lookup(direct, &e);
	uc_image_block.direct_held = e.present;

	err = arch_unmapped_cache_restore_block(page, state);
	if (err) {
		/* Never give the page allocator pages without a mapping. */
		WARN(1, "unmapped_cache: image block restore failed: leaked\n");
		uc_image_block.err = err;
		return err;
	}
	arch_unmapped_cache_lookup(image, &e);
	uc_image_block.image_after = e.present;
	uc_image_block.flags_kept = e.flags == before.flags;
	uc_image_block.read_after = uc_readable(image);
	arch_unmapped_cache_lookup(direct, &e);
	uc_image_block.direct_after = e.present;
out:
	free_contig_range(pfn, UNMAPPED_CACHE_BLOCK_PAGES);
	if (!err && (uc_image_block.image_held || uc_image_block.read_held ||
		     uc_image_block.direct_held ||
		     uc_image_block.image_after != uc_image_block.image_before ||
		     uc_image_block.read_after != uc_image_block.read_before ||
		     !uc_image_block.flags_kept || !uc_image_block.direct_after))
		err = -EIO;
	uc_image_block.err = err;
	return err;
}

static int exercise_image_block_set(void *data, u64 val)
{
	if (val != 1)
		return -EINVAL;
	return uc_exercise_image_block();
}
DEFINE_DEBUGFS_ATTRIBUTE(exercise_image_block_fops, NULL,
			 exercise_image_block_set, "%llu\n");
#endif /* CONFIG_CONTIG_ALLOC */

static int uc_exercise_blocks(unsigned long nr)
{
	struct uc_block **blocks;
	unsigned long i, taken = 0, bad_unmapped = 0, bad_restored = 0;
	int err = 0;

	blocks = kvcalloc(nr, sizeof(*blocks), GFP_KERNEL);
	if (!blocks)
		return -ENOMEM;

	for (i = 0; i < nr; i++) {
		blocks[i] = uc_block_grab(NUMA_NO_NODE, 0);
		if (!blocks[i])
			break;
		taken++;
		if (!uc_entry_is(uc_block_addr(blocks[i]), false))
			bad_unmapped++;
	}

	for (i = 0; i < taken; i++) {
		unsigned long addr = uc_block_addr(blocks[i]);

		if (uc_block_release(blocks[i]))
			err = -EIO;
		else if (!uc_entry_is(addr, true))
			bad_restored++;
	}
	kvfree(blocks);

	guard(mutex)(&uc_exercise_lock);
	uc_exercise.asked = nr;
	uc_exercise.taken = taken;
	uc_exercise.bad_unmapped = bad_unmapped;
	uc_exercise.bad_restored = bad_restored;

	if (bad_unmapped || bad_restored)
		err = -EIO;
	if (!err && taken < nr)
		err = -ENOMEM;
	return err;
}

static int exercise_blocks_set(void *data, u64 nr)
{
	if (!nr || nr > UC_EXERCISE_MAX)
		return -EINVAL;
	return uc_exercise_blocks(nr);
}
DEFINE_DEBUGFS_ATTRIBUTE(exercise_blocks_fops, NULL, exercise_blocks_set,
			 "%llu\n");

/*
 * Population: writing N allocates N chunks in each of a NONE, a ROX and an
 * RW cache (single pages for NONE, 1 to 16 pages otherwise), writes a
 * pattern into the mapped ones through unmapped_cache_write(), then frees
 * everything.  The blocks stay with the arenas, the single pages in the
 * magazines: what the shrinker must then give back under pressure.
 */
static int uc_exercise_population(unsigned long nr)
{
	static const enum unmapped_cache_perm perms[] = {
		UNMAPPED_CACHE_NONE, UNMAPPED_CACHE_ROX, UNMAPPED_CACHE_RW,
	};
	struct { void *p; size_t size; } *chunks;
	unsigned long i;
	int err = 0, k;

	chunks = kvcalloc(nr, sizeof(*chunks), GFP_KERNEL);
	if (!chunks)
		return -ENOMEM;
	for (k = 0; k < ARRAY_SIZE(perms) && !err; k++) {
		struct unmapped_cache *cache;

		cache = unmapped_cache_create("debugfs-population", perms[k]);
		if (!cache) {
			err = -ENOMEM;
			break;
		}
		for (i = 0; i < nr; i++) {
			if (perms[k] == UNMAPPED_CACHE_NONE) {
				chunks[i].size = PAGE_SIZE;
				chunks[i].p = unmapped_cache_alloc_page(cache, GFP_KERNEL);
			} else {
				chunks[i].size = (get_random_u32_below(16) + 1) * PAGE_SIZE;
				chunks[i].p = unmapped_cache_alloc(cache, chunks[i].size,
								   GFP_KERNEL);
				if (chunks[i].p &&
				    unmapped_cache_write(cache, chunks[i].p, "pattern", 7))
					err = -EIO;
			}
			if (!chunks[i].p) {
				err = -ENOMEM;
				break;
			}
		}
		while (i--) {
			if (perms[k] == UNMAPPED_CACHE_NONE)
				unmapped_cache_free_page(cache, chunks[i].p);
			else
				unmapped_cache_free(cache, chunks[i].p, chunks[i].size);
		}
		unmapped_cache_destroy(cache);
	}
	kvfree(chunks);
	return err;
}

static int exercise_population_set(void *data, u64 nr)
{
	if (!nr || nr > 65536)
		return -EINVAL;
	return uc_exercise_population(nr);
}
DEFINE_DEBUGFS_ATTRIBUTE(exercise_population_fops, NULL,
			 exercise_population_set, "%llu\n");

/*
 * Microbenchmark: writing N times N single-page alloc/free pairs of each
 * path, after a warm-up of each; reading shows the mean cost per pair in
 * nanoseconds.  Under emulation only the ratios between the lines of one
 * run mean anything.  The stock secretmem path splits the direct map (as
 * secretmem does): run it in a guest of its own.
 */
/* Where stock module text lives. */
#ifdef MODULES_VADDR
#define UC_BENCH_TEXT_START	MODULES_VADDR
#define UC_BENCH_TEXT_END	MODULES_END
#else
#define UC_BENCH_TEXT_START	VMALLOC_START
#define UC_BENCH_TEXT_END	VMALLOC_END
#endif

enum uc_bench_path {
	UC_BENCH_MAG_RW,		/* magazines, RW cache */
	UC_BENCH_MAG_RW_ZERO,		/* the same, __GFP_ZERO */
	UC_BENCH_MAG_NONE,		/* magazines, NONE cache (page cleared) */
	UC_BENCH_CLEAR,			/* the clear of one NONE page alone */
	UC_BENCH_MEMSET,		/* zeroing a mapped page (RW's __GFP_ZERO) */
	UC_BENCH_CLEAR_MAPPED,		/* clear_page() of a mapped page */
	UC_BENCH_INVLPG,		/* one local invalidation, unrelated page */
	UC_BENCH_KMALLOC,		/* kmalloc(PAGE_SIZE) + kfree() */
	UC_BENCH_KZALLOC,		/* kzalloc(PAGE_SIZE) + kfree(): zeroed, like ours */
	UC_BENCH_ALLOC_PAGE,		/* alloc_page() + __free_page() */
	UC_BENCH_ALLOC_PAGE_ZERO,	/* the same, __GFP_ZERO: zeroed, like ours */
	UC_BENCH_STOCK_TEXT,		/* vmalloc + set_memory_rox + vfree */
	UC_BENCH_STOCK_SECRET,		/* alloc_page + direct map invalid + flush + restore */
	UC_BENCH_COUNT,
};

static const char *const uc_bench_names[] = {
	[UC_BENCH_MAG_RW]	= "unmapped_cache RW page (magazines)",
	[UC_BENCH_MAG_RW_ZERO]	= "unmapped_cache RW page, __GFP_ZERO (magazines)",
	[UC_BENCH_MAG_NONE]	= "unmapped_cache NONE page (magazines)",
	[UC_BENCH_CLEAR]	= "clearing one unmapped page alone",
	[UC_BENCH_MEMSET]	= "zeroing a mapped page (memset, what __GFP_ZERO adds to RW)",
	[UC_BENCH_CLEAR_MAPPED]	= "clear_page() of a mapped page (what the unmapped clear runs)",
	[UC_BENCH_INVLPG]	= "one local TLB invalidation of an unrelated kernel page",
	[UC_BENCH_KMALLOC]	= "kmalloc(PAGE_SIZE)/kfree",
	[UC_BENCH_KZALLOC]	= "kzalloc(PAGE_SIZE)/kfree",
	[UC_BENCH_ALLOC_PAGE]	= "alloc_page/__free_page",
	[UC_BENCH_ALLOC_PAGE_ZERO] = "alloc_page(__GFP_ZERO)/__free_page",
	[UC_BENCH_STOCK_TEXT]	= "stock text: vmalloc+set_memory_rox+vfree",
	[UC_BENCH_STOCK_SECRET]	= "stock secret: alloc_page+set_direct_map_invalid+flush+restore",
};

static_assert(ARRAY_SIZE(uc_bench_names) == UC_BENCH_COUNT);

/* Results of the last run; access under uc_exercise_lock. */
static struct {
	unsigned long pairs;
	u64 ns[UC_BENCH_COUNT];
} uc_bench;

/* One benchmark at a time. */
static DEFINE_MUTEX(uc_bench_lock);

/*
 * Pages of the NONE cache for the clearing paths, and a mapped page for
 * UC_BENCH_MEMSET; access under uc_bench_lock.
 */
static struct page *uc_bench_page;
static void *uc_bench_buf;
static void *uc_bench_vbuf;	/* a vmalloc page, for UC_BENCH_INVLPG */

static int uc_bench_one(enum uc_bench_path path, struct unmapped_cache *rw,
			struct unmapped_cache *none)
{
	unsigned long addr;
	struct page *page;
	void *p;

	switch (path) {
	case UC_BENCH_MAG_RW:
	case UC_BENCH_MAG_RW_ZERO:
		p = unmapped_cache_alloc(rw, PAGE_SIZE, GFP_KERNEL |
					 (path == UC_BENCH_MAG_RW_ZERO ? __GFP_ZERO : 0));
		if (!p)
			return -ENOMEM;
		unmapped_cache_free(rw, p, PAGE_SIZE);
		return 0;
	case UC_BENCH_MAG_NONE:
		page = unmapped_cache_alloc_page(none, GFP_KERNEL);
		if (!page)
			return -ENOMEM;
		unmapped_cache_free_page(none, page);
		return 0;
	case UC_BENCH_CLEAR:
		arch_unmapped_cache_clear_page(uc_bench_page);
		return 0;
	case UC_BENCH_MEMSET:
		memset(uc_bench_buf, 0, PAGE_SIZE);
		return 0;
	case UC_BENCH_CLEAR_MAPPED:
		/*
		 * The instruction sequence of the unmapped clear on a page
		 * that stays mapped: with it, the clear's cost splits into
		 * clear_page() itself and the mapping around it.
		 */
		clear_page(uc_bench_buf);
		return 0;
	case UC_BENCH_INVLPG:
		/*
		 * What the clear of a NONE page costs beyond its memset: one
		 * invalidation of this CPU's TLB entry for a page nothing
		 * else uses.  On hardware it drops one entry; QEMU's TCG
		 * drops its whole software TLB when the page lies in the
		 * range it tracks for large pages, which the direct map and
		 * the kernel image make all of kernel space.
		 */
		flush_tlb_one_kernel((unsigned long)uc_bench_vbuf);
		return 0;
	case UC_BENCH_KMALLOC:
		p = kmalloc(PAGE_SIZE, GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		kfree(p);
		return 0;
	case UC_BENCH_KZALLOC:
		p = kzalloc(PAGE_SIZE, GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		kfree(p);
		return 0;
	case UC_BENCH_ALLOC_PAGE:
	case UC_BENCH_ALLOC_PAGE_ZERO:
		page = alloc_page(GFP_KERNEL |
				  (path == UC_BENCH_ALLOC_PAGE_ZERO ? __GFP_ZERO : 0));
		if (!page)
			return -ENOMEM;
		__free_page(page);
		return 0;
	case UC_BENCH_STOCK_TEXT:
		/*
		 * What execmem_alloc() did before it used the cache: with
		 * the cache on it no longer shows the stock cost.
		 */
		p = __vmalloc_node_range(PAGE_SIZE, PAGE_SIZE, UC_BENCH_TEXT_START,
					 UC_BENCH_TEXT_END, GFP_KERNEL,
					 PAGE_KERNEL, VM_FLUSH_RESET_PERMS,
					 NUMA_NO_NODE, __builtin_return_address(0));
		if (!p)
			return -ENOMEM;
		set_memory_rox((unsigned long)p, 1);
		vfree(p);
		return 0;
	case UC_BENCH_STOCK_SECRET:
		page = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!page)
			return -ENOMEM;
		addr = (unsigned long)page_address(page);
		if (!set_direct_map_invalid_noflush(page)) {
			flush_tlb_kernel_range(addr, addr + PAGE_SIZE);
			set_direct_map_default_noflush(page);
		}
		__free_page(page);
		return 0;
	default:
		return -EINVAL;
	}
}

static int uc_bench_run(unsigned long pairs)
{
	struct unmapped_cache *rw, *none;
	u64 ns[UC_BENCH_COUNT];
	unsigned long i;
	int path, err = 0;

	guard(mutex)(&uc_bench_lock);
	rw = unmapped_cache_create("debugfs-bench", UNMAPPED_CACHE_RW);
	none = unmapped_cache_create("debugfs-bench", UNMAPPED_CACHE_NONE);
	if (!rw || !none) {
		err = -ENOMEM;
		goto out;
	}
	uc_bench_buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	uc_bench_vbuf = vmalloc(PAGE_SIZE);
	if (!uc_bench_buf || !uc_bench_vbuf)
		err = -ENOMEM;
	uc_bench_page = unmapped_cache_alloc_page(none, GFP_KERNEL);
	if (!uc_bench_page)
		err = -ENOMEM;
	for (path = 0; path < UC_BENCH_COUNT && !err; path++) {
		u64 start;

		for (i = 0; i < pairs / 4 + 1 && !err; i++)	/* warm-up */
			err = uc_bench_one(path, rw, none);
		start = ktime_get_ns();
		for (i = 0; i < pairs && !err; i++)
			err = uc_bench_one(path, rw, none);
		ns[path] = (ktime_get_ns() - start) / pairs;
		cond_resched();
	}
	if (!err) {
		guard(mutex)(&uc_exercise_lock);
		uc_bench.pairs = pairs;
		memcpy(uc_bench.ns, ns, sizeof(ns));
	}
	if (uc_bench_page)
		unmapped_cache_free_page(none, uc_bench_page);
	uc_bench_page = NULL;
	kfree(uc_bench_buf);
	uc_bench_buf = NULL;
	vfree(uc_bench_vbuf);
	uc_bench_vbuf = NULL;
out:
	unmapped_cache_destroy(none);
	unmapped_cache_destroy(rw);
	return err;
}

static int bench_set(void *data, u64 pairs)
{
	if (!pairs || pairs > 100000)
		return -EINVAL;
	return uc_bench_run(pairs);
}
DEFINE_DEBUGFS_ATTRIBUTE(bench_fops, NULL, bench_set, "%llu\n");

/*
 * Scaling: the same single-page pairs on one CPU, then on every online
 * CPU at once, one kthread bound to each, started together; the result is
 * pairs per second of wall time.  The RW magazine path against
 * alloc_page(), whose per-CPU lists scale the same way on hardware: under
 * an emulator the second shows what the emulator lets scale.
 */
static const enum uc_bench_path uc_scale_paths[] = {
	UC_BENCH_MAG_RW, UC_BENCH_ALLOC_PAGE,
};

struct uc_scale_worker {
	enum uc_bench_path path;
	struct unmapped_cache *rw;
	unsigned long pairs;
	atomic_t *ready;
	struct completion *start;
	struct completion done;
	int err;
};

/* Results of the last run (pairs per second); under uc_exercise_lock. */
static struct {
	unsigned int cpus;
	u64 rate[ARRAY_SIZE(uc_scale_paths)][2];	/* [path][1 CPU, all] */
} uc_scale;

static int uc_scale_fn(void *data)
{
	struct uc_scale_worker *w = data;
	unsigned long i;

	for (i = 0; i < w->pairs / 4 + 1 && !w->err; i++)	/* warm-up */
		w->err = uc_bench_one(w->path, w->rw, NULL);
	atomic_inc(w->ready);
	wait_for_completion(w->start);
	for (i = 0; i < w->pairs && !w->err; i++)
		w->err = uc_bench_one(w->path, w->rw, NULL);
	complete(&w->done);
	return 0;
}

/*
 * Run @path on the first @nr online CPUs at once; pairs per second, or a
 * negative errno.
 */
static s64 uc_scale_run(enum uc_bench_path path, struct unmapped_cache *rw,
			struct uc_scale_worker *w, unsigned int nr,
			unsigned long pairs)
{
	DECLARE_COMPLETION_ONSTACK(start);
	atomic_t ready = ATOMIC_INIT(0);
	struct task_struct *task;
	unsigned int n = 0, i;
	int cpu, err = 0;
	u64 t0, ns;

	for_each_online_cpu(cpu) {
		if (n == nr)
			break;
		w[n] = (struct uc_scale_worker) {
			.path = path, .rw = rw, .pairs = pairs,
			.ready = &ready, .start = &start,
		};
		init_completion(&w[n].done);
		task = kthread_create(uc_scale_fn, &w[n], "uc_scale/%d", cpu);
		if (IS_ERR(task)) {
			err = PTR_ERR(task);
			break;
		}
		kthread_bind(task, cpu);
		wake_up_process(task);
		n++;
	}
	while (atomic_read(&ready) < n)
		usleep_range(1000, 2000);
	t0 = ktime_get_ns();
	complete_all(&start);
	for (i = 0; i < n; i++) {
		wait_for_completion(&w[i].done);
		err = err ?: w[i].err;
	}
	ns = ktime_get_ns() - t0;
	if (err)
		return err;
	return div64_u64((u64)n * pairs * NSEC_PER_SEC, max_t(u64, ns, 1));
}

static int uc_scale_bench(unsigned long pairs)
{
	struct uc_scale_worker *w;
	struct unmapped_cache *rw;
	unsigned int cpus, p;
	s64 rate[ARRAY_SIZE(uc_scale_paths)][2];
	int err = 0;

	guard(mutex)(&uc_bench_lock);
	rw = unmapped_cache_create("debugfs-bench", UNMAPPED_CACHE_RW);
	w = kcalloc(nr_cpu_ids, sizeof(*w), GFP_KERNEL);
	if (!rw || !w) {
		err = -ENOMEM;
		goto out;
	}
	/* No CPU may go away while its kthread is bound to it. */
	cpus_read_lock();
	cpus = num_online_cpus();
	for (p = 0; p < ARRAY_SIZE(uc_scale_paths) && !err; p++) {
		rate[p][0] = uc_scale_run(uc_scale_paths[p], rw, w, 1, pairs);
		rate[p][1] = uc_scale_run(uc_scale_paths[p], rw, w, cpus, pairs);
		if (rate[p][0] < 0 || rate[p][1] < 0)
			err = min(rate[p][0], rate[p][1]);
	}
	cpus_read_unlock();
	if (!err) {
		guard(mutex)(&uc_exercise_lock);
		uc_scale.cpus = cpus;
		for (p = 0; p < ARRAY_SIZE(uc_scale_paths); p++) {
			uc_scale.rate[p][0] = rate[p][0];
			uc_scale.rate[p][1] = rate[p][1];
		}
	}
out:
	kfree(w);
	unmapped_cache_destroy(rw);
	return err;
}

static int bench_scale_set(void *data, u64 pairs)
{
	if (!pairs || pairs > 1000000)
		return -EINVAL;
	return uc_scale_bench(pairs);
}
DEFINE_DEBUGFS_ATTRIBUTE(bench_scale_fops, NULL, bench_scale_set, "%llu\n");

static int bench_results_show(struct seq_file *seq, void *v)
{
	int path, p;

	guard(mutex)(&uc_exercise_lock);
	seq_printf(seq, "pairs: %lu\n", uc_bench.pairs);
	for (path = 0; path < UC_BENCH_COUNT; path++)
		seq_printf(seq, "%s: %llu ns\n", uc_bench_names[path],
			   uc_bench.ns[path]);
	for (p = 0; uc_scale.cpus && p < ARRAY_SIZE(uc_scale_paths); p++) {
		seq_printf(seq, "scaling cpus=1 %s: %llu pairs/s\n",
			   uc_bench_names[uc_scale_paths[p]], uc_scale.rate[p][0]);
		seq_printf(seq, "scaling cpus=%u %s: %llu pairs/s\n",
			   uc_scale.cpus, uc_bench_names[uc_scale_paths[p]],
			   uc_scale.rate[p][1]);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(bench_results);

#ifdef CONFIG_KCSAN
/*
 * KCSAN's positive control for the cache's own files: writing MS to
 * planted_race runs, for MS milliseconds, a thread that increments a word
 * with plain accesses and one that reads it, on two CPUs if there are
 * two: a data race by design, which a KCSAN kernel must report in
 * uc_planted_race_writer() or _reader().  Without that report, "no race
 * reported in the cache's code" would not show that mm/unmapped_cache/
 * is instrumented.  (KCSAN leaves out of its reports the frames of
 * functions with "kcsan_" in their names: these have none.)
 */
struct uc_planted_race {
	struct completion done;
	unsigned long deadline;
	unsigned long count;
};

static unsigned long uc_planted_race_word;
static unsigned long uc_planted_race_sink;

static noinline int uc_planted_race_writer(void *data)
{
	struct uc_planted_race *p = data;

	while (time_before(jiffies, p->deadline)) {
		uc_planted_race_word++;
		barrier();
		if (!(++p->count % 1024))
			cond_resched();
	}
	complete(&p->done);
	return 0;
}

static noinline int uc_planted_race_reader(void *data)
{
	struct uc_planted_race *p = data;

	while (time_before(jiffies, p->deadline)) {
		uc_planted_race_sink += uc_planted_race_word;
		barrier();
		if (!(++p->count % 1024))
			cond_resched();
	}
	complete(&p->done);
	return 0;
}

static int planted_race_set(void *data, u64 ms)
{
	int (*fns[2])(void *) = { uc_planted_race_writer, uc_planted_race_reader };
	struct uc_planted_race *p;
	struct task_struct *t;
	int i, cpu, started = 0;

	if (!ms || ms > 60000)
		return -EINVAL;
	p = kcalloc(2, sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	cpu = cpumask_first(cpu_online_mask);
	for (i = 0; i < 2; i++) {
		init_completion(&p[i].done);
		p[i].deadline = jiffies + msecs_to_jiffies(ms);
		t = kthread_create(fns[i], &p[i], "uc_planted_race/%d", i);
		if (IS_ERR(t))
			break;
		if (cpu < nr_cpu_ids)
			kthread_bind(t, cpu);
		wake_up_process(t);
		started++;
		cpu = cpumask_next(cpu, cpu_online_mask);
	}
	for (i = 0; i < started; i++)
		wait_for_completion(&p[i].done);
	kfree(p);
	return started == 2 ? 0 : -ENOMEM;
}
DEFINE_DEBUGFS_ATTRIBUTE(planted_race_fops, NULL, planted_race_set, "%llu\n");
#endif

/**
 * uc_exercise_show() - Print the results of the last exercises.
 * @seq: debugfs "blocks".
 */
void uc_exercise_show(struct seq_file *seq)
{
	guard(mutex)(&uc_exercise_lock);
	seq_printf(seq, "last exercise: asked %lu taken %lu bad_unmapped %lu bad_restored %lu\n",
		   uc_exercise.asked, uc_exercise.taken,
		   uc_exercise.bad_unmapped, uc_exercise.bad_restored);
	seq_printf(seq,
		   "image block: err %d state %lu image_before %d read_before %d image_held %d read_held %d direct_held %d image_after %d read_after %d direct_after %d flags_kept %d\n",
		   uc_image_block.err, uc_image_block.state,
		   uc_image_block.image_before, uc_image_block.read_before,
		   uc_image_block.image_held, uc_image_block.read_held,
		   uc_image_block.direct_held, uc_image_block.image_after,
		   uc_image_block.read_after, uc_image_block.direct_after,
		   uc_image_block.flags_kept);
}

/**
 * uc_exercise_debugfs_init() - Create the exercise and benchmark files.
 * @root: the cache's debugfs directory.
 */
void uc_exercise_debugfs_init(struct dentry *root)
{
	debugfs_create_file_unsafe("exercise_blocks", 0200, root, NULL,
				   &exercise_blocks_fops);
#ifdef CONFIG_CONTIG_ALLOC
	debugfs_create_file_unsafe("exercise_image_block", 0200, root, NULL,
				   &exercise_image_block_fops);
#endif
	debugfs_create_file_unsafe("exercise_population", 0200, root, NULL,
				   &exercise_population_fops);
	debugfs_create_file_unsafe("bench", 0200, root, NULL, &bench_fops);
	debugfs_create_file_unsafe("bench_scale", 0200, root, NULL,
				   &bench_scale_fops);
	debugfs_create_file("bench_results", 0444, root, NULL,
			    &bench_results_fops);
#ifdef CONFIG_KCSAN
	debugfs_create_file_unsafe("planted_race", 0200, root, NULL,
				   &planted_race_fops);
#endif
}
