#!/usr/bin/env bash
# Self-test of ktap.py on hand-made console logs: a parser that reported a
# pass for a crashed or failed run would make every KUnit result worthless.
. "$(dirname "$0")/common.sh"
ktap=$UC_ROOT/devtools/ktap.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
expect() { # expect NAME RC SUMMARY < log
	cat > "$tmp/$1"
	out=$(python3 "$ktap" "$tmp/$1")
	rc=$?
	sum=$(printf '%s\n' "$out" | tail -n 1)
	if [ "$rc" != "$2" ] || [ "$sum" != "$3" ]; then
		echo "$1: got rc=$rc '$sum', want rc=$2 '$3'"
		bad=1
	fi
}

expect all-pass 0 "kunit: 2 passed, 0 failed, 0 skipped" <<'L'
[    0.5] KTAP version 1
[    0.5] 1..1
[    0.5]     KTAP version 1
[    0.5]     # Subtest: s
[    0.5]     1..2
[    0.5]     ok 1 a
[    0.5]     ok 2 b
[    0.5] ok 1 s
L
expect one-fail 1 "kunit: 1 passed, 1 failed, 0 skipped" <<'L'
KTAP version 1
1..1
    KTAP version 1
    # Subtest: s
    1..2
    ok 1 a
    not ok 2 b
not ok 1 s
L
expect skip-counts-against 1 "kunit: 1 passed, 0 failed, 1 skipped" <<'L'
KTAP version 1
1..1
    KTAP version 1
    # Subtest: s
    1..2
    ok 1 a
    ok 2 b # SKIP no fault injection
ok 1 s
L
expect crash-mid-suite 1 "kunit: 1 passed, 0 failed, 0 skipped, output incomplete" <<'L'
KTAP version 1
1..1
    KTAP version 1
    # Subtest: s
    1..2
    ok 1 a
BUG: unable to handle page fault
L
expect params 1 "kunit: 1 passed, 1 failed, 0 skipped" <<'L'
KTAP version 1
1..1
    KTAP version 1
    # Subtest: s
    1..1
        KTAP version 1
        # Subtest: p
        ok 1 x
        not ok 2 y
    not ok 1 p
not ok 1 s
L
expect nothing 1 "kunit: 0 passed, 0 failed, 0 skipped, output incomplete" <<'L'
Linux version 6.12
L

# The manifest: a listed case that did not run and a case that ran but is
# not listed both fail, each on its own line.
printf '%s\n' '# comment' s.a s.c > "$tmp/manifest"
printf '%s\n' 'KTAP version 1' '1..1' '    # Subtest: s' '    1..2' \
	'    ok 1 a' '    ok 2 b' 'ok 1 s' > "$tmp/drift"
out=$(python3 "$ktap" --manifest "$tmp/manifest" "$tmp/drift")
rc=$?
want="PASS s.a
PASS s.b
MISSING s.c
UNLISTED s.b
kunit: 2 passed, 0 failed, 0 skipped
manifest: 2 cases listed, 2 missing or unlisted"
if [ $rc != 1 ] || [ "$out" != "$want" ]; then
	echo "manifest: got rc=$rc:"; echo "$out"
	bad=1
fi
# A boot with both: the KUnit suites before the init's UC-BEGIN line, the
# job's results (a nested KTAP, as the debug job prints the callers') after.
cat > "$tmp/both" <<'L'
[    0.5] KTAP version 1
[    0.5] 1..1
[    0.5]     KTAP version 1
[    0.5]     # Subtest: s
[    0.5]     1..1
[    0.5]     ok 1 a
[    0.5] ok 1 s
UC-BEGIN job=debug
TAP version 13
1..2
    TAP version 13
    1..2
    ok 1 w1
[    9.1] a printk line
    not ok 2 w2
not ok 1 callers
ok 2 kmemleak
UC-RESULT rc=1
L
out=$(python3 "$ktap" "$tmp/both" | tr '\n' '|')
[ "$out" = "PASS s.a|kunit: 1 passed, 0 failed, 0 skipped|" ] ||
	{ echo "both, KUnit: got '$out'"; bad=1; }
out=$(python3 "$ktap" --job "$tmp/both" | tr '\n' '|')
[ "$out" = "PASS callers.w1|FAIL callers.w2|PASS kmemleak|job: 2 passed, 1 failed, 0 skipped|" ] ||
	{ echo "both, job: got '$out'"; bad=1; }

printf '%s\n' s.a s.b > "$tmp/manifest"
python3 "$ktap" --manifest "$tmp/manifest" "$tmp/drift" >/dev/null ||
	{ echo "manifest: a matching manifest failed"; bad=1; }
exit $bad
