#!/usr/bin/env bash
# Write (or rewrite) a patch of patches/ from files edited in $UC_SRC.
#
# Usage: devtools/mkpatch.sh [-m MSGFILE] NAME.patch FILE...
#
# Workflow for changing an existing kernel file:
#   make tree                                  # $UC_CACHE/src is current
#   $EDITOR ~/.cache/unmapped_cache/src/mm/secretmem.c
#   devtools/mkpatch.sh -m msg.txt 0005-mm-secretmem-use-the-cache.patch mm/secretmem.c
#
# MSGFILE holds the subject on its first line, a blank line, then the body
# (the Signed-off-by trailer is added).  Without -m an existing patch keeps
# its header and only its diff is regenerated.  FILE is diffed against the
# pristine file with every patch listed *before* NAME in patches/series
# applied, so a later patch touching the same file must be regenerated
# after this one.  NAME is appended to patches/series if missing.
. "$(dirname "$0")/common.sh"

msg=
if [ "$1" = -m ]; then msg=$2; shift 2; fi
name=$1
shift
[ -n "$name" ] && [ $# -gt 0 ] || uc_die "usage: $0 [-m MSGFILE] NAME.patch FILE..."
out=$UC_ROOT/patches/$name

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mapfile -t series < <(grep -v '^\s*\(#\|$\)' "$UC_ROOT/patches/series")
earlier=()
for p in "${series[@]}"; do
	[ "$p" = "$name" ] && break
	earlier+=("$p")
done
# Base: the pristine files the earlier patches touch, plus FILE, patched.
{
	for p in "${earlier[@]}"; do
		sed -n 's,^+++ b/\([^[:space:]]*\).*,\1,p' "$UC_ROOT/patches/$p"
	done
	printf '%s\n' "$@"
} | sort -u | while read -r f; do
	[ -f "$UC_PRISTINE/$f" ] || continue
	mkdir -p "$stage/$(dirname "$f")"
	cp "$UC_PRISTINE/$f" "$stage/$f"
done
for p in "${earlier[@]}"; do
	patch -d "$stage" -p1 -s -f --no-backup-if-mismatch < "$UC_ROOT/patches/$p" >/dev/null ||
		uc_die "patches/$p does not apply"
done

if [ -n "$msg" ]; then
	subject=$(head -n 1 "$msg")
	header=$(printf 'From: unmapped_cache developers <unmapped-cache@localhost>\nSubject: [PATCH] %s\n\n%s\n\nSigned-off-by: unmapped_cache developers <unmapped-cache@localhost>\n---' \
		"$subject" "$(tail -n +3 "$msg")")
elif [ -f "$out" ]; then
	header=$(sed '/^---$/q' "$out")
else
	uc_die "new patch $name needs -m MSGFILE"
fi

{
	printf '%s\n' "$header"
	for f in "$@"; do
		[ -f "$UC_SRC/$f" ] || uc_die "no $UC_SRC/$f"
		if [ -f "$stage/$f" ]; then
			diff -u --label "a/$f" --label "b/$f" "$stage/$f" "$UC_SRC/$f"
		else
			diff -u --label /dev/null --label "b/$f" /dev/null "$UC_SRC/$f"
		fi
		[ $? -le 1 ] || uc_die "diff failed for $f"
	done
} > "$out.tmp"
mv "$out.tmp" "$out"
grep -qxF "$name" "$UC_ROOT/patches/series" || echo "$name" >> "$UC_ROOT/patches/series"
uc_log "wrote patches/$name"
