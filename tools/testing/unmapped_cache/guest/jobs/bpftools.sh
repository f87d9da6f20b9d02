# SPDX-License-Identifier: GPL-2.0
# The shipped bpftrace scripts (tools/mm/unmapped_cache/*.bt) around real
# workloads.  Needs the host root over 9p (qemu-run.sh --hostroot) for
# bpftrace and the test modules.  A KTAP result (jobs/lib.sh) per script
# run, failed when its output is not what the workload must produce:
#
# Free memory is scattered first (hog --scatter), in both modes.
# unmapped_cache=off  dm_splits.bt around 2000 BPF programs, then 2048
#                     secret pages: level-2 splits traced = vmstat delta
#                     (> 0), with level-2 stacks through the BPF pack
#                     allocator and through secretmem.
# cache on            dm_splits.bt around the same: traced = vmstat delta,
#                     and no level-2 stack through BPF or secretmem;
#                     uc_activity.bt around a drain, secretmem, a module
#                     load and a drain: blocks go in and out;
#                     uc_sizes.bt around secretmem, a module load and BPF:
#                     histograms for the page and vmap interfaces.
. "$UC_DIR/jobs/lib.sh"

mode=on
grep -q 'unmapped_cache=off' /proc/cmdline && mode=off
ktap_print_header
if [ $mode = off ]; then ktap_set_plan 1; else ktap_set_plan 3; fi
command -v bpftrace >/dev/null || ktap_exit_fail_msg "bpftrace not found"

scripts=$(cd "$UC_DIR/../../../mm/unmapped_cache" && pwd) ||
	ktap_exit_fail_msg "no tools/mm/unmapped_cache"
mods=${UC_BIN%/bin}/modules

# run_bt SCRIPT OUT CMD...: trace CMD with SCRIPT, output to OUT; sets
# bt_l2 to the level-2 splits vmstat counted while the probes were
# attached (bpftrace's own programs, loaded before, can split too).
run_bt() {
	script=$1 out=$2
	shift 2
	bpftrace "$scripts/$script" > "$out" 2>&1 &
	bt=$!
	i=0
	# The BEGIN probe prints "Ctrl-C to end" once every probe is attached.
	while ! grep -q 'Ctrl-C to end' "$out" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -ge 180 ] || ! kill -0 $bt 2>/dev/null; then
			echo "$script did not start:"
			cat "$out"
			return 1
		fi
		sleep 1
	done
	bt_l2=$(vmstat direct_map_level2_splits)
	"$@"
	r=$?
	sleep 2
	bt_l2=$(($(vmstat direct_map_level2_splits) - bt_l2))
	kill -INT $bt
	# bpftrace prints its maps and exits on SIGINT.  Once in a while (seen
	# in a cache-off and in a cache-on boot, both on a loaded host) it
	# did not: it sat in epoll_wait() with the signal taken, as when the
	# signal comes between its check of the exit flag and the wait.  Its
	# handler only sets that flag, so the signal is sent again every 5 s,
	# which ends such a wait; after 120 s, show where it sleeps, kill it
	# and fail the step instead of hanging the guest until the host's
	# timeout.
	i=0
	while kill -0 $bt 2>/dev/null && [ $i -lt 120 ]; do
		sleep 1
		i=$((i + 1))
		[ $((i % 5)) -eq 0 ] && kill -INT $bt 2>/dev/null
	done
	if kill -0 $bt 2>/dev/null; then
		echo "UC-BT-HUNG script=$script pid=$bt state=$(awk '/^State:/ { print $2 }' /proc/$bt/status) wchan=$(cat /proc/$bt/wchan 2>/dev/null)"
		for t in /proc/$bt/task/*; do
			echo "task ${t##*/}: $(cat $t/wchan 2>/dev/null)"
			cat $t/stack 2>/dev/null
		done
		echo w > /proc/sysrq-trigger
		bt_hung=1
		kill -9 $bt
		wait $bt
		echo "---- $script (killed) ----"
		cat "$out"
		return 1
	fi
	wait $bt
	echo "---- $script ----"
	cat "$out"
	echo "---- end of $script ----"
	return $r
}

# bpftrace's own programs already sit in a BPF pack: load enough programs
# to need several new ones.
workload() {
	"$UC_BIN/bpf_load" -n 2000 || return 1
	"$UC_BIN/secretmem_fault" 2048
}

# Scatter free memory first: on fresh memory the 512 pages of a stock
# BPF pack are physically contiguous and their aliases share the one or
# two 2 MiB direct-map entries an earlier pack already split.
"$UC_BIN/hog" --scatter 70 /run/tmp/scatter.ready &
scatter=$!
i=0
while [ ! -e /run/tmp/scatter.ready ] && [ $i -lt 600 ]; do sleep 1; i=$((i + 1)); done
[ -e /run/tmp/scatter.ready ] || ktap_exit_fail_msg "scatter did not finish"

