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
# uc.peers=DIR is the host's copy (devtools/check.sh, sec_peers): DIR/ftrace,
# DIR/livepatch, DIR/livepatch/test_modules/*.ko and DIR/bpf/test_verifier.
# Prints, per suite,
#   UC-PEER suite=NAME pass=N fail=N skip=N
# and one line per case that did not pass:
#   UC-PEER-CASE suite=NAME result=R name=TEXT
# The job fails only if a suite could not run at all: which failures
# matter is the host's decision (on must not fail a case that off passes).
. "$UC_DIR/jobs/lib.sh"

peers=$(uc_arg uc.peers "")
[ -d "$peers/ftrace" ] && [ -d "$peers/livepatch" ] ||
	{ echo "peers: no uc.peers= directory with ftrace/ and livepatch/"; exit 1; }
command -v bash > /dev/null || { echo "peers: no bash (boot with --hostroot)"; exit 1; }
rc=0

# tally SUITE FILE: the UC-PEER line of a file of "RESULT<TAB>NAME" lines
# (RESULT PASS or XFAIL passes, SKIP, UNSUPPORTED or UNTESTED is skipped,
# anything else fails), and a UC-PEER-CASE line per case not passed.
tally() {
	awk -F'\t' -v suite="$1" '
		$1 == "PASS" || $1 == "XFAIL" { p++; next }
		{ printf "UC-PEER-CASE suite=%s result=%s name=%s\n", suite, $1, $2 }
		$1 == "SKIP" || $1 == "UNSUPPORTED" || $1 == "UNTESTED" { s++; next }
		{ f++ }
		END { printf "UC-PEER suite=%s pass=%d fail=%d skip=%d\n", suite, p, f, s }' "$2"
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
[ -s /run/tmp/memfd_secret.res ] || rc=1
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
[ -s /run/tmp/ftrace.res ] || rc=1
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
grep -q '^PASS' /run/tmp/livepatch.res || rc=1
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
grep -q '^PASS' /run/tmp/test_verifier.res || rc=1
tally test_verifier /run/tmp/test_verifier.res
exit $rc
