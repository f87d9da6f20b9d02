# SPDX-License-Identifier: GPL-2.0
# The kernel's own selftests of what the cache serves, run unchanged on
# the same kernel booted with the cache off and on (make peer-check;
# needs --hostroot: bash and the tools the selftests call):
#   memfd_secret  tools/testing/selftests/mm/memfd_secret ($UC_BIN)
#   ftracetest    tools/testing/selftests/ftrace: its kprobe and ftrace
#                 directories (kprobe events, function and function graph
#                 tracers, filters and the trampolines of ftrace_ops)
#   livepatch     tools/testing/selftests/livepatch/test-*.sh, with their
#                 test modules built against this kernel by the host
#   test_verifier tools/testing/selftests/bpf/test_verifier, built by the
#                 host: every program it loads is JITed into the
#                 allocations the cache serves (BPF packs)
#   kmod          tools/testing/selftests/kmod/kmod.sh with lib/test_kmod:
#                 request_module() from many threads at once, past
#                 modprobe's limit, each loading lib/test_module, and the
#                 addresses of a loaded module hidden from a reader
#                 without CAP_SYSLOG
# uc.peers=DIR is the host's copy (devtools/check.sh, sec_peers): DIR/ftrace,
# DIR/livepatch, DIR/livepatch/test_modules/*.ko, DIR/bpf/test_verifier
# and DIR/kmod.
# Prints, per suite,
#   UC-PEER suite=NAME pass=N fail=N skip=N
# and one line per case that did not pass:
#   UC-PEER-CASE suite=NAME result=R name=TEXT
# Then a KTAP result per suite (jobs/lib.sh).  The two boots share a
# directory (qemu-run.sh --share): with the cache off, a suite must pass
# some case (the comparison's positive control), and its counts and the
# cases it failed go there; with the cache on, it must pass some case and
# fail none that passed off.
. "$UC_DIR/jobs/lib.sh"

peers=$(uc_arg uc.peers "")
[ -d "$peers/ftrace" ] && [ -d "$peers/livepatch" ] ||
	{ echo "peers: no uc.peers= directory with ftrace/ and livepatch/"; exit 1; }
command -v bash > /dev/null || { echo "peers: no bash (boot with --hostroot)"; exit 1; }
[ -n "$UC_SHARE" ] || { echo "peers: no shared directory (qemu-run.sh --share)"; exit 1; }
# The job's own KTAP starts here, before the suites' output: that output
# is printed with each line behind the suite's name, so that the KTAP
# (and TAP) of the suites themselves is not read as the job's.
ktap_print_header
ktap_set_plan 5

# tally SUITE FILE: the UC-PEER line of a file of "RESULT<TAB>NAME" lines
# (RESULT PASS or XFAIL passes, SKIP, UNSUPPORTED or UNTESTED is skipped,
# anything else fails), and a UC-PEER-CASE line per case not passed.
tally() {
	awk -F'\t' -v suite="$1" '
		$1 == "PASS" || $1 == "XFAIL" { p++; next }
		{ printf "UC-PEER-CASE suite=%s result=%s name=%s\n", suite, $1, $2 }
		$1 == "SKIP" || $1 == "UNSUPPORTED" || $1 == "UNTESTED" { s++; next }
		{ f++ }
		END { printf "UC-PEER suite=%s pass=%d fail=%d skip=%d\n", suite, p, f, s }' "$2" |
		tee /run/tmp/peer-$1.cases
	# For the comparison of the boots: the counts, and the cases failed.
	sed -n 's/^UC-PEER suite=[^ ]* //p' /run/tmp/peer-$1.cases > /run/tmp/peer-$1.line
	sed -n '/ result=\(SKIP\|UNSUPPORTED\|UNTESTED\) /!s/^UC-PEER-CASE .* name=//p' \
		/run/tmp/peer-$1.cases | sort -u > /run/tmp/peer-$1.fails
}

# ktap_results: "RESULT<TAB>NAME" lines of KTAP's "ok N name",
# "ok N name # SKIP|XFAIL ...", "not ok N name [# ...]" on stdin.
ktap_results() {
	sed -n -e 's/^ok [0-9]* \(.*\) # SKIP.*/SKIP\t\1/p; t' \
		-e 's/^ok [0-9]* \(.*\) # XFAIL.*/XFAIL\t\1/p; t' \
		-e 's/^ok [0-9]* \(.*[^ ]\) *$/PASS\t\1/p; t' \
		-e 's/^not ok [0-9]* \(.*[^ ]\) *$/FAIL\t\1/p'
}

# memfd_secret: KTAP.
"$UC_BIN/memfd_secret" > /run/tmp/memfd_secret.out 2>&1
sed 's/^/memfd_secret: /' /run/tmp/memfd_secret.out
ktap_results < /run/tmp/memfd_secret.out > /run/tmp/memfd_secret.res
tally memfd_secret /run/tmp/memfd_secret.res

