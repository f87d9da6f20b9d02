# SPDX-License-Identifier: GPL-2.0
# Secret memory and memory cgroups (CONFIG_MEMCG), with the cache on or off
# (unmapped_cache=off): the same steps, the same expectations.
#   charged   a process in a cgroup holds 1024 secret pages (4 MiB): the
#             cgroup's memory.current grew by at least those pages and by
#             less than 1 MiB more, so the 2 MiB blocks the cache took to
#             serve them are charged to nobody; once the process is gone,
#             memory.current is back within 64 KiB of where it started
#             (waiting up to 5 s for what is freed after a grace period)
#   limit     memory.max=16M and a process in the cgroup faults 8192 secret
#             pages (32 MiB): it is killed (the cgroup's own OOM killer,
#             memory.events oom_kill grows) or fails, memory.current is back
#             within 64 KiB of its start, and the control: the same 8192
#             pages faulted outside the cgroup succeed, so the limit was the
#             cgroup's and not the machine's
#   verify    (cache on) no page of the cache mapped where it must not
#             be, and no call refused as bad input (jobs/lib.sh, uc_verify)
# Reports in KTAP (jobs/lib.sh), a result per step.
. "$UC_DIR/jobs/lib.sh"

cg=/sys/fs/cgroup
cache=$(uc_cache_mode)
booted=on
grep -q 'unmapped_cache=off' /proc/cmdline && booted=off

ktap_print_header
if [ $cache = on ]; then ktap_set_plan 3; else ktap_set_plan 2; fi
[ $cache = $booted ] || ktap_exit_fail_msg "booted with the cache $booted, but it is $cache"
mkdir -p $cg
if ! mount -t cgroup2 none $cg || ! echo +memory > $cg/cgroup.subtree_control ||
   ! mkdir $cg/uc; then
	ktap_exit_fail_msg "no cgroup2 with the memory controller"
fi

# in_cg CMD...: run CMD as a member of the test cgroup (the shell that
# joins it becomes CMD, so that "in_cg CMD &" gives CMD's pid in $!).
in_cg='echo $$ > /sys/fs/cgroup/uc/cgroup.procs && exec "$@"'

current() {
	cat $cg/uc/memory.current
}
# idle_current: memory.current of the cgroup while no process is in it,
# once the charges that per-CPU stocks hold in advance for it (up to 64
# pages a CPU: in the page counter, backing no page) are given back.
# Setting memory.high below the usage drains those stocks
# (memory_high_write() calls drain_all_stock()); the reclaim that follows
# cannot free a secret page, which is on no reclaimable LRU list with the
# cache off and on no LRU with it on, so a leaked charge still shows.
idle_current() {
	echo 0 > $cg/uc/memory.high
	echo max > $cg/uc/memory.high
	current
}
# settle START: memory.current once it is back within 64 KiB of START,
# or after 5 s.  What a process leaves behind (its page tables, the file's
# inode, pages in a CPU's LRU batch with the cache off) is uncharged when
# it is freed, some of it after an RCU grace period.
settle() {
	i=0
	while :; do
		c=$(idle_current)
		d=$((c - $1))
		[ $d -le 65536 ] && [ $d -ge -65536 ] && break
		[ $i -ge 50 ] && break
		sleep 0.1
		i=$((i + 1))
	done
	echo "$c"
}
oom_kills() {
	awk '$1 == "oom_kill" { print $2 }' $cg/uc/memory.events
}

# charged: 1024 pages held, then released.
pages=1024
echo 64M > $cg/uc/memory.max
cur0=$(idle_current)
rm -f /run/tmp/memcg.held
sh -c "$in_cg" in_cg "$UC_BIN/secretmem_fault" --hold /run/tmp/memcg.held $pages \
	> /run/tmp/memcg.out 2>&1 &
pid=$!
i=0
while [ ! -e /run/tmp/memcg.held ] && [ $i -lt 600 ] && kill -0 $pid 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
held=$(current)
kill -TERM $pid 2>/dev/null
wait $pid
st=$?
after=$(settle "$cur0")
grew=$((held - cur0))
left=$((after - cur0))
ok=1
[ -e /run/tmp/memcg.held ] && [ $st -eq 0 ] || ok=0
[ $grew -ge $((pages * 4096)) ] && [ $grew -lt $((pages * 4096 + 1048576)) ] || ok=0
[ $left -le 65536 ] && [ $left -ge -65536 ] || ok=0
sed 's/^/# /' /run/tmp/memcg.out
d="charged: $pages secret pages held in a cgroup grew its memory.current by $grew bytes"
d="$d (the pages and less than 1 MiB more, the blocks charged to nobody), status $st,"
d="$d $left bytes left after they were freed (within 64 KiB)"
if [ $ok -eq 1 ]; then ktap_test_pass "$d"; else ktap_test_fail "$d"; fi

# limit: 32 MiB of secret pages against a 16 MiB limit.
pages=8192
echo 16M > $cg/uc/memory.max
cur0=$(idle_current)
kills0=$(oom_kills)
sh -c "$in_cg" in_cg "$UC_BIN/secretmem_fault" $pages > /run/tmp/memcg.out 2>&1
st=$?
after=$(settle "$cur0")
kills=$(( $(oom_kills) - kills0 ))
left=$((after - cur0))
"$UC_BIN/secretmem_fault" $pages > /run/tmp/memcg.control 2>&1
control=$?
ok=1
[ $st -ne 0 ] || ok=0
[ $left -le 65536 ] && [ $left -ge -65536 ] || ok=0
[ $control -eq 0 ] || ok=0
tail -n 2 /run/tmp/memcg.out | sed 's/^/# /'
d="limit: $pages secret pages against memory.max=16M stopped the task"
d="$d (status $st, oom_kill +$kills), $left bytes left after (within 64 KiB),"
d="$d the same pages outside the cgroup faulted (status $control)"
if [ $ok -eq 1 ]; then ktap_test_pass "$d"; else ktap_test_fail "$d"; fi

rmdir $cg/uc
[ $cache = off ] ||
	ktap_test_result "verify: no page of the cache mapped where it must not be, no bad call refused" \
		uc_verify memcg
ktap_finished
