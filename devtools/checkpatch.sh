#!/usr/bin/env bash
# checkpatch.pl --strict on the project's kernel files and patches.
#
# Usage: devtools/checkpatch.sh --list   list what is checked
#        devtools/checkpatch.sh FILE     check one (repository-relative) file
# Needs the prepared tree ($UC_SRC) for scripts/checkpatch.pl.
. "$(dirname "$0")/common.sh"

if [ "$1" = --list ]; then
	cd "$UC_ROOT" || exit 1
	git ls-files -co --exclude-standard -- mm include arch lib \
		'tools/testing/unmapped_cache/*.c' 'tools/testing/unmapped_cache/*.h' \
		'Documentation/*.rst' | while read -r f; do
		[ -f "$f" ] || continue
		case "$f" in
		*.c|*.h|*/Kconfig|*/Makefile|*.rst) echo "$f" ;;
		esac
	done
	grep -v '^\s*\(#\|$\)' patches/series | sed 's,^,patches/,'
	exit 0
fi

f=$1
[ -f "$UC_ROOT/$f" ] || uc_die "no such file: $f"
cd "$UC_SRC" || exit 1
case "$f" in
patches/*)
	out=$(perl scripts/checkpatch.pl --strict --terse --no-summary \
		--ignore FILE_PATH_CHANGES "$UC_ROOT/$f" 2>&1) ;;
*/trace/*.h|include/trace/events/*.h)
	# TRACE_EVENT() headers follow the tracing layout (TP_*( on a line of
	# its own, TRACE_INCLUDE_PATH a/b/), which --strict flags in every
	# in-tree trace header; only those three checks are skipped.
	out=$(perl scripts/checkpatch.pl --strict --terse --no-summary \
		--ignore OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT,SPACING -f "$f" 2>&1) ;;
*)
	out=$(perl scripts/checkpatch.pl --strict --terse --no-summary -f "$f" 2>&1) ;;
esac
[ -z "$out" ] && exit 0
printf '%s\n' "$out"
exit 1
