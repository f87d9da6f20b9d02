#!/usr/bin/env bash
# The test command (make check): host checks, kernel build, lint of the
# kernel files, KUnit in QEMU, and guest jobs.
#
# Two kinds of result are counted apart: build and lint steps ("BUILD
# PASS/FAIL", summed on the line "build and lint: N passed, N failed")
# and behavioural checks (the range-tree harness, each KUnit case once
# with its verdict on each kernel that ran it, each KTAP result of a
# guest job: "PASS/FAIL", summed on the last line, "N passed, N failed").
# The exit status is non-zero if anything failed.  The guest jobs decide
# their own checks (tools/testing/unmapped_cache/guest/jobs/*.sh, whose
# headers say what each does); the host boots them, parses their KTAP and
# the KUnit results with the kernel's kunit_parser (devtools/ktap.py),
# and scans every console log for splats (devtools/splats.py): a log
# that is empty or ends before the job's result line, or any splat but
# the bad-input cases' own warnings, fails.
#
# UC_SEED (default: random, printed first) seeds the range-tree harness
# and the guests' workloads; "UC_SEED=N make check" replays a run.
# UC_CHECK_ONLY=host,kunit,callers,... runs only those sections (the
# sec_* functions below), for a developer's quicker turn; the summary
# then says the run was partial.  The distro and peers sections run only
# when it names them (make distro-check, make peer-check): they do not
# fit make check's time budget.
#
# Logs are under $UC_CACHE/logs and $UC_CACHE/guest/logs.
. "$(dirname "$0")/common.sh"

passed=0 failed=0 bpassed=0 bfailed=0
pass() { passed=$((passed + 1)); printf 'PASS %s\n' "$*"; }
fail() { failed=$((failed + 1)); printf 'FAIL %s\n' "$*"; }
bpass() { bpassed=$((bpassed + 1)); printf 'BUILD PASS %s\n' "$*"; }
bfail() { bfailed=$((bfailed + 1)); printf 'BUILD FAIL %s\n' "$*"; }
# run_quiet RESULT_FN_PASS RESULT_FN_FAIL NAME CMD...: run CMD quietly,
# report through the given functions; on failure show its last lines.
run_quiet() {
	local okf=$1 badf=$2 name=$3 out
	shift 3
	if out=$("$@" 2>&1); then
		$okf "$name"
	else
		$badf "$name"
		printf '%s\n' "$out" | tail -n 30 | sed 's/^/    /'
	fi
}
# check NAME CMD...: a behavioural check; lint NAME CMD...: a build or lint step.
check() { run_quiet pass fail "$@"; }
lint() { run_quiet bpass bfail "$@"; }

# The KUnit cases every KUnit boot must report, one "suite.case[.param]"
# per line: a case that disappears, or appears without being listed,
# fails.
UC_KUNIT_MANIFEST=$UC_ROOT/tools/testing/unmapped_cache/kunit.manifest

# kunit_results KERNEL LOG: the verdict of each KUnit case of a console
# log, with a case missing from it or not in the manifest, and an
# incomplete output (a crash), as a failure of that case; kept in
# $UC_CACHE/logs/kunit-verdicts/KERNEL and counted once per case, over
# all the kernels that ran KUnit, by kunit_verdicts.  A boot with no
# KUnit result at all fails at once.
kunit_results() {
	local kernel=$1 log=$2 out=$UC_CACHE/logs/kunit-verdicts/$1
	mkdir -p "${out%/*}"
	python3 "$UC_ROOT/devtools/ktap.py" --manifest "$UC_KUNIT_MANIFEST" "$log" |
		grep -E '^(PASS|FAIL|SKIP|INCOMPLETE|MISSING|UNLISTED) ' > "$out"
	if [ -s "$out" ]; then
		echo "    KUnit on the $kernel kernel: $(grep -c '^PASS ' "$out") of $(grep -c . "$out") cases passed (counted once per case at the end)"
	else
		fail "KUnit on the $kernel kernel: no KUnit result at all (log: $log)"
	fi
}
# kunit_verdicts: one PASS or FAIL per KUnit case, with each kernel's
# verdict: it passes if it passed on every kernel that ran KUnit.
kunit_verdicts() {
	local dir=$UC_CACHE/logs/kunit-verdicts
	[ -d "$dir" ] || return 0
	awk '{ st = $1; sub(/^[A-Z]+ /, ""); k = FILENAME; sub(/.*\//, "", k)
	       if (!($0 in seen)) { seen[$0] = 1; order[n++] = $0 }
	       v[$0] = v[$0] " " k "=" st; if (st != "PASS") bad[$0] = 1 }
	     END { for (i = 0; i < n; i++) printf "%s kunit: %s (%s)\n",
		   (order[i] in bad) ? "FAIL" : "PASS", order[i], substr(v[order[i]], 2) }' \
		$(ls "$dir" | sort | sed "s|^|$dir/|")
}
# ktap_job LABEL LOG: one pass or fail per result of the KTAP that a
# guest job printed (jobs/lib.sh; read by devtools/ktap.py, with the
# kernel's kunit_parser): a failed or skipped check, a result missing from
# the plan and a log without KTAP all fail.  The job's exit status
# (job_rc, ktap_finished's) must agree.
ktap_job() {
	local label=$1 log=$2 st name n=0 bad=0
	while read -r st name; do
		case "$st" in
		PASS)	pass "guest: $label: $name" ;;
		FAIL|SKIP|INCOMPLETE)
			fail "guest: $label: $st $name (log: $log)"
			bad=1 ;;
		*)	continue ;;
		esac
		n=$((n + 1))
	done < <(python3 "$UC_ROOT/devtools/ktap.py" --job "$log")
	if [ $n -eq 0 ]; then
		fail "guest: $label: no KTAP result (status $job_rc, log: $log)"
	elif [ $bad -eq 0 ] && [ "$job_rc" -ne 0 ]; then
		fail "guest: $label: every result passed, but the job ended with status $job_rc (log: $log)"
	fi
}

