#!/usr/bin/env bash
# Prepare the tree, configure it from x86_64_defconfig plus
# kernel/configs/unmapped_cache.config, and build bzImage out of tree with
# ccache.  Re-running rebuilds only what changed.
#
# Usage: devtools/build-kernel.sh [make targets...]   (default: bzImage)
. "$(dirname "$0")/common.sh"

"$UC_ROOT/devtools/prepare-tree.sh" || exit 1
mkdir -p "$UC_OUT" "$UC_CACHE/logs"
log=$UC_CACHE/logs/build${UC_VARIANT:+-$UC_VARIANT}.log

# Reconfigure only when an input of the configuration changed, so that an
# unchanged tree does not even re-run syncconfig.
frags=()
for f in $UC_FRAGMENTS; do
	frags+=("$UC_SRC/kernel/configs/$f")
done
inputs=$(cat "${frags[@]}" "$UC_ROOT/patches/series" "$UC_ROOT"/patches/*.patch \
	"$UC_ROOT"/mm/unmapped_cache/Kconfig | sha256sum | cut -d' ' -f1)
if [ ! -f "$UC_OUT/.config" ] || [ "$(cat "$UC_OUT/.uc-config" 2>/dev/null)" != "$inputs" ]; then
	uc_log "configuring: x86_64_defconfig + $UC_FRAGMENTS"
	# shellcheck disable=SC2086
	kmake x86_64_defconfig $UC_FRAGMENTS > "$UC_CACHE/logs/config.log" 2>&1 ||
		{ tail -20 "$UC_CACHE/logs/config.log"; uc_die "configuration failed, log: $UC_CACHE/logs/config.log"; }
	# Every option of the fragment must have survived olddefconfig.
	bad=0
	while read -r line; do
		case "$line" in
		CONFIG_*=*)
			grep -qxF "$line" "$UC_OUT/.config" ||
				{ echo "config: wanted $line, got: $(grep "^${line%%=*}=\|^# ${line%%=*} is not set" "$UC_OUT/.config")" >&2; bad=1; } ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }; opt=${opt%% *}
			! grep -q "^$opt=" "$UC_OUT/.config" ||
				{ echo "config: wanted $opt off, got: $(grep "^$opt=" "$UC_OUT/.config")" >&2; bad=1; } ;;
		esac
	done < <(cat "${frags[@]}")
	[ $bad -eq 0 ] || uc_die "the configuration fragment did not apply (see above)"
	echo "$inputs" > "$UC_OUT/.uc-config"
fi

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(bzImage)
uc_log "building ${targets[*]} with -j$UC_JOBS (log: $log)"
start=$(date +%s)
if ! kmake -j"$UC_JOBS" "${targets[@]}" > "$log" 2>&1; then
	grep -E 'error|Error' "$log" | head -20 >&2
	uc_die "kernel build failed, log: $log"
fi
uc_log "built in $(( $(date +%s) - start ))s: $UC_KERNEL"
