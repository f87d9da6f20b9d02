# SPDX-License-Identifier: GPL-2.0
# The converted callers under real workloads (needs --hostroot for the test
# modules in $UC_BIN/../modules).  Each workload prints one UC-FIG line,
# in this order (BPF first: later workloads reuse pages whose direct-map
# entries earlier ones split, and stock BPF splits least):
#   bpf        2000 JIT-compiled programs of 4..8000 instructions, each
#              test-run once, half closed in random order and reloaded
#   secretmem  4 processes x 2048 memfd_secret pages, written and read
#              back, twice (16384 page faults)
#   modules    3 test modules loaded, called and unloaded 50 times each
#   plainmod   lib/test_module (no ro_after_init data) loaded and unloaded
#              50 times
#   modtext    one load of uc_testmod_b: the level of its text mappings
#   kprobes    1000 kprobes (uc.kprobes=; optimised where possible) and 16 ftrace ops
#              with trampolines, registered, hit and unregistered
#   stale      a pointer kept into an unloaded module's data and rodata faults
#              (its text, in a 2M mapping, reads back as INT3)
#   kcore      /proc/kcore read (direct map, text, module area) while a
#              test module and 256 secret pages are live; the secret
#              pattern must not appear, a control pattern in ordinary
#              memory must (kcore_scan)
#   selftests  the kernel's own checks of the converted users: the
#              memfd_secret selftest, lib/test_bpf (BPF interpreter and
#              JIT suite), lib/test_static_keys (jump labels patched in
#              module text) and lib/test_module, loaded and unloaded;
#              lib/test_kprobes (KUnit, run at boot when enabled), the
#              samples/livepatch module, and an ORC stack trace taken
#              in uc_testmod_a's text
# uc_verify (UC-VERIFY lines) runs after every workload, and also while
# each test module is loaded and during the kcore scan, so that it checks
# live module text in the execmem caches' mappings.
# Every figure line includes tlb=, the kernel TLB flushes that the
# uc_tlbcount module counts (loaded first).
# The job reports in KTAP (jobs/lib.sh): a result per workload (it ran
# and passed its own checks), per kernel self-test, and per check of the
# figures (splits, TLB flushes, 2M module text; with the cache off the
# positive controls: stock splits, flushes per page, 4K module text),
# then the checks made after all the workloads (uc_verify's counts, the
# drain's flushes, held against live after the shrinkers).
# Kernel parameter uc.workloads=a,b,... runs only those (default: all).
# Environment (for the debug kernel's smaller run): UC_MODS (test modules
# directory), UC_BPF_PROGS, UC_MODULE_LOOPS, UC_SECRET_PAGES (per process),
# UC_FOOTPRINT=0 (no footprint lines, no shrink after each workload and
# no check of the figures).  The kernel parameters uc.bpf_progs=,
# uc.secret_pages= and uc.footprint= set the same for a boot of the main
# kernel (make check's boot on multi-threaded TCG).
# Kernel parameter uc.scatter=1 first scatters free memory: a process
# touches a large anonymous area and frees every other page, and stays.
# Boot with unmapped_cache=off for the stock figures.
. "$UC_DIR/jobs/lib.sh"

mods=${UC_MODS:-${UC_BIN%/bin}/modules}
# Load+unload cycles of each uc_testmod module (uc.module_loops=, which
# make check lowers) and of lib/test_module (uc.plain_loops=).
loops=${UC_MODULE_LOOPS:-$(uc_arg uc.module_loops 50)}
plain_loops=${UC_PLAIN_LOOPS:-$(uc_arg uc.plain_loops 50)}
# kprobes registered by the kprobes workload (uc.kprobes=, at most 1024).
nr_kprobes=$(uc_arg uc.kprobes 1000)
secret_pages=${UC_SECRET_PAGES:-$(uc_arg uc.secret_pages 2048)}
UC_BPF_PROGS=${UC_BPF_PROGS:-$(uc_arg uc.bpf_progs 2000)}
UC_FOOTPRINT=${UC_FOOTPRINT:-$(uc_arg uc.footprint 1)}
echo "UC-CALLERS cache=$(grep -q 'unmapped_cache=off' /proc/cmdline && echo off || echo on)" \
     "scatter=$(grep -q 'uc.scatter=1' /proc/cmdline && echo 1 || echo 0)"

insmod "$mods/uc_tlbcount.ko" || { echo "cannot load uc_tlbcount"; exit 1; }

