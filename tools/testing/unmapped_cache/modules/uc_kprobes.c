// SPDX-License-Identifier: GPL-2.0
/*
 * uc_kprobes: many kprobes and ftrace_ops on the module's own text, for the
 * unmapped_cache tests of kprobe instruction slots, optprobe detour buffers
 * and ftrace trampolines.  The test runs in init:
 *
 *  1. one kprobe on each of the first nr_kprobes of 1024 generated functions,
 *     placed past the __fentry__ call so that it uses an instruction slot
 *     rather than ftrace (offsets 1..32 are tried in turn);
 *  2. opt_wait_ms for the kprobe optimizer, then count the probes whose
 *     first byte is now a JMP32 to a detour buffer;
 *  3. call every function, check its result and that its kprobe fired
 *     exactly once during the call;
 *  4. one ftrace_ops on each of the last nr_ftrace_ops functions (one ops
 *     per function, so x86 gives each its own dynamic trampoline);
 *  5. call every function again and check the kprobes and the ftrace_ops;
 *  6. unregister everything, and wait until the optimizer has put the
 *     original instructions back.
 *
 * It ends with "UC-KPROBES kprobes=N optimized=N ftrace_ops=N hits_ok=0|1
 * reg_max_us=N" (the longest register_kprobe() call that succeeded, in
 * microseconds) and returns 0 only if everything was registered and every check passed.
 * Nothing stays registered after init, so unloading is trivial.
 *
 * With hold=1, a successful init skips step 6: the probes, the ftrace_ops
 * and their trampolines stay in place, for a test that hibernates or
 * inspects the kernel meanwhile, and each read of the debugfs file
 * uc_kprobes/check runs one more round of step 5 (round 3, 4, ...) and
 * returns one line:
 *
 *   ok|bad round=N kprobes=N optimized=N ftrace_ops=N trampolines=N
 *
 * with the probes whose first byte is a JMP32 now and the ftrace_ops that
 * have a trampoline of their own now.  Unloading then does step 6.  A
 * failed init cleans up as without hold.
 */
#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/init.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <asm/text-patching.h>

/* Every message but the summary line starts with the module name. */
#define UC_KP_PFX	KBUILD_MODNAME ": "

#define UC_KP_NR_FNS	1024
/* Kprobe offsets tried, from the function start. */
#define UC_KP_MAX_OFF	32

static unsigned int nr_kprobes = 1000;
module_param(nr_kprobes, uint, 0444);
MODULE_PARM_DESC(nr_kprobes, "kprobes to register, one per function, at most 1024 (default 1000)");

static unsigned int nr_ftrace_ops = 16;
module_param(nr_ftrace_ops, uint, 0444);
MODULE_PARM_DESC(nr_ftrace_ops, "ftrace_ops to register, one per function, at most 1024 (default 16)");

static unsigned int opt_wait_ms = 200;
module_param(opt_wait_ms, uint, 0444);
MODULE_PARM_DESC(opt_wait_ms, "milliseconds left to the kprobe optimizer before the probes are counted (default 200)");

static unsigned int restore_wait_ms = 10000;
module_param(restore_wait_ms, uint, 0444);
MODULE_PARM_DESC(restore_wait_ms, "longest wait for the optimizer to restore the text after unregistering (default 10000)");

static bool hold;
module_param(hold, bool, 0444);
MODULE_PARM_DESC(hold, "keep everything registered after init, checked on each read of debugfs uc_kprobes/check, until unload (default 0)");

/*
 * Function i returns uc_kp_calc(x, i): straight-line code, so that the first
 * instruction after __fentry__ runs exactly once per call, with constants of
 * its own, so that no two functions are identical.
 */
static __always_inline u32 uc_kp_calc(u32 x, u32 i)
{
	return (x ^ (i * 0x9e3779b1U + 0x7f4a7c15U)) * (i * 2 + 3);
}

/* uc_kp_fn_0x000() ... uc_kp_fn_0x3ff() */
#define UC_KP_FN(n)							\
static noinline __used u32 uc_kp_fn_##n(u32 x)				\
{									\
	return uc_kp_calc(x, n);					\
}

#define UC_IDX1024(d)	UC_KP_FN(0x##d)
#include "uc_idx1024.h"
#undef UC_IDX1024

