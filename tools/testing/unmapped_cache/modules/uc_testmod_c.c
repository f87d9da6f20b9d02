// SPDX-License-Identifier: GPL-2.0
/*
 * uc_testmod_c: the unmapped_cache test module with big tables: 256 KiB in
 * each of .rodata, .data..ro_after_init and .data, so that each section
 * spans many pages.  Its text is small.
 *
 * Init fills the ro_after_init table, computes the expected checksum of
 * every table from the generator (not from the tables), then checksums the
 * tables with the module's own text and fails with -EINVAL on a mismatch.
 * Reading /sys/kernel/debug/uc_testmod_c/run does the same again, writes
 * to the .data table and answers "ok <checksum>" or "bad <what> ...".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>

#include "uc_testmod.h"

/* Every table is u32 [256][16][16], 256 KiB, entry i at flat index i. */
#define UC_C_N		65536
#define UC_C_RO_SEED	0x5eed0c01
#define UC_C_ROAI_SEED	0x5eed0c02
#define UC_C_DATA_SEED	0x5eed0c03

/*
 * One 16 x 16 block of a table: UC_C_BLK(0x12) holds entries 0x1200 to
 * 0x12ff of the table whose seed UC_C_SEED is at the time.
 */
#define UC_C_ENT(n)	UC_GEN(n, UC_C_SEED)
#define UC_C_ROW(n)							\
	{ UC_C_ENT(n##0), UC_C_ENT(n##1), UC_C_ENT(n##2), UC_C_ENT(n##3),	\
	  UC_C_ENT(n##4), UC_C_ENT(n##5), UC_C_ENT(n##6), UC_C_ENT(n##7),	\
	  UC_C_ENT(n##8), UC_C_ENT(n##9), UC_C_ENT(n##a), UC_C_ENT(n##b),	\
	  UC_C_ENT(n##c), UC_C_ENT(n##d), UC_C_ENT(n##e), UC_C_ENT(n##f) }
#define UC_C_BLK(n)							\
	{ UC_C_ROW(n##0), UC_C_ROW(n##1), UC_C_ROW(n##2), UC_C_ROW(n##3),	\
	  UC_C_ROW(n##4), UC_C_ROW(n##5), UC_C_ROW(n##6), UC_C_ROW(n##7),	\
	  UC_C_ROW(n##8), UC_C_ROW(n##9), UC_C_ROW(n##a), UC_C_ROW(n##b),	\
	  UC_C_ROW(n##c), UC_C_ROW(n##d), UC_C_ROW(n##e), UC_C_ROW(n##f) }
#define UC_IDX(d)	UC_C_BLK(0x##d),

#define UC_C_SEED	UC_C_RO_SEED
static const u32 uc_c_ro[256][16][16] = {
#include "uc_idx256.h"
};

#undef UC_C_SEED

static u32 uc_c_roai[256][16][16] __ro_after_init;

#define UC_C_SEED	UC_C_DATA_SEED
static u32 uc_c_data[256][16][16] = {
#include "uc_idx256.h"
};

#undef UC_C_SEED
#undef UC_IDX

/* The tables as flat arrays of UC_C_N entries. */
#define UC_C_FLAT(t)	((u32 *)(t))

/* Checksums computed by init from the generator. */
static u32 uc_c_want[UC_NR_TBL] __ro_after_init;

/* Seeds of the three tables, for init only. */
static u32 uc_c_seeds[UC_NR_TBL] __initdata = {
	UC_C_RO_SEED, UC_C_ROAI_SEED, UC_C_DATA_SEED,
};

static DEFINE_MUTEX(uc_c_lock);
static struct dentry *uc_c_dir;

static noinline u32 uc_c_csum(const u32 *p, unsigned int n)
{
	u32 h = UC_CSUM_INIT;
	unsigned int i;

	for (i = 0; i < n; i++)
		h = uc_mix(h, READ_ONCE(p[i]));
	return h;
}

/* Write to every word of the .data table, read it back and restore it. */
static noinline bool uc_c_poke_data(void)
{
	u32 *p = UC_C_FLAT(uc_c_data);
	bool ok = true;
	unsigned int i;
	u32 v;

	for (i = 0; i < UC_C_N; i++) {
		v = READ_ONCE(p[i]);
		WRITE_ONCE(p[i], ~v);
		if (READ_ONCE(p[i]) != ~v)
			ok = false;
		WRITE_ONCE(p[i], v);
	}
	return ok;
}

static void uc_c_verify(struct uc_tm_result *r, bool write)
{
	mutex_lock(&uc_c_lock);
	r->got[UC_TBL_RODATA] = uc_c_csum((const u32 *)uc_c_ro, UC_C_N);
	r->got[UC_TBL_RO_AFTER_INIT] = uc_c_csum(UC_C_FLAT(uc_c_roai), UC_C_N);
	r->got[UC_TBL_DATA] = uc_c_csum(UC_C_FLAT(uc_c_data), UC_C_N);
	uc_tm_compare(r, uc_c_want);
	r->bad_write = write && !uc_c_poke_data();
	mutex_unlock(&uc_c_lock);
}

static int uc_c_run_show(struct seq_file *m, void *unused)
{
	struct uc_tm_result r;

	uc_c_verify(&r, true);
	uc_tm_show(m, &r, uc_c_want);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(uc_c_run);

/* Checksum of table @tbl as it should be, without reading the table. */
static u32 __init uc_c_ref(int tbl)
{
	u32 h = UC_CSUM_INIT;
	unsigned int i;

	for (i = 0; i < UC_C_N; i++)
		h = uc_mix(h, UC_GEN(i, uc_c_seeds[tbl]));
	return h;
}

static int __init uc_c_init(void)
{
	struct uc_tm_result r;
	unsigned int i;
	int tbl;

	for (i = 0; i < UC_C_N; i++)
		UC_C_FLAT(uc_c_roai)[i] = UC_GEN(i, uc_c_seeds[UC_TBL_RO_AFTER_INIT]);
	for (tbl = 0; tbl < UC_NR_TBL; tbl++)
		uc_c_want[tbl] = uc_c_ref(tbl);

	uc_c_verify(&r, false);
	if (!uc_tm_ok(&r)) {
		pr_err("bad %s checksum at init: got %08x want %08x\n",
		       uc_tm_name(r.bad), r.got[r.bad], uc_c_want[r.bad]);
		return -EINVAL;
	}

	uc_c_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(uc_c_dir))
		return PTR_ERR(uc_c_dir);
	debugfs_create_file("run", 0444, uc_c_dir, NULL, &uc_c_run_fops);

	pr_info("loaded, checksum %08x\n", r.sum);
	return 0;
}

static void __exit uc_c_exit(void)
{
	debugfs_remove_recursive(uc_c_dir);
}

module_init(uc_c_init);
module_exit(uc_c_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("unmapped_cache test module: big rodata, ro_after_init and data");