if grep -q 'uc.scatter=1' /proc/cmdline; then
	# Proactive compaction (kcompactd, every half second while the
	# fragmentation score is high) would gather the scattering process's
	# pages during the workloads and undo the scattering at a time that
	# varies from boot to boot: off in these boots, cache off and on alike.
	echo 0 > /proc/sys/vm/compaction_proactiveness ||
		{ echo "cannot turn proactive compaction off"; exit 1; }
	"$UC_BIN/hog" --scatter 90 /run/tmp/scatter.ready &
	scatter=$!
	# Wait until it has touched and punched its area.
	i=0
	while [ ! -e /run/tmp/scatter.ready ] && [ $i -lt 600 ]; do sleep 1; i=$((i + 1)); done
	[ -e /run/tmp/scatter.ready ] || { echo "scatter did not finish"; exit 1; }
	echo "scattered: $(meminfo MemFree) kB free"
fi

secretmem() {
	for round in 1 2; do
		pids=
		for p in 1 2 3 4; do
			"$UC_BIN/secretmem_fault" "$secret_pages" & pids="$pids $!"
		done
		for p in $pids; do wait "$p" || return 1; done
	done
}

modules() {
	for m in a b c; do
		i=0
		while [ $i -lt "$loops" ]; do
			insmod "$mods/uc_testmod_$m.ko" || return 1
			out=$(cat "/sys/kernel/debug/uc_testmod_$m/run")
			case "$out" in ok*) ;; *) echo "uc_testmod_$m: $out"; return 1 ;; esac
			# Once per module, with its text live in an execmem mapping.
			if [ $i -eq 0 ] && ! uc_verify "modules-loaded-$m"; then
				rmmod "uc_testmod_$m"
				return 1
			fi
			[ $i -eq 0 ] && echo "UC-MODTEXT uc_testmod_$m $(text_share "uc_testmod_$m")" |
				tee -a /run/tmp/modtext.all
			rmmod "uc_testmod_$m" || return 1
			i=$((i + 1))
		done
		echo "uc_testmod_$m: $loops loads, last: $out"
	done
}

# lib/test_module loaded and unloaded $plain_loops times: a module
# without ro_after_init data, whose load seals nothing.
plainmod() {
	i=0
	while [ $i -lt "$plain_loops" ]; do
		insmod "$mods/test_module.ko" && rmmod test_module || return 1
		i=$((i + 1))
	done
	echo "test_module: $plain_loops loads"
}

# One load of uc_testmod_b and the level of the mappings of its text: the
# positive control of the modules workload's UC-MODTEXT lines (with the
# cache off, module text is mapped by 4K entries).
modtext() {
	insmod "$mods/uc_testmod_b.ko" || return 1
	text_share uc_testmod_b > /run/tmp/modtext
	echo "UC-MODTEXT-ONE uc_testmod_b $(cat /run/tmp/modtext)"
	rmmod uc_testmod_b
}

# The module registers the probes and ops, hits each and checks its
# handler ran (hits_ok=1), then unregisters them.
kprobes() {
	insmod "$mods/uc_kprobes.ko" nr_kprobes="$nr_kprobes" || return 1
	line=$(dmesg | tr -d '\r' | grep -ao 'UC-KPROBES.*' | tail -1)
	echo "$line"
	rmmod uc_kprobes || return 1
	case "$line" in
	"UC-KPROBES kprobes=$nr_kprobes "*" hits_ok=1 "*) ;;
	*) return 1 ;;
	esac
}

# /proc/kcore read while a cache-backed module and secret pages are live:
# it must not fault or hang, must not show the secret pages' contents, and
# must show the control pattern kcore_scan puts in ordinary memory.
kcore() {
	insmod "$mods/uc_testmod_c.ko" || return 1
	# With the cache off, secret pages from freed kernel-image memory
	# stay readable through the kernel's high mapping (stock behaviour,
	# counted as found_image); the cache's blocks lose that alias too.
	if grep -q 'unmapped_cache=off' /proc/cmdline; then
		"$UC_BIN/kcore_scan" 256 --image-ok > /run/tmp/kcore.out 2>&1
	else
		"$UC_BIN/kcore_scan" 256 > /run/tmp/kcore.out 2>&1
	fi
	r=$?
	cat /run/tmp/kcore.out
	uc_verify kcore-loaded || r=1
	rmmod uc_testmod_c
	return $r
}

