#!/usr/bin/env bash
# W=1 and sparse (C=1) on the existing kernel files that patches/ edits:
# rebuild their objects with both, and fail on any warning that points at
# a line the series added or changed.  Warnings the upstream code already
# had elsewhere in those files are listed as context, not counted.
# Needs a configured, built kernel (devtools/build-kernel.sh).
. "$(dirname "$0")/common.sh"

log=$UC_CACHE/logs/lint-patched.log
mapfile -t series < <(grep -v '^\s*\(#\|$\)' "$UC_ROOT/patches/series")

# Lines added by the series, as "file:line", from each patch's hunks
# (later patches to the same file are applied on top, so their numbering
# is the final one; earlier patches' lines may shift, which can only
# make a warning be missed on them, never invented).
added=$(for p in "${series[@]}"; do
	awk '
		/^\+\+\+ b\// { f = substr($2, 3); next }
		/^@@/ { split($3, a, ","); n = substr(a[1], 2) + 0; next }
		f == "" { next }
		/^\+/ { print f ":" n; n++; next }
		/^ / { n++ }
	' "$UC_ROOT/patches/$p"
done | sort -u)

objs=()
for f in $(printf '%s\n' "$added" | cut -d: -f1 | sort -u); do
	case "$f" in
	*.c) [ -f "$UC_SRC/$f" ] && objs+=("${f%.c}.o") ;;
	esac
done
[ ${#objs[@]} -gt 0 ] || uc_die "no patched C files found"

# Touch them so that W=1 and C=1 see every one (C=1 checks only what is
# rebuilt).
(cd "$UC_SRC" && touch "${objs[@]/%.o/.c}")
kmake -j"$UC_JOBS" W=1 C=1 "${objs[@]}" > "$log" 2>&1 ||
	{ tail -20 "$log"; uc_die "W=1/C=1 build of the patched files failed, log: $log"; }

new=0
while IFS= read -r w; do
	loc=$(printf '%s' "$w" | sed -n 's/^\([^: ]*\.[ch]\):\([0-9]*\):.*/\1:\2/p')
	[ -n "$loc" ] || continue
	loc=${loc#"$UC_SRC"/}
	if printf '%s\n' "$added" | grep -qx "$loc"; then
		echo "NEW: $w"
		new=$((new + 1))
	fi
done < <(grep -E 'warning:|error:' "$log")
echo "${#objs[@]} patched objects (${objs[*]}): $new warnings on the series' lines," \
	"$(grep -cE 'warning:|error:' "$log") in all (log: $log)"
[ $new -eq 0 ]
