#!/usr/bin/env bash
# Prepare the tree, configure it from nothing (allnoconfig) plus the
# fragments in kernel/configs/ (unmapped_cache_qemu.config: a QEMU-only
# guest; unmapped_cache.config: the cache and its tests; the variant's
# own), and build bzImage out of tree with ccache.  Re-running rebuilds
# only what changed.
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
base=()
[ "$UC_VARIANT" != distro ] || base=("$UC_DISTRO_CONFIG")
inputs=$(cat "${base[@]}" "${frags[@]}" "$UC_ROOT/patches/series" "$UC_ROOT"/patches/*.patch \
	"$UC_ROOT"/mm/unmapped_cache/Kconfig | sha256sum | cut -d' ' -f1)
clog=$UC_CACHE/logs/config${UC_VARIANT:+-$UC_VARIANT}.log
if [ ! -f "$UC_OUT/.config" ] || [ "$(cat "$UC_OUT/.uc-config" 2>/dev/null)" != "$inputs" ]; then
	if [ ${#base[@]} -gt 0 ]; then
		# The distribution's configuration with every module turned
		# off (the guests load only the project's test modules, built
		# out of tree), the fragments after it (for an option named
		# twice Kconfig takes the later value), then olddefconfig.
		[ -f "${base[0]}" ] || uc_die "no ${base[0]}: install linux-config-6.12 (make deps)"
		uc_log "configuring: $(basename "${base[0]}") without modules + $UC_FRAGMENTS"
		{ xz -dc "${base[0]}" | sed 's/^\(CONFIG_[A-Za-z0-9_]*\)=m$/# \1 is not set/'
		  cat "${frags[@]}"; } > "$UC_OUT/.config"
		kmake olddefconfig > "$clog" 2>&1 ||
			{ tail -20 "$clog"; uc_die "configuration failed, log: $clog"; }
	else
		uc_log "configuring: allnoconfig + $UC_FRAGMENTS"
		# One pass of allnoconfig with every fragment as KCONFIG_ALLCONFIG:
		# an option is set whatever the order of the fragments, as long as
		# its dependencies are set somewhere in them.
		cat "${frags[@]}" > "$UC_OUT/.uc-allconfig"
		kmake KCONFIG_ALLCONFIG="$UC_OUT/.uc-allconfig" allnoconfig > "$clog" 2>&1 ||
			{ tail -20 "$clog"; uc_die "configuration failed, log: $clog"; }
	fi
	# Every option of the fragments must have kept the value the last
	# fragment that names it gives.
	bad=0
	while read -r opt want; do
		got=$(sed -n "s/^$opt=//p" "$UC_OUT/.config")
		[ "$want" = n ] && [ -z "$got" ] && continue
		[ "$got" = "$want" ] ||
			{ echo "config: wanted $opt=$want, got: ${got:-not set}" >&2; bad=1; }
	done < <(sed -n 's/^\(CONFIG_[A-Za-z0-9_]*\)=\(.*\)$/\1 \2/p; s/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1 n/p' \
		"${frags[@]}" | awk '{ v[$1] = $2 } END { for (k in v) print k, v[k] }')
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