# A pointer kept into an unloaded module's memory.  uc_testmod_a reads
# (copy_from_kernel_nofault()) the .data and .text of uc_testmod_c while
# it is loaded, the control that the probe reads mapped memory, and again
# once it is unloaded and lazily freed mappings are flushed (a module
# load purges vmalloc's, with the cache off; a drain flushes the cache's
# deferred unmaps): the data must fault, as on a stock kernel.  Text is
# reported: with the cache on it stays mapped, filled with INT3.
stale() {
	insmod "$mods/uc_testmod_a.ko" || return 1
	if ! insmod "$mods/uc_testmod_c.ko"; then
		rmmod uc_testmod_a
		return 1
	fi
	peek=/sys/kernel/debug/uc_testmod_a/peek
	data=$(cat /sys/module/uc_testmod_c/sections/.data)
	rodata=$(cat /sys/module/uc_testmod_c/sections/.rodata)
	text=$(cat /sys/module/uc_testmod_c/sections/.text)
	echo "$data" > $peek; d0=$(cat $peek)
	echo "$rodata" > $peek; r0=$(cat $peek)
	echo "$text" > $peek; t0=$(cat $peek)
	rmmod uc_testmod_c
	insmod "$mods/uc_testmod_b.ko" && rmmod uc_testmod_b
	[ -w /sys/kernel/debug/unmapped_cache/drain ] &&
		echo 1 > /sys/kernel/debug/unmapped_cache/drain
	echo "$data" > $peek; d1=$(cat $peek)
	echo "$rodata" > $peek; r1=$(cat $peek)
	echo "$text" > $peek; t1=$(cat $peek)
	rmmod uc_testmod_a
	echo "data_before='$d0' data_after='$d1' rodata_before='$r0' rodata_after='$r1' text_before='$t0' text_after='$t1'" > /run/tmp/stale
	echo "UC-STALE $(cat /run/tmp/stale)"
	case "$d0$r0" in ok*ok*) ;; *) return 1 ;; esac
	case "$d1$r1" in fault*fault*) ;; *) return 1 ;; esac
	# Freed text stays mapped in its block, filled with INT3: a KASAN
	# kernel (KASAN_VMALLOC) must report the stale read, and not the
	# same read while the module was loaded.
	case "$t0" in *kasan=*)
		case "$d0 $r0 $t0" in *kasan=ok\ *kasan=ok\ *kasan=ok) ;; *) return 1 ;; esac
		case "$t1" in fault*|*kasan=reported) ;; *) return 1 ;; esac
	esac
}

# The kernel's own tests of the converted users, each a result of its
# own (st_NAME; the selftests workload runs them all).
st_memfd_secret() {
	"$UC_BIN/memfd_secret" > /run/tmp/memfd_secret.out 2>&1
	r=$?
	# Prefixed: its TAP lines would otherwise read as this job's.
	sed 's/^/memfd_secret: /' /run/tmp/memfd_secret.out
	grep -q '^# Totals: pass:[1-9][0-9]* fail:0 .*skip:0 error:0' /run/tmp/memfd_secret.out || r=1
	st_detail=$(grep -a '^# Totals:' /run/tmp/memfd_secret.out | tail -1 | cut -c3-)
	return $r
}

st_test_bpf() {
	# test_bpf logs a line per test at KERN_INFO: keep them off the
	# (slow) console, but not a warning (console level 5 prints
	# KERN_WARNING and above, so the splat scan still sees them).
	printk=$(cut -f1 /proc/sys/kernel/printk)
	echo 5 > /proc/sys/kernel/printk
	insmod "$mods/test_bpf.ko"
	r=$?
	echo "$printk" > /proc/sys/kernel/printk
	st_detail=$(dmesg | tr -d '\r' | grep -ao 'test_bpf: Summary:.*' | head -1)
	echo "$st_detail"
	[ $r -eq 0 ] && rmmod test_bpf
	return $r
}

# Jump labels patched in module text, three loads of each module.
st_static_keys() {
	i=0
	while [ $i -lt 3 ]; do
		insmod "$mods/test_static_key_base.ko" &&
			insmod "$mods/test_static_keys.ko" &&
			rmmod test_static_keys && rmmod test_static_key_base &&
			insmod "$mods/test_module.ko" && rmmod test_module || return 1
		i=$((i + 1))
	done
	st_detail="3 loads"
}

# lib/test_kprobes (KUnit, built in): kprobes, kretprobes and stack traces
# from their handlers, run at boot (make check boots the cache-on callers
# job with kunit.filter_glob=kprobes_test; a result only in that boot).
st_kprobes_test() {
	res=$(dmesg | tr -d '\r' | grep -ao '\(not \)\?ok [0-9]* kprobes_test$' | tail -1)
	st_detail=$(dmesg | tr -d '\r' | grep -ao '# kprobes_test: pass:.*' | tail -1 | cut -c3-)
	case "$res" in "ok "*) ;; *) return 1 ;; esac
}

