#!/usr/bin/env bash
# Mutation runs: each mutant breaks one thing a test is meant to guard,
# and the test must then fail.  A mutant is a file devtools/mutants/NAME,
# a unified diff against this repository, whose header says how to test
# it and what must go red:
#
#   # mutant: one line saying what it breaks
#   # run: harness | kunit | debug (make check of the debug kernel only)
#   #      | atomics (the main kernel, then devtools/check-atomics.py)
#   #      | check SECTION,... (make check with UC_CHECK_ONLY=SECTION,...)
#   # expect: a string the run's output must contain (e.g. a FAIL line)
#
# Each mutant is applied to a fresh copy of the repository (git worktree
# of HEAD, outside it), run there with its own state directory (the
# pristine source and ccache are reused), and reported as
#   KILLED NAME   the run failed and printed the expected string
#   SURVIVED NAME the run passed, or failed without it
# The script ends with "N killed, N survived" and exits non-zero if any
# mutant survived or did not apply.  Not part of make check (each kunit
# mutant builds a kernel): run it after changing a test or what it
# guards.
#
# Usage: devtools/mutants.sh [NAME...]   (default: every mutant)
. "$(dirname "$0")/common.sh"
set -uo pipefail

dir=$UC_ROOT/devtools/mutants
mapfile -t names < <(if [ $# -gt 0 ]; then printf '%s\n' "$@"; else ls "$dir"; fi)
work=$(mktemp -d)
state=$UC_CACHE/mutants
mkdir -p "$state"
trap 'git -C "$UC_ROOT" worktree remove --force "$work/tree" >/dev/null 2>&1; rm -rf "$work"' EXIT

killed=0 survived=0
for name in "${names[@]}"; do
	m=$dir/$name
	[ -f "$m" ] || uc_die "no mutant $m"
	what=$(sed -n 's/^# mutant: //p' "$m" | head -1)
	run=$(sed -n 's/^# run: //p' "$m" | head -1)
	expect=$(sed -n 's/^# expect: //p' "$m" | head -1)
	git -C "$UC_ROOT" worktree remove --force "$work/tree" >/dev/null 2>&1
	git -C "$UC_ROOT" worktree add --detach -q "$work/tree" HEAD || uc_die "git worktree add failed"
	if ! patch -d "$work/tree" -p1 -s --dry-run < "$m" >/dev/null ||
	   ! patch -d "$work/tree" -p1 -s < "$m"; then
		echo "SURVIVED $name: does not apply any more ($what)"
		survived=$((survived + 1))
		continue
	fi
	log=$state/$name.log
	case "$run" in
	harness)
		(cd "$work/tree/tools/testing/unmapped_cache" &&
			UC_CACHE=$state/cache make run) > "$log" 2>&1 ;;
	kunit)
		(cd "$work/tree" && UC_CACHE=$state/cache make kunit) > "$log" 2>&1 ;;
	atomics)
		# The main kernel's cache objects, and the list of their atomics.
		(cd "$work/tree" && export UC_CACHE=$state/cache &&
			devtools/build-kernel.sh &&
			python3 devtools/check-atomics.py "$UC_CACHE/build") > "$log" 2>&1 ;;
	debug)
		# The debug kernel's KUnit boot and job (lockdep, KASAN).
		(cd "$work/tree" && UC_CACHE=$state/cache UC_CHECK_ONLY=debug make check) \
			> "$log" 2>&1 ;;
	check\ *)
		(cd "$work/tree" && UC_CACHE=$state/cache UC_CHECK_ONLY=${run#check } make check) \
			> "$log" 2>&1 ;;
	*)	uc_die "$name: unknown run '$run'" ;;
	esac
	rc=$?
	if [ $rc -ne 0 ] && grep -qF -- "$expect" "$log"; then
		echo "KILLED $name: $what (run $run: '$expect')"
		killed=$((killed + 1))
	else
		seen=no
		grep -qF -- "$expect" "$log" && seen=yes
		echo "SURVIVED $name: $what (run $run exited $rc, '$expect' seen: $seen; log: $log)"
		survived=$((survived + 1))
	fi
done
echo "$killed killed, $survived survived"
[ $survived -eq 0 ]
