# SPDX-License-Identifier: GPL-2.0
# Module loading and boot, cache on or off (unmapped_cache=off): the same
# steps on both (needs --hostroot for the test modules).
#
#   boot      when user space started (the printk time of "Run ... as init
#             process").  ftrace's boot-time patching of the kernel's own
#             call sites is not timed: it runs before sched_clock() does
#             under TCG (its printk times read 0), and before the cache
#             has any memory (execmem hands out no module memory before)
#   relocs    uc_relocs.ko (1 MiB of text, 140 000 relocations, checked by
#             the module itself when it loads) loaded and unloaded
#             $cycles times from tmpfs, each cycle timed; the writes into
#             read-only module memory counted by a kprobe on
#             arch_unmapped_cache_write() (kprobe_profile's hit count):
#             with the cache on, the loader relocates a copy of each
#             section and writes it back at once, so a load makes a few
#             such writes, not one per relocation
#   ftrace    ftrace's patching of uc_testmod_b's call sites at its load,
#             timed; the module's call sites (available_filter_functions)
#             and the writes into read-only module memory during its load
#             (with the cache on, ftrace patches a staged copy of the text:
#             a few writes for the whole load, not one a call site)
#   control   the same kprobe counts the writes of the debugfs
#             exercise_population (cache on only): 512 chunks of a ROX
#             cache, one write each, so at least 512 hits
#
# A KTAP result (jobs/lib.sh) for relocs and for ftrace, and with the
# cache on for the control and uc_verify: with the cache on, at most 64
# writes a load for each, and the control at least 512.  The figures
# (times) go on a diagnostic line for the host's table:
#   # figures: boot_ms=N median_ns=N ftrace_module_us=N cycle_ns=N,N,...
. "$UC_DIR/jobs/lib.sh"

mods=${UC_BIN%/bin}/modules
tr=/sys/kernel/tracing
dbg=/sys/kernel/debug/unmapped_cache
cache=$(uc_cache_mode)
cycles=$(uc_arg cycles 5)
rc=0

ktap_print_header
if [ $cache = on ]; then ktap_set_plan 4; else ktap_set_plan 2; fi
mountpoint -q $tr || mount -t tracefs none $tr || ktap_exit_fail_msg "modload: no tracefs"

# boot: seconds with 6 decimals in the printk time, in ms.
boot_ms=$(dmesg | sed -n 's/^\[ *\([0-9]*\)\.\([0-9]\{3\}\).*\] Run .* as init process.*/\1\2/p' |
	head -1 | sed 's/^0*//')
boot_ms=${boot_ms:-0}

# hits EVENT: the kprobe's hit count so far.
hits() {
	awk -v e="$1" '$1 == e { print $2 }' $tr/kprobe_profile
}
echo 'p:ucmodload/ucw arch_unmapped_cache_write len=%dx' >> $tr/kprobe_events ||
	{ ktap_print_msg "modload: cannot place a kprobe on arch_unmapped_cache_write"; rc=1; }
echo 0 > $tr/tracing_on
echo 1 > $tr/events/ucmodload/ucw/enable || rc=1

cp "$mods/uc_relocs.ko" /run/tmp/uc_relocs.ko || rc=1
ns=""
writes=-1
relocs_ok=1
i=0
while [ $i -lt "$cycles" ] && [ $rc -eq 0 ]; do
	h0=$(hits ucw)
	t0=$(date +%s%N)
	if ! insmod /run/tmp/uc_relocs.ko; then
		relocs_ok=0
		rc=1
		break
	fi
	rmmod uc_relocs || { rc=1; break; }
	t1=$(date +%s%N)
	[ $i -eq 0 ] && writes=$(( $(hits ucw) - h0 ))
	ns="$ns${ns:+,}$((t1 - t0))"
	i=$((i + 1))