#define UC_IDX1024(d)	uc_kp_fn_0x##d,
static u32 (* const uc_kp_fns[UC_KP_NR_FNS])(u32 x) = {
#include "uc_idx1024.h"
};

#undef UC_IDX1024

/* The kprobe on function i is uc_kps[i]. */
struct uc_kp {
	struct kprobe kp;
	atomic_t hits;
	unsigned int off;
	bool registered;
};

/* uc_fts[j] traces function UC_KP_NR_FNS - 1 - j. */
struct uc_ft {
	struct ftrace_ops ops;
	atomic_t hits;
	unsigned long ip;
	unsigned int fn;
	bool filtered;
	bool registered;
};

static struct uc_kp *uc_kps;
static struct kprobe **uc_kp_regd;
static unsigned int uc_nr_kp_regd;
static struct uc_ft *uc_fts;
static atomic_t uc_kp_total = ATOMIC_INIT(0);
static atomic_t uc_ft_total = ATOMIC_INIT(0);
/* The longest register_kprobe() that succeeded, in ns. */
static u64 uc_kp_reg_max_ns;

/*
 * Hold mode: whether init left everything registered, the debugfs
 * directory, and the last round run, under uc_kp_round_lock.
 */
static bool uc_kp_held;
static struct dentry *uc_kp_dir;
static unsigned int uc_kp_round;
static DEFINE_MUTEX(uc_kp_round_lock);

/*
 * Offset of the __fentry__ call, learnt from the first kprobe that turned
 * out ftrace-based.  All the functions here share one prologue, so the
 * others skip that offset instead of registering an ftrace-based kprobe and
 * unregistering it again (a synchronize_rcu() and an ftrace update each).
 * A kprobe that is ftrace-based anyway is still rejected.
 */
static unsigned int uc_fentry_off;

static int uc_kp_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct uc_kp *p = container_of(kp, struct uc_kp, kp);

	atomic_inc(&p->hits);
	atomic_inc(&uc_kp_total);
	return 0;
}

NOKPROBE_SYMBOL(uc_kp_pre);

static void notrace uc_ft_func(unsigned long ip, unsigned long parent_ip,
			       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct uc_ft *f = container_of(op, struct uc_ft, ops);

	WRITE_ONCE(f->ip, ip);
	atomic_inc(&f->hits);
	atomic_inc(&uc_ft_total);
}

/*
 * Register a kprobe that does not use ftrace on function @fn.  On failure,
 * p->off is the last offset tried.
 */
static int __init uc_kp_register_one(struct uc_kp *p, unsigned int fn)
{
	unsigned long start = (unsigned long)uc_kp_fns[fn];
	unsigned int off;
	int ret = -ENOENT;
	u64 t;

	for (off = 1; off <= UC_KP_MAX_OFF; off++) {
		if (off == uc_fentry_off)
			continue;
		p->off = off;
		memset(&p->kp, 0, sizeof(p->kp));
		p->kp.addr = (kprobe_opcode_t *)(start + off);
		p->kp.pre_handler = uc_kp_pre;
		t = ktime_get_ns();
		ret = register_kprobe(&p->kp);
		t = ktime_get_ns() - t;
		if (!ret)
			uc_kp_reg_max_ns = max(uc_kp_reg_max_ns, t);
		/* Not an instruction boundary, or not probeable. */
		if (ret == -EILSEQ || ret == -EINVAL)
			continue;
		if (ret)
			return ret;
		if (kprobe_ftrace(&p->kp)) {
			unregister_kprobe(&p->kp);
			uc_fentry_off = off;
			ret = -ENOENT;
			continue;
		}
		p->registered = true;
		return 0;
	}
	return ret;
}

static void __init uc_kp_register_all(void)
{
	unsigned int i, failed = 0;
	int ret;

	for (i = 0; i < nr_kprobes; i++) {
		ret = uc_kp_register_one(&uc_kps[i], i);
		if (ret) {
			if (!failed++)
				pr_err(UC_KP_PFX "no kprobe on uc_kp_fn_0x%03x: %d at +%u\n",
				       i, ret, uc_kps[i].off);
			continue;
		}
		uc_kp_regd[uc_nr_kp_regd++] = &uc_kps[i].kp;
	}
	if (failed)
		pr_err(UC_KP_PFX "%u of %u kprobes could not be registered\n",
		       failed, nr_kprobes);
}

