#!/usr/bin/env bash
# Make $UC_SRC the Debian 6.12 source with patches/series applied and the
# repository's kernel files laid on top.
#
# The tree is updated in place, and only files whose content changes are
# rewritten, so that the out-of-tree build in $UC_OUT stays incremental:
# the patched and overlaid files are assembled in a staging directory from
# the pristine sources, then copied over with "rsync --checksum".  A
# manifest remembers which files the previous run placed, so a file that
# left the repository (or a patch) is put back to its pristine content.
#
# Usage: devtools/prepare-tree.sh
. "$(dirname "$0")/common.sh"

[ -f "$UC_TARBALL" ] || uc_die "$UC_TARBALL missing: run devtools/deps.sh"
mkdir -p "$UC_CACHE"

stamp=$(stat -c '%s-%Y' "$UC_TARBALL")
if [ "$(cat "$UC_PRISTINE/.uc-stamp" 2>/dev/null)" != "$stamp" ]; then
	uc_log "unpacking $UC_TARBALL into $UC_PRISTINE"
	rm -rf "$UC_PRISTINE" "$UC_SRC" "$UC_REUSE/unpack"
	mkdir -p "$UC_REUSE/unpack"
	tar -C "$UC_REUSE/unpack" -xf "$UC_TARBALL" ||
		uc_die "cannot unpack $UC_TARBALL"
	mv "$UC_REUSE/unpack/linux-source-6.12" "$UC_PRISTINE"
	rmdir "$UC_REUSE/unpack"
	echo "$stamp" > "$UC_PRISTINE/.uc-stamp"
fi

if [ ! -f "$UC_SRC/.uc-manifest" ]; then
	uc_log "copying the pristine tree to $UC_SRC"
	rm -rf "$UC_SRC"
	cp -a --reflink=auto "$UC_PRISTINE" "$UC_SRC.tmp"
	: > "$UC_SRC.tmp/.uc-manifest"
	mv "$UC_SRC.tmp" "$UC_SRC"
fi

stage=$(mktemp -d "$UC_CACHE/stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT

# 1. The files the patches touch, pristine, then patched in series order.
mapfile -t series < <(grep -v '^\s*\(#\|$\)' "$UC_ROOT/patches/series")
for p in "${series[@]}"; do
	[ -f "$UC_ROOT/patches/$p" ] || uc_die "patches/series names missing $p"
	sed -n 's,^+++ b/\([^[:space:]]*\).*,\1,p' "$UC_ROOT/patches/$p"
done | sort -u | while read -r f; do
	if [ -f "$UC_PRISTINE/$f" ]; then
		mkdir -p "$stage/$(dirname "$f")"
		cp -p "$UC_PRISTINE/$f" "$stage/$f"
	fi
done
for p in "${series[@]}"; do
	patch -d "$stage" -p1 -s -f --no-backup-if-mismatch \
		< "$UC_ROOT/patches/$p" >"$stage.log" 2>&1 ||
		{ cat "$stage.log" >&2; rm -f "$stage.log"; uc_die "patches/$p does not apply"; }
done
rm -f "$stage.log"

# 2. The repository's own kernel files (tracked or not, unless ignored).
existing=()
for d in "${UC_KERNEL_PATHS[@]}"; do
	[ -e "$UC_ROOT/$d" ] && existing+=("$d")
done
while read -r f; do
	[ -f "$UC_ROOT/$f" ] || continue
	if [ -e "$stage/$f" ]; then
		uc_die "$f is both a repository file and patched by patches/"
	fi
	mkdir -p "$stage/$(dirname "$f")"
	cp "$UC_ROOT/$f" "$stage/$f"
done < <(cd "$UC_ROOT" && git ls-files -co --exclude-standard -- "${existing[@]}")

# 3. Put back what the previous run placed and this one does not.
(cd "$stage" && find . -type f | sed 's,^\./,,' | sort) > "$stage.manifest"
comm -23 <(sort "$UC_SRC/.uc-manifest") "$stage.manifest" | while read -r f; do
	if [ -f "$UC_PRISTINE/$f" ]; then
		cp "$UC_PRISTINE/$f" "$UC_SRC/$f"
	else
		rm -f "$UC_SRC/$f"
	fi
done

# 4. Copy what changed.
rsync -r --checksum "$stage/" "$UC_SRC/"
mv "$stage.manifest" "$UC_SRC/.uc-manifest"
uc_log "tree ready: $UC_SRC ($(wc -l < "$UC_SRC/.uc-manifest") files from the repository)"
