#!/usr/bin/env bash
# Boot the built kernel many times under multi-threaded TCG (one host
# thread per vCPU) and count how the boots end, to tell emulator faults
# from kernel ones: run it with and without --append unmapped_cache=off.
#
# Usage: devtools/mttcg-boots.sh [-n BOOTS] [--smp N] [--job JOB] [--kunit]
#                               [--timeout SEC] [--append ARGS]...
#
# Each boot runs JOB (default "boot", jobs/boot.sh) from the initramfs,
# after the KUnit suites with --kunit.  A boot is "ok" when the job ended
# with status 0 and, with --kunit, every KUnit case passed.  Prints
# one line per boot and then
#   MTTCG boots=N ok=N oops=N timeout=N other=N cmdline="..."
# Logs of the boots that did not end well are kept in
# $UC_GUEST/logs/mttcg/.  Exit status 0 (the figures are the result).
. "$(dirname "$0")/common.sh"

n=20 smp=2 append=() job=boot kunit=() timeout=180
while [ $# -gt 0 ]; do
	case "$1" in
	-n) n=$2; shift ;;
	--smp) smp=$2; shift ;;
	--append) append+=(--append "$2"); shift ;;
	--job) job=$2; shift ;;
	--kunit) kunit=(--kunit) ;;
	--timeout) timeout=$2; shift ;;
	*) uc_die "unknown argument $1" ;;
	esac
	shift
done
dir=$UC_GUEST/logs/mttcg
mkdir -p "$dir"
ok=0 oops=0 timeout=0 other=0
for i in $(seq 1 "$n"); do
	log=$dir/boot-$$-$i.log
	UC_QEMU_ACCEL=tcg,thread=multi "$UC_ROOT/devtools/qemu-run.sh" --timeout "$timeout" \
		--smp "$smp" --log "$log" "${kunit[@]}" "${append[@]}" "$job" >/dev/null 2>&1
	rc=$?
	if [ $rc -eq 0 ] && [ ${#kunit[@]} -gt 0 ] &&
		! python3 "$UC_ROOT/devtools/ktap.py" "$log" >/dev/null; then
		rc=1
	fi
	if [ $rc -eq 0 ]; then
		ok=$((ok + 1)); what=ok
		rm -f "$log"
	elif grep -aq 'Oops\|BUG:\|general protection\|Kernel panic' "$log"; then
		oops=$((oops + 1))
		what="oops: $(grep -am1 'Oops\|BUG:\|general protection\|Kernel panic' "$log" | tr -d '\r' | cut -c1-100)"
	elif [ $rc -eq 124 ]; then
		timeout=$((timeout + 1)); what=timeout
	else
		other=$((other + 1)); what="status $rc"
		[ ${#kunit[@]} -gt 0 ] && what="$what: $(python3 "$UC_ROOT/devtools/ktap.py" "$log" | grep -v '^PASS' | head -3 | tr '\n' ' ')"
	fi
	echo "boot $i: $what"
done
echo "MTTCG job=$job${kunit:+ with KUnit} boots=$n ok=$ok oops=$oops timeout=$timeout other=$other smp=$smp append=\"${append[*]}\""
