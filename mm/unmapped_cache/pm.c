// SPDX-License-Identifier: GPL-2.0
/*
 * The cache and the two paths that read all of memory: the hibernation
 * image and /proc/kcore.
 *
 * Neither may make a page of the cache present in the direct map again:
 * mapping back one page would split the PMD-level entry of its block, the
 * very thing the cache exists to avoid.  Neither may read a secret page.
 * And both must still see everything else, as on a kernel without the
 * cache: module text and data, BPF JIT images, kprobe and ftrace
 * trampolines.
 *
 * Hibernation.  safe_copy_page() maps a page without a direct-map entry
 * back with set_direct_map_default_noflush() and unmaps it after the copy.
 * For the cache's pages it asks unmapped_cache_hibernate_copy_page() first,
 * which copies the page into the image, or says it is not the cache's:
 *
 *  - a page that is not the cache's: false, the usual path;
 *  - a hardware-poisoned page: zeroes, since the CPU must never read it
 *    (the usual path would read it too);
 *  - a secret page: zeroes.  Hibernation is refused while there are any
 *    (unmapped_cache_secret_active(): in hibernation_available(), and
 *    again in swsusp_save() once every task is frozen and no new one can
 *    appear), so this is only a second line, and it warns;
 *  - any other page: copied through this CPU's own read-only mapping of it
 *    (arch_unmapped_cache_copy_page()), which no other CPU translates and
 *    which is gone when the copy returns.
 *
 * Resuming needs nothing of the cache.  The image's pages are written back
 * through the restoring kernel's temporary mappings, which cover all of
 * memory whatever that kernel's direct map looks like, and the image's own
 * page tables come back with them: every block out of the direct map, as
 * at the time of the copy.
 *
 * /proc/kcore.  The module area is read page by page through vread_iter().
 * A page without a direct-map entry there is the cache's, mapped in the
 * module area by an arena or for execmem; vmalloc reads it through that
 * mapping if unmapped_cache_alias_readable() says so.  No kernel address
 * ever maps a secret page: the cache clears and copies pages through a
 * mapping in an mm of the CPU's own (arch code), which is not in init_mm.
 * A secret page read through the direct map faults and reads as zeroes in
 * kcore's own path.
 */

#define pr_fmt(fmt) "unmapped_cache: " fmt

#include <linux/mm.h>
#include <linux/page-flags.h>
#include <linux/pgtable.h>
#include <linux/unmapped_cache.h>

#include "internal.h"

/* Pages copied for hibernation, and pages left out (as zeroes). */
static unsigned long uc_hibernate_copied;
static unsigned long uc_hibernate_zeroed;

void uc_hibernate_stats(unsigned long *copied, unsigned long *zeroed)
{
	*copied = READ_ONCE(uc_hibernate_copied);
	*zeroed = READ_ONCE(uc_hibernate_zeroed);
}

/**
 * unmapped_cache_hibernate_copy_page() - Copy a page for the hibernation image.
 * @dst:  a page of the image.
 * @page: a page without a present direct-map entry.
 *
 * Called by the hibernation snapshot for every such page.  A page that the
 * cache holds is copied into @dst without changing the direct map and
 * without a writable or executable alias; poisoned pages and secret pages
 * are copied as zeroes.
 *
 * Context: The snapshot's copy: one CPU, interrupts off.
 * Return: true if @page is the cache's and @dst holds its copy; false, with
 * @dst untouched, if it is not.
 */
bool unmapped_cache_hibernate_copy_page(void *dst, struct page *page)
{
	struct unmapped_cache *cache;
	bool ours;

	lockdep_assert_irqs_disabled();
	rcu_read_lock();
	ours = uc_block_lookup(page_to_pfn(page));
	rcu_read_unlock();
	if (!ours)
		return false;

	cache = uc_none_cache_of(READ_ONCE(page->private));
	if (PageHWPoison(page) || WARN_ON_ONCE(cache && cache->secret)) {
		WRITE_ONCE(uc_hibernate_zeroed, uc_hibernate_zeroed + 1);
		clear_page(dst);
		return true;
	}
	WRITE_ONCE(uc_hibernate_copied, uc_hibernate_copied + 1);
	arch_unmapped_cache_copy_page(dst, page);
	return true;
}

/**
 * unmapped_cache_alias_readable() - Whether a kernel mapping may be read.
 * @addr: an address in the vmalloc or module area that maps a page without
 *        a present direct-map entry.
 *
 * Such a page is the cache's.  It may be read through @addr (as
 * /proc/kcore does, with a copy that tolerates faults): every mapping of a
 * cache page in the vmalloc or module area is of text or data that the
 * kernel maps anyway (module memory, JIT images, trampolines).  The cache
 * reaches secret pages only through mappings outside init_mm.
 *
 * Context: Any context.
 * Return: true if @addr may be read.
 */
bool unmapped_cache_alias_readable(const void *addr)
{
	return unmapped_cache_enabled() && is_vmalloc_or_module_addr(addr);
}
