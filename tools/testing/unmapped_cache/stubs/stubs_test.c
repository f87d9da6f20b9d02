// SPDX-License-Identifier: GPL-2.0
/*
 * Compile-only test: every stub that <linux/unmapped_cache.h> gives a
 * kernel built without CONFIG_UNMAPPED_CACHE, as a caller would use them.
 * devtools/check-stubs.sh compiles it with the kernel's own flags after
 * undefining the option, warnings as errors.
 */
#undef CONFIG_UNMAPPED_CACHE
#include <linux/unmapped_cache.h>

int uc_stubs_test(void);
int uc_stubs_test(void)
{
	struct unmapped_cache *c = unmapped_cache_create("x", UNMAPPED_CACHE_ROX);
	void *p = unmapped_cache_alloc(c, 4096, GFP_KERNEL);
	void *q = unmapped_cache_alloc_node(c, 4096, 4096, 0, GFP_KERNEL);
	struct page *pg = unmapped_cache_alloc_page(c, GFP_KERNEL);
	void *v = unmapped_cache_vmap(4096, 4096, 0, 0, PAGE_KERNEL, 0, NULL);
	int ret = unmapped_cache_write(c, p, "x", 1);

	ret += unmapped_cache_owns(c, p, 4096) + unmapped_cache_owns_page(c, pg);
	ret += unmapped_cache_vunmap(v) + unmapped_cache_secret_active();
	ret += unmapped_cache_alias_readable(p);
	ret += unmapped_cache_hibernate_copy_page(p, pg);
	ret += unmapped_cache_vmap_write(v, "x", 1) + unmapped_cache_size(c, p);
	ret += unmapped_cache_vmap_nx(v, 4096) + unmapped_cache_vmap_seal_ro(v, 4096);
	ret += unmapped_cache_holds_pfn(0);

	unmapped_cache_free(c, p, 4096);
	unmapped_cache_free(c, q, 4096);
	unmapped_cache_free_page(c, pg);
	unmapped_cache_release_page(c, pg);
	unmapped_cache_destroy(c);
	return ret + unmapped_cache_enabled();
}