# ftracetest, in KTAP (-K), from a copy on tmpfs, logs on tmpfs, with a
# tmpfs on /tmp (it makes its directories there) in a mount namespace of
# its own, so that the rest of the guest still sees the host's /tmp.
cp -r "$peers/ftrace" /run/tmp/ftrace
unshare -m sh -c 'mount -t tmpfs tmpfs /tmp && cd /run/tmp/ftrace &&
	exec bash ./ftracetest -K -l /run/tmp/ftrace-logs test.d/kprobe test.d/ftrace' \
	> /run/tmp/ftrace.out 2>&1
sed 's/^/ftracetest: /' /run/tmp/ftrace.out
ktap_results < /run/tmp/ftrace.out > /run/tmp/ftrace.res
tally ftracetest /run/tmp/ftrace.res

# livepatch: each script runs its tests in order and stops at the first
# that fails ("TEST: name ... ok" / "... not ok"); a script that exits
# with 4 (kselftest's skip) skipped.  The scripts and modules are copied
# to tmpfs, where functions.sh finds test_modules/ and writes its files.
cp -r "$peers/livepatch" /run/tmp/livepatch
: > /run/tmp/livepatch.res
for t in /run/tmp/livepatch/test-*.sh; do
	name=$(basename "$t" .sh)
	(cd /run/tmp/livepatch && KDIR=/ timeout 600 bash "./$name.sh") \
		> /run/tmp/$name.out 2>&1
	r=$?
	sed "s/^/livepatch: $name: /" /run/tmp/$name.out
	if [ $r -eq 4 ]; then
		printf 'SKIP\t%s\n' "$name" >> /run/tmp/livepatch.res
		continue
	fi
	sed -n "s/^TEST: \(.*\) \.\.\. ok$/PASS\t$name: \1/p
		s/^TEST: \(.*\) \.\.\. not ok$/FAIL\t$name: \1/p" \
		/run/tmp/$name.out >> /run/tmp/livepatch.res
	# A script that died outside a test, or ran none, fails as a whole.
	if [ $r -ne 0 ] && ! grep -q ' \.\.\. not ok$' /run/tmp/$name.out; then
		printf 'FAIL\t%s (exit %d)\n' "$name" $r >> /run/tmp/livepatch.res
	fi
done
tally livepatch /run/tmp/livepatch.res

# test_verifier: a case starts with a line "#N/u DESCR " or "#N/p DESCR "
# (unprivileged or privileged run) and ends with its verdict, OK, FAIL or
# SKIP (why), on that line or, after messages of its own, at the start of
# a later one; then "Summary: N PASSED, N SKIPPED, N FAILED".  The case's
# name is its first line up to the verdict.  libbpf's messages go to
# standard error, kept apart so that they cannot land in a case's line.
(cd "$peers/bpf" && timeout 1800 ./test_verifier) > /run/tmp/test_verifier.out \
	2> /run/tmp/test_verifier.err
r=$?
sed 's/^/test_verifier: /' /run/tmp/test_verifier.out | grep -v '/[up] .* OK$'
sed 's/^/test_verifier (stderr): /' /run/tmp/test_verifier.err | sort | uniq -c
awk '
	function verdict(v, name) {
		sub(/ +$/, "", name)
		printf "%s\t%s\n", v == "OK" ? "PASS" : v, name
		cur = ""
	}
	/^#[0-9]+\/[up] / {
		if (cur != "")
			printf "FAIL\t%s (no verdict)\n", cur
		cur = $0
		if (match($0, / (OK|FAIL|SKIP)( |$)/)) {
			w = substr($0, RSTART + 1, RLENGTH - 1)
			sub(/ $/, "", w)
			verdict(w, substr($0, 1, RSTART - 1))
		}
		next
	}
	cur != "" && match($0, /^(OK|FAIL|SKIP)/) { verdict(substr($0, 1, RLENGTH), cur) }
	END { if (cur != "") printf "FAIL\t%s (no verdict)\n", cur }' \
	/run/tmp/test_verifier.out > /run/tmp/test_verifier.res
# Killed, crashed or cut short, or a case this reading missed: the run
# fails as a whole.
sum=$(sed -n 's/^Summary: \([0-9]*\) PASSED, \([0-9]*\) SKIPPED, \([0-9]*\) FAILED$/\1 \2 \3/p' \
	/run/tmp/test_verifier.out)
got="$(grep -c '^PASS' /run/tmp/test_verifier.res) $(grep -c '^SKIP' /run/tmp/test_verifier.res)"
got="$got $(grep -c '^FAIL' /run/tmp/test_verifier.res)"
if [ -z "$sum" ]; then
	printf 'FAIL\ttest_verifier (exit %d, no summary)\n' $r >> /run/tmp/test_verifier.res
