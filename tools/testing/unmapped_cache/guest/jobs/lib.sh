# SPDX-License-Identifier: GPL-2.0
# Helpers for guest jobs.  Source it.

# vmstat KEY: value of a /proc/vmstat counter (0 if the kernel lacks it).
vmstat() {
	awk -v k="$1" '$1 == k { print $2; found = 1 } END { if (!found) print 0 }' /proc/vmstat
}

# meminfo KEY: value of a /proc/meminfo line, in kB (0 if absent).
meminfo() {
	awk -v k="$1:" '$1 == k { print $2; found = 1 } END { if (!found) print 0 }' /proc/meminfo
}

# uc_stat NAME: a counter of /sys/kernel/debug/unmapped_cache/blocks (0 if absent).
uc_stat() {
	f=/sys/kernel/debug/unmapped_cache/blocks
	[ -r $f ] || { echo 0; return; }
	awk -F': ' -v k="$1" '$1 == k { print $2; found = 1 } END { if (!found) print 0 }' $f
}

# The figures every workload reports, as KEY=VALUE words.  tlb (kernel TLB
# flushes) only while the uc_tlbcount test module is loaded.
uc_snapshot() {
	echo "l2=$(vmstat direct_map_level2_splits)" \
	     "l3=$(vmstat direct_map_level3_splits)" \
	     "dm4k=$(meminfo DirectMap4k)" \
	     "dm2m=$(meminfo DirectMap2M)" \
	     "dm1g=$(meminfo DirectMap1G)" \
	     "blocks=$(uc_stat 'blocks grabbed')"
	f=/sys/kernel/debug/uc_tlbcount/flushes
	[ -r $f ] && echo "tlb=$(cat $f)"
}

# uc_measure NAME CMD...: run CMD and print one line
#   UC-FIG name=NAME rc=RC KEY=BEFORE:AFTER ...
# that the host parses into its tables.
uc_measure() {
	name=$1
	shift
	before=$(uc_snapshot)
	"$@"
	rc=$?
	after=$(uc_snapshot)
	line="UC-FIG name=$name rc=$rc"
	for b in $before; do
		k=${b%%=*}
		a=$(echo "$after" | tr ' ' '\n' | sed -n "s/^$k=//p")
		line="$line $k=${b#*=}:$a"
	done
	echo "$line"
	return $rc
}
