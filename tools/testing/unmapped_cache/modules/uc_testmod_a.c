// SPDX-License-Identifier: GPL-2.0
/*
 * uc_testmod_a: the smallest unmapped_cache test module.  A little text and
 * a 1 KiB table in each of .rodata, .data..ro_after_init and .data.
 *
 * Init checks that the alternative in uc_a_alt() was applied, fills the
 * ro_after_init table, computes the expected checksum of
 * every table from the generator (not from the tables), then checksums the
 * tables with the module's own text and fails with -EINVAL on a mismatch.
 * Reading /sys/kernel/debug/uc_testmod_a/run does the same again, writes
 * to the .data table and answers "ok <checksum>" or "bad <what> ...".
 * Reading /sys/kernel/debug/uc_testmod_a/text gives the first 64 bytes of
 * uc_a_run_show() as the module reads them through its own mapping, in
 * hexadecimal: the reference of the /proc/kcore check.  Reading
 * /sys/kernel/debug/uc_testmod_a/stack gives a stack trace taken in the
 * module's text, a symbol per line: the check of its ORC table.
 * /sys/kernel/debug/uc_testmod_a/peek takes an address (written in
 * hexadecimal) and, read, answers "ok <the 8 bytes there>" or "fault
 * <error>": the probe of a pointer kept into memory of a module that was
 * unloaded since.  The read itself cannot fault; on a KASAN kernel, when
 * it succeeds, its first byte then goes through KASAN's check, as a
 * plain load would, and the answer ends with " kasan=ok" or
 * " kasan=reported" (KASAN printed a report).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/init.h>
#include <linux/kasan-checks.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <asm/alternative.h>
#include <asm/cpufeatures.h>

#include "uc_testmod.h"

#define UC_A_N		256
#define UC_A_RO_SEED	0x5eed0a01
#define UC_A_ROAI_SEED	0x5eed0a02
#define UC_A_DATA_SEED	0x5eed0a03

#define UC_IDX(d)	UC_GEN(0x##d, UC_A_RO_SEED),
static const u32 uc_a_ro[UC_A_N] = {
#include "uc_idx256.h"
};

#undef UC_IDX

static u32 uc_a_roai[UC_A_N] __ro_after_init;

#define UC_IDX(d)	UC_GEN(0x##d, UC_A_DATA_SEED),
static u32 uc_a_data[UC_A_N] = {
#include "uc_idx256.h"
};

#undef UC_IDX

/* Checksums computed by init from the generator. */
static u32 uc_a_want[UC_NR_TBL] __ro_after_init;

/* Seeds of the three tables, for init only. */
static u32 uc_a_seeds[UC_NR_TBL] __initdata = {
	UC_A_RO_SEED, UC_A_ROAI_SEED, UC_A_DATA_SEED,
};

static DEFINE_MUTEX(uc_a_lock);
static struct dentry *uc_a_dir;

static noinline u32 uc_a_csum(const u32 *p, unsigned int n)
{
	u32 h = UC_CSUM_INIT;
	unsigned int i;

	for (i = 0; i < n; i++)
		h = uc_mix(h, READ_ONCE(p[i]));
	return h;
}

/* Write to every word of the .data table, read it back and restore it. */
static noinline bool uc_a_poke_data(void)
{
	bool ok = true;
	unsigned int i;
	u32 v;

	for (i = 0; i < UC_A_N; i++) {
		v = READ_ONCE(uc_a_data[i]);
		WRITE_ONCE(uc_a_data[i], ~v);
		if (READ_ONCE(uc_a_data[i]) != ~v)
			ok = false;
		WRITE_ONCE(uc_a_data[i], v);
	}
	return ok;
}

static void uc_a_verify(struct uc_tm_result *r, bool write)
{
	mutex_lock(&uc_a_lock);
	r->got[UC_TBL_RODATA] = uc_a_csum(uc_a_ro, UC_A_N);
	r->got[UC_TBL_RO_AFTER_INIT] = uc_a_csum(uc_a_roai, UC_A_N);
	r->got[UC_TBL_DATA] = uc_a_csum(uc_a_data, UC_A_N);
	uc_tm_compare(r, uc_a_want);
	r->bad_write = write && !uc_a_poke_data();
	mutex_unlock(&uc_a_lock);
}

static int uc_a_run_show(struct seq_file *m, void *unused)
{
	struct uc_tm_result r;

	uc_a_verify(&r, true);
	uc_tm_show(m, &r, uc_a_want);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(uc_a_run);

#define UC_A_TEXT_BYTES	64

static int uc_a_text_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "%*phN\n", UC_A_TEXT_BYTES, (const void *)uc_a_run_show);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(uc_a_text);

/* The address "peek" reads; written by user space, read under uc_a_lock. */
static unsigned long uc_a_peek_addr;

