/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/bug.h> for the range tree harness: BUILD_BUG_ON() and friends from
 * tools/include (whose own linux/bug.h clashes with its build_bug.h), plus
 * WARN_ON() and WARN_ON_ONCE() that count every hit in uc_shim_warnings, so
 * that tests can tell an expected warning from a silent one.  Like the
 * kernel's, they print once per call site; unlike the kernel's, they count
 * every time.
 */
#ifndef _UC_SHIM_LINUX_BUG_H
#define _UC_SHIM_LINUX_BUG_H

#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/types.h>

extern unsigned long uc_shim_warnings;
void uc_shim_warn(const char *file, int line, const char *cond, bool *warned);

#define WARN_ON_ONCE(condition) ({					\
	static bool __uc_warned;					\
	bool __uc_cond = !!(condition);					\
									\
	if (unlikely(__uc_cond))					\
		uc_shim_warn(__FILE__, __LINE__, #condition, &__uc_warned); \
	unlikely(__uc_cond);						\
})

#define WARN_ON(condition)	WARN_ON_ONCE(condition)

#endif /* _UC_SHIM_LINUX_BUG_H */