/* Unregister all kprobes, returning how many there were. */
static unsigned int uc_kp_unregister_all(void)
{
	unsigned int n = uc_nr_kp_regd;

	/* One synchronize_rcu() for all of them. */
	if (n)
		unregister_kprobes(uc_kp_regd, n);
	uc_nr_kp_regd = 0;
	return n;
}

/*
 * An unregistered kprobe that was optimized keeps its jump until the
 * optimizer's next pass.  Wait (at most restore_wait_ms) until the first
 * byte of every probed instruction of the @n in uc_kp_regd is the original
 * again, so that the text is as built when init (or exit) returns, and
 * return how many are not.
 */
static unsigned int uc_kp_wait_restored(unsigned int n)
{
	unsigned long end = jiffies + msecs_to_jiffies(restore_wait_ms);
	unsigned int i, left;

	for (;;) {
		left = 0;
		for (i = 0; i < n; i++)
			if (READ_ONCE(*uc_kp_regd[i]->addr) !=
			    uc_kp_regd[i]->opcode)
				left++;
		if (!left || time_after(jiffies, end))
			return left;
		msleep(20);
	}
}

/*
 * An optimized kprobe has its first byte replaced by a JMP32 to its detour
 * buffer, a plain one by INT3.  The KPROBE_FLAG_OPTIMIZED flag is only set
 * on the aggregate kprobe that the kprobes core puts in front of an
 * optimizable probe, never on the kprobe registered here, so it is counted
 * only to be reported.
 */
static unsigned int uc_kp_count_optimized(unsigned int *flagged)
{
	unsigned int i, n = 0;

	*flagged = 0;
	for (i = 0; i < uc_nr_kp_regd; i++) {
		if (READ_ONCE(*uc_kp_regd[i]->addr) == JMP32_INSN_OPCODE)
			n++;
		if (uc_kp_regd[i]->flags & KPROBE_FLAG_OPTIMIZED)
			(*flagged)++;
	}
	return n;
}

static int __init uc_ft_register_all(unsigned int *nr, unsigned int *tramps)
{
	unsigned long start;
	struct uc_ft *f;
	unsigned int j;
	int ret;

	for (j = 0; j < nr_ftrace_ops; j++) {
		f = &uc_fts[j];
		f->fn = UC_KP_NR_FNS - 1 - j;
		f->ops.func = uc_ft_func;
		start = (unsigned long)uc_kp_fns[f->fn];
		ret = ftrace_set_filter_ip(&f->ops, start, 0, 0);
		if (ret) {
			pr_err(UC_KP_PFX "ftrace filter on uc_kp_fn_0x%03x: %d\n",
			       f->fn, ret);
			return ret;
		}
		f->filtered = true;
		ret = register_ftrace_function(&f->ops);
		if (ret) {
			pr_err(UC_KP_PFX "ftrace_ops on uc_kp_fn_0x%03x: %d\n",
			       f->fn, ret);
			return ret;
		}
		f->registered = true;
		(*nr)++;
		if (f->ops.trampoline)
			(*tramps)++;
	}
	return 0;
}

static void uc_ft_unregister_all(void)
{
	struct uc_ft *f;
	unsigned int j;
	int ret;

	for (j = 0; j < nr_ftrace_ops; j++) {
		f = &uc_fts[j];
		if (f->registered) {
			ret = unregister_ftrace_function(&f->ops);
			if (ret)
				pr_err(UC_KP_PFX "unregister ftrace_ops %u: %d\n",
				       j, ret);
			f->registered = false;
		}
		if (f->filtered) {
			ftrace_free_filter(&f->ops);
			f->filtered = false;
		}
	}
}

static struct uc_kp *uc_kp_of(unsigned int fn)
{
	if (fn < nr_kprobes && uc_kps[fn].registered)
		return &uc_kps[fn];
	return NULL;
}

static struct uc_ft *uc_ft_of(unsigned int fn)
{
	unsigned int j = UC_KP_NR_FNS - 1 - fn;

	if (j < nr_ftrace_ops && uc_fts[j].registered)
		return &uc_fts[j];
	return NULL;
}

/*
 * Call every function once, in round @round (1, then 2 with the ftrace_ops
 * registered, then 3, 4, ... in hold mode), and check its result, that its
 * kprobe fired during this call and no other probe did (its counter is now
 * @round), and likewise for its ftrace_ops (registered from round 2 on, so
 * its counter is now @round - 1), which must also have been given the
 * address of the function's __fentry__ call.
 */
