# SPDX-License-Identifier: GPL-2.0
# The cache on a two-node guest (make check boots it with --numa 2: CPU 0
# on node 0, CPU 1 on node 1, half the memory each) and the reaper off
# (unmapped_cache.reap_interval_ms=0), so that only what a step does
# changes what the cache holds.  Secret memory is the caller; the node of
# every page comes from its frame number (numa_probe reads pagemap and the
# zone spans), independent of the cache's own bookkeeping.
#   local     a process on each CPU takes 1024 pages: share on its node
#   policy    a process on CPU 0 with MPOL_BIND, MPOL_PREFERRED to node 1,
#             and MPOL_INTERLEAVE over both: the pages follow the policy,
#             and the cache handed them out (the node's
#             nr_unmapped_cache_none grew by as many pages)
#   cpuset    a process on CPU 0 in a cgroup whose cpuset allows node 1
#             only, with no memory policy: the pages come from node 1, as
#             alloc_page() would take them
#   home      1536 pages taken on CPU 1 and freed on CPU 0 go back to the
#             NONE arena of node 1, node 0's does not see them; and the
#             same on node 0 as the control
#   module    a test module loaded from CPU 1: its text, rodata and data
#             come from node 1's ROX, RO and RW arenas, none from node 0's
#             (the kernel callers allocate on the local node); and from
#             CPU 0 as the control
#   shrink    a process bound to node 1 takes memory until reclaim on
#             node 1 runs: the cache gives back blocks of node 1 and keeps
#             every block of node 0
# A KTAP result (jobs/lib.sh) for the topology and for each step.
. "$UC_DIR/jobs/lib.sh"

ktap_print_header
ktap_set_plan 11

dbg=/sys/kernel/debug/unmapped_cache
sysnode=/sys/devices/system/node
out=/run/tmp/numa
mkdir -p $out

bad() {
	ktap_print_msg "numa: $*"
}

# nvm NODE KEY: a counter of the node's vmstat, per-CPU deltas folded.
nvm() {
	echo 1 > /proc/sys/vm/stat_refresh
	awk -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print -1 }' \
		$sysnode/node$1/vmstat
}

# arena_free NODE: free pages of the NONE arena of NODE: range tree,
# magazines and depot.
arena_free() {
	awk '/pages free in tree:|pages in magazines:|pages in depot:/ { s += $NF }
	     END { print s + 0 }' $dbg/arena/none-node$1
}

# probe NAME ARGS...: numa_probe secret ARGS; its line in $pline.
probe() {
	name=$1
	shift
	"$UC_BIN/numa_probe" secret "$@" > $out/$name 2>&1 ||
		bad "$name: numa_probe failed: $(cat $out/$name)"
	pline=$(grep '^numa_probe: secret' $out/$name)
}

if [ ! -r $dbg/arena/none-node1 ] || [ ! -r $sysnode/node1/vmstat ]; then
	ktap_print_msg "$(ls $sysnode $dbg/arena 2>&1 | tr '\n' ' ')"
	ktap_exit_fail_msg "numa: needs the cache on and a second node with memory"
fi
cpu0=$(ls -d $sysnode/node*/cpu0 | sed 's|.*/node\([0-9]*\)/.*|\1|')
cpu1=$(ls -d $sysnode/node*/cpu1 | sed 's|.*/node\([0-9]*\)/.*|\1|')
nodes=$(ls -d $sysnode/node[0-9]* | wc -l)
ok=0
[ "$nodes" = 2 ] && [ "$cpu0" = 0 ] && [ "$cpu1" = 1 ] && ok=1
uc_ktap $ok "topology: 2 nodes, CPU 0 on node 0 and CPU 1 on node 1 (nodes=$nodes cpu0=$cpu0 cpu1=$cpu1)"

echo 1 > $dbg/drain

# local: each CPU's pages on its own node.
probe local0 --cpu 0 1024
l0=$pline
probe local1 --cpu 1 1024
l1=$pline
ktap_print_msg "$l0"
ktap_print_msg "$l1"
local_pages=$(( $(uc_field "$l0" node0) + $(uc_field "$l1" node1) ))
total=$(( $(uc_field "$l0" pages) + $(uc_field "$l1" pages) ))
share=$(( local_pages * 1000 / (total > 0 ? total : 1) ))
ok=0
[ $total -eq 2048 ] && [ $share -ge 990 ] && ok=1
uc_ktap $ok "local: secret pages on the allocating CPU's node, at least 99 % (pages=$total local=$local_pages permille=$share)"

