#!/usr/bin/env bash
# Self-test of splats.py on hand-made console logs: a scanner that let a
# splat through, or took a log without the positive control for a clean
# KCSAN run, would make every "0 splats" worthless.
. "$(dirname "$0")/common.sh"
splats=$UC_ROOT/devtools/splats.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
# expect NAME RC LAST-LINE [splats.py options] < log
expect() {
	local name=$1 want_rc=$2 want=$3 out rc
	shift 3
	cat > "$tmp/$name"
	out=$(python3 "$splats" "$@" "$tmp/$name")
	rc=$?
	if [ "$rc" != "$want_rc" ] || ! printf '%s\n' "$out" | grep -qxF "$want"; then
		echo "$name: got rc=$rc:"; printf '%s\n' "$out" | sed 's/^/    /'
		echo "    want rc=$want_rc and the line '$want'"
		bad=1
	fi
}

race() { # race TITLE FRAME1 FRAME2: a KCSAN report as 6.12 prints it
	cat <<R
[   10.1] ==================================================================
[   10.1] BUG: KCSAN: data-race in $1
[   10.1] 
[   10.1] write to 0xffffffff83a0c0c8 of 8 bytes by task 140 on cpu 1:
[   10.1]  $2
[   10.1]  kthread+0x1a4/0x1e0
[   10.1] 
[   10.1] read to 0xffffffff83a0c0c8 of 8 bytes by task 141 on cpu 0:
[   10.1]  $3
[   10.1]  kthread+0x1a4/0x1e0
[   10.1] 
[   10.1] value changed: 0x0000000000000001 -> 0x0000000000000002
[   10.1] 
[   10.1] Reported by Kernel Concurrency Sanitizer on:
[   10.1] CPU: 0 UID: 0 PID: 141 Comm: uc_race_reader Not tainted 6.12.57 #1
[   10.1] ==================================================================
R
}
begin() { echo "[    1.0] UC-BEGIN job=kcsan"; }
end() { echo "[   20.0] UC-RESULT rc=0"; }
control() { race "uc_race_reader [uc_race] / uc_race_writer [uc_race]" \
	"uc_race_writer+0x2f/0x70 [uc_race]" "uc_race_reader+0x2f/0x70 [uc_race]"; }

{ begin; control; end; } |
	expect control-only 0 "KCSAN: 0 report(s) in the cache's code, 1 from the planted race (uc_race), 0 elsewhere in the kernel" --complete --kcsan uc_race
{ begin; end; } |
	expect no-control 1 "MISSING positive control: no KCSAN report of the planted race in uc_race" --complete --kcsan uc_race
{ begin; control; race "uc_mag_alloc / uc_mag_flush_cpu_arena" \
	"uc_mag_alloc+0x40/0x90" "uc_mag_flush_cpu_arena+0x10/0x80"; end; } |
	expect ours 1 "KCSAN: 1 report(s) in the cache's code, 1 from the planted race (uc_race), 0 elsewhere in the kernel" --complete --kcsan uc_race
# The title may name a caller; the top frame decides.
{ begin; control; race "__free_pages / rcu_core" \
	"__uc_arena_free+0x40/0x90" "rcu_core+0x10/0x80"; end; } |
	expect ours-by-frame 1 "KCSAN: 1 report(s) in the cache's code, 1 from the planted race (uc_race), 0 elsewhere in the kernel" --complete --kcsan uc_race
{ begin; control; race "rcu_core / tick_sched_timer" \
	"rcu_core+0x40/0x90" "tick_sched_timer+0x10/0x80"; end; } |
	expect elsewhere 0 "KCSAN: 0 report(s) in the cache's code, 1 from the planted race (uc_race), 1 elsewhere in the kernel" --complete --kcsan uc_race
# A race in a function the series adds to a kernel file (the list
# devtools/series-functions.py prints) is the series' own; without the
# list it would count as elsewhere.
printf 'module_memory_poke\nsecretmem_add_folio\n' > "$tmp/series-fns"
{ begin; control; race "module_memory_poke / rcu_core" \
	"module_memory_poke+0x40/0x90" "rcu_core+0x10/0x80"; end; } |
	expect series-fn 1 "KCSAN: 1 report(s) in the cache's code, 1 from the planted race (uc_race), 0 elsewhere in the kernel" --complete --kcsan uc_race --ours-functions "$tmp/series-fns"
{ begin; control; race "module_memory_poke / rcu_core" \
	"module_memory_poke+0x40/0x90" "rcu_core+0x10/0x80"; end; } |
	expect series-fn-unlisted 0 "KCSAN: 0 report(s) in the cache's code, 1 from the planted race (uc_race), 1 elsewhere in the kernel" --complete --kcsan uc_race
{ begin; control; race "rcu_core / tick_sched_timer" \
	"rcu_core+0x40/0x90" "tick_sched_timer+0x10/0x80"; end; } |
	expect series-fn-elsewhere 0 "KCSAN: 0 report(s) in the cache's code, 1 from the planted race (uc_race), 1 elsewhere in the kernel" --complete --kcsan uc_race --ours-functions "$tmp/series-fns"
