/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/printk.h> for the range tree harness: pr_*() go to
 * uc_shim_printk(), which the harness implements (and can silence while a
 * test provokes messages on purpose).
 */
#ifndef _UC_SHIM_LINUX_PRINTK_H
#define _UC_SHIM_LINUX_PRINTK_H

#include <linux/compiler.h>

#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif

__printf(1, 2) void uc_shim_printk(const char *fmt, ...);

#define pr_err(fmt, ...)	uc_shim_printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...)	uc_shim_printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...)	uc_shim_printk(pr_fmt(fmt), ##__VA_ARGS__)

#endif /* _UC_SHIM_LINUX_PRINTK_H */