# snap: the NONE arenas' free pages and the pages handed out, per node.
snap() {
	echo "$(arena_free 0) $(arena_free 1) $(nvm 0 nr_unmapped_cache_none) $(nvm 1 nr_unmapped_cache_none)"
}

# run_probe CMD...: CMD, in the cgroup $probe_cg if it is set.
probe_cg=
run_probe() {
	if [ -n "$probe_cg" ]; then
		sh -c 'echo $$ > "$0" && exec "$@"' "$probe_cg/cgroup.procs" "$@"
	else
		"$@"
	fi
}

# held NAME ARGS...: numa_probe secret --hold ARGS in the background;
# once its pages are in use, $at holds snap(); after it ended, $end does;
# the probe's line is in $pline.
held() {
	name=$1
	shift
	rm -f $out/held
	run_probe "$UC_BIN/numa_probe" secret --hold $out/held "$@" > $out/$name 2>&1 &
	pid=$!
	n=0
	while [ ! -e $out/held ] && [ $n -lt 600 ] && kill -0 $pid 2>/dev/null; do
		sleep 0.1
		n=$((n + 1))
	done
	at=$(snap)
	rm -f $out/held
	wait $pid || bad "$name: numa_probe failed: $(cat $out/$name)"
	end=$(snap)
	pline=$(grep '^numa_probe: secret' $out/$name)
}

# policy NAME ARGS...: held, and the pages the cache handed out on each
# node while they were in use (nr_unmapped_cache_none); the result in
# $line.
policy() {
	before=$(snap)
	held "$@"
	set -- $before
	b2=$3 b3=$4
	set -- $at
	line="$pline cached0=$(( $3 - b2 )) cached1=$(( $4 - b3 ))"
}

policy bind --cpu 0 --policy bind 1 512
n1=$(uc_field "$line" node1)
ok=0
[ "$n1" = 512 ] && [ "$(uc_field "$line" cached1)" = 512 ] && ok=1
uc_ktap $ok "bind: all 512 secret pages of an MPOL_BIND task on node 1 come from node 1's arena ($line)"

policy preferred --cpu 0 --policy preferred 1 512
n1=$(uc_field "$line" node1)
ok=0
[ "$n1" -ge 507 ] && [ "$(uc_field "$line" cached1)" -ge 507 ] && ok=1
uc_ktap $ok "preferred: at least 99 % of 512 secret pages of an MPOL_PREFERRED task come from node 1's arena ($line)"

policy interleave --cpu 0 --policy interleave 0,1 512
n0=$(uc_field "$line" node0)
n1=$(uc_field "$line" node1)
c0=$(uc_field "$line" cached0)
c1=$(uc_field "$line" cached1)
ok=0
[ "$n0" -ge 128 ] && [ "$n1" -ge 128 ] && [ $((n0 + n1)) = 512 ] &&
	[ $((c0 + c1)) = 512 ] && ok=1
uc_ktap $ok "interleave: 512 secret pages of an MPOL_INTERLEAVE task, at least 128 on each node, all from the cache ($line)"

# cpuset: the probe runs in a cgroup whose cpuset.mems is node 1.
cg=/sys/fs/cgroup
grep -q " $cg cgroup2 " /proc/mounts || mount -t cgroup2 none $cg
if echo +cpuset > $cg/cgroup.subtree_control && mkdir -p $cg/uc-node1 &&
   echo 1 > $cg/uc-node1/cpuset.mems; then
	probe_cg=$cg/uc-node1
	policy cpuset --cpu 0 512
	probe_cg=
	line="$line mems=$(cat $cg/uc-node1/cpuset.mems.effective)"
else
	line="no cpuset controller"
fi
ok=0
[ "$(uc_field "$line" node1)" = 512 ] && [ "$(uc_field "$line" cached1)" = 512 ] && ok=1
uc_ktap $ok "cpuset: secret pages of a task whose cpuset allows node 1 only come from node 1's arena, from CPU 0 ($line)"
rmdir $cg/uc-node1 2>/dev/null

