// SPDX-License-Identifier: GPL-2.0
/*
 * uc_relocs: a module with 1 MiB of text and 140 000 relocations in it,
 * to time a module load and unload that is mostly relocation work.
 *
 * The text (uc_relocs_text.S) is never run.  It is UC_RELOCS_PAIRS pairs of
 *   call   _printk                (e8 + rel32, R_X86_64_PLT32)
 *   movabs $uc_relocs_data, %rax  (48 b8 + imm64, R_X86_64_64)
 * 15 bytes a pair.  Loaded, the module checks that every relocation in
 * it was applied (each call reaches _printk and each movabs holds the
 * address of uc_relocs_data), prints
 *   uc_relocs: pairs=N relocations=N wrong=0 text_bytes=N
 * and fails to load if any was not.  With the unmapped cache the text is
 * never mapped writable: the loader relocates a copy of the section and
 * writes it back a page at a time (arch/x86/kernel/module.c).
 */
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/string.h>

#include "uc_relocs.h"

unsigned long uc_relocs_data[2];

static int __init uc_relocs_init(void)
{
	const u8 *p = uc_relocs_text;
	unsigned long wrong = 0;
	unsigned int i;
	s32 rel;
	u64 imm;

	for (i = 0; i < UC_RELOCS_PAIRS; i++, p += UC_RELOCS_PAIR) {
		memcpy(&rel, p + 1, sizeof(rel));
		memcpy(&imm, p + 7, sizeof(imm));
		if (p[0] != 0xe8 ||
		    (unsigned long)(p + 5) + rel != (unsigned long)_printk)
			wrong++;
		if (p[5] != 0x48 || p[6] != 0xb8 ||
		    imm != (u64)(unsigned long)uc_relocs_data)
			wrong++;
	}
	pr_info("uc_relocs: pairs=%u relocations=%u wrong=%lu text_bytes=%u\n",
		UC_RELOCS_PAIRS, 2 * UC_RELOCS_PAIRS, wrong,
		UC_RELOCS_PAIRS * UC_RELOCS_PAIR);
	return wrong ? -EINVAL : 0;
}

static void __exit uc_relocs_exit(void)
{
}

module_init(uc_relocs_init);
module_exit(uc_relocs_exit);
MODULE_DESCRIPTION("unmapped_cache test: 1 MiB of text with 140000 relocations");
MODULE_LICENSE("GPL");
