/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM unmapped_cache

#if !defined(_TRACE_UNMAPPED_CACHE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_UNMAPPED_CACHE_H

#include <linux/tracepoint.h>
#include <linux/unmapped_cache.h>

#define uc_show_perm(perm)						\
	__print_symbolic(perm,						\
			 { UNMAPPED_CACHE_NONE,	"none" },		\
			 { UNMAPPED_CACHE_RO,	"ro" },			\
			 { UNMAPPED_CACHE_ROX,	"rox" },		\
			 { UNMAPPED_CACHE_RW,	"rw" })

TRACE_DEFINE_ENUM(UNMAPPED_CACHE_NONE);
TRACE_DEFINE_ENUM(UNMAPPED_CACHE_RO);
TRACE_DEFINE_ENUM(UNMAPPED_CACHE_ROX);
TRACE_DEFINE_ENUM(UNMAPPED_CACHE_RW);

DECLARE_EVENT_CLASS(unmapped_cache_block,
	TP_PROTO(int nid, int perm, unsigned long pfn, unsigned long addr),
	TP_ARGS(nid, perm, pfn, addr),

	TP_STRUCT__entry(
		__field(int, nid)
		__field(int, perm)
		__field(unsigned long, pfn)
		__field(unsigned long, addr)
	),

	TP_fast_assign(
		__entry->nid = nid;
		__entry->perm = perm;
		__entry->pfn = pfn;
		__entry->addr = addr;
	),

	TP_printk("node=%d arena=%s pfn=0x%lx addr=0x%lx", __entry->nid,
		  uc_show_perm(__entry->perm), __entry->pfn, __entry->addr)
);

/*
 * unmapped_cache_block_add - An arena took a block out of the direct map.
 * @addr: where the arena maps it (module area), or its physical address
 *        for the NONE arena.
 */
DEFINE_EVENT(unmapped_cache_block, unmapped_cache_block_add,
	TP_PROTO(int nid, int perm, unsigned long pfn, unsigned long addr),
	TP_ARGS(nid, perm, pfn, addr)
);

/* unmapped_cache_block_return - A block went back to the page allocator. */
DEFINE_EVENT(unmapped_cache_block, unmapped_cache_block_return,
	TP_PROTO(int nid, int perm, unsigned long pfn, unsigned long addr),
	TP_ARGS(nid, perm, pfn, addr)
);

DECLARE_EVENT_CLASS(unmapped_cache_chunk,
	TP_PROTO(const char *cache, int perm, unsigned long size,
		 unsigned long addr, unsigned long caller),
	TP_ARGS(cache, perm, size, addr, caller),

	TP_STRUCT__entry(
		__string(cache, cache)
		__field(int, perm)
		__field(unsigned long, size)
		__field(unsigned long, addr)
		__field(unsigned long, caller)
	),

	TP_fast_assign(
		__assign_str(cache);
		__entry->perm = perm;
		__entry->size = size;
		__entry->addr = addr;
		__entry->caller = caller;
	),

	TP_printk("cache=%s arena=%s size=%lu addr=0x%lx caller=%pS",
		  __get_str(cache), uc_show_perm(__entry->perm), __entry->size,
		  __entry->addr, (void *)__entry->caller)
);

/*
 * unmapped_cache_alloc - A chunk came from the arena's range tree: every
 * chunk larger than a page, and a single page that missed the magazines.
 * @addr is 0 when the allocation failed.
 */
DEFINE_EVENT(unmapped_cache_chunk, unmapped_cache_alloc,
	TP_PROTO(const char *cache, int perm, unsigned long size,
		 unsigned long addr, unsigned long caller),
	TP_ARGS(cache, perm, size, addr, caller)
);

/*
 * unmapped_cache_free - A chunk went back to the range tree (single pages
 * only when the magazines had no room).
 */
DEFINE_EVENT(unmapped_cache_chunk, unmapped_cache_free,
	TP_PROTO(const char *cache, int perm, unsigned long size,
		 unsigned long addr, unsigned long caller),
	TP_ARGS(cache, perm, size, addr, caller)
);

/* What unmapped_cache_depot reports. */
#define UC_TRACE_DEPOT_REFILL	0	/* a CPU took a full magazine */
#define UC_TRACE_DEPOT_PUT	1	/* a CPU put a magazine back */
#define UC_TRACE_DEPOT_REAP	2	/* the depot gave rounds to the arena */

/*
 * unmapped_cache_depot - Magazine traffic between a CPU and its arena's
 * depot, or from the depot back to the arena.
 * @event:  UC_TRACE_DEPOT_*.
 * @rounds: pages in the magazines moved.
 */
TRACE_EVENT(unmapped_cache_depot,
	TP_PROTO(int nid, int perm, int event, unsigned long rounds),
	TP_ARGS(nid, perm, event, rounds),

	TP_STRUCT__entry(
		__field(int, nid)
		__field(int, perm)
		__field(int, event)
		__field(unsigned long, rounds)
	),

	TP_fast_assign(
		__entry->nid = nid;
		__entry->perm = perm;
		__entry->event = event;
		__entry->rounds = rounds;
	),

	TP_printk("node=%d arena=%s %s rounds=%lu", __entry->nid,
		  uc_show_perm(__entry->perm),
		  __print_symbolic(__entry->event,
				   { UC_TRACE_DEPOT_REFILL, "refill" },
				   { UC_TRACE_DEPOT_PUT, "put" },
				   { UC_TRACE_DEPOT_REAP, "reap" }),
		  __entry->rounds)
);

/*
 * unmapped_cache_shrink - The shrinker ran.
 * @asked:  objects (pages) reclaim asked for.
 * @freed:  pages given back to the page allocator (whole blocks).
 */
TRACE_EVENT(unmapped_cache_shrink,
	TP_PROTO(unsigned long asked, unsigned long freed),
	TP_ARGS(asked, freed),

	TP_STRUCT__entry(
		__field(unsigned long, asked)
		__field(unsigned long, freed)
	),

	TP_fast_assign(
		__entry->asked = asked;
		__entry->freed = freed;
	),

	TP_printk("asked=%lu freed=%lu", __entry->asked, __entry->freed)
);

#endif /* _TRACE_UNMAPPED_CACHE_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
