/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The text of uc_relocs (see uc_relocs_main.c): UC_RELOCS_PAIRS pairs of
 * a call to _printk (R_X86_64_PLT32) and a movabs of the address of
 * uc_relocs_data (R_X86_64_64), 15 bytes a pair.  Never run.
 */
#include "uc_relocs.h"

	.pushsection .text.uc_relocs, "ax", @progbits
	.balign 16
	.globl uc_relocs_text
uc_relocs_text:
	.rept UC_RELOCS_PAIRS
	call _printk
	movabs $uc_relocs_data, %rax
	.endr
	int3
	.popsection
