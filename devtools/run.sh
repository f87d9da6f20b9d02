#!/usr/bin/env bash
# The main job (make run): build what is missing, then boot the same kernel
# with unmapped_cache=off and with the cache on, on a fresh guest and on a
# guest whose free memory was scattered first, run the callers' workloads
# in each (tools/testing/unmapped_cache/guest/jobs/callers.sh), print
# their figures side by side, and write a plot and a Markdown report to
# $UC_CACHE/results/run-DATE/ (devtools/report.py).  Twelve short boots of
# scattered memory follow (UC_FRAG_BOOTS pairs), for the medians of the
# fragmentation probe.  Another boot runs the
# single-page microbenchmark (jobs/bench.sh), a sixth its scaling over the
# vCPUs under multi-threaded TCG; then four boots of the memory
# hot-unplug job and six of the page-pair timing, for the LSFMM table
# that the report and Documentation/mm/unmapped_cache.rst carry.
# Console logs:
# $UC_GUEST/logs/run-*.log.
#
# The report is also copied to reports/make-run.md (and its plot to
# reports/timeline.png) in the repository, with the date and the commit it
# was made from, and README.md's figures blocks are updated from it
# (devtools/readme-figures.py): commit them together.  make check fails
# while README.md's figures differ from the committed report.
. "$(dirname "$0")/common.sh"

step() { printf '[%s] %s\n' "$1" "$2"; }

start=$(date +%s)
step 1/5 "checking dependencies"
"$UC_ROOT/devtools/deps.sh" || exit 1
step 2/5 "building the kernel (first build: ~10 min on 2 cores; log: $UC_CACHE/logs/build.log)"
"$UC_ROOT/devtools/build-kernel.sh" || exit 1
step 3/5 "building the guest programs and test modules (log: $UC_CACHE/logs/modules.log)"
"$UC_ROOT/devtools/mkinitramfs.sh" || exit 1
"$UC_ROOT/devtools/build-modules.sh" >/dev/null || exit 1

logs=()
n=0
for mem in fresh scattered; do
	for mode in off on; do
		n=$((n + 1))
		log=$UC_GUEST/logs/run-$mem-$mode.log
		# uc.sample=1: the UC-TS samples the timeline is drawn from.
		# uc.frag=1 with page_owner=on: the fragmentation probe after the
		# workloads (mixed pageblocks, huge pages a mapping still gets).
		# uc.figcheck=0: the figures are measured here, make check
		# checks them.
		args=(--log "$log" --append uc.sample=1 --append uc.frag=1 --append page_owner=on
		      --append uc.figcheck=0)
		[ $mode = off ] && args+=(--append unmapped_cache=off)
		[ $mem = scattered ] && args+=(--append uc.scatter=1)
		step "4/5 ($n/4)" "booting with the cache $mode, $mem memory: BPF, secretmem, modules, kprobes, kcore, selftests (~9 min under TCG; $(( ($(date +%s) - start) / 60 )) min so far)"
		"$UC_ROOT/devtools/qemu-run.sh" --timeout 1500 --hostroot "${args[@]}" callers >/dev/null &
		qemu=$!
		# Progress: the workload the guest is in, every 30 s.
		while kill -0 $qemu 2>/dev/null; do
			sleep 30
			phase=$(grep -ao 'UC-TS phase=[a-z]*' "$log" 2>/dev/null | tail -1 | cut -d= -f2)
			kill -0 $qemu 2>/dev/null && echo "      ... ${phase:-booting}"
		done
		if ! wait $qemu; then
			echo "the guest job failed (cache $mode, $mem memory); console log: $log" >&2
			exit 1
		fi
		logs+=("$log")
	done
done

# The THP probe in scattered memory depends on how far compaction gets,
# which varies from boot to boot (two cache-off boots of the same kernel
# gave 398 and 228 MiB of the same 398 MiB probe): more short boots of
# scattered memory, alternating off and on (BPF, secretmem and 10 module
# cycles, then the same probe; the control, which the callers boot has
# run, is left out: uc.fragctl=0), so that the report compares medians.
# UC_FRAG_BOOTS pairs (default 6, so that with the callers boot each mode
# has an odd number of boots; 0 for none).
: "${UC_FRAG_BOOTS:=6}"
for i in $(seq 1 "$UC_FRAG_BOOTS"); do
	for mode in off on; do
		log=$UC_GUEST/logs/run-fragrep-$mode-$i.log
		args=(--log "$log" --append uc.frag=1 --append page_owner=on --append uc.scatter=1
		      --append uc.workloads=bpf,secretmem,modules --append uc.module_loops=10
		      --append uc.fragctl=0 --append uc.figcheck=0)
		[ $mode = off ] && args+=(--append unmapped_cache=off)
		step 4/5 "scattered memory again for the THP probe, cache $mode ($i of $UC_FRAG_BOOTS, ~3 min)"
		"$UC_ROOT/devtools/qemu-run.sh" --timeout 1200 --hostroot "${args[@]}" callers >/dev/null ||
			{ echo "the guest job failed (fragmentation boot $i, cache $mode); console log: $log" >&2; exit 1; }
		logs+=("$log")
	done
done