: > "$tmp/no-fns"
{ begin; control; end; } |
	expect series-fn-empty-list 1 "EMPTY list of the series' functions: $tmp/no-fns" --complete --kcsan uc_race --ours-functions "$tmp/no-fns"
# The control planted in the cache's own code has uc_ names: it counts
# as the control, not as a race in the cache's code.
{ begin; race "uc_planted_race_reader / uc_planted_race_writer" \
	"uc_planted_race_writer+0x60/0xc0" "uc_planted_race_reader+0x60/0xd7"; end; } |
	expect own-control 0 "KCSAN: 0 report(s) in the cache's code, 1 from the planted race (uc_planted_race), 0 elsewhere in the kernel" --complete --kcsan uc_planted_race
# Without --kcsan every KCSAN report is a splat.
{ begin; control; end; } |
	expect plain-kernel 1 "1 splats, 0 expected (bad-input cases), 1 not expected" --complete
# A report cut off by the end of the log is a splat.
{ begin; control | head -n 6; } |
	expect cut-off 1 "1 splats, 0 expected (bad-input cases), 1 not expected" --kcsan uc_race
{ begin; echo "[    5.0] WARNING: CPU: 1 PID: 1 at mm/page_alloc.c:1 x+0x1/0x2"; end; } |
	expect warning 1 "1 splats, 0 expected (bad-input cases), 1 not expected" --complete
{ begin; } |
	expect truncated 1 "INCOMPLETE console log (1 lines): no UC-RESULT line" --complete
: | expect empty 1 "INCOMPLETE console log (0 lines): empty" --complete
# One log per kind of splat, as 6.12 prints its first line; each must be
# seen (1 not expected), and a clean log of the same shape must pass.
one() { # one NAME LINE: a complete log with LINE in it must fail
	{ begin; echo "[    5.0] $2"; end; } |
		expect "$1" 1 "1 splats, 0 expected (bad-input cases), 1 not expected" --complete
}
one rcu-stall "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:"
one rcu-self-stall "rcu: INFO: rcu_sched self-detected stall on CPU"
one hung-task "INFO: task kworker/0:1:23 blocked for more than 122 seconds."
one slub-redzone "BUG kmalloc-64 (Not tainted): Redzone overwritten"
one slub-tainted "BUG skbuff_head_cache (Tainted: G    B   W          ): Poison overwritten"
one soft-lockup "watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [sh:120]"
one hard-lockup "NMI watchdog: Watchdog detected hard LOCKUP on cpu 1"
one kernel-bug "kernel BUG at mm/slub.c:451!"
one kasan "BUG: KASAN: slab-use-after-free in uc_arena_free+0x10/0x80"
one bad-page "BUG: Bad page state in process sh  pfn:10a2f"
one lockdep "WARNING: possible circular locking dependency detected"
one kmemleak "unreferenced object 0xffff888003a0c000 (size 64):"
# A KASAN report in the function named by --expect-kasan is expected; the
# same report elsewhere, or without the option, is not.
kasan_peek() { echo "[    5.0] BUG: KASAN: vmalloc-out-of-bounds in $1+0x9b/0x140 [uc_testmod_a]"; }
{ begin; kasan_peek uc_a_peek_show; end; } |
	expect kasan-expected 0 "1 splats, 1 expected (bad-input cases, KASAN reports of deliberate stale reads), 0 not expected" --complete --expect-kasan uc_a_peek_show
{ begin; kasan_peek uc_a_run_show; end; } |
	expect kasan-elsewhere 1 "1 splats, 0 expected (bad-input cases, KASAN reports of deliberate stale reads), 1 not expected" --complete --expect-kasan uc_a_peek_show
{ begin; kasan_peek uc_a_peek_show; end; } |
	expect kasan-not-asked 1 "1 splats, 0 expected (bad-input cases), 1 not expected" --complete
{ begin; echo "[    5.0] rcu: Hierarchical RCU implementation."
  echo "[    5.1] INFO: task sh is fine"; echo "[    5.2] kmalloc-64 ok"; end; } |
	expect clean 0 "0 splats, 0 expected (bad-input cases), 0 not expected" --complete
# The list of the series' functions comes from a scanner of C layout.
python3 "$UC_ROOT/devtools/series-functions.py" --self-test >/dev/null || {
	echo "series-functions.py --self-test failed"; bad=1; }
exit $bad
