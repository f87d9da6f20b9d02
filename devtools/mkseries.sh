#!/usr/bin/env bash
# Turn the repository into an upstream-style patch series against the
# pristine Debian 6.12 source, as patches/upstream/plan orders it:
# a git repository of the pristine tree in $UC_CACHE/series-git gets one
# commit per plan line, and "git format-patch --cover-letter" writes the
# series to $UC_CACHE/series/.  The cover letter carries the tables of the
# last "make run" ($UC_CACHE/results/latest/report.md) when there is one.
#
# Usage: devtools/mkseries.sh [--check]
#   --check  also, for every commit in turn: build vmlinux
#            (allnoconfig + kernel/configs/unmapped_cache_qemu.config +
#            kernel/configs/unmapped_cache.config) in
#            $UC_CACHE/series-build, and run checkpatch.pl --strict on
#            its patch; prints one PASS/FAIL line per commit and exits
#            non-zero if any failed.  The first build is a full one.
. "$(dirname "$0")/common.sh"
set -euo pipefail

check=0
[ "${1:-}" = --check ] && check=1
plan=$UC_ROOT/patches/upstream/plan
git_dir=$UC_CACHE/series-git
out=$UC_CACHE/series
bld=$UC_CACHE/series-build
author="unmapped_cache developers <unmapped-cache@localhost>"
git_c=(git -C "$git_dir" -c user.name="unmapped_cache developers"
	-c user.email=unmapped-cache@localhost -c commit.gpgsign=false)

[ -d "$UC_PRISTINE" ] || uc_die "no $UC_PRISTINE: run make tree first"

if [ ! -d "$git_dir/.git" ]; then
	uc_log "making a git repository of the pristine source in $git_dir (once)"
	rm -rf "$git_dir"
	rsync -a "$UC_PRISTINE/" "$git_dir/"
	"${git_c[@]}" init -q
	# Debian's top-level .gitignore ignores everything ("/*"): force.
	"${git_c[@]}" add -A -f
	"${git_c[@]}" commit -q -m "Linux 6.12 as in Debian's linux-source-6.12"
	"${git_c[@]}" tag uc-base
fi
"${git_c[@]}" checkout -q -f -B uc-series uc-base
"${git_c[@]}" clean -q -fdx

msgfile=$(mktemp)
trap 'rm -f "$msgfile"' EXIT

# message_of PATCH: the commit message in a patches/ file's header.
message_of() {
	awk '
		/^Subject: / { sub(/^Subject: (\[PATCH[^]]*\] )?/, ""); print; print ""; next }
		/^From: / && !body { next }
		/^---$/ { exit }
		/^$/ && !body { body = 1; next }
		body { print }
	' "$1"
}

n=0
while read -r msg parts; do
	case "$msg" in ''|'#'*) continue ;; esac
	n=$((n + 1))
	case "$msg" in
	*.patch)
		message_of "$UC_ROOT/patches/$msg" > "$msgfile"
		parts="$msg $parts"
		;;
	*.msg)
		{ cat "$UC_ROOT/patches/upstream/$msg"; echo; echo "Signed-off-by: $author"; } > "$msgfile"
		;;
	*) uc_die "plan line $n: unknown message $msg" ;;
	esac
	for p in $parts; do
		case "$p" in
		*.patch)
			"${git_c[@]}" apply --index "$UC_ROOT/patches/$p" ||
				uc_die "commit $n: patches/$p does not apply"
			;;
		*:*)
			# FILE:WORD: FILE up to its first line containing WORD.
			f=${p%%:*}
			[ -f "$UC_ROOT/$f" ] || uc_die "commit $n: no $f in the repository"
			grep -qF -- "${p#*:}" "$UC_ROOT/$f" ||
				uc_die "commit $n: no ${p#*:} in $f"
			mkdir -p "$git_dir/$(dirname "$f")"
			awk -v w="${p#*:}" '{ print } index($0, w) { exit }' \
				"$UC_ROOT/$f" > "$git_dir/$f"
			"${git_c[@]}" add -f "$f"
			;;
		*)
			[ -e "$UC_ROOT/$p" ] || uc_die "commit $n: no $p in the repository"
			(cd "$UC_ROOT" && git ls-files -co --exclude-standard -- "$p") |
				while read -r f; do
					mkdir -p "$git_dir/$(dirname "$f")"
					cp "$UC_ROOT/$f" "$git_dir/$f"
					"${git_c[@]}" add -f "$f"
				done
			;;
		esac
	done
	"${git_c[@]}" commit -q -F "$msgfile" --author="$author" ||
		uc_die "commit $n ($msg) is empty"
done < "$plan"

# Every file the repository puts in the kernel must be in the series.
missing=$(cd "$UC_ROOT" && git ls-files -- mm include arch lib Documentation tools/mm |
	while read -r f; do [ -e "$git_dir/$f" ] || echo "$f"; done)
[ -z "$missing" ] || uc_die "not in the series (add them to $plan):
$missing"

rm -rf "$out"
"${git_c[@]}" format-patch -q --cover-letter --subject-prefix="RFC PATCH" \
	-o "$out" uc-base..uc-series
