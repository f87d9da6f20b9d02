#!/usr/bin/env bash
# The main job (make run): build what is missing, then boot the same kernel
# with unmapped_cache=off and with the cache on, on a fresh guest and on a
# guest whose free memory was scattered first, run the callers' workloads
# in each (tools/testing/unmapped_cache/guest/jobs/callers.sh) and print
# their direct-map figures side by side.  Logs: $UC_GUEST/logs/run-*.log.
. "$(dirname "$0")/common.sh"

step() { printf '[%s] %s\n' "$1" "$2"; }

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
		args=(--log "$log")
		[ $mode = off ] && args+=(--append unmapped_cache=off)
		[ $mem = scattered ] && args+=(--append uc.scatter=1)
		step "4/5 ($n/4)" "booting with the cache $mode, $mem memory: secretmem, BPF, modules, kprobes (~4 min under TCG)"
		if ! "$UC_ROOT/devtools/qemu-run.sh" --timeout 1500 --hostroot "${args[@]}" callers >/dev/null; then
			echo "the guest job failed; console log: $log" >&2
			exit 1
		fi
		logs+=("$log")
	done
done

step 5/5 "figures (deltas over each workload)"
for log in "${logs[@]}"; do
	echo
	echo "== $(basename "$log" .log | sed 's/^run-//') =="
	python3 "$UC_ROOT/devtools/figures.py" "$log"
	grep -ah "UC-BPF\|UC-KPROBES" "$log" | sed 's/^\[[^]]*\] //; s/^/  /' | tr -d '\r' | sort -u
done
cat <<'TXT'

  secretmem: 4 processes x 2048 memfd_secret() pages, twice.
  bpf:       2000 JIT-compiled programs (4..8000 instructions), each run
             once with BPF_PROG_TEST_RUN, half closed and reloaded.
  modules:   3 test modules loaded, called and unloaded 50 times each.
  kprobes:   1000 kprobes and 16 ftrace ops with trampolines.
  "off" is the same kernel booted with unmapped_cache=off (stock paths).
TXT
