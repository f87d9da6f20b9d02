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
# Prints
#   UC-MODLOAD cache=on|off boot_ms=N cycles=N
#              cycle_ns=N,N,... median_ns=N writes_per_load=N
#              ftrace_module_us=N testmod_b_sites=N testmod_b_writes=N
#              relocs_ok=0|1
#   UC-MODLOAD-CONTROL cache=on writes=N
#   UC-MODLOAD-END rc=N
. "$UC_DIR/jobs/lib.sh"

mods=${UC_BIN%/bin}/modules
tr=/sys/kernel/tracing
dbg=/sys/kernel/debug/unmapped_cache
if [ -r $dbg/blocks ]; then cache=on; else cache=off; fi
cycles=$(uc_arg cycles 5)
rc=0

mountpoint -q $tr || mount -t tracefs none $tr || { echo "modload: no tracefs"; echo "UC-MODLOAD-END rc=1"; exit 1; }

# boot: seconds with 6 decimals in the printk time, in ms.
boot_ms=$(dmesg | sed -n 's/^\[ *\([0-9]*\)\.\([0-9]\{3\}\).*\] Run .* as init process.*/\1\2/p' |
	head -1 | sed 's/^0*//')
boot_ms=${boot_ms:-0}

# hits EVENT: the kprobe's hit count so far.
hits() {
	awk -v e="$1" '$1 == e { print $2 }' $tr/kprobe_profile
}
echo 'p:ucmodload/ucw arch_unmapped_cache_write len=%dx' >> $tr/kprobe_events ||
	{ echo "modload: cannot place a kprobe on arch_unmapped_cache_write"; rc=1; }
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
dmesg | grep 'uc_relocs: ' | tail -n 1
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
echo "UC-MODLOAD cache=$cache boot_ms=$boot_ms" \
     "cycles=$i cycle_ns=${ns:-none} median_ns=$median writes_per_load=$writes" \
     "ftrace_module_us=${ftrace_module_us:-none} testmod_b_sites=$b_sites" \
     "testmod_b_writes=$b_writes relocs_ok=$relocs_ok"

if [ $cache = on ]; then
	h0=$(hits ucw)
	echo 512 > $dbg/exercise_population || rc=1
	echo "UC-MODLOAD-CONTROL cache=on writes=$(( $(hits ucw) - h0 ))"
fi
echo 0 > $tr/events/ucmodload/ucw/enable
echo '-:ucmodload/ucw' >> $tr/kprobe_events
echo '-:ucmodload/fmi_in' >> $tr/kprobe_events
echo '-:ucmodload/fmi_out' >> $tr/kprobe_events
echo 1 > $tr/tracing_on
uc_verify modload || rc=1
echo "UC-MODLOAD-END rc=$rc"
exit $rc