rc=0
retry=""
out=/run/tmp/dm_splits.out
# A bpftrace that did not exit (see run_bt) gets one more try, said so
# on the console; any other failure counts at once.
for attempt in 1 2; do
	bt_hung=0
	run_bt dm_splits.bt $out workload || rc=1
	[ $bt_hung -eq 1 ] && [ $attempt -eq 1 ] || break
	ktap_print_msg "dm_splits: bpftrace did not exit, running the phase again"
	retry=", after one retry: bpftrace did not exit the first time"
	rc=0
done
traced=$(sed -n 's/^@level\[2\]: \([0-9]*\)/\1/p' $out)
traced=${traced:-0}
# Stacks are printed as @stack[LEVEL, <frames>]: count.  Count the stacks
# that pass through each path.
# Only level-2 stacks: a level-3 split (the first block the cache takes
# out of a 1 GiB entry) is expected with the cache on.
stacks() {
	awk -v pat="$1" '/^@stack\[/ { s = ""; l2 = /^@stack\[2,/ } { s = s $0 "\n" }
		/^\]: [0-9]+$/ { if (l2 && s ~ pat) n++ }
		END { print n + 0 }' $out
}
bpf=$(stacks 'bpf_prog_pack_alloc|bpf_jit_binary')
sec=$(stacks 'secretmem_fault')
figs="vmstat_l2=$bt_l2 traced_l2=$traced bpf_stacks=$bpf secretmem_stacks=$sec$retry"
[ "$traced" -eq "$bt_l2" ] || { ktap_print_msg "traced != vmstat"; rc=1; }
if [ $mode = off ]; then
	[ "$traced" -gt 0 ] && [ "$bpf" -gt 0 ] && [ "$sec" -gt 0 ] ||
		{ ktap_print_msg "stock BPF and secretmem splits not both attributed"; rc=1; }
	uc_ktap $(( rc == 0 )) "dm_splits.bt, cache off: level-2 splits traced as vmstat counts them, with stacks through the BPF pack and secretmem ($figs)"
	kill $scatter
	ktap_finished
fi
[ "$bpf" -eq 0 ] && [ "$sec" -eq 0 ] ||
	{ ktap_print_msg "splits attributed to BPF or secretmem with the cache on"; rc=1; }
uc_ktap $(( rc == 0 )) "dm_splits.bt, cache on: splits traced as vmstat counts them, none through the BPF pack or secretmem ($figs)"

activity() {
	# Start from an empty cache, so that the workload takes blocks.
	echo 1 > /sys/kernel/debug/unmapped_cache/drain
	"$UC_BIN/secretmem_fault" 2048 || return 1
	insmod "$mods/uc_testmod_a.ko" && rmmod uc_testmod_a || return 1
	sleep 1
	echo 1 > /sys/kernel/debug/unmapped_cache/drain
}
out=/run/tmp/uc_activity.out
ok=1
run_bt uc_activity.bt $out activity || ok=0
bin=$(grep -c '^@total\[blocks in, ' $out)
bout=$(grep -c '^@total\[blocks out, ' $out)
[ "$bin" -gt 0 ] && [ "$bout" -gt 0 ] || ok=0
uc_ktap $ok "uc_activity.bt, cache on: blocks seen going in and out around a drain, secretmem and a module load (blocks_in_lines=$bin blocks_out_lines=$bout)"

sizes() {
	"$UC_BIN/secretmem_fault" 256 || return 1
	insmod "$mods/uc_testmod_b.ko" && rmmod uc_testmod_b || return 1
	"$UC_BIN/bpf_load" -n 50
}
out=/run/tmp/uc_sizes.out
ok=1
run_bt uc_sizes.bt $out sizes || ok=0
# Secretmem pages come through unmapped_cache_alloc_page(), the module
# through unmapped_cache_vmap(); BPF takes a new pack (the chunk
# interface) only if bpftrace's own programs filled the last one.
page=$(grep -c 'unmapped_cache_alloc_page+' $out)
vmap=$(grep -c 'unmapped_cache_vmap+' $out)
chunk=$(grep -c 'unmapped_cache_alloc+\|unmapped_cache_alloc_node+' $out)
buckets=$(grep -c '^\[[0-9]*[KM]*, [0-9]*[KM]*) *[0-9]* |' $out)
[ "$page" -gt 0 ] && [ "$vmap" -gt 0 ] && [ "$buckets" -gt 1 ] || ok=0
uc_ktap $ok "uc_sizes.bt, cache on: size histograms of the page and vmap interfaces (page_stacks=$page vmap_stacks=$vmap chunk_stacks=$chunk buckets=$buckets)"
kill $scatter
ktap_finished
