/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the unmapped_cache test modules: the value generator of their
 * tables, the checksum step and the report of the debugfs "run" file.  Only
 * macros and static inline functions: every module gets its own copy of
 * whatever it uses.  The tables and functions themselves are generated with
 * the X-macro lists uc_idx256.h and uc_idx1024.h.
 */
#ifndef _UC_TESTMOD_H
#define _UC_TESTMOD_H

#include <linux/seq_file.h>
#include <linux/types.h>

/*
 * Value of entry @n of a table made with @seed.  A constant expression, so
 * that it can initialise static tables; the modules' __init code evaluates
 * the same expression at run time to check the tables.
 */
#define UC_GEN(n, seed)							\
	((u32)(((u32)(n) + 1) * 0x9e3779b1U) ^ (u32)(seed))

#define UC_CSUM_INIT	0x811c9dc5U

/* The three tables of every test module, in this order. */
enum {
	UC_TBL_RODATA,
	UC_TBL_RO_AFTER_INIT,
	UC_TBL_DATA,
	UC_NR_TBL,
};

static inline u32 uc_mix(u32 h, u32 v)
{
	h ^= v;
	h *= 0x01000193U;
	return h ^ (h >> 15);
}

/*
 * Result of one verification: the checksum of each table, which one (if
 * any) differs from what init computed, and the checksum of all three.
 * A failed read-back after writing to .data is reported as bad_write.
 */
struct uc_tm_result {
	u32 got[UC_NR_TBL];
	u32 sum;
	int bad;
	bool bad_write;
};

static inline void uc_tm_compare(struct uc_tm_result *r, const u32 *want)
{
	int i;

	r->bad = -1;
	r->sum = UC_CSUM_INIT;
	for (i = 0; i < UC_NR_TBL; i++) {
		if (r->got[i] != want[i] && r->bad < 0)
			r->bad = i;
		r->sum = uc_mix(r->sum, r->got[i]);
	}
}

static inline bool uc_tm_ok(const struct uc_tm_result *r)
{
	return r->bad < 0 && !r->bad_write;
}

static inline const char *uc_tm_name(int tbl)
{
	switch (tbl) {
	case UC_TBL_RODATA:
		return "rodata";
	case UC_TBL_RO_AFTER_INIT:
		return "ro_after_init";
	case UC_TBL_DATA:
		return "data";
	}
	return "?";
}

/* The text of the debugfs "run" file: "ok <sum>" or "bad <what> ...". */
static inline void uc_tm_show(struct seq_file *m,
			      const struct uc_tm_result *r, const u32 *want)
{
	if (r->bad >= 0)
		seq_printf(m, "bad %s got=%08x want=%08x\n",
			   uc_tm_name(r->bad), r->got[r->bad], want[r->bad]);
	else if (r->bad_write)
		seq_puts(m, "bad data-write\n");
	else
		seq_printf(m, "ok %08x\n", r->sum);
}

#endif /* _UC_TESTMOD_H */
