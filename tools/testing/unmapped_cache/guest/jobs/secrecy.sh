# SPDX-License-Identifier: GPL-2.0
# Secrecy end to end: secret pages read as zeroes on first touch, whatever
# the cache did with them since their last owner wrote them.  Every step
# runs 4 processes that each map UC_SECRECY_PAGES (default 1024) pages of
# memfd_secret memory, read every page before writing it
# (secretmem_fault --check-zero), then fill it with a pattern of their own
# (a tag per process and step, never 0), and exit, freeing the pages for
# the next step.  The steps, each after the previous one's pages were
# freed:
#   fresh     first touch of the job (evidence: every page the processes
#             freed was given back to the cache by the page cache, and so
#             cleared, by the time the processes had exited: no wait)
#   refault   the pages come back through the magazines (evidence:
#             magazine alloc hits of the NONE arenas grew)
#   drain     after "echo 1 > drain" (evidence: blocks released grew,
#             no page left in the NONE arenas' magazines)
#   hotplug   written and freed on CPU 1, which then goes offline and
#             online again before the pages are faulted (on CPU 1 again)
#             (evidence: the CPU went offline and came back)
#   pressure  after a memory hog and drop_caches made the shrinker give
#             blocks back (evidence: blocks released grew)
#   newblock  after a drain gave every free block back, enough pages to
#             need new blocks (evidence: blocks released, then blocks
#             grabbed grew)
# Each step is a KTAP result (jobs/lib.sh), with its evidence:
#   ok N cache on|off: STEP: N secret pages read as zeroes on first touch [KEY=VALUE...]
# and fails if a process failed, a page was not zero, or the step's
# evidence is missing; with the cache on, two more: fresh's pages were
# all given back and cleared by the page cache, and uc_verify.  The periodic reaper is off meanwhile,
# so that blocks go back only when a step makes them.  With
# unmapped_cache=off the steps run the same on the stock secretmem path
# (which zeroes pages too) and only the CPU evidence is checked.
# Needs 2 CPUs or more.
. "$UC_DIR/jobs/lib.sh"

ktap_print_header

dbg=/sys/kernel/debug/unmapped_cache
reap=/sys/module/unmapped_cache/parameters/reap_interval_ms
cpu1=/sys/devices/system/cpu/cpu1/online
pages=${UC_SECRECY_PAGES:-1024}
procs=4
cache=$(uc_cache_mode)
if [ $cache = on ]; then ktap_set_plan 9; else ktap_set_plan 7; fi
ktap_print_msg "cache=$cache procs=$procs pages_per_proc=$pages cpus=$(grep -c ^processor /proc/cpuinfo)"

# none_stat NAME: counter NAME summed over the NONE arenas (0 if off).
none_stat() {
	[ -r $dbg/arenas ] || { echo 0; return; }
	awk -v k="$1" '/^arena / { a = $2 }
		a == "none" { l = $0; sub(/^ */, "", l)
			      if (index(l, k ": ") == 1) { sub(/.*: /, "", l); s += l } }
		END { print s + 0 }' $dbg/arenas
}

# fault [CPU]: $procs processes (pinned to CPU if given) each read $pages
# fresh secret pages, then write and check them; sets FAULTED and NONZERO.
# Fails if a process failed.
tag=0
fault() {
	pids=
	rm -f /run/tmp/secrecy.out.*
	for p in $(seq 1 $procs); do
		tag=$((tag + 1))
		if [ -n "$1" ]; then
			taskset -c "$1" "$UC_BIN/secretmem_fault" --check-zero \
				--tag $tag "$pages" > "/run/tmp/secrecy.out.$p" 2>&1 &
		else
			"$UC_BIN/secretmem_fault" --check-zero --tag $tag "$pages" \
				> "/run/tmp/secrecy.out.$p" 2>&1 &
		fi
		pids="$pids $!"
	done
	r=0
	for pid in $pids; do wait "$pid" || r=1; done
	cat /run/tmp/secrecy.out.* | grep -v 'pages faulted' | sed 's/^/# /'
	FAULTED=$(cat /run/tmp/secrecy.out.* | sed -n 's/.*: \([0-9]*\) pages faulted.*/\1/p' |
		  awk '{ s += $1 } END { print s + 0 }')
	NONZERO=$(cat /run/tmp/secrecy.out.* | sed -n 's/.*nonzero=\([0-9]*\).*/\1/p' |
		  awk '{ s += $1 } END { print s + 0 }')
	[ "$FAULTED" -eq $((procs * pages)) ] || r=1
	return $r
}

# report STEP OK KEY=VALUE...: the step's evidence (one word per
# argument); the step fails unless the processes succeeded (OK=0) and saw
# only zeroes.  need adds evidence to check; step_result prints the
# step's KTAP result.
bad=0
report() {
	step=$1 ok=$2
	shift 2
	evidence=
	for w in "$@"; do
		# Off, the cache's counters do not exist: keep the CPU's only.
		case "$cache,$w" in on,*|off,offline=*|off,online=*) evidence="$evidence $w" ;; esac
	done
	if [ "$ok" -ne 0 ] || [ "$NONZERO" -ne 0 ]; then
		ktap_print_msg "$step: a process failed or a page was not zero at first touch"
		bad=1
	fi
}
step_result() {
	d="cache $cache: $step: $FAULTED secret pages read as zeroes on first touch"
	d="$d (nonzero=$NONZERO$evidence)"
	if [ $bad -eq 0 ]; then ktap_test_pass "$d"; else ktap_test_fail "$d"; fi
	bad=0
}

