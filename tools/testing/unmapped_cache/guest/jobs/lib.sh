# SPDX-License-Identifier: GPL-2.0
# Helpers for guest jobs.  Source it.

# Results in KTAP, with the kernel's helpers for shell selftests
# (tools/testing/selftests/kselftest/ktap_helpers.sh, in $UC_KSFT): a job
# that reports so prints ktap_print_header and ktap_set_plan N, one
# ktap_test_pass or ktap_test_fail per check (the description says what
# was checked, with its figures; no glob characters), and ends with
# ktap_finished, which exits 0 only if every planned check passed.  The
# host counts each result once (devtools/check.sh, ktap_job).
if [ -r "$UC_KSFT/ktap_helpers.sh" ]; then
	. "$UC_KSFT/ktap_helpers.sh"
fi
# uc_ktap OK DESC: the result DESC, passed if OK is 1.
uc_ktap() {
	if [ "$1" = 1 ]; then ktap_test_pass "$2"; else ktap_test_fail "$2"; fi
}

# uc_subtest DESC CMD...: run CMD, a job that prints its own KTAP, as a
# subtest of this one (its output indented), then the result DESC, passed
# if CMD exited 0 (ktap_finished's status: every planned check passed).
uc_subtest() {
	local desc=$1
	shift
	{ "$@"; echo $? > /run/tmp/subtest.rc; } 2>&1 | sed 's/^/    /'
	[ "$(cat /run/tmp/subtest.rc)" = 0 ]
	uc_ktap $((! $?)) "$desc"
}

# uc_seed: the seed of this run's random choices, uc.seed= on the kernel
# command line (make check passes UC_SEED), 1 without one.  The init
# prints it on its UC-BEGIN line.
uc_seed() {
	sed -n 's/.*uc\.seed=\([0-9]*\).*/\1/p' /proc/cmdline | grep . || echo 1
}

# uc_cache_mode: "on" if the cache runs (its debugfs statistics are
# there), "off" if the kernel was booted with unmapped_cache=off.
uc_cache_mode() {
	if [ -r /sys/kernel/debug/unmapped_cache/blocks ]; then echo on; else echo off; fi
}

# uc_arg NAME DEFAULT: the value of NAME=VALUE on the kernel command line
# (make check passes smaller workload sizes that way), else DEFAULT.
uc_arg() {
	sed -n "s/.*[[:space:]]$1=\([^[:space:]]*\).*/\1/p" /proc/cmdline | grep . || echo "$2"
}

# vmstat KEY: value of a /proc/vmstat counter (0 if the kernel lacks it).
vmstat() {
	awk -v k="$1" '$1 == k { print $2; found = 1 } END { if (!found) print 0 }' /proc/vmstat
}

# wait_ready FILE PID SECONDS: wait until the process PID created FILE
# (it is holding what it set up); fails if it died or took too long.
wait_ready() {
	i=0
	while [ ! -e "$1" ] && [ $i -lt "$3" ] && kill -0 "$2" 2>/dev/null; do
		sleep 1
		i=$((i + 1))
	done
	[ -e "$1" ]
}

# uc_free_2m [ZONE...]: free 2 MiB blocks (order-9 pages, and 2 per
# order-10 page) in the named zones of /proc/buddyinfo, every zone without
# one.  Fields 14 and 15 are orders 9 and 10 (busybox awk has no "^").
uc_free_2m() {
	awk -v zones="${*:+ $* }" '$3 == "zone" && NF >= 15 &&
		(zones == "" || index(zones, " " $4 " ")) { n += $14 + 2 * $15 }
		END { print n + 0 }' /proc/buddyinfo
}

# meminfo KEY: value of a /proc/meminfo line, in kB (0 if absent).
meminfo() {
	awk -v k="$1:" '$1 == k { print $2; found = 1 } END { if (!found) print 0 }' /proc/meminfo
}