# KUnit cases that call the cache with bad arguments on purpose: the
# cache's own WARN_ON_ONCE()s are expected there and nowhere else, and
# each of them must have produced at least one (splats.py).
UC_WARNING_CASES=block_release_refuses_foreign_and_busy,arena_large_chunk,arena_bad_input_is_refused,callers_stray_put_is_repaired,bad_input_is_refused,pm_secret_pages_stay_out_of_hibernation
splat_opts=()

# splat_scan LABEL LOG [splats.py options]: the console log is complete
# (the job printed its result) and has no splat but the expected ones.
splat_scan() {
	local label=$1 log=$2
	shift 2
	check "$label: complete console log, no splat" \
		python3 "$UC_ROOT/devtools/splats.py" --complete "$@" "$log"
}

# run_job LABEL JOB LOGNAME [qemu-run.sh options]: boot JOB (log
# $UC_GUEST/logs/LOGNAME.log) with guest(), or UC_BOOT=guest_mttcg,
# count its KTAP results (and the KUnit cases' with --kunit), show its
# "# figures:" lines, scan its log (with the splats.py options in the
# array splat_opts, which it empties).
run_job() {
	local label=$1 job=$2
	log=$UC_GUEST/logs/$3.log
	shift 3
	mttcg_note=""
	${UC_BOOT:-guest} "$label" "$log" "$@" "$job"
	ktap_job "$label${mttcg_note:+ (${mttcg_note#; })}" "$log"
	[[ " $* " != *" --kunit "* ]] || kunit_results "${UC_VARIANT:-main}" "$log"
	grep -a '^# figures: ' "$log" | tr -d '\r' | sed "s/^# /    $label: /"
	splat_scan "guest: $label" "$log" "${splat_opts[@]}"
	splat_opts=()
}
# run_off_on LABEL JOB [qemu-run.sh options]: run_job with the cache off
# (unmapped_cache=off), then on.
run_off_on() {
	local label=$1 job=$2
	shift 2
	run_job "$label, cache off" "$job" "$job-off" "$@" --append unmapped_cache=off
	run_job "$label, cache on" "$job" "$job-on" "$@"
}

# guest LABEL LOG [qemu-run.sh options] JOB: boot a job; sets job_rc.
guest() {
	local label=$1 log=$2
	shift 2
	local start=$(date +%s)
	uc_log "$label"
	"$UC_ROOT/devtools/qemu-run.sh" --log "$log" "$@"
	job_rc=$?
	phase_time "guest: $label" "$start"
	# A kernel message can cut a line of the job in two on the shared
	# serial console: move it out (the original stays as $log.raw).
	[ ! -f "$log" ] || python3 "$UC_ROOT/devtools/console-lines.py" "$log"
}

# guest_mttcg LABEL LOG [qemu-run.sh options] JOB: guest() under
# multi-threaded TCG (a host thread per vCPU).  QEMU then now and then
# executes a stale int3 early in boot, on the stock kernel as well
# (qemu-run.sh): a guest that dies that way before its job or KUnit
# starts is booted once more.  Sets job_rc, and mttcg_note to what the
# result line should say about it (empty if one boot did).
guest_mttcg() {
	local log=$2 tries=0
	mttcg_note=""
	while :; do
		UC_QEMU_ACCEL=tcg,thread=multi guest "$@"
		tries=$((tries + 1))
		if [ $job_rc -eq 125 ] && [ $tries -eq 1 ] && grep -aq 'int3' "$log" &&
		   ! grep -aq 'Subtest: unmapped_cache\|UC-BEGIN' "$log"; then
			cp "$log" "$log.boot-crash"
			mttcg_note="; booted twice, the first died of QEMU's int3 race at boot: $log.boot-crash"
			continue
		fi
		break
	done
}

