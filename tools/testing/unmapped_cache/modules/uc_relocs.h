/* SPDX-License-Identifier: GPL-2.0 */
/* uc_relocs: shared by its C and assembly parts. */
#ifndef UC_RELOCS_H
#define UC_RELOCS_H

#define UC_RELOCS_PAIRS	70000
/* Bytes a pair: e8 rel32, then 48 b8 imm64. */
#define UC_RELOCS_PAIR	15

#ifndef __ASSEMBLY__
#include <linux/types.h>

/* The target of the movabs relocations; read by nothing. */
extern unsigned long uc_relocs_data[2];
/* The pairs (uc_relocs_text.S). */
extern const u8 uc_relocs_text[];
#endif

#endif