# uc_field LINE KEY: the value of the word KEY=VALUE in LINE.
uc_field() {
	echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# uc_stat NAME: a counter of /sys/kernel/debug/unmapped_cache/blocks (0 if absent).
uc_stat() {
	f=/sys/kernel/debug/unmapped_cache/blocks
	[ -r $f ] || { echo 0; return; }
	awk -F': ' -v k="$1" '$1 == k { print $2; found = 1 } END { if (!found) print 0 }' $f
}

# The cache's count of calls refused as bad input when the job started.
UC_BAD_CALLS0=$(uc_stat 'bad calls refused')

# uc_footprint NAME: the cache's memory where an administrator sees it, once
# vm.stat_refresh has folded the per-CPU deltas, next to what debugfs
# says (pages):
#   UC-FOOTPRINT name=NAME held_kb=(meminfo UnmappedCache)
#     held= none= ro= rox= rw=       (/proc/vmstat nr_unmapped_cache_*)
#     in= out= refill_failed=        (its unmapped_cache_* events)
#     dbg_held= (blocks held x 512) dbg_none= dbg_ro= dbg_rox= dbg_rw=
#     (pages live in the caches of each permission, debugfs "caches")
uc_footprint() {
	[ -r /sys/kernel/debug/unmapped_cache/caches ] || return 0
	echo 1 > /proc/sys/vm/stat_refresh
	line="UC-FOOTPRINT name=$1 held_kb=$(meminfo UnmappedCache)"
	for k in held none ro rox rw; do
		line="$line $k=$(vmstat nr_unmapped_cache_$k)"
	done
	line="$line in=$(vmstat unmapped_cache_blocks_in)"
	line="$line out=$(vmstat unmapped_cache_blocks_out)"
	line="$line refill_failed=$(vmstat unmapped_cache_refill_failed)"
	line="$line dbg_held=$(( $(uc_stat 'blocks held') * 512 ))"
	echo "$line $(awk '{ p[$(NF - 2)] += substr($NF, 7) }
		END { printf "dbg_none=%d dbg_ro=%d dbg_rox=%d dbg_rw=%d",
		      p["none"], p["ro"], p["rox"], p["rw"] }' \
		/sys/kernel/debug/unmapped_cache/caches)" | tee -a /run/tmp/footprint.all
}

# The figures every workload reports, as KEY=VALUE words: splits, DirectMap
# sizes (kB), blocks grabbed and held by the cache, its refills that needed
# direct compaction (compact) or failed (rfail), the uptime t in 1/100 s,
# and tlb (kernel TLB flushes) while the uc_tlbcount test module is loaded.
uc_snapshot() {
	echo "l2=$(vmstat direct_map_level2_splits)" \
	     "l3=$(vmstat direct_map_level3_splits)" \
	     "compact=$(vmstat unmapped_cache_refill_compact)" \
	     "rfail=$(vmstat unmapped_cache_refill_failed)" \
	     "dm4k=$(meminfo DirectMap4k)" \
	     "dm2m=$(meminfo DirectMap2M)" \
	     "dm1g=$(meminfo DirectMap1G)" \
	     "blocks=$(uc_stat 'blocks grabbed')"
	f=/sys/kernel/debug/uc_tlbcount/flushes
	[ -r $f ] && echo "tlb=$(cat $f)"
	echo "held=$(uc_stat 'blocks held')" \
	     "t=$(awk '{ printf "%d", $1 * 100 }' /proc/uptime)"
}

# uc_sampler: print "UC-TS phase=PHASE KEY=VALUE..." every 2 s in the
# background (the timeline of make run's plot); PHASE is what
# uc_measure last started.  Stop it with: kill "$UC_SAMPLER".
uc_sampler() {
	echo start > /run/tmp/uc.phase
	UC_SAMPLER=
	# Only when asked (kernel parameter uc.sample=1, which make run gives):
	# a sample forks a dozen processes, which under TCG takes CPU from the
	# workloads, and the debug and RT kernels' boots of make check most.
	grep -q 'uc.sample=1' /proc/cmdline || return 0
	while :; do
		echo "UC-TS phase=$(cat /run/tmp/uc.phase) $(uc_snapshot | tr '\n' ' ')"
		sleep 2
	done &
	UC_SAMPLER=$!
}

# uc_verify NAME: with the cache on, check that no call was refused as bad
# input since the job started (bad_calls=+0), and every block it holds (no page
# with a present direct-map entry, W^X and the arena's permission in the
# module area) and every execmem mapping it made (no page W+X, none
# present in the direct map), and print
#   UC-VERIFY name=NAME blocks=.. pages=.. dm_present=0 wx=0 ...
#             vmaps=.. vmap_pages=.. vmap_exec=.. vmap_dm_present=0 vmap_wx=0
# Fails if any of the counts after "pages" but vmaps, vmap_pages and
# vmap_exec is not 0, or if the vmap fields are missing.
uc_verify() {
	local v bad
	[ -r /sys/kernel/debug/unmapped_cache/verify ] || return 0
	v=$(cat /sys/kernel/debug/unmapped_cache/verify)
	bad=$(( $(uc_stat 'bad calls refused') - UC_BAD_CALLS0 ))
	echo "UC-VERIFY name=$1 $v bad_calls=+$bad" | tee -a /run/tmp/verify.all
	# A refused call warns once per call site and boot: after the KUnit
	# bad-input cases (which run before any job) the same bug in a caller
	# would be silent but for this count.
	[ "$bad" -eq 0 ] || { echo "uc_verify: $1: $bad call(s) refused as bad input since the job started"; return 1; }
	case "$v" in
	*dm_present=0\ wx=0\ ro_writable=0\ rw_exec=0\ *) ;;
	*) echo "uc_verify: $1: a cache page is mapped where it must not be"; return 1 ;;
	esac
	case "$v" in
	*\ vmap_dm_present=0\ vmap_wx=0*) return 0 ;;
	*) echo "uc_verify: $1: an execmem mapping breaks W^X or is present in the direct map"; return 1 ;;
	esac
}