static int uc_a_peek_show(struct seq_file *m, void *unused)
{
	unsigned long addr;
	long err;
	u64 v;

	mutex_lock(&uc_a_lock);
	addr = uc_a_peek_addr;
	mutex_unlock(&uc_a_lock);
	err = copy_from_kernel_nofault(&v, (const void *)addr, sizeof(v));
	if (err) {
		seq_printf(m, "fault %ld\n", err);
		return 0;
	}
	seq_printf(m, "ok %016llx", v);
	if (IS_ENABLED(CONFIG_KASAN)) {
		/* One byte: the first global of a section may be shorter. */
		bool clean = kasan_check_read((const void *)addr, 1);

		seq_printf(m, " kasan=%s", clean ? "ok" : "reported");
	}
	seq_putc(m, '\n');
	return 0;
}

static int uc_a_peek_open(struct inode *inode, struct file *file)
{
	return single_open(file, uc_a_peek_show, NULL);
}

static ssize_t uc_a_peek_write(struct file *file, const char __user *buf,
			       size_t len, loff_t *ppos)
{
	unsigned long addr;
	int err;

	err = kstrtoul_from_user(buf, len, 16, &addr);
	if (err)
		return err;
	mutex_lock(&uc_a_lock);
	uc_a_peek_addr = addr;
	mutex_unlock(&uc_a_lock);
	return len;
}

static const struct file_operations uc_a_peek_fops = {
	.owner		= THIS_MODULE,
	.open		= uc_a_peek_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= uc_a_peek_write,
};

#define UC_A_STACK_DEPTH	16

/*
 * A stack trace taken here, in the module's text: with the module's ORC
 * table right, it unwinds through this function into the kernel's read
 * path (seq_read_iter(), vfs_read(), ...).
 */
static noinline int uc_a_stack_show(struct seq_file *m, void *unused)
{
	unsigned long entries[UC_A_STACK_DEPTH];
	unsigned int i, n;

	n = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	for (i = 0; i < n; i++)
		seq_printf(m, "%pS\n", (void *)entries[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(uc_a_stack);

/*
 * An alternative in the module's text: the loader replaces the NOPs with
 * LFENCE (X86_FEATURE_ALWAYS is always set) before the module runs, which
 * init checks in the function's bytes.  With text in the unmapped cache
 * the loader writes it through module_memory_poke().
 */
static noinline void uc_a_alt(void)
{
	alternative("", "lfence", X86_FEATURE_ALWAYS);
}

#define UC_A_ALT_SCAN	32

static bool __init uc_a_alt_patched(void)
{
	static const u8 lfence[] = { 0x0f, 0xae, 0xe8 };
	const u8 *p = (const u8 *)uc_a_alt;
	unsigned int i;

	for (i = 0; i + sizeof(lfence) <= UC_A_ALT_SCAN; i++) {
		if (!memcmp(p + i, lfence, sizeof(lfence)))
			return true;
	}
	return false;
}

/* Checksum of table @tbl as it should be, without reading the table. */
static u32 __init uc_a_ref(int tbl)
{
	u32 h = UC_CSUM_INIT;
	unsigned int i;

	for (i = 0; i < UC_A_N; i++)
		h = uc_mix(h, UC_GEN(i, uc_a_seeds[tbl]));
	return h;
}

static int __init uc_a_init(void)
{
	struct uc_tm_result r;
	unsigned int i;
	int tbl;

	for (i = 0; i < UC_A_N; i++)
		uc_a_roai[i] = UC_GEN(i, uc_a_seeds[UC_TBL_RO_AFTER_INIT]);
	for (tbl = 0; tbl < UC_NR_TBL; tbl++)
		uc_a_want[tbl] = uc_a_ref(tbl);

	uc_a_alt();
	if (!uc_a_alt_patched()) {
		pr_err("alternative not applied: %*ph\n", UC_A_ALT_SCAN,
		       (const void *)uc_a_alt);
		return -EINVAL;
	}

	uc_a_verify(&r, false);
	if (!uc_tm_ok(&r)) {
		pr_err("bad %s checksum at init: got %08x want %08x\n",
		       uc_tm_name(r.bad), r.got[r.bad], uc_a_want[r.bad]);
		return -EINVAL;
	}

	uc_a_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(uc_a_dir))
		return PTR_ERR(uc_a_dir);
	debugfs_create_file("run", 0444, uc_a_dir, NULL, &uc_a_run_fops);
	debugfs_create_file("text", 0444, uc_a_dir, NULL, &uc_a_text_fops);
	debugfs_create_file("stack", 0444, uc_a_dir, NULL, &uc_a_stack_fops);
	debugfs_create_file("peek", 0644, uc_a_dir, NULL, &uc_a_peek_fops);

	pr_info("loaded, checksum %08x\n", r.sum);
	return 0;
}

static void __exit uc_a_exit(void)
{
	debugfs_remove_recursive(uc_a_dir);
}

module_init(uc_a_init);
module_exit(uc_a_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("unmapped_cache test module: small text and tables");
