# SPDX-License-Identifier: GPL-2.0
# Concurrency and pressure soak (needs --hostroot for the test modules; run
# with 4 vCPUs or more).  For UC_SOAK_SECONDS (default 180; kernel
# parameter uc.soak=N overrides) these run at once, each in a loop:
#   bpf        bpf_load -n 50 (JIT images from the ROX arena)
#   secretmem  secretmem_fault 256, two processes
#   modules    uc_testmod_a and _b loaded, called, unloaded (execmem)
#   kprobes    uc_kprobes loaded and unloaded (kprobe and ftrace pages)
#   hog        a process touching 60% of MemAvailable, then drop_caches
#   drain      a forced drain of the cache every 2 s
# Each loop counts its rounds.  Afterwards: every loop completed rounds
# without an error, a final drain leaves the cache holding only blocks of
# chunks that are still live, no level-2 split happened and DirectMap4k
# did not grow, and every block passes the UC-VERIFY check: a KTAP result
# each (jobs/lib.sh).
. "$UC_DIR/jobs/lib.sh"

ktap_print_header
ktap_set_plan 4

mods=${UC_MODS:-${UC_BIN%/bin}/modules}
secs=$(sed -n 's/.*uc\.soak=\([0-9]*\).*/\1/p' /proc/cmdline)
secs=${secs:-${UC_SOAK_SECONDS:-180}}
dbg=/sys/kernel/debug/unmapped_cache
dir=/run/tmp/soak
mkdir -p $dir
rm -f $dir/*

# loop NAME CMD...: run CMD until the deadline; count rounds and failures.
loop() {
	name=$1
	shift
	n=0 bad=0
	while [ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ]; do
		if "$@" > $dir/$name.out 2>&1; then
			n=$((n + 1))
		else
			bad=$((bad + 1))
			tail -3 $dir/$name.out
		fi
	done
	echo "$n $bad" > $dir/$name.count
}

secret() {
	"$UC_BIN/secretmem_fault" 256 & a=$!
	"$UC_BIN/secretmem_fault" 256 & b=$!
	wait $a && wait $b
}

modules() {
	for m in a b; do
		insmod "$mods/uc_testmod_$m.ko" || return 1
		out=$(cat "/sys/kernel/debug/uc_testmod_$m/run")
		rmmod "uc_testmod_$m" || return 1
		case "$out" in ok*) ;; *) echo "uc_testmod_$m: $out"; return 1 ;; esac
	done
}

# 200 kprobes a round (the module's default, 1000, took one round of
# 100 s under TCG, so that the soak ran for 2 minutes past its end and
# saw a single kprobes round): several rounds of kprobe and optprobe
# pages come and go while the other workloads run.
kprobes() {
	insmod "$mods/uc_kprobes.ko" nr_kprobes=200 && rmmod uc_kprobes
}

hog() {
	"$UC_BIN/hog" 60 && echo 3 > /proc/sys/vm/drop_caches
}

drain() {
	echo 1 > $dbg/drain && sleep 2
}

caches_live() {
	awk '{ for (i = 3; i <= NF; i++) if ($i ~ /^pages=/) { sub("pages=", "", $i); s += $i } } END { print s + 0 }' $dbg/caches
}

ktap_print_msg "soak starting: $secs s on $(grep -c ^processor /proc/cpuinfo) CPUs"
start=$(uc_snapshot)
end=$(( $(cut -d. -f1 /proc/uptime) + secs ))
loop bpf "$UC_BIN/bpf_load" -n 50 &
loop secretmem secret &
loop modules modules &
loop kprobes kprobes &
loop hog hog &
loop drain drain &
wait

ok=1
total=0
line=""
for name in bpf secretmem modules kprobes hog drain; do
	read -r n bad < $dir/$name.count || { n=0; bad=1; }
	line="$line $name=$n"
	total=$((total + n))
	if [ "$n" -eq 0 ] || [ "$bad" -ne 0 ]; then
		ktap_print_msg "soak: $name: $n rounds, $bad failed"
		ok=0
	fi
done
uc_ktap $ok "soak: every workload ran rounds without an error, all at once with a hog and drains for $secs s (rounds:$line, total $total)"

echo 1 > $dbg/drain
finish=$(uc_snapshot)
l2=$(( $(uc_field "$finish" l2) - $(uc_field "$start" l2) ))
dm4k=$(( $(uc_field "$finish" dm4k) - $(uc_field "$start" dm4k) ))
held=$(uc_field "$finish" held)
live=$(caches_live)
sed 's/^/# /' $dbg/caches
uc_ktap $(( l2 == 0 && dm4k == 0 )) "soak: no level-2 split and DirectMap4k unchanged over the soak (l2 +$l2, DirectMap4k +$dm4k kB)"
# After the drain only blocks with live chunks (kernel users' own, listed
# in caches) remain: at most one block per 512 live pages, plus one per
# cache for partial use.
ncache=$(wc -l < $dbg/caches)
uc_ktap $(( held <= live / 512 + ncache )) "soak: a final drain leaves only blocks of live chunks ($held blocks held for $live live pages in $ncache caches)"
ktap_test_result "soak: verify: no page of the cache mapped where it must not be, no bad call refused" \
	uc_verify soak
ktap_finished