# samples/livepatch: cmdline_proc_show() replaced by the sample's
# function, in module text, then the patch disabled and removed.
st_livepatch() {
	lp=/sys/kernel/livepatch/livepatch_sample
	insmod "$mods/livepatch-sample.ko"
	r=$?
	patched=$(grep -c 'this has been live patched' /proc/cmdline)
	echo 0 > $lp/enabled || r=1
	i=0
	while [ -e $lp ] && [ $i -lt 100 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	[ -e $lp ] && r=1
	rmmod livepatch-sample || r=1
	restored=$((1 - $(grep -c 'this has been live patched' /proc/cmdline)))
	st_detail="patched=$patched restored=$restored"
	[ "$patched" = 1 ] && [ "$restored" = 1 ] || r=1
	return $r
}

# ORC: a stack trace taken in uc_testmod_a's text unwinds through the
# module (its ORC table, sorted while loading) into the kernel.
st_orc_module_stack() {
	insmod "$mods/uc_testmod_a.ko" || return 1
	cat /sys/kernel/debug/uc_testmod_a/stack > /run/tmp/stack.out
	rmmod uc_testmod_a
	sed 's/^/stack: /' /run/tmp/stack.out
	st_detail="frames=$(wc -l < /run/tmp/stack.out)"
	grep -q '^uc_a_stack_show+.*\[uc_testmod_a\]' /run/tmp/stack.out &&
		grep -q '^vfs_read+' /run/tmp/stack.out
}

selftest_names="memfd_secret test_bpf static_keys livepatch orc_module_stack"
grep -q 'kunit.filter_glob=kprobes_test' /proc/cmdline &&
	selftest_names="$selftest_names kprobes_test"
selftests() {
	r=0
	for t in $selftest_names; do
		st_detail=
		"st_$t"
		ok=$(($? == 0))
		[ $ok = 1 ] || r=1
		# No glob characters in a result (ktap_helpers.sh echoes it).
		uc_ktap $ok "kernel test $t passes ($(echo "$st_detail" | tr -d '[]*?'))"
	done
	return $r
}

# What this boot runs and checks.  The cache is on if its debugfs
# directory is there (unmapped_cache=off and debug_pagealloc=on leave it
# out).  UC_FOOTPRINT=0 (the debug, RT and distribution kernels' short
# runs): no footprint lines, no shrink between the workloads, and no
# check of the figures, whose bounds are set for make check's sizes;
# uc.figcheck=0 (make run, which measures) keeps the lines but checks
# no figure.
only=$(sed -n 's/.*uc\.workloads=\([^ ]*\).*/\1/p' /proc/cmdline)
on=0
[ -d /sys/kernel/debug/unmapped_cache ] && on=1
figs=0
[ "${UC_FOOTPRINT:-1}" != 0 ] && figs=$(uc_arg uc.figcheck 1)
locked=$(grep -o '\[[a-z]*\]' /sys/kernel/security/lockdown 2>/dev/null)
drain=0
[ $on = 1 ] && [ -w /sys/kernel/debug/unmapped_cache/drain ] &&
	[ "${locked:-[none]}" = "[none]" ] && drain=1
wants() {
	case ",${only:-$1}," in *",$1,"*) return 0 ;; esac
	return 1
}

# checks NAME: how many results the workload NAME gives in this boot (see
# its checks below); the plan is their sum, plus the checks made after
# all the workloads.
checks() {
	case "$1$on$figs" in
	modules11) echo 4 ;;
	bpf11|secretmem11) echo 3 ;;
	bpf01|modtext01|kprobes11|plainmod11) echo 2 ;;
	secretmem01) echo 3 ;;
	selftests*) echo "$selftest_names" | wc -w ;;
	*) echo 1 ;;
	esac
}
plan=0
for w in bpf secretmem modules plainmod modtext kprobes kcore stale selftests; do
	wants $w && plan=$((plan + $(checks $w)))
done
# verify and bad calls after the workloads, the drain, held after the
# shrinkers.
[ $on = 1 ] && plan=$((plan + 2))
[ $drain$figs = 11 ] && plan=$((plan + 1))
[ $on$figs = 11 ] && plan=$((plan + 1))
# The fragmentation control (make run's scattered boots, below).
grep -q 'uc.frag=1' /proc/cmdline && grep -q 'uc.scatter=1' /proc/cmdline &&
	[ "$(uc_arg uc.fragctl 1)" != 0 ] && plan=$((plan + 1))
nrun=0

