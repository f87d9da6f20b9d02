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
# Kernel parameter uc.workloads=a,b,... runs only those (default: all).
# Environment (for the debug kernel's smaller run): UC_MODS (test modules
# directory), UC_BPF_PROGS, UC_MODULE_LOOPS, UC_SECRET_PAGES (per process),
# UC_FOOTPRINT=0 (no footprint lines and no shrink after each workload).
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
secret_pages=${UC_SECRET_PAGES:-2048}
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
			[ $i -eq 0 ] && echo "UC-MODTEXT uc_testmod_$m $(text_share "uc_testmod_$m")"
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
	echo "UC-MODTEXT-ONE uc_testmod_b $(text_share uc_testmod_b)"
	rmmod uc_testmod_b
}

kprobes() {
	insmod "$mods/uc_kprobes.ko" nr_kprobes="$nr_kprobes" || return 1
	dmesg | grep -a 'UC-KPROBES' | tail -1
	rmmod uc_kprobes
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
		"$UC_BIN/kcore_scan" 256 --image-ok
	else
		"$UC_BIN/kcore_scan" 256
	fi
	r=$?
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
	echo "UC-STALE data_before='$d0' data_after='$d1' rodata_before='$r0' rodata_after='$r1' text_before='$t0' text_after='$t1'"
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

# The kernel's own tests of the converted users.
selftests() {
	"$UC_BIN/memfd_secret" > /run/tmp/memfd_secret.out 2>&1
	r=$?
	# Prefixed: its TAP lines would otherwise read as KUnit results in a
	# log that has both (the distro job's first boot).
	sed 's/^/memfd_secret: /' /run/tmp/memfd_secret.out
	grep -q '^# Totals: pass:[1-9][0-9]* fail:0 .*skip:0 error:0' /run/tmp/memfd_secret.out || r=1
	echo "UC-SELFTEST memfd_secret rc=$r"
	[ $r -eq 0 ] || return 1

	# test_bpf logs a line per test at KERN_INFO: keep them off the
	# (slow) console, but not a warning (console level 5 prints
	# KERN_WARNING and above, so the splat scan still sees them).
	printk=$(cut -f1 /proc/sys/kernel/printk)
	echo 5 > /proc/sys/kernel/printk
	insmod "$mods/test_bpf.ko"
	r=$?
	echo "$printk" > /proc/sys/kernel/printk
	dmesg | grep -a 'test_bpf: .*Summary:' | tr -d '\r'
	[ $r -eq 0 ] && rmmod test_bpf
	echo "UC-SELFTEST test_bpf rc=$r"
	[ $r -eq 0 ] || return 1

	i=0
	while [ $i -lt 3 ]; do
		insmod "$mods/test_static_key_base.ko" &&
			insmod "$mods/test_static_keys.ko" &&
			rmmod test_static_keys && rmmod test_static_key_base &&
			insmod "$mods/test_module.ko" && rmmod test_module || r=1
		i=$((i + 1))
	done
	echo "UC-SELFTEST test_static_keys+test_module loads=3 rc=$r"
	[ $r -eq 0 ] || return 1

	# lib/test_kprobes (KUnit, built in): kprobes, kretprobes and stack
	# traces from their handlers, run at boot (make check boots the cache-on
	# callers job with kunit.filter_glob=kprobes_test).
	if grep -q 'kunit.filter_glob=kprobes_test' /proc/cmdline; then
		res=$(dmesg | tr -d '\r' | grep -ao '\(not \)\?ok [0-9]* kprobes_test$' | tail -1)
		dmesg | tr -d '\r' | grep -a '# kprobes_test: pass:' | tail -1
		r=0
		case "$res" in
		"ok "*) ;;
		*) r=1 ;;
		esac
		echo "UC-SELFTEST kprobes_test result='$res' rc=$r"
		[ $r -eq 0 ] || return 1
	else
		echo "UC-SELFTEST kprobes_test not run (this boot did not enable it)"
	fi

	# samples/livepatch: cmdline_proc_show() replaced by the sample's
	# function, in module text, then the patch disabled and removed.
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
	restored=$(grep -c 'this has been live patched' /proc/cmdline)
	[ "$patched" = 1 ] && [ "$restored" = 0 ] || r=1
	echo "UC-SELFTEST livepatch patched=$patched restored=$((1 - restored)) rc=$r"
	[ $r -eq 0 ] || return 1

	# ORC: a stack trace taken in uc_testmod_a's text unwinds through
	# the module (its ORC table, sorted while loading) into the kernel.
	insmod "$mods/uc_testmod_a.ko" || return 1
	cat /sys/kernel/debug/uc_testmod_a/stack > /run/tmp/stack.out
	rmmod uc_testmod_a
	r=0
	grep -q '^uc_a_stack_show+.*\[uc_testmod_a\]' /run/tmp/stack.out || r=1
	grep -q '^vfs_read+' /run/tmp/stack.out || r=1
	echo "UC-SELFTEST orc_module_stack frames=$(wc -l < /run/tmp/stack.out) $(tr '\n' ' ' < /run/tmp/stack.out | cut -c1-200) rc=$r"
	return $r
}