static bool uc_kp_call_all(unsigned int round)
{
	unsigned int i, bad = 0;
	int kp_before, ft_before;
	unsigned long start;
	struct uc_kp *p;
	struct uc_ft *f;
	u32 x, got;
	bool ok;

	for (i = 0; i < UC_KP_NR_FNS; i++) {
		p = uc_kp_of(i);
		f = uc_ft_of(i);
		start = (unsigned long)uc_kp_fns[i];
		x = i * 0x10001U + round;
		kp_before = atomic_read(&uc_kp_total);
		ft_before = atomic_read(&uc_ft_total);

		got = uc_kp_fns[i](x);

		ok = got == uc_kp_calc(x, i);
		ok &= atomic_read(&uc_kp_total) - kp_before == (p ? 1 : 0);
		ok &= atomic_read(&uc_ft_total) - ft_before == (f ? 1 : 0);
		if (p)
			ok &= atomic_read(&p->hits) == round;
		if (f)
			ok &= atomic_read(&f->hits) == round - 1 &&
			      READ_ONCE(f->ip) >= start &&
			      READ_ONCE(f->ip) < start + UC_KP_MAX_OFF;
		if (!ok && !bad++)
			pr_err(UC_KP_PFX "round %u: uc_kp_fn_0x%03x returned %08x (want %08x), kprobe %s hits %d, ftrace_ops %s hits %d\n",
			       round, i, got, uc_kp_calc(x, i),
			       p ? "on" : "off", p ? atomic_read(&p->hits) : 0,
			       f ? "on" : "off", f ? atomic_read(&f->hits) : 0);
	}
	if (bad)
		pr_err(UC_KP_PFX "round %u: %u functions failed\n", round, bad);
	return !bad;
}

static void uc_kp_free(void)
{
	kfree(uc_fts);
	kfree(uc_kp_regd);
	kfree(uc_kps);
	uc_fts = NULL;
	uc_kp_regd = NULL;
	uc_kps = NULL;
}

/* Count the registered ftrace_ops, and in *@tramps those with a trampoline. */
static unsigned int uc_ft_count(unsigned int *tramps)
{
	unsigned int j, n = 0;

	*tramps = 0;
	for (j = 0; j < nr_ftrace_ops; j++) {
		if (!uc_fts[j].registered)
			continue;
		n++;
		if (uc_fts[j].ops.trampoline)
			(*tramps)++;
	}
	return n;
}

/* Hold mode: each read of uc_kprobes/check runs and reports one round. */
static int uc_kp_check_show(struct seq_file *m, void *unused)
{
	unsigned int round, nr_opt, nr_flagged, nr_ft, nr_tramp;
	bool ok;

	mutex_lock(&uc_kp_round_lock);
	round = ++uc_kp_round;
	ok = uc_kp_call_all(round);
	nr_opt = uc_kp_count_optimized(&nr_flagged);
	nr_ft = uc_ft_count(&nr_tramp);
	ok &= uc_nr_kp_regd == nr_kprobes && nr_ft == nr_ftrace_ops;
	mutex_unlock(&uc_kp_round_lock);

	seq_printf(m, "%s round=%u kprobes=%u optimized=%u ftrace_ops=%u trampolines=%u\n",
		   ok ? "ok" : "bad", round, uc_nr_kp_regd, nr_opt, nr_ft,
		   nr_tramp);
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(uc_kp_check);

/*
 * Hold mode, after the two rounds of init passed: keep everything and
 * create uc_kprobes/check.  Rounds may start as soon as the file exists.
 */
static int __init uc_kp_hold_start(void)
{
	struct dentry *d;

	uc_kp_round = 2;
	uc_kp_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(uc_kp_dir)) {
		pr_err(UC_KP_PFX "debugfs directory: %ld\n",
		       PTR_ERR(uc_kp_dir));
		return PTR_ERR(uc_kp_dir);
	}
	d = debugfs_create_file("check", 0444, uc_kp_dir, NULL,
				&uc_kp_check_fops);
	if (IS_ERR(d)) {
		pr_err(UC_KP_PFX "debugfs file check: %ld\n", PTR_ERR(d));
		debugfs_remove_recursive(uc_kp_dir);
		uc_kp_dir = NULL;
		return PTR_ERR(d);
	}
	uc_kp_held = true;
	pr_info(UC_KP_PFX "holding everything until unload; read debugfs %s/check for a round\n",
		KBUILD_MODNAME);
	return 0;
}