ktap_print_header
ktap_set_plan $plan

# delta NAME KEY: the change of KEY during workload NAME (its UC-FIG line).
delta() {
	v=$(uc_field "$(cat /run/tmp/fig.$1 2>/dev/null)" "$2")
	[ -n "$v" ] || { echo none; return; }
	echo $(( ${v#*:} - ${v%:*} ))
}
# bound NAME KEY OP N: the change of KEY in NAME compared with N (OP is
# -le, -ge...); the result's figure is in $got.
bound() {
	got=$(delta "$1" "$2")
	[ "$got" != none ] && [ "$got" "$3" "$4" ]
}
# unsplit NAME: no level-2 split and no new 4K direct-map entry in NAME
# (the figures in $l2 and $dm).
unsplit() {
	l2=$(delta "$1" l2) dm=$(delta "$1" dm4k)
	[ "$l2" = 0 ] && [ "$dm" = 0 ]
}

# run NAME CMD...: uc_measure it (which keeps its UC-FIG line for delta), the
# result of the workload, then the cache's footprint after it, and again
# once reclaim's shrinkers ran (drop_caches, in both modes, so that the
# next workload starts alike).
run() {
	wants "$1" || { echo "skipped: $1"; return 0; }
	nrun=$((nrun + 1))
	uc_measure "$@"
	r=$?
	[ "$1" = selftests ] || uc_ktap $((r == 0)) "$1: $(describe "$1")"
	if [ "${UC_FOOTPRINT:-1}" != 0 ]; then
		uc_footprint "$1"
		echo 2 > /proc/sys/vm/drop_caches
		uc_footprint "$1+shrunk"
	fi
	return $r
}

# describe NAME: what the workload did and checked, with its figures.
describe() {
	case "$1" in
	bpf) echo "${UC_BPF_PROGS:-2000} programs loaded, test-run, half freed and reloaded" ;;
	secretmem) echo "$((8 * secret_pages)) memfd_secret pages faulted, written and read back" ;;
	modules) echo "3 test modules loaded, called and unloaded $loops times each, blocks verified while loaded" ;;
	plainmod) echo "lib/test_module loaded and unloaded $plain_loops times" ;;
	modtext) echo "uc_testmod_b loaded, its text mappings read ($(cat /run/tmp/modtext 2>/dev/null))" ;;
	kprobes) echo "$nr_kprobes kprobes and 16 ftrace ops registered, hit and unregistered" ;;
	kcore) echo "/proc/kcore read with secret pages and a test module live: secret pattern not found$([ $on = 1 ] && echo ', not even through the kernel image mapping'), control pattern found ($(grep -ao 'UC-KCORE.*' /run/tmp/kcore.out | cut -c10-))" ;;
	stale) echo "pointers kept into an unloaded module's data and rodata fault, the same reads worked while it was loaded$(grep -q 'kasan=' /run/tmp/stale 2>/dev/null && echo ', the stale text read is reported by KASAN and no read before the unload is') ($(cat /run/tmp/stale 2>/dev/null))" ;;
	esac
}

uc_sampler
run bpf "$UC_BIN/bpf_load" -n "${UC_BPF_PROGS:-2000}" -s "$(uc_seed)"
# Allocations from the ROX arena so far: only BPF packs and trampolines
# use it (module text and kprobe pages come through execmem).
rox=$(awk '/^arena / { a = $2 } a == "rox" && /allocations:/ { s += $2 } END { print s + 0 }' \
	/sys/kernel/debug/unmapped_cache/arenas 2>/dev/null)
if wants bpf && [ $on$figs = 11 ]; then
	unsplit bpf
	uc_ktap $((! $?)) "bpf: 0 level-2 splits (+$l2), DirectMap4k +$dm kB"
	[ "$rox" -gt 0 ]
	uc_ktap $((! $?)) "bpf: programs come from the ROX arena (allocations=$rox)"
elif wants bpf && [ $on$figs = 01 ]; then
	# The issue's bar: stock BPF must split, or the workload does not
	# show the problem.
	bound bpf l2 -gt 0
	uc_ktap $((! $?)) "bpf with the cache off splits the direct map (l2 +$got): the workload shows the problem"
fi

run secretmem secretmem
spages=$((8 * secret_pages))
if wants secretmem && [ $on$figs = 11 ]; then
	unsplit secretmem
	uc_ktap $((! $?)) "secretmem: 0 level-2 splits (+$l2), DirectMap4k +$dm kB"
	bound secretmem tlb -le $((spages / 512))
	uc_ktap $((! $?)) "secretmem: at most one kernel TLB flush per 2 MiB faulted ($got for $spages pages, at most $((spages / 512)))"