done
dmesg | grep 'uc_relocs: ' | tail -n 1 | sed 's/^\[[^]]*\] */# /'
median=$(echo "$ns" | tr ',' '\n' | sort -n | awk '{ v[NR] = $1 } END { printf "%.0f\n", v[int((NR + 1) / 2)] + 0 }')
# ftrace's patching of a module's call sites to NOPs when it loads, for
# uc_testmod_b (about 64 KiB of generated functions; uc_relocs has no call
# site).  ftrace_module_init() is notrace, so the probes sit on either
# side of it in load_module(): the return of strndup_user() (the module's
# arguments) and module_enable_rodata_ro(), early in complete_formation();
# between them run init_build_id(), ftrace_module_init() and the check of
# the module's exports and the bug table.  Times in the trace's clock,
# insmod's events only.
ftrace_module_us=none
echo 'r:ucmodload/fmi_in strndup_user' >> $tr/kprobe_events &&
echo 'p:ucmodload/fmi_out module_enable_rodata_ro' >> $tr/kprobe_events &&
echo 1 > $tr/events/ucmodload/fmi_in/enable &&
echo 1 > $tr/events/ucmodload/fmi_out/enable || rc=1
: > $tr/trace
echo 1 > $tr/tracing_on
h0=$(hits ucw)
b_sites=0
b_writes=-1
if insmod "$mods/uc_testmod_b.ko"; then
	echo 0 > $tr/tracing_on
	b_writes=$(( $(hits ucw) - h0 ))
	b_sites=$(grep -c '\[uc_testmod_b\]' $tr/available_filter_functions)
	rmmod uc_testmod_b || rc=1
	ftrace_module_us=$(awk '
		$1 !~ /^insmod-/ { next }
		{ for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i + 0; e = $(i + 1) } }
		e == "fmi_in:" { t0 = t }
		e == "fmi_out:" && t0 != "" { printf "%d\n", (t - t0) * 1000000 + 0.5; exit }' $tr/trace)
else
	echo 0 > $tr/tracing_on
	rc=1
fi
echo 0 > $tr/events/ucmodload/fmi_in/enable
echo 0 > $tr/events/ucmodload/fmi_out/enable
ktap_print_msg "figures: boot_ms=$boot_ms median_ns=$median ftrace_module_us=${ftrace_module_us:-none} cycle_ns=${ns:-none}"
# few WRITES: at most 64 with the cache on (at least 1: the probe saw the
# load), anything with it off.
few() {
	[ $cache = off ] || { [ "$1" -ge 1 ] && [ "$1" -le 64 ]; }
}
ok=0
[ $rc -eq 0 ] && [ "$i" -eq "$cycles" ] && [ $relocs_ok -eq 1 ] && few "$writes" && ok=1
uc_ktap $ok "relocs, cache $cache: uc_relocs (140000 relocations, checked by the module) loaded and unloaded $i of $cycles times, $writes writes into read-only module memory a load (cache on: 1 to 64)"
ok=0
[ "$b_sites" -ge 1024 ] && few "$b_writes" && ok=1
uc_ktap $ok "ftrace, cache $cache: uc_testmod_b's $b_sites ftrace call sites (at least 1024) patched at its load with $b_writes writes into read-only module memory (cache on: 1 to 64)"

if [ $cache = on ]; then
	h0=$(hits ucw)
	echo 512 > $dbg/exercise_population
	ctl=$(( $(hits ucw) - h0 ))
	uc_ktap $(( ctl >= 512 )) "control: the same probe counts $ctl writes for the 512 chunks of the debugfs exercise (at least 512)"
fi
echo 0 > $tr/events/ucmodload/ucw/enable
echo '-:ucmodload/ucw' >> $tr/kprobe_events
echo '-:ucmodload/fmi_in' >> $tr/kprobe_events
echo '-:ucmodload/fmi_out' >> $tr/kprobe_events
echo 1 > $tr/tracing_on
[ $cache = off ] ||
	ktap_test_result "verify: no page of the cache mapped where it must not be, no bad call refused" \
		uc_verify modload
ktap_finished
