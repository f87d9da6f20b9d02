// SPDX-License-Identifier: GPL-2.0
/*
 * uc_pagepair: the cost of an order-0 alloc_page() + __free_page() pair.
 *
 * The cache must add nothing to the page allocator's paths (DESIGN.md I6).
 * Loaded, this module times uc_pagepair.samples runs, each of
 * uc_pagepair.pairs alloc/free pairs, with preemption off, and prints
 * one line
 *   uc_pagepair: pairs=N ns_per_pair=X,Y,Z,...
 * with each run's cost per pair; devtools/pair-timing.sh boots the kernel
 * with the cache off and on in turn and compares the medians.  The module
 * does nothing after that and unloads cleanly.
 */
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/slab.h>

static unsigned int pairs = 20000;
module_param(pairs, uint, 0444);
MODULE_PARM_DESC(pairs, "alloc_page() + __free_page() pairs per run");

static unsigned int samples = 5;
module_param(samples, uint, 0444);
MODULE_PARM_DESC(samples, "runs");

/* One run: the average cost of a pair, in ns; 0 if a page was missing. */
static u64 uc_pagepair_run(void)
{
	struct page *page;
	unsigned int i;
	u64 t;

	preempt_disable();
	t = ktime_get_ns();
	for (i = 0; i < pairs; i++) {
		page = alloc_page(GFP_ATOMIC | __GFP_NOWARN);
		if (!page)
			break;
		__free_page(page);
	}
	t = ktime_get_ns() - t;
	preempt_enable();
	return i == pairs ? div_u64(t, pairs) : 0;
}

static int __init uc_pagepair_init(void)
{
	char *line, *p;
	unsigned int s;
	size_t len;

	if (!pairs || !samples || samples > 100)
		return -EINVAL;
	len = 32 + 21 * samples;
	line = kmalloc(len, GFP_KERNEL);
	if (!line)
		return -ENOMEM;
	/* A run to warm the per-CPU lists, not counted. */
	uc_pagepair_run();
	p = line;
	for (s = 0; s < samples; s++)
		p += scnprintf(p, len - (p - line), "%s%llu", s ? "," : "",
			       uc_pagepair_run());
	pr_info("uc_pagepair: pairs=%u ns_per_pair=%s\n", pairs, line);
	kfree(line);
	return 0;
}

static void __exit uc_pagepair_exit(void)
{
}

module_init(uc_pagepair_init);
module_exit(uc_pagepair_exit);
MODULE_DESCRIPTION("unmapped_cache test: cost of an alloc_page() + __free_page() pair");
MODULE_LICENSE("GPL");
