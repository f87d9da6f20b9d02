# SPDX-License-Identifier: GPL-2.0
# The RT kernel's job (PREEMPT_RT, lockdep, KCSAN; runs from the
# initramfs, its modules appended to it by qemu-run.sh; needs --kunit for
# the suites, which run at boot before it; make check boots it with a
# thread per vCPU, so that the vCPUs really run at the same time).  It
# first runs the positive control: a data race planted in the cache's own
# code (debugfs planted_race, mm/unmapped_cache/exercise.c) that KCSAN must
# report (the host requires the report), which shows that the cache's
# files are instrumented.  Then it runs the callers' workloads at a
# reduced size with the modules built for this kernel, so that the
# callers' free paths (secretmem, BPF, modules) race with the magazines.
# The host fails the run on any splat and on any KCSAN report in the
# cache's code (devtools/splats.py --kcsan).
. "$UC_DIR/jobs/lib.sh"

export UC_MODS=${UC_BIN%/bin}/modules-rt
export UC_BPF_PROGS=${UC_BPF_PROGS:-100} UC_MODULE_LOOPS=${UC_MODULE_LOOPS:-1}
export UC_SECRET_PAGES=${UC_SECRET_PAGES:-256} UC_FOOTPRINT=0
if ! echo 2000 > /sys/kernel/debug/unmapped_cache/planted_race; then
	ktap_print_header
	ktap_exit_fail_msg "cannot start the planted race (debugfs planted_race)"
fi
echo "UC-KCSAN-CONTROL planted=1 ms=2000"
# The callers' results are this job's.
exec sh "$UC_DIR/jobs/callers.sh"