# need STEP WHAT CONDITION...: check a piece of evidence (cache on only).
need() {
	step=$1 what=$2
	shift 2
	[ $cache = on ] || return 0
	if ! test "$@"; then
		ktap_print_msg "$step: no evidence: $what"
		bad=1
	fi
}

old_reap=$(cat $reap 2>/dev/null)
[ -n "$old_reap" ] && echo 0 > $reap

# The processes' pages leave the page cache at the memfd's final fput,
# before wait returns; secretmem's free_folio() gives each back to the
# cache, which clears it there: read the counter at once.
put0=$(uc_stat 'pages given back by their page cache')
grabbed0=$(uc_stat 'blocks grabbed')
fault; ok=$?
put=$(( $(uc_stat 'pages given back by their page cache') - put0 ))
report fresh $ok "grabbed=+$(( $(uc_stat 'blocks grabbed') - grabbed0 ))"
step_result
if [ $cache = on ]; then
	d="cache on: fresh: all $put of the $FAULTED freed secret pages were given back and cleared"
	d="$d when they left the page cache, before the processes' exit completed"
	if [ "$put" -eq "$FAULTED" ] && [ "$put" -gt 0 ]; then
		ktap_test_pass "$d"
	else
		ktap_test_fail "$d"
	fi
fi

# (a) Plain re-fault: the pages freed above come from the magazines.
hits0=$(none_stat 'magazine alloc hits')
fault; ok=$?
hits=$(( $(none_stat 'magazine alloc hits') - hits0 ))
report refault $ok "mag_hits=+$hits"
need refault "no page came from a magazine" "$hits" -gt 0
step_result

# (b) After a drain: magazines emptied, depot
# emptied, every block without a live chunk given back.
released0=$(uc_stat 'blocks released')
grabbed0=$(uc_stat 'blocks grabbed')
echo 1 > $dbg/drain 2>/dev/null
released=$(( $(uc_stat 'blocks released') - released0 ))
mags=$(none_stat 'pages in magazines')
fault; ok=$?
report drain $ok "released=+$released" "mag_pages_after_drain=$mags" \
	"grabbed=+$(( $(uc_stat 'blocks grabbed') - grabbed0 ))"
need drain "the drain released no block" "$released" -gt 0
need drain "pages left in the magazines after the drain" "$mags" -eq 0
step_result

# (c) CPU hotplug between writing and re-faulting: the pages are written
# and freed on CPU 1, whose magazines go to the depot when it dies.
fault 1; ok=$?
report hotplug-write $ok
step_result
mags_before=$(none_stat 'pages in magazines')
offline=no online=no
if [ -w $cpu1 ] && echo 0 > $cpu1 && [ "$(cat $cpu1)" = 0 ]; then
	offline=yes
	mags_offline=$(none_stat 'pages in magazines')
	echo 1 > $cpu1 && [ "$(cat $cpu1)" = 1 ] && online=yes
fi
fault 1; ok=$?
report hotplug $ok "offline=$offline" "online=$online" \
	"mag_pages_before=$mags_before" "mag_pages_offline=${mags_offline:--}"
if [ $offline != yes ] || [ $online != yes ]; then
	ktap_print_msg "hotplug: no evidence: CPU 1 did not go offline and back online"
	bad=1
fi
step_result

# (d) Memory pressure: the shrinker gives blocks back (drop_caches runs
# every shrinker as well, as in jobs/pressure.sh).
released0=$(uc_stat 'blocks released')
"$UC_BIN/hog" 90
echo 3 > /proc/sys/vm/drop_caches
released=$(( $(uc_stat 'blocks released') - released0 ))
fault; ok=$?
report pressure $ok "released=+$released"
need pressure "the shrinker released no block" "$released" -gt 0
step_result

# (e) Blocks go back, new ones come: drain, then fault more pages than a
# block holds.
released0=$(uc_stat 'blocks released')
echo 1 > $dbg/drain 2>/dev/null
released=$(( $(uc_stat 'blocks released') - released0 ))
grabbed0=$(uc_stat 'blocks grabbed')
fault; ok=$?
grabbed=$(( $(uc_stat 'blocks grabbed') - grabbed0 ))
report newblock $ok "released=+$released" "grabbed=+$grabbed"
need newblock "the drain released no block" "$released" -gt 0
need newblock "no new block was grabbed" "$grabbed" -gt 0
step_result

[ -n "$old_reap" ] && echo "$old_reap" > $reap
[ $cache = off ] ||
	ktap_test_result "cache on: verify: no page of the cache mapped where it must not be, no bad call refused" \
		uc_verify secrecy
ktap_finished