static int __init uc_kp_init(void)
{
	unsigned int nr_kp = 0, nr_opt = 0, nr_flagged = 0;
	unsigned int nr_ft = 0, nr_tramp = 0, nr_unreg, nr_left;
	bool hits_ok = false;
	int ret = 0;

	if (nr_kprobes > UC_KP_NR_FNS || nr_ftrace_ops > UC_KP_NR_FNS) {
		pr_err(UC_KP_PFX "nr_kprobes and nr_ftrace_ops are at most %u\n",
		       UC_KP_NR_FNS);
		return -EINVAL;
	}

	uc_kps = kcalloc(max(nr_kprobes, 1U), sizeof(*uc_kps), GFP_KERNEL);
	uc_kp_regd = kcalloc(max(nr_kprobes, 1U), sizeof(*uc_kp_regd),
			     GFP_KERNEL);
	uc_fts = kcalloc(max(nr_ftrace_ops, 1U), sizeof(*uc_fts), GFP_KERNEL);
	if (!uc_kps || !uc_kp_regd || !uc_fts) {
		ret = -ENOMEM;
		goto out_free;
	}

	uc_kp_register_all();
	nr_kp = uc_nr_kp_regd;
	if (nr_kp < nr_kprobes) {
		ret = -EIO;
		goto out_kprobes;
	}
	if (uc_fentry_off)
		pr_info(UC_KP_PFX "__fentry__ at offset %u, skipped\n",
			uc_fentry_off);

	msleep(opt_wait_ms);
	nr_opt = uc_kp_count_optimized(&nr_flagged);

	hits_ok = uc_kp_call_all(1);

	ret = uc_ft_register_all(&nr_ft, &nr_tramp);
	if (ret) {
		hits_ok = false;
		goto out_ftrace;
	}

	hits_ok &= uc_kp_call_all(2);

	if (hold && hits_ok) {
		ret = uc_kp_hold_start();
		if (!ret)
			goto out_report;
	}

out_ftrace:
	uc_ft_unregister_all();
out_kprobes:
	nr_unreg = uc_kp_unregister_all();
	nr_left = uc_kp_wait_restored(nr_unreg);
	if (nr_left)
		pr_warn(UC_KP_PFX "%u of %u probed instructions still not restored after %u ms\n",
			nr_left, nr_unreg, restore_wait_ms);
out_free:
	uc_kp_free();

out_report:
	pr_info(UC_KP_PFX "%u of %u kprobes optimized (%u with KPROBE_FLAG_OPTIMIZED on the probe itself), %u of %u ftrace_ops with a trampoline of their own\n",
		nr_opt, nr_kp, nr_flagged, nr_tramp, nr_ft);
	pr_info("UC-KPROBES kprobes=%u optimized=%u ftrace_ops=%u hits_ok=%d reg_max_us=%llu\n",
		nr_kp, nr_opt, nr_ft, hits_ok, div_u64(uc_kp_reg_max_ns, NSEC_PER_USEC));
	if (!ret && !hits_ok)
		ret = -EIO;
	return ret;
}

/*
 * Without hold mode, everything was unregistered and freed by init.  With
 * it, do here what init did not: no more rounds once the debugfs file is
 * gone, then unregister everything and wait for the text to be restored.
 */
static void __exit uc_kp_exit(void)
{
	unsigned int nr_unreg, nr_left;

	if (!uc_kp_held)
		return;
	debugfs_remove_recursive(uc_kp_dir);
	uc_kp_dir = NULL;
	uc_ft_unregister_all();
	nr_unreg = uc_kp_unregister_all();
	nr_left = uc_kp_wait_restored(nr_unreg);
	if (nr_left)
		pr_warn(UC_KP_PFX "%u of %u probed instructions still not restored after %u ms\n",
			nr_left, nr_unreg, restore_wait_ms);
	uc_kp_free();
	uc_kp_held = false;
}

module_init(uc_kp_init);
module_exit(uc_kp_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("unmapped_cache test module: kprobes, optprobes and ftrace_ops on module text");