cover=$out/0000-cover-letter.patch
blurb=$(mktemp)
{
	cat <<'TXT'
Memory that leaves the kernel direct map (secretmem) or whose direct-map
alias becomes read-only (module text, BPF images, kprobe and ftrace
trampolines) makes CPA split the 2 MiB entry that maps it, for good.
This series adds the allocator asked for at LSFMM 2022: it takes whole
2 MiB blocks from the page allocator, removes each from the direct map
with its one PMD (no split), and serves page-granular chunks from
per-permission arenas with per-CPU magazines and a shrinker.  Module
text and read-only data come from the ROX and RO arenas, mapped once with
their final permissions in the module area (text by 2M entries) and
written before the module is formed through a mapping only the writing
CPU sees, so that loading and unloading a module changes no direct-map
entry; kprobe instruction pages, ftrace trampolines and BPF program packs
come from the ROX arena, secretmem from the unmapped one, and execmem's
other users (module data and ro_after_init data) from unmapped pages
mapped 4K, so that a stale pointer into an unloaded module's data faults.
unmapped_cache=off restores their old paths.

Hibernation and /proc/kcore keep working with the cache in use.  The
snapshot copies cache pages through a read-only mapping that only the
copying CPU sees, so nothing splits, and hibernation is refused only while
secret memory is allocated, as stock does for secretmem.  kcore reads
module text, JIT images and trampolines through their own mappings and
secret pages as zeroes.

TXT
	if [ -f "$UC_ROOT/patches/upstream/cover-testing.txt" ]; then
		cat "$UC_ROOT/patches/upstream/cover-testing.txt"
		echo
	fi
	if [ -f "$UC_ROOT/patches/upstream/cover-port.txt" ]; then
		cat "$UC_ROOT/patches/upstream/cover-port.txt"
		echo
	fi
	if [ -f "$UC_ROOT/reports/make-run.md" ]; then
		echo "Measured with the same kernel booted off and on under QEMU:"
		echo
		sed -n '/^`make run` of /p' "$UC_ROOT/reports/make-run.md"
		echo
		sed -n '/^## /,/^!\[/p' "$UC_ROOT/reports/make-run.md" |
			grep -v '^!\[\|^<!-- /*figures:'
	else
		echo "(No measurement yet: run \"make run\" and regenerate.)"
	fi
	echo
	echo "Documentation/mm/unmapped_cache.rst (patch $(($(ls "$out" | wc -l) - 1))) has the design."
} > "$blurb"
python3 - "$cover" "$blurb" <<'PY'
import sys
cover, blurb = sys.argv[1], open(sys.argv[2]).read()
s = open(cover).read()
s = s.replace("*** SUBJECT HERE ***",
              "mm: an allocator that keeps unmapped memory out of the direct map in whole blocks")
s = s.replace("*** BLURB HERE ***", blurb.rstrip())
open(cover, "w").write(s)
PY
rm -f "$blurb"
uc_log "series: $(ls "$out" | wc -l) files in $out; largest: $(ls -S "$out" | head -1) ($(stat -c %s "$out/$(ls -S "$out" | head -1)") bytes)"

[ $check -eq 1 ] || exit 0

fails=0
i=0
mkdir -p "$bld" "$UC_CACHE/logs"
for c in $("${git_c[@]}" rev-list --reverse uc-base..uc-series); do
	i=$((i + 1))
	subject=$("${git_c[@]}" log -1 --format=%s "$c")
	"${git_c[@]}" checkout -q -f "$c"
	log=$UC_CACHE/logs/series-$i.log
	if [ ! -f "$bld/.config" ]; then
		make -C "$git_dir" O="$bld" \
			KCONFIG_ALLCONFIG="$UC_ROOT/kernel/configs/unmapped_cache_qemu.config" \
			allnoconfig > "$log" 2>&1
	fi
	# Options the commit does not know yet are dropped; later commits
	# bring them back from the fragment.
	(cd "$git_dir" && KCONFIG_CONFIG="$bld/.config" scripts/kconfig/merge_config.sh \
		-m -O "$bld" "$bld/.config" "$UC_ROOT/kernel/configs/unmapped_cache.config") >> "$log" 2>&1
	ok=1
	make -C "$git_dir" O="$bld" CC="ccache gcc" olddefconfig >> "$log" 2>&1 || ok=0
	[ $ok -eq 1 ] && { make -C "$git_dir" O="$bld" CC="ccache gcc" -j"$UC_JOBS" vmlinux >> "$log" 2>&1 || ok=0; }
	built=$ok
	# Once x86 selects the option, every step must compile the cache.
	if grep -q '^CONFIG_UNMAPPED_CACHE=y' "$bld/.config"; then
		cache="cache built"
		on=1
	elif [ "${on:-0}" -eq 1 ]; then
		cache="cache NOT built"
		ok=0
	else
		cache="cache not selectable yet"
	fi
	patch=$(ls "$out" | sed -n "$((i + 1))p")
	# TRACE_EVENT() headers follow the tracing layout, which --strict
	# flags in every in-tree trace header: for patches that add one, the
	# same three checks as devtools/checkpatch.sh skips are skipped.
	ignore=FILE_PATH_CHANGES
	grep -q '^+++ b/.*trace/.*\.h$' "$out/$patch" &&
		ignore=$ignore,OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT,SPACING
	cp_out=$(cd "$git_dir" && perl scripts/checkpatch.pl --strict --terse --no-summary \
		--ignore "$ignore" "$out/$patch" 2>&1) || ok=0
	if [ $ok -eq 1 ]; then
		echo "PASS $i/$("${git_c[@]}" rev-list --count uc-base..uc-series) builds ($cache), checkpatch clean: $subject"
	else
		echo "FAIL $i: $subject: $([ $built -eq 1 ] && echo "builds ($cache)" || echo "build FAILED (log: $log)")${cp_out:+; checkpatch: $cp_out}"
		fails=$((fails + 1))
	fi
done
"${git_c[@]}" checkout -q -f uc-series
[ $fails -eq 0 ]