# want SECTION: is SECTION part of this run (UC_CHECK_ONLY)?  An
# optional section only if UC_CHECK_ONLY names it.
UC_OPTIONAL_SECTIONS="distro peers"
want() {
	case " $UC_OPTIONAL_SECTIONS " in *" $1 "*) [ -n "$UC_CHECK_ONLY" ] || return 1 ;; esac
	[ -z "$UC_CHECK_ONLY" ] || case ",$UC_CHECK_ONLY," in *",$1,"*) ;; *) false ;; esac
}
# count_lane NAME: print a lane's results and add them to the counts.
count_lane() {
	local out=$UC_CACHE/logs/lane-$1.out
	[ -f "$out" ] || return 0
	cat "$out"
	passed=$((passed + $(grep -c '^PASS ' "$out")))
	failed=$((failed + $(grep -c '^FAIL ' "$out")))
	bpassed=$((bpassed + $(grep -c '^BUILD PASS ' "$out")))
	bfailed=$((bfailed + $(grep -c '^BUILD FAIL ' "$out")))
}
finish() {
	# The host checks' lane, if the run stopped before it was counted.
	if [ -n "$host_lane" ]; then
		wait "$host_lane"
		host_lane=
		count_lane host
	fi
	if [ -s "$UC_CACHE/logs/phases" ]; then
		echo "phase times (seconds, wall clock; the two guest lanes and the"
		echo "background builds overlap):"
		sed 's/^/    /' "$UC_CACHE/logs/phases"
	fi
	# Whether the compilers ran or ccache answered (cold or warm run).
	ccache --print-stats 2>/dev/null | awk -v h0="${cc_hit0:-0}" -v m0="${cc_miss0:-0}" '
		$1 ~ /cache_hit$/ { h += $2 } $1 == "cache_miss" { m = $2 }
		END { printf "ccache (%s): %d hits, %d misses in this run\n", ENVIRON["CCACHE_DIR"], h - h0, m - m0 }'
	echo "wall time: $(( $(date +%s) - t0 ))s"
	# Not a check: how old the figures are, in commits that could change them.
	python3 "$UC_ROOT/devtools/readme-figures.py" --age
	[ -z "$UC_CHECK_ONLY" ] || echo "partial run: only UC_CHECK_ONLY=$UC_CHECK_ONLY"
	echo "seed: UC_SEED=$UC_SEED"
	echo "build and lint: $bpassed passed, $bfailed failed"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ] && [ "$bfailed" -eq 0 ]
	exit
}
t0=$(date +%s)
read -r cc_hit0 cc_miss0 < <(ccache --print-stats 2>/dev/null |
	awk '$1 ~ /cache_hit$/ { h += $2 } $1 == "cache_miss" { m = $2 } END { print h + 0, m + 0 }')
mkdir -p "$UC_CACHE/logs"
# Section headers carry the time since the start, to see where it goes.
uc_log() { local d=$(( $(date +%s) - t0 )); printf '==> [%d:%02d] %s\n' $((d / 60)) $((d % 60)) "$*" >&2; }
# phase_time NAME START: record how long NAME took (printed by finish);
# the line starts with the time since the start of the run at its end.
: > "$UC_CACHE/logs/phases"
rm -rf "$UC_CACHE/logs/kunit-verdicts"
phase_time() {
	local now=$(date +%s)
	printf '%5d %5d  %s\n' $((now - t0)) $((now - $2)) "$1" >> "$UC_CACHE/logs/phases"
}

