/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86 definitions for the unmapped cache (mm/unmapped_cache/).
 */
#ifndef _ASM_X86_UNMAPPED_CACHE_H
#define _ASM_X86_UNMAPPED_CACHE_H

/*
 * Free text of the cache is filled with INT3, so that a stale jump into
 * it traps instead of running whatever was there before.
 */
#define ARCH_UNMAPPED_CACHE_TRAP_BYTE	0xcc	/* INT3_INSN_OPCODE */

#endif /* _ASM_X86_UNMAPPED_CACHE_H */
