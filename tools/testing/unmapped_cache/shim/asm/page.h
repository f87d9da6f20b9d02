/* SPDX-License-Identifier: GPL-2.0 */
/* <asm/page.h> for the range tree harness: 4 KiB pages, as on x86-64. */
#ifndef _UC_SHIM_ASM_PAGE_H
#define _UC_SHIM_ASM_PAGE_H

#include <linux/const.h>

#define PAGE_SHIFT	12
#define PAGE_SIZE	(_AC(1, UL) << PAGE_SHIFT)
#define PAGE_MASK	(~(PAGE_SIZE - 1))

#endif /* _UC_SHIM_ASM_PAGE_H */
