/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/errno.h> for the range tree harness: the system's UAPI header,
 * which has the same values as the kernel's.  (Including the C library's
 * <errno.h> here would loop back to this file.)
 */
#ifndef _UC_SHIM_LINUX_ERRNO_H
#define _UC_SHIM_LINUX_ERRNO_H

#include_next <linux/errno.h>

#endif /* _UC_SHIM_LINUX_ERRNO_H */