log=$UC_GUEST/logs/run-bench.log
step 4/5 "booting once more for the single-page microbenchmark (5 samples, ~2 min)"
"$UC_ROOT/devtools/qemu-run.sh" --timeout 900 --log "$log" bench >/dev/null ||
	{ echo "the bench job failed; console log: $log" >&2; exit 1; }
logs+=("$log")

log=$UC_GUEST/logs/run-scale.log
step 4/5 "booting with a host thread per vCPU for the scaling benchmark (~1 min)"
UC_QEMU_ACCEL=tcg,thread=multi "$UC_ROOT/devtools/qemu-run.sh" --timeout 900 --smp 2 \
	--append uc.scale=1 --log "$log" bench >/dev/null ||
	{ echo "the scaling bench job failed; console log: $log" >&2; exit 1; }
logs+=("$log")

# The figures of the LSFMM table (Documentation/mm/unmapped_cache.rst,
# issue #27): memory hot-unplug off | on in ZONE_NORMAL and ZONE_MOVABLE
# (the check's hotplug job: a 512 MiB virtio-mem device shrunk to 0 after
# the workloads), and the page allocator's order-0 pair timed in boots
# alternating off and on (devtools/pair-timing.sh).
for zone in normal movable; do
	rm -rf "$UC_GUEST/share-run-hotplug-$zone"
	for mode in off on; do
		log=$UC_GUEST/logs/run-hotplug-$zone-$mode.log
		state=online_kernel
		[ $zone = movable ] && state=online_movable
		args=(--log "$log" --timeout 900 --vmem 512 --share "$UC_GUEST/share-run-hotplug-$zone" --append uc.zone=$zone
		      --append memhp_default_state=$state --append uc.vmem_wait=75)
		[ $mode = off ] && args+=(--append unmapped_cache=off)
		step 4/5 "memory hot-unplug, ZONE_${zone^^}, cache $mode (~1.5 min)"
		"$UC_ROOT/devtools/qemu-run.sh" "${args[@]}" hotplug >/dev/null ||
			{ echo "the hotplug job failed (ZONE_${zone^^}, cache $mode); console log: $log" >&2; exit 1; }
		logs+=("$log")
	done
done
step 4/5 "timing the page allocator's order-0 pair: ${UC_PAIR_BOOTS:=6} boots alternating off and on (~5 min)"
UC_PAIR_LOG=run-pagepair "$UC_ROOT/devtools/pair-timing.sh" "$UC_PAIR_BOOTS" >/dev/null ||
	{ echo "the page-pair timing failed; logs: $UC_GUEST/logs/run-pagepair-*.log" >&2; exit 1; }
for i in $(seq 1 "$UC_PAIR_BOOTS"); do
	logs+=("$UC_GUEST/logs/run-pagepair-$i.log")
done

step 5/5 "comparison (deltas over each workload; log: off | on)"
UC_RUN_DATE=$(date -u +%F)
UC_RUN_COMMIT=$(git -C "$UC_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -z "$(git -C "$UC_ROOT" status --porcelain -- . ':!reports' ':!README.md' 2>/dev/null)" ] ||
	UC_RUN_COMMIT="$UC_RUN_COMMIT with uncommitted changes"
export UC_RUN_DATE UC_RUN_COMMIT
out=$UC_CACHE/results/run-$(date +%Y%m%d-%H%M%S)
# Debian's python3 has python3-matplotlib for the plot (deps.sh).
py=/usr/bin/python3
[ -x $py ] || py=python3
"$py" "$UC_ROOT/devtools/report.py" "$out" "${logs[@]}"
rc=$?
ln -sfn "$out" "$UC_CACHE/results/latest"
if [ $rc -eq 0 ]; then
	mkdir -p "$UC_ROOT/reports"
	cp "$out/report.md" "$UC_ROOT/reports/make-run.md"
	[ -f "$out/timeline.png" ] && cp "$out/timeline.png" "$UC_ROOT/reports/timeline.png"
	"$py" "$UC_ROOT/devtools/readme-figures.py" --update
fi
for log in "${logs[@]}"; do
	grep -ah "UC-BPF \|UC-KPROBES\|UC-KCORE\|test_bpf: Summary" "$log" |
		sed "s/^\[[^]]*\] //; s/^/  $(basename "$log" .log | sed 's/^run-//'): /" |
		tr -d '\r' | sort -u
done
cat <<'TXT'

  bpf:       2000 JIT-compiled programs (4..8000 instructions), each run
             once with BPF_PROG_TEST_RUN, half closed and reloaded.
  secretmem: 4 processes x 2048 memfd_secret() pages, twice.
  modules:   3 test modules loaded, called and unloaded 50 times each.
  kprobes:   1000 kprobes and 16 ftrace ops with trampolines.
  kcore:     all of /proc/kcore read with secret pages and a cache-backed
             module live (the secret must not show).
  selftests: memfd_secret selftest, lib/test_bpf, lib/test_static_keys.
  "off" is the same kernel booted with unmapped_cache=off (stock paths);
  "scattered": free memory was fragmented into single pages first
  (proactive compaction off, so that it stays so).
TXT
echo
echo "results in $out (also $UC_CACHE/results/latest)"
[ $rc -eq 0 ] && echo "reports/make-run.md and README.md updated: commit them together"
exit $rc
