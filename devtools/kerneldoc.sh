#!/usr/bin/env bash
# kernel-doc -none -Wall over the project's kernel C files and headers, and a
# check of the ".. kernel-doc::" directives of Documentation/mm/unmapped_cache.rst:
# each must name a file of the repository or of the prepared tree, and
# kernel-doc must find something to document there with the directive's
# options.  Prints every warning and exits non-zero if there is any.  Only
# reads files.
#
# Usage: devtools/kerneldoc.sh
# Needs the prepared tree ($UC_SRC) for scripts/kernel-doc.
# shellcheck source=devtools/common.sh disable=SC1091
. "$(dirname "$0")/common.sh"

kdoc=$UC_SRC/scripts/kernel-doc
rst=Documentation/mm/unmapped_cache.rst
[ -x "$kdoc" ] || uc_die "no $kdoc: prepare the tree first (make tree)"
cd "$UC_ROOT" || exit 1

# The project's kernel sources: every .c and .h under its kernel paths,
# tracked or new (tools/ is user space and has no kernel-doc).
mapfile -t files < <(git ls-files -co --exclude-standard -- "${UC_KERNEL_PATHS[@]}" |
	grep -E '\.[ch]$' | grep -v '^tools/' | sort -u)
existing=()
for f in "${files[@]}"; do
	[ -f "$f" ] && existing+=("$f")
done
[ ${#existing[@]} -gt 0 ] || uc_die "no kernel C files found under ${UC_KERNEL_PATHS[*]}"

warnings=$("$kdoc" -none -Wall "${existing[@]}" 2>&1 >/dev/null) ||
	uc_die "kernel-doc failed: $warnings"

# check_directive LINE FILE [OPTION:VALUE]...: one directive of $rst, with
# its options turned into kernel-doc arguments as
# Documentation/sphinx/kerneldoc.py does.
problems=()
check_directive() {
	local line=$1 file=$2 path opt id out err args=()
	local exported=0 internal=0 doc='' ids='' have_ids=0
	shift 2

	if [ -f "$file" ]; then
		path=$file
	elif [ -f "$UC_SRC/$file" ]; then
		path=$UC_SRC/$file
	else
		problems+=("$rst:$line: kernel-doc directive names $file, in neither the repository nor $UC_SRC")
		return
	fi
	for opt; do
		case "$opt" in
		export:*) exported=1 ;;
		internal:*) internal=1 ;;
		doc:*) doc=${opt#doc:} ;;
		identifiers:*|functions:*) have_ids=1; ids+=" ${opt#*:}" ;;
		esac
	done
	if [ $exported -eq 1 ]; then
		args+=(-export)
	elif [ $internal -eq 1 ]; then
		args+=(-internal)
	elif [ -n "$doc" ]; then
		args+=(-function "$doc")
	elif [ $have_ids -eq 1 ]; then
		for id in $ids; do
			args+=(-function "$id")
		done
		[ -n "${ids// /}" ] || args+=(-no-doc-sections)
	fi

	err=$(mktemp)
	# -sphinx-version only keeps kernel-doc from looking for sphinx-build.
	if ! out=$("$kdoc" -rst -sphinx-version 3.4.3 "${args[@]}" "$path" 2>"$err"); then
		problems+=("$rst:$line: kernel-doc ${args[*]} $file failed: $(cat "$err")")
	elif [ -z "$out" ]; then
		problems+=("$rst:$line: kernel-doc ${args[*]}${args[*]:+ }$file finds nothing to document")
	fi
	# Warnings about repository files are reported by the run above.
	[ "$path" = "$file" ] || problems+=("$(cat "$err")")
	rm -f "$err"

	# kernel-doc says nothing about an identifier it does not find.
	[ $exported -eq 0 ] && [ $internal -eq 0 ] && [ -z "$doc" ] || return 0
	for id in $ids; do
		[ -n "$("$kdoc" -rst -sphinx-version 3.4.3 -function "$id" "$path" 2>/dev/null)" ] ||
			problems+=("$rst:$line: $id is not documented in $file")
	done
}

[ -f "$rst" ] || uc_die "no $rst"
directives=0
cur_line='' cur_file='' cur_opts=()
flush_directive() {
	[ -n "$cur_file" ] || return 0
	check_directive "$cur_line" "$cur_file" "${cur_opts[@]}"
	directives=$((directives + 1))
	cur_file='' cur_opts=()
}
n=0
re_directive='^\.\.[[:space:]]+kernel-doc::[[:space:]]*([^[:space:]]*)'
re_option='^[[:space:]]+:([a-z-]+):[[:space:]]*(.*)$'
while IFS= read -r l || [ -n "$l" ]; do
	n=$((n + 1))
	if [[ $l =~ $re_directive ]]; then
		flush_directive
		cur_line=$n cur_file=${BASH_REMATCH[1]}
		[ -n "$cur_file" ] ||
			problems+=("$rst:$n: kernel-doc directive without a file")
	elif [ -n "$cur_file" ] && [[ $l =~ $re_option ]]; then
		cur_opts+=("${BASH_REMATCH[1]}:${BASH_REMATCH[2]}")
	else
		flush_directive
	fi
done < "$rst"
flush_directive
[ $directives -gt 0 ] || problems+=("$rst: no kernel-doc directive")

report=$(printf '%s\n' "$warnings" "${problems[@]}" | grep -v '^$')
if [ -n "$report" ]; then
	printf '%s\n' "$report"
	uc_log "kernel-doc: $(printf '%s\n' "$report" | wc -l) warnings" \
		"(${#existing[@]} files, $directives directives in $rst)"
	exit 1
fi
uc_log "kernel-doc: no warnings (${#existing[@]} files, $directives directives in $rst)"