only=$(sed -n 's/.*uc\.workloads=\([^ ]*\).*/\1/p' /proc/cmdline)
# run NAME CMD...: uc_measure it and print the cache's footprint after it,
# then again once reclaim's shrinkers ran (drop_caches, in both modes, so
# that the next workload starts alike), unless uc.workloads leaves it out.
run() {
	case ",${only:-$1}," in
	*",$1,"*)
		uc_measure "$@"
		r=$?
		# UC_FOOTPRINT=0 (the debug and RT kernels' short run): no
		# footprint lines, no shrink between the workloads.
		[ "${UC_FOOTPRINT:-1}" = 0 ] && return $r
		uc_footprint "$1"
		echo 2 > /proc/sys/vm/drop_caches
		uc_footprint "$1+shrunk"
		return $r ;;
	*) echo "skipped: $1" ;;
	esac
}

rc=0
uc_sampler
run bpf "$UC_BIN/bpf_load" -n "${UC_BPF_PROGS:-2000}" -s "$(uc_seed)" || rc=1
# Allocations from the ROX arena so far: only BPF packs and trampolines
# use it (module text and kprobe pages come through execmem).
echo "UC-BPF-ROX allocations=$(awk '/^arena / { a = $2 } a == "rox" && /allocations:/ { s += $2 } END { print s + 0 }' \
	/sys/kernel/debug/unmapped_cache/arenas 2>/dev/null)"
run secretmem secretmem || rc=1
run modules modules || rc=1
run plainmod plainmod || rc=1
run modtext modtext || rc=1
run kprobes kprobes || rc=1
run kcore kcore || rc=1
run stale stale || rc=1
run selftests selftests || rc=1
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
		wait $h || { echo "fragmentation control: $(cat /run/tmp/fragctl.out)"; rc=1; }
		echo "UC-FRAG-CONTROL secret_pages=$n whole_block_pages=$whole mixed_held=$m"
	fi
fi
# A drain gives back every block that holds no live chunk: count the
# kernel TLB flushes it causes per block released.  Taking a block out of
# the module area flushes once; putting it back into the direct map needs
# no flush (nothing caches a not-present entry), so there are at most as
# many flushes as blocks.  Not under lockdown (the distro job's locked
# boot), which refuses writes to debugfs.
locked=$(grep -o '\[[a-z]*\]' /sys/kernel/security/lockdown 2>/dev/null)
if [ -w /sys/kernel/debug/unmapped_cache/drain ] && [ "${locked:-[none]}" = "[none]" ]; then
	# Something to give back whatever the shrinkers left: BPF programs
	# loaded and closed (ROX blocks of the module area) and secret pages
	# freed (NONE blocks).
	"$UC_BIN/bpf_load" -n $((${UC_BPF_PROGS:-2000} / 10)) -s "$(uc_seed)" > /dev/null
	"$UC_BIN/secretmem_fault" $((secret_pages / 2)) > /dev/null
	f0=$(cat /sys/kernel/debug/uc_tlbcount/flushes) r0=$(uc_stat 'blocks released')
	echo 1 > /sys/kernel/debug/unmapped_cache/drain
	f1=$(cat /sys/kernel/debug/uc_tlbcount/flushes) r1=$(uc_stat 'blocks released')
	echo "UC-DRAIN-TLB released=$((r1 - r0)) flushes=$((f1 - f0))"
	# Nothing but live chunks is held now: held must be what they need.
	uc_footprint drained
fi
sleep 1
echo "cache memory:"
grep -E "blocks (grabbed|released|held)" /sys/kernel/debug/unmapped_cache/blocks 2>/dev/null
echo "kernel TLB flushes by function:"
cat /sys/kernel/debug/uc_tlbcount/detail
[ -z "$UC_SAMPLER" ] || kill "$UC_SAMPLER"
[ -n "$scatter" ] && kill "$scatter"
exit $rc