elif [ "$sum" != "$got" ]; then
	printf 'FAIL\ttest_verifier (cases read %s, its summary %s)\n' "$got" "$sum" \
		>> /run/tmp/test_verifier.res
fi
tally test_verifier /run/tmp/test_verifier.res

# kmod: kmod.sh, each of its tests on its own (-t ID, which runs it as
# many times as kmod.sh's list says).  The kernel's request_module() runs
# the usermode helper /proc/sys/kernel/modprobe, here a wrapper that
# looks for modules in a tree on tmpfs (the guest's /lib/modules is the
# host's, read-only) holding test_kmod and test_module; kmod.sh calls the
# same wrapper (first in its PATH).  Skipped, off and on alike:
#   0003, 0004, 0006, 0007, 0009  get_fs_type() of a filesystem module:
#         the test kernel builds none as a module.  0001 and 0002 still
#         run their negative filesystem cases (an empty and a missing
#         name), after unloading DEFAULT_KMOD_FS (kmod.sh's knob for
#         "a filesystem module not loaded at boot"), here test_module
#   0012  reads a module's address as the last field of its /proc/modules
#         line, where test_kmod, built out of tree, has its taint flag
#         "(O)"; 0013 checks the same hiding through sysfs
kver=$(uname -r)
kmods=${UC_BIN%/bin}/modules
mkdir -p /run/kmod/lib/modules/$kver/extra /run/kmod/bin
cp "$kmods/test_kmod.ko" "$kmods/test_module.ko" /run/kmod/lib/modules/$kver/extra/
# The files depmod reads besides the modules (it warns without them).
touch /run/kmod/lib/modules/$kver/modules.order /run/kmod/lib/modules/$kver/modules.builtin \
	/run/kmod/lib/modules/$kver/modules.builtin.modinfo
depmod -b /run/kmod "$kver"
printf '#!/bin/sh\nexec /sbin/modprobe -d /run/kmod "$@"\n' > /run/kmod/bin/modprobe
chmod +x /run/kmod/bin/modprobe
modprobe0=$(cat /proc/sys/kernel/modprobe)
echo /run/kmod/bin/modprobe > /proc/sys/kernel/modprobe
: > /run/tmp/kmod.res
for id in 0001 0002 0003 0004 0005 0006 0007 0008 0009 0010 0011 0012 0013; do
	case $id in
	0003|0004|0006|0007|0009)
		printf 'SKIP\tkmod_test_%s (get_fs_type(): no filesystem module)\n' $id >> /run/tmp/kmod.res
		continue ;;
	0012)
		printf 'SKIP\tkmod_test_%s (reads the address where test_kmod has its (O) flag)\n' $id >> /run/tmp/kmod.res
		continue ;;
	esac
	(cd "$peers/kmod" && PATH=/run/kmod/bin:$PATH DEFAULT_KMOD_FS=test_module \
		timeout 900 bash ./kmod.sh -t $id) > /run/tmp/kmod-$id.out 2>&1
	r=$?
	sed "s/^/kmod: $id: /" /run/tmp/kmod-$id.out
	if [ $r -eq 0 ]; then
		printf 'PASS\tkmod_test_%s\n' $id >> /run/tmp/kmod.res
	else
		printf 'FAIL\tkmod_test_%s (exit %d)\n' $id $r >> /run/tmp/kmod.res
	fi
	# A test leaves test_kmod loaded; the next one loads it afresh.
	rmmod test_kmod 2>/dev/null
	rmmod test_module 2>/dev/null
done
echo "$modprobe0" > /proc/sys/kernel/modprobe
tally kmod /run/tmp/kmod.res

cache=$(uc_cache_mode)
for suite in memfd_secret ftracetest livepatch test_verifier kmod; do
	now=$(cat /run/tmp/peer-$suite.line)
	ok=0
	if [ $cache = off ]; then
		cp /run/tmp/peer-$suite.line /run/tmp/peer-$suite.fails "$UC_SHARE/"
		case "$now" in pass=[1-9]*) ok=1 ;; esac
		uc_ktap $ok "$suite ran with the cache off: $now"
		continue
	fi
	off=$(cat "$UC_SHARE/peer-$suite.line" 2>/dev/null)
	new=$(comm -13 "$UC_SHARE/peer-$suite.fails" /run/tmp/peer-$suite.fails 2>/dev/null |
		paste -sd ';' | tr -d '#*?[]')
	case "$off:$now" in pass=[1-9]*:pass=[1-9]*)
		[ -z "$new" ] && [ -r "$UC_SHARE/peer-$suite.fails" ] && ok=1 ;;
	esac
	uc_ktap $ok "$suite, off | on: ${off:-no result} | $now; failed on only: ${new:-none}"
done
ktap_finished