# home ON OFF: 1536 pages taken on CPU ON, freed on CPU OFF: from the
# moment they are in use to the end, which arena's free pages grew, and
# whether the pages handed out on each node went back to what they were.
home() {
	before=$(snap)
	held home$1 --cpu $1 --free-on $2 1536
	set -- $before
	u0=$3 u1=$4
	set -- $at
	a0=$1 a1=$2
	set -- $end
	line="$pline back0=$(( $1 - a0 )) back1=$(( $2 - a1 )) live0=$(( $3 - u0 )) live1=$(( $4 - u1 ))"
}
home 1 0
ok=0
[ "$(uc_field "$line" node1)" = 1536 ] && [ "$(uc_field "$line" back1)" = 1536 ] &&
	[ "$(uc_field "$line" back0)" = 0 ] &&
	[ "$(uc_field "$line" live0)" = 0 ] && [ "$(uc_field "$line" live1)" = 0 ] && ok=1
uc_ktap $ok "home1: node 1 pages freed on CPU 0 go back to node 1's arena, none to node 0's ($line)"
home 0 1
ok=0
[ "$(uc_field "$line" node0)" = 1536 ] && [ "$(uc_field "$line" back0)" = 1536 ] &&
	[ "$(uc_field "$line" back1)" = 0 ] &&
	[ "$(uc_field "$line" live0)" = 0 ] && [ "$(uc_field "$line" live1)" = 0 ] && ok=1
uc_ktap $ok "home0: control: node 0 pages freed on CPU 1 go back to node 0's arena, none to node 1's ($line)"

# module ON: uc_testmod_a loaded from CPU ON; while it is loaded, the
# pages each node's ROX, RO and NONE caches have handed out, against
# before (data and ro_after_init data are NONE pages mapped for execmem).
modstep() {
	before=""
	for k in rox ro none; do
		before="$before $(nvm 0 nr_unmapped_cache_$k) $(nvm 1 nr_unmapped_cache_$k)"
	done
	if ! taskset -c "$1" insmod "$UC_DIR/modules/uc_testmod_a.ko"; then
		bad "module$1: insmod from CPU $1 failed"
		line="cpu=$1 insmod=failed"
		return
	fi
	set -- "$1" $before
	line="cpu=$1"
	shift
	for k in rox ro none; do
		line="$line ${k}0=+$(( $(nvm 0 nr_unmapped_cache_$k) - $1 ))"
		line="$line ${k}1=+$(( $(nvm 1 nr_unmapped_cache_$k) - $2 ))"
		shift 2
	done
	rmmod uc_testmod_a || { bad "module: rmmod failed"; line="$line rmmod=failed"; }
}
for on in 1 0; do
	off=$((1 - on))
	modstep $on
	ok=1
	for k in rox ro none; do
		v=$(uc_field "$line" $k$on)
		v=${v#+}
		w=$(uc_field "$line" $k$off)
		w=${w#+}
		# The other node hands out nothing; it may take back pages
		# freed meanwhile (deferred unmaps of execmem memory).
		[ "${v:-0}" -gt 0 ] 2>/dev/null && [ "${w:-1}" -le 0 ] 2>/dev/null || ok=0
	done
	case "$line" in *rmmod=failed*) ok=0 ;; esac
	uc_ktap $ok "module$on: a module loaded from CPU $on takes its text, rodata and data from node $on's caches, none from node $off's ($line)"
done

# shrink: reclaim on node 1 only.  Both nodes' arenas hold free blocks now.
h0=$(nvm 0 nr_unmapped_cache_held)
h1=$(nvm 1 nr_unmapped_cache_held)
f0=$(arena_free 0)
f1=$(arena_free 1)
hline=$("$UC_BIN/numa_probe" hog --node 1 --until-held-drops 2>&1)
hrc=$?
g0=$(nvm 0 nr_unmapped_cache_held)
g1=$(nvm 1 nr_unmapped_cache_held)
ktap_print_msg "$hline"
ok=0
[ $hrc = 0 ] && [ $f0 -ge 1024 ] && [ $f1 -ge 1024 ] && [ $g1 -lt $h1 ] &&
	[ $g0 -ge $h0 ] && ok=1
uc_ktap $ok "shrink: reclaim on node 1 gives back node 1's blocks and keeps node 0's (free0=$f0 free1=$f1 held0=$h0:$g0 held1=$h1:$g1 hog_rc=$hrc)"
ktap_print_msg "$(grep -E '^(nr_unmapped_cache|unmapped_cache)' /proc/vmstat | tr '\n' ' ')"
ktap_finished
