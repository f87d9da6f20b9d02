/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM x86_cpa

#if !defined(_TRACE_X86_CPA_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_X86_CPA_H

#include <linux/tracepoint.h>

/*
 * direct_map_split - CPA split a large page of the direct map.
 * @addr:  direct-map address inside the large page.
 * @level: 2 for a 2M page split into 4K ones, 3 for a 1G page split into
 *         2M ones (the numbering of direct_map_level{2,3}_splits in
 *         /proc/vmstat, which count the same events once the system runs).
 *
 * __split_large_page() is inlined, so kprobes cannot see splits; this is
 * how tools attribute them to call stacks.
 */
TRACE_EVENT(direct_map_split,
	TP_PROTO(unsigned long addr, unsigned int level),
	TP_ARGS(addr, level),

	TP_STRUCT__entry(
		__field(unsigned long, addr)
		__field(unsigned int, level)
	),

	TP_fast_assign(
		__entry->addr = addr;
		__entry->level = level;
	),

	TP_printk("addr=%lx level=%u", __entry->addr, __entry->level)
);

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH asm/trace/
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE set_memory
#endif /* _TRACE_X86_CPA_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
