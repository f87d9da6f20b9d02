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
# Prints
#   UC-MEMCG step=NAME cache=on|off ... ok=0|1
#   UC-MEMCG-END rc=N
. "$UC_DIR/jobs/lib.sh"

cg=/sys/fs/cgroup
if [ -r /sys/kernel/debug/unmapped_cache/blocks ]; then cache=on; else cache=off; fi
rc=0

mkdir -p $cg
if ! mount -t cgroup2 none $cg || ! echo +memory > $cg/cgroup.subtree_control ||
   ! mkdir $cg/uc; then
	echo "memcg: no cgroup2 with the memory controller"
	echo "UC-MEMCG-END rc=1"
	exit 1
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
cat /run/tmp/memcg.out
echo "UC-MEMCG step=charged cache=$cache pages=$pages status=$st current_start=$cur0 grew_while_held=$grew left_after=$left ok=$ok"
[ $ok -eq 1 ] || rc=1

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
tail -n 2 /run/tmp/memcg.out
echo "UC-MEMCG step=limit cache=$cache pages=$pages max=16M status=$st oom_kills=+$kills left_after=$left control_status=$control ok=$ok"
[ $ok -eq 1 ] || rc=1

rmdir $cg/uc
uc_verify memcg || rc=1
echo "UC-MEMCG-END rc=$rc"
exit $rc
