#!/usr/bin/env bash
# Compile every object of mm/unmapped_cache/ (debug.o and exercise.o aside)
# with the exact flags kbuild used in the built tree, but as a kernel
# without CONFIG_UNMAPPED_CACHE_DEBUG and CONFIG_UNMAPPED_CACHE_KUNIT_TEST
# would (and so without CONFIG_UNMAPPED_CACHE_TEST_HOOKS), with -Werror: the
# self-checks and test switches those options bring must not be needed by
# anything else, and nothing may be left unused without them.  A header
# given after kbuild's own -include undefines the three options.
. "$(dirname "$0")/common.sh"

undef=$(mktemp --suffix=.h)
obj=$(mktemp --suffix=.o)
trap 'rm -f "$undef" "$obj"' EXIT
printf '#undef %s\n' CONFIG_UNMAPPED_CACHE_DEBUG CONFIG_UNMAPPED_CACHE_KUNIT_TEST \
	CONFIG_UNMAPPED_CACHE_TEST_HOOKS > "$undef"
rc=0 n=0
for cmdfile in "$UC_OUT"/mm/unmapped_cache/.*.o.cmd; do
	o=$(basename "$cmdfile" .cmd); o=${o#.}
	case $o in debug.o|exercise.o) continue ;; esac
	# An object of a file that left the tree (a dev build's leftover).
	[ -f "$UC_SRC/mm/unmapped_cache/${o%.o}.c" ] || continue
	cmd=$(sed -n "s/^savedcmd_mm\\/unmapped_cache\\/$o := //p" "$cmdfile")
	# Only the compile: objtool, chained after it, would run on the
	# tree's own object a second time and corrupt it for the next link.
	cmd=${cmd%%;*}
	new=$(printf '%s' "$cmd" | sed "s#-c -o mm/unmapped_cache/$o #-include $undef -Werror -Wunused-function -c -o $obj #")
	[ -n "$cmd" ] && [ "$new" != "$cmd" ] || { echo "unexpected compile command in $cmdfile"; rc=1; continue; }
	(cd "$UC_OUT" && eval "$new") || { echo "FAILED: $o without the test hooks"; rc=1; }
	n=$((n + 1))
done
[ $n -gt 0 ] || { echo "no objects of mm/unmapped_cache in $UC_OUT: build the kernel first"; exit 1; }
echo "$n objects compiled without CONFIG_UNMAPPED_CACHE_DEBUG/KUNIT_TEST/TEST_HOOKS"
exit $rc