elif wants secretmem && [ $on$figs = 01 ]; then
	bound secretmem l2 -gt 0
	uc_ktap $((! $?)) "secretmem with the cache off splits the direct map (l2 +$got): the workload shows the problem"
	bound secretmem tlb -ge $spages
	uc_ktap $((! $?)) "stock secretmem flushes the kernel TLB once per page ($got for $spages pages)"
fi

run modules modules
if wants modules && [ $on$figs = 11 ]; then
	unsplit modules
	uc_ktap $((! $?)) "modules: 0 level-2 splits (+$l2), DirectMap4k +$dm kB"
	# Module memory in execmem's caches: the load+unload cycles cost
	# the seal of their ro_after_init data (one flush each) and little
	# else; stock costs about 12 per cycle (make run).
	cycles=$((3 * loops))
	bound modules tlb -le $((cycles * 12 / 10))
	uc_ktap $((! $?)) "modules: $cycles load and unload cycles cost at most 1.2 kernel TLB flushes each ($got, at most $((cycles * 12 / 10)))"
	# Their text is mapped by 2M entries: pages holding a function of
	# each module (kallsyms) against the module area's page tables.
	mt=$(grep -a '^UC-MODTEXT uc_testmod_' /run/tmp/modtext.all |
		awk '{ split($3, a, "="); split($4, b, "="); t += a[2]; m += b[2]; n++ }
		     END { printf "%d %d %d %d", n, m, t, t ? 100 * m / t : 0 }')
	set -- $mt
	[ "$1" = 3 ] && [ "$3" -gt 0 ] && [ "$4" -ge 90 ]
	uc_ktap $((! $?)) "modules: text of the 3 loaded test modules mapped by 2M entries, $2 of $3 pages ($4 percent, at least 90)"
fi

run plainmod plainmod
if wants plainmod && [ $on$figs = 11 ]; then
	# A module without ro_after_init data seals nothing: at most 0.1
	# flush a cycle (block refills, the reaper, execmem's unmaps flushed
	# 32 at a time), plus one for a batch of unmaps begun before the
	# first cycle (BPF's scratch buffers are execmem mappings too).
	bound plainmod tlb -le $((plain_loops / 10 + 1))
	uc_ktap $((! $?)) "plainmod: $plain_loops cycles of a module without ro_after_init cost at most 0.1 kernel TLB flush each and one for a batch begun before ($got, at most $((plain_loops / 10 + 1)))"
fi

run modtext modtext
if wants modtext && [ $on$figs = 01 ]; then
	# The positive control of the 2M share above: the same probe sees
	# stock module text in 4K mappings only.
	grep -q '^text_pages=[1-9][0-9]* text_pages_2m=0$' /run/tmp/modtext
	uc_ktap $((! $?)) "modtext: with the cache off the probe sees module text in 4K mappings only ($(cat /run/tmp/modtext))"
fi

run kprobes kprobes
if wants kprobes && [ $on$figs = 11 ]; then
	unsplit kprobes
	uc_ktap $((! $?)) "kprobes: 0 level-2 splits (+$l2), DirectMap4k +$dm kB"
fi
run kcore kcore
run stale stale
run selftests selftests

# Fragmentation after the workloads (uc.frag=1, which make run gives; it
# boots with page_owner=on): the pageblocks /proc/pagetypeinfo counts as
# mixed (an allocated page of another migratetype than its pageblock's,
# known from page_owner), and how much of a MADV_HUGEPAGE mapping of
# 20 % of MemTotal (the same size with the cache off and on, fresh or
# scattered) comes as huge pages.  Prints
#   UC-FRAG-PROBE pageblocks=N mixed=N thp_asked_mib=N thp_mib=N
#                 thp_fallback=+N compact_stall=+N
#                 whole_free_mib=N unmovable_pb=N compact_fail=+N
#                 compact_success=+N
# where whole_free_mib is the free memory in order-9 and order-10 blocks
# and unmovable_pb the pageblocks of the unmovable type, both just before
# the probe, and the compaction counters move during it: what a THP
# shortfall comes from (no whole blocks left, compaction failing).  Before
# it, the compaction that ran since boot:
#   UC-FRAG-COMPACTION KEY=N ...   (/proc/vmstat compact_* and kswapd's
#                                   high-order wakeups)
#
# The positive control of the mixed count, in the scattered boots: with
# the scattering process still holding its pages, a process holds secret
# pages (unmovable: with the cache off, single pages of the page
# allocator).  An unmovable allocation that falls back takes whole free
# pageblocks first (the largest free order), which mixes nothing, so the
# control asks for all the free pages in order-9 and order-10 blocks
# (/proc/buddyinfo, after the probe has given its huge pages back) plus
# half of the other free pages: the rest must come from pageblocks of
# movable pages that the scattering left half free, and the same count,
# read while they are held, must see mixed pageblocks.  Prints
#   UC-FRAG-CONTROL secret_pages=N whole_block_pages=N mixed_held=N
# (not with uc.fragctl=0: make run's extra boots of scattered memory,
# which only add to the probe's medians).
pagetype_counts() {
	awk '/^Number of blocks type/ { sec = "blocks"; seen[sec] = 1; next }
		/^Number of mixed blocks/ { sec = "mixed"; seen[sec] = 1; next }
		/^Node/ && sec != "" { for (i = 5; i <= NF; i++) n[sec] += $i; next }
		{ sec = "" }
		END { printf "pageblocks=%s mixed=%s", seen["blocks"] ? n["blocks"] + 0 : "none",
		      seen["mixed"] ? n["mixed"] + 0 : "none" }' /proc/pagetypeinfo
}
# Pageblocks of the unmovable type, all zones.
unmovable_pageblocks() {
	awk '/^Number of blocks type/ { sec = 1; next }
		/^Node/ && sec { n += $5; next }
		{ sec = 0 }
		END { print n + 0 }' /proc/pagetypeinfo
}
# Free MiB in order-9 and order-10 blocks, all zones.
whole_free_mib() {
	echo $(( $(uc_free_2m) * 2 ))
}
if grep -q 'uc.frag=1' /proc/cmdline; then
	echo "UC-FRAG-COMPACTION $(awk '/^compact_|^kswapd_high_wmark_hit_quickly|^pgscan_kswapd |^pgscan_direct / \
		{ printf "%s%s=%s", sep, $1, $2; sep = " " }' /proc/vmstat)"
	pb=$(pagetype_counts)
	wf=$(whole_free_mib) upb=$(unmovable_pageblocks)
	fb0=$(vmstat thp_fault_fallback) cs0=$(vmstat compact_stall)
	cf0=$(vmstat compact_fail) cok0=$(vmstat compact_success)
	thp=$("$UC_BIN/hog" --thp 20 | sed -n 's/^hog: thp //p')
	echo "UC-FRAG-PROBE $pb thp_${thp% *} thp_mib=${thp#*huge_mib=}" \
	     "thp_fallback=+$(( $(vmstat thp_fault_fallback) - fb0 ))" \
	     "compact_stall=+$(( $(vmstat compact_stall) - cs0 ))" \
	     "whole_free_mib=$wf unmovable_pb=$upb" \
	     "compact_fail=+$(( $(vmstat compact_fail) - cf0 ))" \
	     "compact_success=+$(( $(vmstat compact_success) - cok0 ))"
	if [ -n "$scatter" ] && [ "$(uc_arg uc.fragctl 1)" != 0 ]; then
		# Free pages in order-9 and order-10 blocks, all zones.
		whole=$(( $(uc_free_2m) * 512 ))
		free=$(( $(meminfo MemFree) / 4 ))
		n=$(( whole + (free - whole) / 2 ))
		rm -f /run/tmp/fragctl.held
		"$UC_BIN/secretmem_fault" --hold /run/tmp/fragctl.held $n > /run/tmp/fragctl.out 2>&1 &
		h=$!
		i=0
		while [ ! -e /run/tmp/fragctl.held ] && [ $i -lt 600 ] && kill -0 $h 2>/dev/null; do
			sleep 0.1
			i=$((i + 1))
		done
		m=none
		if [ -e /run/tmp/fragctl.held ]; then
			m=$(pagetype_counts)
			m=${m#*mixed=}
		fi
		kill -TERM $h 2>/dev/null
		wait $h
		r=$?
		[ $r = 0 ] || echo "fragmentation control: $(cat /run/tmp/fragctl.out)"
		echo "UC-FRAG-CONTROL secret_pages=$n whole_block_pages=$whole mixed_held=$m"
		uc_ktap $((r == 0)) "fragmentation control: $n secret pages held while the pageblocks were counted (mixed_held=$m)"
	fi
fi
# A drain gives back every block that holds no live chunk: count the
# kernel TLB flushes it causes per block released.  Taking a block out of
# the module area flushes once; putting it back into the direct map needs
# no flush (nothing caches a not-present entry), so there are at most as
# many flushes as blocks.  Not under lockdown (the distro job's locked
# boot), which refuses writes to debugfs.  A result only with the
# figures (make check's main kernel); the short runs drain too.
if [ $drain = 1 ]; then
	# Something to give back whatever the shrinkers left: BPF programs
	# loaded and closed (ROX blocks of the module area) and secret pages
	# freed (NONE blocks).
	"$UC_BIN/bpf_load" -n $((${UC_BPF_PROGS:-2000} / 10)) -s "$(uc_seed)" > /dev/null
	"$UC_BIN/secretmem_fault" $((secret_pages / 2)) > /dev/null
	f0=$(cat /sys/kernel/debug/uc_tlbcount/flushes) r0=$(uc_stat 'blocks released')
	echo 1 > /sys/kernel/debug/unmapped_cache/drain
	f1=$(cat /sys/kernel/debug/uc_tlbcount/flushes) r1=$(uc_stat 'blocks released')
	rel=$((r1 - r0)) fl=$((f1 - f0))
	echo "UC-DRAIN-TLB released=$rel flushes=$fl"
	# Nothing but live chunks is held now: held must be what they need.
	uc_footprint drained
	if [ "$figs" != 0 ]; then
		[ $rel -gt 0 ] && [ $fl -le $rel ]
		uc_ktap $((! $?)) "a drain releasing $rel blocks flushes the kernel TLB $fl times, at most once per block"
	fi
fi

if [ $on = 1 ]; then
	# After every workload (and while each test module was loaded, and
	# during the kcore scan) uc_verify checked every block held: no page
	# with a present direct-map entry, W^X and the arena's permission in
	# the module area, and execmem's mappings likewise.
	v=/run/tmp/verify.all
	nv=$(grep -c . $v) nblk=$(grep -c ' blocks=[1-9]' $v)
	nclean=$(grep ' dm_present=0 wx=0 ro_writable=0 rw_exec=0 ' $v | grep -c ' vmap_dm_present=0 vmap_wx=0')
	[ "$nv" -ge "$nrun" ] && [ "$nblk" -gt 0 ] && [ "$nclean" = "$nv" ]
	uc_ktap $((! $?)) "after each of $nrun workloads ($nv checks, $nblk with blocks held) no cache page is present in the direct map and no mapping breaks W^X or its arena's permission"
	# No call refused as bad input: the KUnit bad-input cases fire each
	# warn-once site at boot, after which a caller's bad call would print
	# nothing but this count.
	nbad=$(grep -vc 'bad_calls=+0$' $v)
	[ "$nv" -gt 0 ] && [ "$nbad" = 0 ]
	uc_ktap $((! $?)) "no call refused as bad input during the workloads ($nv counts read, $nbad moved)"
fi

if [ $on$figs = 11 ]; then
	# Held against live memory once reclaim's shrinkers ran after each
	# workload (the "+shrunk" lines): at most the blocks the live pages
	# of each permission need, plus one block per arena with live pages
	# (the one the shrinker keeps so that the next allocation pays no
	# refill).  Before the shrink, free blocks are still held: that the
	# same sum sees them is shown by the count of workloads over it.
	set -- $(awk '
		{ delete v; for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		  need = 0; active = 0
		  split("none ro rox rw", p, " ")
		  for (j = 1; j <= 4; j++) { n = v[p[j]] + 0
			need += int((n + 511) / 512); active += (n > 0) }
		  held = int(v["held"] / 512); over = held > need + active
		  if (v["name"] ~ /[+]shrunk$/) { s++; if (over) { bad++; badl = badl " " v["name"] "=" held ">" need "+" active } }
		  else if (v["name"] != "drained") { u++; uo += over } }
		END { printf "%d %d %d %d%s", s, bad, u, uo, badl }' /run/tmp/footprint.all)
	nshrunk=${1:-0} nover=$2 nbefore=$3 nover_before=$4
	shift 4
	[ "$nshrunk" -ge 5 ] && [ "$nover" = 0 ]
	uc_ktap $((! $?)) "after the shrinkers, each of $nshrunk workloads leaves the cache holding at most the blocks its live pages need and one per active arena (before the shrink $nover_before of $nbefore held more${*:+; over: $*})"
fi

sleep 1
echo "cache memory:"
grep -E "blocks (grabbed|released|held)" /sys/kernel/debug/unmapped_cache/blocks 2>/dev/null
echo "kernel TLB flushes by function:"
cat /sys/kernel/debug/uc_tlbcount/detail
[ -z "$UC_SAMPLER" ] || kill "$UC_SAMPLER"
[ -n "$scatter" ] && kill "$scatter"
ktap_finished