# uc_measure NAME CMD...: run CMD and print one line
#   UC-FIG name=NAME rc=RC KEY=BEFORE:AFTER ...
# that the host parses into its tables (also kept in /run/tmp/fig.NAME
# for the job); then uc_verify NAME.
uc_measure() {
	# Local: the jobs keep their own rc, name... (a global rc here once
	# reset a job's failed status to the next workload's 0).
	local name=$1 rc before after line b k a
	shift
	echo "$name" > /run/tmp/uc.phase
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
	echo "$line" | tee "/run/tmp/fig.$name"
	uc_verify "$name" || rc=1
	return $rc
}

# text_share MODULE: how many pages of MODULE's text hold a function
# (/proc/kallsyms) and how many of those lie in an executable 2M mapping
# of the module area (CONFIG_PTDUMP_DEBUGFS).  Module-area addresses share
# their upper 32 bits, so the lower 32 are compared.
text_share() {
	awk -v mod="[$1]" '
	function h(x,  i, v) {
		x = tolower(substr(x, length(x) - 7)); v = 0
		for (i = 1; i <= 8; i++)
			v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
		return v
	}
	FNR == NR {
		if ($0 ~ /---\[ Modules \]---/) m = 1
		else if ($0 ~ /---\[ End Modules \]---/) m = 0
		else if (m && / x  (pmd|pte)$/) {
			split($1, r, "-"); n++; s[n] = h(r[1]); e[n] = h(r[2]); l[n] = $NF
		}
		next
	}
	$NF == mod && ($2 == "t" || $2 == "T") {
		a = h($1); pg = int(a / 4096)
		if (pg in seen) next
		seen[pg] = 1; tot++
		for (i = 1; i <= n; i++)
			if (a >= s[i] && a < e[i]) { if (l[i] == "pmd") big++; break }
	}
	END { printf "text_pages=%d text_pages_2m=%d\n", tot, big }
	' /sys/kernel/debug/page_tables/kernel /proc/kallsyms
}
