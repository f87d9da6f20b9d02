// SPDX-License-Identifier: GPL-2.0
/*
 * uc_race: a data race on purpose, the KCSAN positive control of the RT job.
 *
 * make check boots a KCSAN kernel (the RT one) and fails on any data race KCSAN reports
 * in the cache's code.  "No report" only means something if KCSAN, on that
 * kernel, in that emulator, with those CPUs, would have reported one: this
 * module plants one.  On load it runs two kthreads, on different CPUs
 * when there are two, for uc_race.ms milliseconds (default 2000): one
 * increments a word with plain accesses, the other reads it with plain
 * accesses.  The RT job requires a "BUG: KCSAN: data-race" report
 * naming uc_race_writer or uc_race_reader (devtools/splats.py --kcsan).
 *
 * Loading prints "uc_race: N writes, M reads" and succeeds; the module
 * does nothing after that and unloads cleanly.
 */
#include <linux/compiler.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>

static unsigned int ms = 2000;
module_param(ms, uint, 0444);
MODULE_PARM_DESC(ms, "how long the two threads race, in milliseconds");

struct uc_race {
	struct completion done;
	unsigned long deadline;
	unsigned long count;
};

/* The racy word: written and read with plain accesses, on purpose. */
static unsigned long uc_race_word;
static unsigned long uc_race_sink;

static noinline int uc_race_writer(void *data)
{
	struct uc_race *r = data;

	while (time_before(jiffies, r->deadline)) {
		uc_race_word++;
		/* Plain accesses, but one per iteration, not one per loop. */
		barrier();
		if (!(++r->count % 1024))
			cond_resched();
	}
	complete(&r->done);
	return 0;
}

static noinline int uc_race_reader(void *data)
{
	struct uc_race *r = data;

	while (time_before(jiffies, r->deadline)) {
		uc_race_sink += uc_race_word;
		barrier();
		if (!(++r->count % 1024))
			cond_resched();
	}
	complete(&r->done);
	return 0;
}

static int uc_race_start(struct uc_race *r, int (*fn)(void *), int cpu,
			 const char *name)
{
	struct task_struct *task;

	init_completion(&r->done);
	r->deadline = jiffies + msecs_to_jiffies(ms);
	task = kthread_create(fn, r, "%s", name);
	if (IS_ERR(task))
		return PTR_ERR(task);
	if (cpu < nr_cpu_ids && cpu_online(cpu))
		kthread_bind(task, cpu);
	wake_up_process(task);
	return 0;
}

static int __init uc_race_init(void)
{
	struct uc_race w = {}, r = {};
	int first = cpumask_first(cpu_online_mask);
	int second = cpumask_next(first, cpu_online_mask);
	int ret;

	ret = uc_race_start(&w, uc_race_writer, first, "uc_race_writer");
	if (ret)
		return ret;
	ret = uc_race_start(&r, uc_race_reader, second, "uc_race_reader");
	if (ret) {
		wait_for_completion(&w.done);
		return ret;
	}
	wait_for_completion(&w.done);
	wait_for_completion(&r.done);
	pr_info("uc_race: %lu writes, %lu reads\n", w.count, r.count);
	return 0;
}

static void __exit uc_race_exit(void)
{
}

module_init(uc_race_init);
module_exit(uc_race_exit);
MODULE_DESCRIPTION("unmapped_cache tests: a planted data race for KCSAN");
MODULE_LICENSE("GPL");
