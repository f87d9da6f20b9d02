# SPDX-License-Identifier: GPL-2.0
# The debug kernel's job (KASAN, kmemleak, lockdep, DEBUG_VM, DEBUG_LIST,
# DEBUG_WX; runs from the initramfs, its modules appended to it by
# qemu-run.sh; needs --kunit for the suites, which run at boot before it).  It runs the callers' workloads at a reduced size
# with the modules built for this kernel (each workload is followed by the
# UC-VERIFY check of every block), then asks kmemleak for a scan and the
# kernel for a W^X check of its page tables; a KTAP result each, the
# callers' results nested in the first.  The host also fails the run on
# any splat in the console (devtools/splats.py).
. "$UC_DIR/jobs/lib.sh"

export UC_MODS=${UC_BIN%/bin}/modules-debug
# KASAN, kmemleak and lockdep make each step some ten times slower under
# TCG: 30 programs and 128 pages per process reach the same code paths as
# the full sizes do (every allocation and free path, a block refill).
export UC_BPF_PROGS=${UC_BPF_PROGS:-30} UC_MODULE_LOOPS=${UC_MODULE_LOOPS:-1}
export UC_SECRET_PAGES=${UC_SECRET_PAGES:-128} UC_FOOTPRINT=0

ktap_print_header
ktap_set_plan 3
uc_subtest callers sh "$UC_DIR/jobs/callers.sh"

# kmemleak reports objects that a scan finds unreferenced and that are
# 5 s old or more: wait 6 s after the last workload, then scan once (one
# scan of this guest's 5 GiB takes some 20 s under TCG).  Only leaks whose
# allocation trace passes through the cache are printed; the others are
# counted.
leaks=/sys/kernel/debug/kmemleak
if [ -w $leaks ]; then
	sleep 6
	echo scan > $leaks
	cat $leaks > /run/tmp/kmemleak
	all=$(grep -c 'unreferenced object' /run/tmp/kmemleak)
	awk '/^unreferenced object/ { if (rec ~ /unmapped_cache|uc_/) printf "%s", rec; rec = "" }
	     { rec = rec $0 "\n" }
	     END { if (rec ~ /unmapped_cache|uc_/) printf "%s", rec }' /run/tmp/kmemleak > /run/tmp/kmemleak.ours
	ours=$(grep -c 'unreferenced object' /run/tmp/kmemleak.ours)
	cat /run/tmp/kmemleak.ours
	[ "$ours" -eq 0 ]
	uc_ktap $((! $?)) "kmemleak: no leak reported of an object allocated through the cache ($ours of $all leaks)"
else
	ktap_test_fail "kmemleak: $leaks is not there"
fi

# The W^X check of the kernel page tables, after all the workloads.
wx=$(cat /sys/kernel/debug/check_wx_pages 2>&1)
[ "$wx" = SUCCESS ]
uc_ktap $((! $?)) "W^X check of the kernel page tables after the workloads: $wx"
ktap_finished
