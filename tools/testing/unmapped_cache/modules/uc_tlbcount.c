// SPDX-License-Identifier: GPL-2.0
/*
 * uc_tlbcount: count kernel TLB flushes, for the unmapped_cache workloads.
 *
 * CONFIG_DEBUG_TLBFLUSH counts user-space flushes only: nothing counts the
 * flushes of kernel mappings that set_memory_*(), set_direct_map_*() plus
 * flush_tlb_kernel_range(), vunmap and text poking cause.  On x86 each of
 * those ends in on_each_cpu() of one of three functions:
 *
 *   do_flush_tlb_all        flush_tlb_all(), large flush_tlb_kernel_range()
 *   do_kernel_range_flush   flush_tlb_kernel_range() of a few pages
 *   __cpa_flush_tlb         cpa_flush() of a few pages
 *
 * on_each_cpu() runs its function once on every online CPU, the boot CPU
 * included, so the hits on CPU 0 count the flushes (one each, however many
 * CPUs it reached).  A kprobe on each function does the counting.
 *
 * /sys/kernel/debug/uc_tlbcount/flushes holds the total since load;
 * .../detail has one line per function.  Loading fails if a probe cannot
 * be placed, so a zero is never the result of a missing probe.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/smp.h>

static const char *const uc_tlb_fns[] = {
	"do_flush_tlb_all",
	"do_kernel_range_flush",
	"__cpa_flush_tlb",
};

#define UC_TLB_NR	ARRAY_SIZE(uc_tlb_fns)

static struct kprobe uc_tlb_kp[UC_TLB_NR];
static atomic_long_t uc_tlb_hits[UC_TLB_NR];
static struct dentry *uc_tlb_dir;

static int uc_tlb_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (!raw_smp_processor_id())
		atomic_long_inc(&uc_tlb_hits[p - uc_tlb_kp]);
	return 0;
}

static int uc_tlb_flushes_show(struct seq_file *seq, void *v)
{
	long sum = 0;
	int i;

	for (i = 0; i < UC_TLB_NR; i++)
		sum += atomic_long_read(&uc_tlb_hits[i]);
	seq_printf(seq, "%ld\n", sum);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(uc_tlb_flushes);

static int uc_tlb_detail_show(struct seq_file *seq, void *v)
{
	int i;

	for (i = 0; i < UC_TLB_NR; i++)
		seq_printf(seq, "%s %ld\n", uc_tlb_fns[i],
			   atomic_long_read(&uc_tlb_hits[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(uc_tlb_detail);

static void uc_tlb_unregister(int n)
{
	while (n--)
		unregister_kprobe(&uc_tlb_kp[n]);
}

static int __init uc_tlb_init(void)
{
	int i, err;

	for (i = 0; i < UC_TLB_NR; i++) {
		uc_tlb_kp[i].symbol_name = uc_tlb_fns[i];
		uc_tlb_kp[i].pre_handler = uc_tlb_pre;
		err = register_kprobe(&uc_tlb_kp[i]);
		if (err) {
			pr_err(KBUILD_MODNAME ": no kprobe on %s: %d\n",
			       uc_tlb_fns[i], err);
			uc_tlb_unregister(i);
			return err;
		}
	}
	uc_tlb_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("flushes", 0444, uc_tlb_dir, NULL,
			    &uc_tlb_flushes_fops);
	debugfs_create_file("detail", 0444, uc_tlb_dir, NULL,
			    &uc_tlb_detail_fops);
	return 0;
}

static void __exit uc_tlb_exit(void)
{
	debugfs_remove(uc_tlb_dir);
	uc_tlb_unregister(UC_TLB_NR);
}

module_init(uc_tlb_init);
module_exit(uc_tlb_exit);
MODULE_DESCRIPTION("Count kernel TLB flushes (unmapped_cache tests)");
MODULE_LICENSE("GPL");
