// SPDX-License-Identifier: GPL-2.0
/*
 * What every layer of the unmapped cache uses: the boot parameter, whether
 * the cache is up, the count of refused calls, the fault-injection points
 * and the tracepoints.  The cache's overview is in init.c.
 */

#define pr_fmt(fmt) "unmapped_cache: " fmt

#include <linux/debugfs.h>
#include <linux/fault-inject.h>
#include <linux/init.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/set_memory.h>
#include <linux/unmapped_cache.h>

#include "internal.h"

#define CREATE_TRACE_POINTS
#include <trace/events/unmapped_cache.h>

atomic_long_t uc_bad_calls;

/* Written once at init (init.c), read from any context. */
bool uc_enabled __ro_after_init;

/* "unmapped_cache=off": every user takes its usual path (A/B testing). */
bool uc_off __initdata;

static int __init uc_parse_param(char *arg)
{
	bool on;

	if (!arg || kstrtobool(arg, &on))
		return -EINVAL;
	uc_off = !on;
	return 0;
}
early_param("unmapped_cache", uc_parse_param);

bool unmapped_cache_enabled(void)
{
	return READ_ONCE(uc_enabled);
}

bool __init unmapped_cache_requested(void)
{
	/* The same tests as the initcall's, but for memory. */
	return !uc_off && can_set_direct_map() && !debug_pagealloc_enabled() &&
	       arch_unmapped_cache_supported();
}

#ifdef CONFIG_UNMAPPED_CACHE_FAULT_INJECTION
DECLARE_FAULT_ATTR(fail_unmapped_cache_block);
DECLARE_FAULT_ATTR(fail_unmapped_cache_direct_map);
DECLARE_FAULT_ATTR(fail_unmapped_cache_vspace);
DECLARE_FAULT_ATTR(fail_unmapped_cache_magazine);
DECLARE_FAULT_ATTR(fail_unmapped_cache_page_held);
DECLARE_FAULT_ATTR(fail_unmapped_cache_gb_leaf);
DECLARE_FAULT_ATTR(fail_unmapped_cache_no_free_block);

bool unmapped_cache_should_fail_direct_map(void)
{
	return should_fail(&fail_unmapped_cache_direct_map,
			   UNMAPPED_CACHE_BLOCK_SIZE);
}

/* The fault points of the arenas and the magazines: true means "fail". */
bool uc_should_fail_vspace(unsigned long size)
{
	return should_fail(&fail_unmapped_cache_vspace, size);
}

bool uc_should_fail_magazine(void)
{
	return should_fail(&fail_unmapped_cache_magazine,
			   sizeof(struct uc_magazine));
}

bool uc_should_hold_page(void)
{
	return should_fail(&fail_unmapped_cache_page_held,
			   UNMAPPED_CACHE_BLOCK_SIZE);
}

/*
 * Whether a candidate block is taken to sit in an unsplit 1 GiB leaf:
 * -1 while the fault point is not armed (the direct map decides), else
 * its answer alone, 1 or 0, whatever the direct map says, so that a test
 * sees exactly the leaves it asked for even on a machine whose memory is
 * still mapped by 1 GiB entries (a block taken so splits its GiB, as the
 * cache would after passing over UC_BLOCK_GB_TRIES blocks).
 */
int uc_should_see_gb_leaf(void)
{
	if (!READ_ONCE(fail_unmapped_cache_gb_leaf.probability))
		return -1;
	return should_fail(&fail_unmapped_cache_gb_leaf,
			   UNMAPPED_CACHE_BLOCK_SIZE);
}

/* The page allocator is taken to have no free order-9 page. */
bool uc_should_find_no_free_block(void)
{
	return should_fail(&fail_unmapped_cache_no_free_block,
			   UNMAPPED_CACHE_BLOCK_SIZE);
}

void __init uc_fault_debugfs_init(void)
{
	fault_create_debugfs_attr("fail_unmapped_cache_block", NULL,
				  &fail_unmapped_cache_block);
	fault_create_debugfs_attr("fail_unmapped_cache_direct_map", NULL,
				  &fail_unmapped_cache_direct_map);
	fault_create_debugfs_attr("fail_unmapped_cache_vspace", NULL,
				  &fail_unmapped_cache_vspace);
	fault_create_debugfs_attr("fail_unmapped_cache_magazine", NULL,
				  &fail_unmapped_cache_magazine);
	fault_create_debugfs_attr("fail_unmapped_cache_page_held", NULL,
				  &fail_unmapped_cache_page_held);
	fault_create_debugfs_attr("fail_unmapped_cache_gb_leaf", NULL,
				  &fail_unmapped_cache_gb_leaf);
	fault_create_debugfs_attr("fail_unmapped_cache_no_free_block", NULL,
				  &fail_unmapped_cache_no_free_block);
}
#endif