UC_SEED=${UC_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
export UC_SEED
echo "seed: UC_SEED=$UC_SEED (replay: UC_SEED=$UC_SEED make check)"
echo "state: UC_CACHE=$UC_CACHE, reused: UC_REUSE=$UC_REUSE"

uc_log "dependencies"
start=$(date +%s)
"$UC_ROOT/devtools/deps.sh" || { bfail "install dependencies"; finish; }
phase_time "dependencies" "$start"

uc_log "host checks"
start=$(date +%s)
"$UC_ROOT/devtools/prepare-tree.sh" || { bfail "prepare the patched tree"; finish; }
phase_time "unpack and patch the source" "$start"
bpass "host: patches apply to linux-source-6.12 and the tree is laid out"
# The host checks run beside the main kernel's build (they need one CPU
# for a minute, the build two for ten): their results go to a lane file,
# printed and counted with the guest lanes' (or by finish() if the run
# stops before).
host_checks() {
	local start=$(date +%s)
	lint "host: KTAP parser self-test" "$UC_ROOT/devtools/test-ktap.sh"
	lint "host: splat scanner self-test (KCSAN reports sorted, control required)" \
		"$UC_ROOT/devtools/test-splats.sh"
	lint "host: console line repair self-test (kernel messages inside a job's line)" \
		python3 "$UC_ROOT/devtools/console-lines.py" --self-test
	check "host: range tree harness (1.2M random ops vs a model, ASan+UBSan, seed $UC_SEED)" \
		make -s -C "$UC_ROOT/tools/testing/unmapped_cache" run SEED="$UC_SEED"
	while read -r f; do
		lint "checkpatch --strict: $f" "$UC_ROOT/devtools/checkpatch.sh" "$f"
	done < <("$UC_ROOT/devtools/checkpatch.sh" --list)
	lint "kernel-doc -none -Wall: no warning in the project's kernel files, every kernel-doc directive of the rst resolves" \
		"$UC_ROOT/devtools/kerneldoc.sh"
	lint "README and Documentation/mm/unmapped_cache.rst: their figures are those of the committed make run report" \
		python3 "$UC_ROOT/devtools/readme-figures.py" --check
	lint "Documentation/mm/unmapped_cache.rst: at most 500 lines of at most 80 columns" \
		awk 'length > 80 { print FILENAME ":" FNR ": over 80 columns"; bad = 1 }
		     END { if (NR > 500) { print NR " lines"; bad = 1 }; exit bad }' \
		"$UC_ROOT/Documentation/mm/unmapped_cache.rst"
	# make mutants takes hours: a mutant that no longer applies should
	# show here, not at the end of that run.
	lint "devtools/mutants: every mutant applies to this tree" \
		sh -c 'for m in "$1"/devtools/mutants/*; do
			patch -d "$1" -p1 -s --dry-run < "$m" > /dev/null ||
				{ echo "${m##*/} does not apply"; bad=1; }
		done; exit ${bad:-0}' sh "$UC_ROOT"
	phase_time "host checks (beside the main kernel's build)" "$start"
}
host_lane=
if want host; then
	host_checks > "$UC_CACHE/logs/lane-host.out" 2>&1 &
	host_lane=$!
fi
# The main kernel's sections, longest first (see the lanes below).
main_sections="peers callers hotplug bpftools kaslr refill soak hibernate kunit modload blocks pressure secrecy memcg numa hwpoison"
# The main kernel and its modules are built if the host checks or one of
# its sections run (not for a run of the variants' sections alone).
need_main=0
want host && need_main=1
for sec in $main_sections; do want "$sec" && need_main=1; done
uc_log "kernel build"
start=$(date +%s)
if [ $need_main -eq 0 ]; then
	uc_log "main kernel not needed by UC_CHECK_ONLY=$UC_CHECK_ONLY: not built"
elif "$UC_ROOT/devtools/build-kernel.sh"; then
	bpass "build: bzImage"
else
	bfail "build: bzImage (log: $UC_CACHE/logs/build.log)"
	finish
fi
phase_time "build: main kernel" "$start"

# The debug and RT kernels build in the background, niced, from here on:
# beside the lint builds and the guest jobs below (each TCG guest is one
# host thread), taking what they leave, which keeps a cold make check
# inside its time budget.  They build at the same time, the first at nice
# 10 and the next at 15: the second takes little while the first
# compiles, and the core the first leaves idle while it links (some
# 50 s of one thread at the end of each build).  Each writes its status
# to $UC_CACHE/logs/VARIANT-build.rc, read before its guest boots.
variants=()
want debug && variants+=(debug)
want rt && variants+=(rt)
want distro && variants+=(distro)
if [ ${#variants[@]} -gt 0 ]; then
	uc_log "${variants[*]} kernel build started in the background (logs: $UC_CACHE/logs/build-VARIANT.log)"
	for v in "${variants[@]}"; do rm -f "$UC_CACHE/logs/$v-build.rc"; done
	(
		prio=10
		for v in "${variants[@]}"; do
			(
				start=$(date +%s)
				( UC_VARIANT=$v nice -n $prio "$UC_ROOT/devtools/build-kernel.sh" &&
					UC_VARIANT=$v nice -n $prio "$UC_ROOT/devtools/build-modules.sh" ) \
					> "$UC_CACHE/logs/$v-build-steps.log" 2>&1
				echo $? > "$UC_CACHE/logs/$v-build.rc"
				phase_time "build: $v kernel and its modules (background, nice $prio)" "$start"
			) &
			prio=$((prio < 15 ? prio + 5 : 19))
		done
		wait
	) &
	variant_builds=$!
fi

start=$(date +%s)
if want host; then
	lint "build: W=1 and sparse (C=2) clean on the project's kernel files" \
		"$UC_ROOT/devtools/lint-build.sh"
	lint "build: W=1 and sparse (C=1) add no warning on the lines the series changes in existing files" \
		"$UC_ROOT/devtools/lint-patched.sh"
	lint "build: <linux/unmapped_cache.h> stubs compile with CONFIG_UNMAPPED_CACHE=n" \
		"$UC_ROOT/devtools/check-stubs.sh"
	lint "build: the cache compiles without its test hooks (UNMAPPED_CACHE_DEBUG=n, KUNIT_TEST=n)" \
		"$UC_ROOT/devtools/check-nohooks.sh"
	# DESIGN.md I6, with the comparison's own control (a call inserted
	# where a hook would go is found) on the stock code.
	check "host: no patch touches mm/page_alloc.c or mm/swap.c, and free_pages_prepare, free_unref_page, free_unref_folios, __folio_put and folios_put_refs compile to the same instructions as in a stock build of the same configuration" \
		"$UC_ROOT/devtools/check-page-alloc.sh"
	# The KUnit case mag_fast_path_shares_nothing_between_cpus sees locks
	# and pages, not an atomic on a shared counter: the machine code does.
	check "build: the single-page path's atomics are on the page it hands out or takes back, and every other atomic of cache.o and magazine.o is one tools/testing/unmapped_cache/atomics.expected lists with its reason" \
		python3 "$UC_ROOT/devtools/check-atomics.py" "$UC_OUT"
fi
phase_time "lint builds" "$start"
start=$(date +%s)
# Every guest job that loads a module (bpftools, callers, soak, debug,
# hibernate) needs them: build them here, before the first such job, and
# before the initramfs, which carries them for the hibernate job.
if [ $need_main -eq 0 ]; then
	:
elif "$UC_ROOT/devtools/build-modules.sh"; then
	bpass "build: test modules (log: $UC_CACHE/logs/modules.log)"
else
	bfail "build: test modules (log: $UC_CACHE/logs/modules.log)"
fi
"$UC_ROOT/devtools/mkinitramfs.sh" && bpass "build: guest programs and initramfs" ||
	{ bfail "build: guest programs and initramfs"; finish; }
phase_time "test modules and initramfs" "$start"

# variants_built: every variant kernel's build ended (or the builds died).
variants_built() {
	local v
	kill -0 "$variant_builds" 2>/dev/null || return 0
	for v in "${variants[@]}"; do
		[ -f "$UC_CACHE/logs/$v-build.rc" ] || return 1
	done
}

# wait_variant VARIANT: wait for the background build of VARIANT; true if
# it built.
wait_variant() {
	local rc=$UC_CACHE/logs/$1-build.rc
	while [ ! -f "$rc" ] && kill -0 "$variant_builds" 2>/dev/null; do
		sleep 5
	done
	[ "$(cat "$rc" 2>/dev/null)" = 0 ]
}

sec_kunit() {
	log=$UC_GUEST/logs/kunit.log
	# The main kernel runs each suite's cases in an order drawn from the
	# run's seed (#28 item 7: no case may depend on another running
	# first); the debug and RT kernels run them in declaration order.
	# Two vCPUs under multi-threaded TCG (#28 item 4): the stress and
	# magazine suites' threads run truly in parallel, on the plain
	# kernel as on the RT one.
	guest_mttcg "KUnit in QEMU (cases shuffled, 2 vCPUs, multi-threaded TCG)" "$log" \
		--timeout 600 --smp 2 --append unmapped_cache_kunit.shuffle=1 kunit
	grep -aq 'cases in an order drawn from seed' "$log" &&
		echo "    KUnit case order on the main kernel: shuffled ($(grep -ao 'unmapped_cache_arena: [0-9]* cases in an order drawn from seed [0-9]*' "$log" | head -1))"
	[ $job_rc -eq 0 ] && pass "guest: KUnit boot reached user space (2 vCPUs, multi-threaded TCG$mttcg_note)" ||
		fail "guest: KUnit boot (status $job_rc, log: $log$mttcg_note)"
	kunit_results main "$log"
	# Shuffled, arena_large_chunk may run after arena_bad_input_is_refused,
	# which fires first the WARN_ON_ONCE() of an allocation over the largest
	# chunk that both hit: then it refuses (its bad-calls count, checked in
	# the case, rises) without a warning.  Its warning is expected, not
	# required, in this boot; the other kernels run in declaration order.
	splat_scan "guest: KUnit boot" "$log" --expect-warnings "$UC_WARNING_CASES" \
		--require-warnings "${UC_WARNING_CASES/arena_large_chunk,/}"
}

# Each job's header (tools/testing/unmapped_cache/guest/jobs/JOB.sh) says
# what it does and checks; the job decides and reports in KTAP.
sec_blocks() { run_job "blocks job" blocks blocks --timeout 600; }
# The periodic reaper off until the job turns it on for its last part:
# only the shrinker can have given the blocks back under pressure.
sec_pressure() {
	run_job "pressure job" pressure pressure --timeout 600 --append unmapped_cache.reap_interval_ms=0
}
sec_secrecy() { run_job "secrecy job" secrecy secrecy --timeout 1200 --smp 2; }
sec_memcg() { run_off_on "memcg job" memcg --timeout 600; }
sec_hwpoison() { run_job "hwpoison job" hwpoison hwpoison --timeout 600 --smp 2; }
sec_numa() {
	run_job "NUMA job (2 nodes)" numa numa --timeout 600 --smp 2 --numa 2 --mem 1024 \
		--append unmapped_cache.reap_interval_ms=0
}
sec_bpftools() { run_off_on "bpftrace scripts" bpftools --timeout 900 --hostroot; }
# 40 s of the guest's clock, to keep make check inside its budget.
sec_soak() { run_job "soak" soak soak --timeout 900 --smp 4 --hostroot --append uc.soak=40; }

sec_hotplug() {
	# jobs/hotplug.sh: a 512 MiB virtio-mem device onlined to
	# ZONE_NORMAL, then to ZONE_MOVABLE, shrunk to 0 after the workloads,
	# the cache off and on; the boots of a zone share a directory, the
	# one with the cache on compares its unplug with the one off.  The
	# guest waits up to 75 s for virtio-mem's retry.
	local zone mode online
	for zone in normal movable; do
		rm -rf "$UC_GUEST/share-hotplug-$zone"
		online=online_kernel
		[ $zone = movable ] && online=online_movable
		for mode in off on; do
			args=(--timeout 900 --vmem 512 --share "$UC_GUEST/share-hotplug-$zone"
			      --append uc.zone=$zone --append memhp_default_state=$online
			      --append uc.vmem_wait=75)
			[ $mode = off ] && args+=(--append unmapped_cache=off)
			run_job "memory hot-unplug, ZONE_${zone^^}, cache $mode" hotplug \
				hotplug-$zone-$mode "${args[@]}"
		done
	done
}

sec_peers() {
	# The kernel's own selftests of what the cache serves (#28 item 5),
	# unchanged, with the cache off, then on (jobs/peers.sh), the two
	# boots sharing a directory.  Built here: the livepatch selftests'
	# helper, BPF's test_verifier (from a copy of the parts of the tree
	# its Makefile reads: it writes generated headers into its source
	# directory); their test modules come from build-modules.sh.  Not
	# part of make check (two boots of 13 to 30 min each under TCG,
	# depending on the machine): make peer-check.
	local peers=$UC_GUEST/peers mode m
	mkdir -p "$peers/livepatch/test_modules"
	rsync -a --delete "$UC_SRC/tools/testing/selftests/ftrace/" "$peers/ftrace/"
	rsync -a --exclude=test_modules "$UC_SRC/tools/testing/selftests/livepatch/" "$peers/livepatch/"
	for m in "$UC_GUEST"/modules/test_klp_*.ko; do
		cp "$m" "$peers/livepatch/test_modules/"
	done
	gcc -static -O2 -o "$peers/livepatch/test_klp-call_getpid" \
		"$UC_SRC/tools/testing/selftests/livepatch/test_klp-call_getpid.c" ||
		fail "host: cannot build the livepatch selftests' test_klp-call_getpid"
	mkdir -p "$peers/bpf-src/kernel" "$peers/bpf"
	rsync -a --delete "$UC_SRC/tools" "$UC_SRC/scripts" "$UC_SRC/include" "$peers/bpf-src/"
	rsync -a --delete "$UC_SRC/kernel/bpf" "$peers/bpf-src/kernel/"
	make -C "$peers/bpf-src/tools/testing/selftests/bpf" -j"$(nproc)" \
		OUTPUT="$peers/bpf" "$peers/bpf/test_verifier" > "$UC_CACHE/logs/test_verifier.log" 2>&1 ||
		fail "host: cannot build BPF's test_verifier (log: $UC_CACHE/logs/test_verifier.log)"
	cp "$UC_GUEST/modules/bpf_testmod.ko" "$peers/bpf/"
	rsync -a --delete "$UC_SRC/tools/testing/selftests/kmod/" "$peers/kmod/"
	rm -rf "$UC_GUEST/share-peers"
	run_off_on "the kernel's selftests" peers --timeout 3600 --hostroot \
		--share "$UC_GUEST/share-peers" --append uc.peers=$peers
}

# Multi-threaded TCG: with one host thread for both vCPUs, the worker's
# compaction on one would count in the other's fault latency.
sec_refill() { UC_BOOT=guest_mttcg run_off_on "refill job" refill --timeout 900; }

sec_modload() { run_off_on "module loading" modload --timeout 600 --hostroot; }

sec_kaslr() {
	# Module addresses change between boots as on a stock kernel
	# (jobs/kaslr.sh): two boots of each pair share a directory, the
	# second compares its addresses with the first's.  One CPU: with
	# two, which CPU's magazine a 1-page chunk comes from varies, and so
	# would the addresses.
	local mode i
	for mode in kaslr nokaslr; do
		rm -rf "$UC_GUEST/share-$mode"
		for i in 1 2; do
			args=(--share "$UC_GUEST/share-$mode")
			[ $mode = nokaslr ] && args+=(--append nokaslr)
			run_job "module addresses, $mode, boot $i" kaslr kaslr-$mode-$i \
				--timeout 300 --smp 1 --hostroot "${args[@]}"
		done
	done
}

sec_hibernate() {
	# jobs/hibernate.sh: boot 1 sets up and hibernates, boot 2 resumes
	# and hibernates again, boot 3 (less memory) refuses that image.  A
	# boot after one that wrote no image and powered off would prove
	# nothing: it is not run.
	local disk=$UC_GUEST/hibernate-image.img small=$UC_GUEST/hibernate-small.img
	local i opts=(--timeout 900 --drive "$disk" --drive "$small")
	local more=("" "--append uc.hibernate=resume" "--mem 1900 --append uc.hibernate=abort")
	rm -f "$disk" "$small"
	truncate -s 512M "$disk" && truncate -s 8M "$small" || { fail "guest: hibernation disks"; return; }
	for i in 1 2 3; do
		# shellcheck disable=SC2086
		run_job "hibernation, boot $i" hibernate hibernate-$i "${opts[@]}" ${more[i - 1]}
		[ $i = 3 ] && break
		grep -aq 'reboot: Power down' "$log" &&
			[ "$(head -c 4096 "$disk" | grep -ac S1SUSPEND)" -ge 1 ] && continue
		fail "guest: hibernation, boot $i wrote no image or did not power off: the next boot is not run (log: $log)"
		return
	done
}

sec_callers() {
	# With the cache on: every workload, the kprobes KUnit suite (built
	# in) and smaller sizes than make run's (20 cycles of each test
	# module, 50 of lib/test_module, whose bound of 0.1 flush per cycle
	# needs that many; 250 kprobes).  Off: only the workloads whose
	# figures or results are checked.  Single-threaded TCG: on 2 vCPUs
	# under multi-threaded TCG lib/test_module's 50 cycles cost 6 and 9
	# kernel TLB flushes in two runs, against 3 to 6 here, which that
	# bound does not allow; not yet understood.
	run_job "callers, cache on" callers callers-on --timeout 1200 --hostroot \
		--append "kunit.enable=1 kunit.filter_glob=kprobes_test" --append uc.module_loops=20 \
		--append uc.plain_loops=50 --append uc.kprobes=250
	run_job "callers, cache off" callers callers-off --timeout 1200 --hostroot \
		--append unmapped_cache=off --append uc.workloads=bpf,secretmem,kcore,modtext,stale
	# The workloads that allocate and free from both vCPUs, on 2 vCPUs
	# under multi-threaded TCG (#28 item 4): functional checks only (no
	# figure, no footprint), at sizes near the RT kernel's, whose build
	# it would delay in a cold run.
	UC_BOOT=guest_mttcg run_job "callers, cache on, 2 vCPUs, multi-threaded TCG" callers callers-mttcg \
		--timeout 1200 --hostroot --smp 2 --append uc.footprint=0 \
		--append uc.workloads=bpf,secretmem,modules,kprobes,stale \
		--append uc.bpf_progs=400 --append uc.secret_pages=256 \
		--append uc.module_loops=1 --append uc.kprobes=50
	# The footprint counters (/proc/vmstat, /proc/meminfo) after the
	# drain agree with the cache's own accounting (debugfs), to the page,
	# and are not all zero: module text (ROX), rodata (RO) and data (NONE
	# pages mapped for execmem) of the loaded uc_tlbcount module are live.
	log=$UC_GUEST/logs/callers-on.log
	fp=$(grep -ao 'UC-FOOTPRINT name=drained .*' "$log" | tr -d '\r' | tail -n 1)
	if echo "$fp" | awk '{ for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
		END { exit !(v["held"] > 0 && v["rox"] > 0 && v["ro"] > 0 && v["none"] > 0 &&
			     v["held_kb"] == 4 * v["held"] && v["held"] == v["dbg_held"] &&
			     v["held"] == 512 * (v["in"] - v["out"]) &&
			     v["none"] == v["dbg_none"] && v["ro"] == v["dbg_ro"] &&
			     v["rox"] == v["dbg_rox"] && v["rw"] == v["dbg_rw"]) }'; then
		bpass "plumbing (not a behavioural check: the same counts shown four ways): UnmappedCache in /proc/meminfo and the nr_unmapped_cache_* and unmapped_cache_blocks_* lines of /proc/vmstat match the cache's own counts (${fp#UC-FOOTPRINT })"
	else
		bfail "plumbing: footprint counters (${fp:-no UC-FOOTPRINT name=drained line}; want held = debugfs held = 512 x (in - out) = held_kb / 4 > 0, and each permission's pages equal to debugfs, ro, rox and none above 0; log: $log)"
	fi
}

# variant_ready VARIANT DESCRIPTION: wait for VARIANT's background build;
# true if it built.
variant_ready() {
	uc_log "$1 kernel ($2): waiting for its build"
	if wait_variant "$1"; then
		bpass "build: $1 kernel ($2) and its test modules"
		return 0
	fi
	bfail "build: $1 kernel (logs: $UC_CACHE/logs/build-$1.log, $UC_CACHE/logs/$1-build-steps.log)"
	tail -n 20 "$UC_CACHE/logs/$1-build-steps.log" | sed 's/^/    /'
	return 1
}

# The debug and RT kernels (jobs/debug.sh, jobs/rt.sh): every KUnit suite
# at boot on 2 vCPUs, then the callers' workloads at a reduced size.
# Their scans accept the bad-input cases' own warnings only, and require
# each of them.
sec_debug() {
	variant_ready debug "KASAN, kmemleak, lockdep, DEBUG_VM, DEBUG_LIST, DEBUG_WX" || return
	# no5lvl: with the emulated CPU's 5-level paging, KASAN once reported
	# a wild access in an interrupt during identify_cpu(), long before
	# this code runs.  init_on_free=1, as hardened distro kernels boot:
	# RW chunks are then zeroed on free (mag_rw_zeroed_on_request checks
	# that branch here).  The stale read of freed module text is the one
	# KASAN report expected.
	splat_opts=(--expect-warnings "$UC_WARNING_CASES" --require-warnings "$UC_WARNING_CASES"
		    --expect-kasan uc_a_peek_show)
	UC_VARIANT=debug run_job "debug kernel" debug debug --timeout 2400 --kunit --smp 2 \
		--append no5lvl --append init_on_free=1 --append kasan_multi_shot \
		--append uc.workloads=bpf,secretmem,stale
}

sec_rt() {
	variant_ready rt "PREEMPT_RT, lockdep, KCSAN" || return
	# PTI on (the block suite then checks the restored PMD without the
	# global bit); a host thread per vCPU, so that KCSAN's watchpoints
	# see the other vCPU's accesses.  KCSAN reports are accepted outside
	# the cache's code and the functions the series adds to kernel files
	# (module_memory_poke(), the BPF pack's and secretmem's helpers...,
	# listed from the patched tree); the race planted in the cache's own
	# code must be reported.
	local fns=$UC_CACHE/logs/series-functions.txt
	python3 "$UC_ROOT/devtools/series-functions.py" "$UC_SRC" > "$fns" || : > "$fns"
	echo "    RT kernel: KCSAN reports fail in the cache's code and in the $(wc -l < "$fns") functions the series adds to kernel files"
	splat_opts=(--kcsan uc_planted_race --ours-functions "$fns"
		    --expect-warnings "$UC_WARNING_CASES" --require-warnings "$UC_WARNING_CASES")
	UC_VARIANT=rt UC_BOOT=guest_mttcg run_job "RT kernel, 2 vCPUs, multi-threaded TCG, PTI on" rt rt \
		--timeout 2400 --kunit --smp 2 --append pti=on --append uc.workloads=bpf,secretmem,modules
}

# Debian's configuration (make distro-check): KUnit with KFENCE sampling
# and the page table check; lockdown, signed modules and init_on_free
# (every workload but stale, whose probe is a writable debugfs file);
# debug_pagealloc=on, where the cache steps aside.
sec_distro() {
	variant_ready distro "Debian's configuration without modules" || return
	splat_opts=(--expect-warnings "$UC_WARNING_CASES" --require-warnings "$UC_WARNING_CASES")
	UC_VARIANT=distro run_job "distribution kernel, KFENCE, page table check" distro distro \
		--timeout 2400 --kunit --smp 2 --append kfence.sample_interval=100 --append page_table_check=on
	UC_VARIANT=distro run_job "distribution kernel, lockdown, signed modules, init_on_free" distro \
		distro-locked --timeout 1800 --smp 2 --append uc.distro=locked --append lockdown=integrity \
		--append module.sig_enforce=1 --append init_on_free=1 \
		--append uc.workloads=bpf,secretmem,modules,plainmod,modtext,kprobes,kcore,selftests
	UC_VARIANT=distro run_job "distribution kernel, debug_pagealloc=on" distro distro-pagealloc \
		--timeout 1800 --smp 2 --append uc.distro=pagealloc --append debug_pagealloc=on
}

# Two lanes of guests run at the same time, each TCG guest on a host
# thread of its own, taking sections from one queue: the debug or RT
# kernel's section as soon as that kernel is built (they are the end of a
# cold run), else the main kernel's sections, longest first (their usual
# length, so that the two lanes end close together), else a variant's
# section, waiting for its build.  A section's results go to a file of
# its own, printed and counted in the order below once both lanes are
# done, so that the output reads the same whatever the timing (the
# progress lines, on stderr, show as they come).  No check compares
# times across boots, so two guests may run at once.
variant_sections="debug rt distro"
# A main-kernel section kept for the end of a cold run: the last variant
# kernel's boot (the RT one, on multi-threaded TCG, mostly one busy
# vCPU) leaves a core idle for two to three minutes; run earlier, this
# section's CPU would only delay the variant builds.  Once the variant
# kernels are built (early in a warm run) it is a section like the others.
tail_sections="bpftools"
printed_order="kunit blocks pressure secrecy memcg refill modload hwpoison hotplug kaslr numa hibernate bpftools callers soak debug rt distro peers"
queue=$UC_CACHE/logs/sections.todo
for sec in $variant_sections $main_sections; do
	want "$sec" && echo "$sec"
done > "$queue"
rm -f "$UC_CACHE"/logs/section-*.out

# next_section: print the next section to run and take it off the queue;
# false when the queue is empty.
next_section() {
	local fd sec pick= defer=$tail_sections
	exec {fd}>> "$queue.lock"
	flock "$fd"
	variants_built && defer=
	for sec in $variant_sections; do
		grep -qx "$sec" "$queue" && [ -f "$UC_CACHE/logs/$sec-build.rc" ] &&
			{ pick=$sec; break; }
	done
	[ -n "$pick" ] || pick=$(grep -vxF -f <(printf '%s\n' $variant_sections $defer) "$queue" | head -n 1)
	[ -n "$pick" ] || pick=$(grep -vxF -f <(printf '%s\n' $tail_sections) "$queue" | head -n 1)
	[ -n "$pick" ] || pick=$(head -n 1 "$queue")
	[ -z "$pick" ] || grep -vx "$pick" "$queue" > "$queue.new"
	[ -z "$pick" ] || mv "$queue.new" "$queue"
	exec {fd}>&-
	[ -n "$pick" ] && echo "$pick"
}
lane() {
	local sec start
	while sec=$(next_section); do
		# A tail section waits until the variant kernels are built,
		# then runs beside the last one's boot.
		if [[ " $tail_sections " == *" $sec "* ]] && ! variants_built; then
			uc_log "$sec: waiting for the variant kernels' builds, to run beside the last boot"
			until variants_built; do
				sleep 5
			done
		fi
		start=$(date +%s)
		"sec_$sec" > "$UC_CACHE/logs/section-$sec.out"
		phase_time "section $sec (lane $1)" "$start"
	done
}
uc_log "guest jobs: two lanes, the debug and RT kernels' as soon as they are built"
lane 1 &
lane_1=$!
lane 2 &
lane_2=$!
wait "$lane_1" "$lane_2"
: > "$UC_CACHE/logs/lane-guests.out"
for sec in $printed_order; do
	[ -f "$UC_CACHE/logs/section-$sec.out" ] &&
		cat "$UC_CACHE/logs/section-$sec.out" >> "$UC_CACHE/logs/lane-guests.out"
done
# A section that ran but is missing from the printed order would count
# nothing: fail it instead.
for f in "$UC_CACHE"/logs/section-*.out; do
	[ -f "$f" ] || continue
	sec=${f##*/section-}
	sec=${sec%.out}
	case " $printed_order " in
	*" $sec "*) ;;
	*) echo "FAIL section $sec ran but is not in check.sh's printed_order: its results were not counted" \
		>> "$UC_CACHE/logs/lane-guests.out" ;;
	esac
done
kunit_verdicts > "$UC_CACHE/logs/lane-kunit.out"
if [ -n "$host_lane" ]; then
	wait "$host_lane"
	host_lane=
	count_lane host
fi
for l in guests kunit; do
	count_lane $l
done

finish
