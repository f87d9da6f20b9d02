// SPDX-License-Identifier: GPL-2.0
/*
 * uc_testmod_b: the unmapped_cache test module with a lot of text: 1024
 * generated functions, 64 KiB of text, each one step of the checksum with
 * its own constants, and a 4 KiB table in each of .rodata,
 * .data..ro_after_init and .data.
 *
 * The checksum of a table calls the functions in turn, so every check runs
 * all of the module's text.  Init compares it with a checksum computed from
 * the generator and the step formula in __init code and fails with -EINVAL
 * on a mismatch; reading /sys/kernel/debug/uc_testmod_b/run checks again,
 * writes to the .data table and answers "ok <checksum>" or "bad ...".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>

#include "uc_testmod.h"

#define UC_B_NR_FNS	1024
#define UC_B_N		1024
#define UC_B_RO_SEED	0x5eed0b01
#define UC_B_ROAI_SEED	0x5eed0b02
#define UC_B_DATA_SEED	0x5eed0b03

/*
 * One checksum step, specialised for each @k by the generated functions.
 * Kept as one inline so that __init code can evaluate it for any @k.
 */
static __always_inline u32 uc_b_step(u32 h, u32 v, u32 k)
{
	h ^= v + k * 0x85ebca6bU;
	h = rol32(h, k % 31 + 1);
	h *= 0xc2b2ae35U ^ (k << 1);
	h ^= h >> 13;
	return h + k * 0x27d4eb2fU;
}

/* uc_b_fn_0x000() ... uc_b_fn_0x3ff() */
#define UC_B_FN(n)							\
static noinline u32 uc_b_fn_##n(u32 h, u32 v)				\
{									\
	return uc_b_step(h, v, n);					\
}

#define UC_IDX1024(d)	UC_B_FN(0x##d)
#include "uc_idx1024.h"
#undef UC_IDX1024

#define UC_IDX1024(d)	uc_b_fn_0x##d,
static u32 (* const uc_b_fns[UC_B_NR_FNS])(u32 h, u32 v) = {
#include "uc_idx1024.h"
};

#undef UC_IDX1024

#define UC_IDX1024(d)	UC_GEN(0x##d, UC_B_RO_SEED),
static const u32 uc_b_ro[UC_B_N] = {
#include "uc_idx1024.h"
};

#undef UC_IDX1024

static u32 uc_b_roai[UC_B_N] __ro_after_init;

#define UC_IDX1024(d)	UC_GEN(0x##d, UC_B_DATA_SEED),
static u32 uc_b_data[UC_B_N] = {
#include "uc_idx1024.h"
};

#undef UC_IDX1024

/* Checksums computed by init from the generator. */
static u32 uc_b_want[UC_NR_TBL] __ro_after_init;

/* Seeds of the three tables, for init only. */
static u32 uc_b_seeds[UC_NR_TBL] __initdata = {
	UC_B_RO_SEED, UC_B_ROAI_SEED, UC_B_DATA_SEED,
};

static DEFINE_MUTEX(uc_b_lock);
static struct dentry *uc_b_dir;

static noinline u32 uc_b_csum(const u32 *p, unsigned int n)
{
	u32 h = UC_CSUM_INIT;
	unsigned int i;

	for (i = 0; i < n; i++)
		h = uc_b_fns[i % UC_B_NR_FNS](h, READ_ONCE(p[i]));
	return h;
}

/* Write to every word of the .data table, read it back and restore it. */
static noinline bool uc_b_poke_data(void)
{
	bool ok = true;
	unsigned int i;
	u32 v;

	for (i = 0; i < UC_B_N; i++) {
		v = READ_ONCE(uc_b_data[i]);
		WRITE_ONCE(uc_b_data[i], ~v);
		if (READ_ONCE(uc_b_data[i]) != ~v)
			ok = false;
		WRITE_ONCE(uc_b_data[i], v);
	}
	return ok;
}

static void uc_b_verify(struct uc_tm_result *r, bool write)
{
	mutex_lock(&uc_b_lock);
	r->got[UC_TBL_RODATA] = uc_b_csum(uc_b_ro, UC_B_N);
	r->got[UC_TBL_RO_AFTER_INIT] = uc_b_csum(uc_b_roai, UC_B_N);
	r->got[UC_TBL_DATA] = uc_b_csum(uc_b_data, UC_B_N);
	uc_tm_compare(r, uc_b_want);
	r->bad_write = write && !uc_b_poke_data();
	mutex_unlock(&uc_b_lock);
}

static int uc_b_run_show(struct seq_file *m, void *unused)
{
	struct uc_tm_result r;

	uc_b_verify(&r, true);
	uc_tm_show(m, &r, uc_b_want);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(uc_b_run);

/*
 * Checksum of table @tbl as it should be: the generator instead of the
 * table, the step formula instead of the generated functions.
 */
static u32 __init uc_b_ref(int tbl)
{
	u32 h = UC_CSUM_INIT;
	unsigned int i;

	for (i = 0; i < UC_B_N; i++)
		h = uc_b_step(h, UC_GEN(i, uc_b_seeds[tbl]), i % UC_B_NR_FNS);
	return h;
}

static int __init uc_b_init(void)
{
	struct uc_tm_result r;
	unsigned int i;
	int tbl;

	for (i = 0; i < UC_B_N; i++)
		uc_b_roai[i] = UC_GEN(i, uc_b_seeds[UC_TBL_RO_AFTER_INIT]);
	for (tbl = 0; tbl < UC_NR_TBL; tbl++)
		uc_b_want[tbl] = uc_b_ref(tbl);

	uc_b_verify(&r, false);
	if (!uc_tm_ok(&r)) {
		pr_err("bad %s checksum at init: got %08x want %08x\n",
		       uc_tm_name(r.bad), r.got[r.bad], uc_b_want[r.bad]);
		return -EINVAL;
	}

	uc_b_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(uc_b_dir))
		return PTR_ERR(uc_b_dir);
	debugfs_create_file("run", 0444, uc_b_dir, NULL, &uc_b_run_fops);

	pr_info("loaded, checksum %08x\n", r.sum);
	return 0;
}

static void __exit uc_b_exit(void)
{
	debugfs_remove_recursive(uc_b_dir);
}

module_init(uc_b_init);
module_exit(uc_b_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("unmapped_cache test module: 64 KiB of generated text");
