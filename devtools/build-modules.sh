#!/usr/bin/env bash
# Build the test modules of tools/testing/unmapped_cache/modules out of tree
# against the configured, built kernel in $UC_CACHE/build, and copy the .ko
# files to $UC_CACHE/guest/modules/.  The sources are copied to
# $UC_CACHE/guest/modules-build/ and built there, so the repository gets no
# build products.  Only reads the kernel build directory.
#
# The kernel's own test modules in $UC_INTREE (lib/test_bpf: the BPF
# interpreter and JIT test suite; lib/test_static_key_base and
# lib/test_static_keys: jump labels patched in module text; lib/test_module;
# lib/test_kmod: the kmod selftest's driver, for make peer-check;
# the livepatch selftests' test modules)
# are built the same way from the patched tree, in their own scratch
# directory, whatever the kernel's CONFIG_TEST_* say (for the main kernel
# only).
#
# Usage: devtools/build-modules.sh [make arguments, e.g. W=1]
#
# Fails on a build error and on any compiler, objtool or modpost warning;
# the whole output is in $UC_CACHE/logs/modules.log.  With UC_VARIANT=debug
# it builds against $UC_CACHE/build-debug into modules-build-debug/ and
# modules-debug/ instead.
. "$(dirname "$0")/common.sh"
set -euo pipefail

src=$UC_ROOT/tools/testing/unmapped_cache/modules
sfx=${UC_VARIANT:+-$UC_VARIANT}
scratch=$UC_GUEST/modules-build$sfx
dest=$UC_GUEST/modules$sfx
log=$UC_CACHE/logs/modules$sfx.log

{ [ -f "$UC_OUT/.config" ] && [ -f "$UC_OUT/Makefile" ]; } ||
	uc_die "no configured kernel build in $UC_OUT: run devtools/build-kernel.sh first"

# A kernel built with "make bzImage" has vmlinux.symvers but no
# Module.symvers (that comes from "make modules").  Then modpost resolves
# the modules' undefined symbols from vmlinux.symvers, still failing on
# any it cannot find, and prints a warning about Module.symvers that is
# expected (see below).
kargs=()
symvers_note=0
if [ ! -f "$UC_OUT/Module.symvers" ]; then
	[ -f "$UC_OUT/vmlinux.symvers" ] ||
		uc_die "neither Module.symvers nor vmlinux.symvers in $UC_OUT: build the kernel first"
	kargs+=("KBUILD_EXTRA_SYMBOLS=$UC_OUT/vmlinux.symvers")
	symvers_note=1
fi

# The livepatch selftests' modules, for make peer-check (sec_peers).
lp=tools/testing/selftests/livepatch/test_modules
UC_INTREE=${UC_INTREE:-lib/test_bpf lib/test_static_key_base lib/test_static_keys lib/test_module lib/test_kmod samples/livepatch/livepatch-sample
	$lp/test_klp_atomic_replace $lp/test_klp_callbacks_busy $lp/test_klp_callbacks_demo
	$lp/test_klp_callbacks_demo2 $lp/test_klp_callbacks_mod $lp/test_klp_livepatch
	$lp/test_klp_state $lp/test_klp_state2 $lp/test_klp_state3 $lp/test_klp_shadow_vars
	$lp/test_klp_syscall}

mapfile -t mods < <(sed -n 's/^obj-m[[:space:]]*+=[[:space:]]*\(.*\)\.o$/\1/p' "$src/Makefile")
[ ${#mods[@]} -gt 0 ] || uc_die "no obj-m in $src/Makefile"

mkdir -p "$scratch" "$scratch/intree" "$dest" "$UC_CACHE/logs"
# Keep the mtimes, so that unchanged sources are not rebuilt.
rsync -a --exclude=intree "$src/" "$scratch/"
intree=()
# The debug and RT kernels' jobs load only the project's modules (and
# have no network stack, which test_bpf needs); the distribution
# kernel's job runs the kernel's tests too.
intree_srcs=$UC_INTREE
case "$UC_VARIANT" in "" | distro) ;; *) intree_srcs= ;; esac
: > "$scratch/intree/Kbuild.new"
for f in $intree_srcs; do
	[ -f "$UC_SRC/$f.c" ] || uc_die "no $UC_SRC/$f.c: run make tree first"
	rsync -a "$UC_SRC/$f.c" "$scratch/intree/"
	echo "obj-m += ${f##*/}.o" >> "$scratch/intree/Kbuild.new"
	intree+=("${f##*/}")
done
cmp -s "$scratch/intree/Kbuild.new" "$scratch/intree/Kbuild" ||
	mv "$scratch/intree/Kbuild.new" "$scratch/intree/Kbuild"
rm -f "$scratch/intree/Kbuild.new"

: > "$log"
# Nor does "make bzImage" make scripts/module.lds, the linker script of
# every module ("make modules_prepare" does, but that would write to the
# kernel build directory).  Then kbuild preprocesses the kernel's
# scripts/module.lds.S in a directory of our own, with the flags it would
# have used, and the module link uses that.
if [ ! -f "$UC_OUT/scripts/module.lds" ]; then
	lds=$scratch/.lds
	mkdir -p "$lds"
	rsync -a "$UC_SRC/scripts/module.lds.S" "$lds/"
	: > "$lds/Kbuild"
	make -C "$UC_OUT" M="$lds" module.lds >> "$log" 2>&1 ||
		uc_die "cannot make module.lds; output: $log, build directory: $lds"
	kargs+=("ARCH_MODULE_LDS=$lds/module.lds")
fi

uc_log "building ${mods[*]} against $UC_OUT in $scratch${*:+ ($*)}"
if ! make -C "$UC_OUT" M="$scratch" CC="ccache gcc" "${kargs[@]}" "$@" modules 2>&1 |
	tee -a "$log"; then
	uc_die "module build failed (or the kernel in $UC_OUT is being rebuilt: retry then); output: $log, build directory: $scratch"
fi
[ ${#intree[@]} -eq 0 ] || uc_log "building the kernel's ${intree[*]} in $scratch/intree"
if [ ${#intree[@]} -gt 0 ] && ! make -C "$UC_OUT" M="$scratch/intree" CC="ccache gcc" "${kargs[@]}" modules 2>&1 |
	tee -a "$log"; then
	uc_die "in-tree test module build failed; output: $log, build directory: $scratch/intree"
fi

# Every warning fails the build, except modpost's note about the missing
# Module.symvers (the five lines starting with it) when vmlinux.symvers
# stood in for it.
warnings=$(awk -v skip="$symvers_note" '
	skip && /^WARNING: Module\.symvers is missing\./ { n = 4; next }
	n > 0 { n--; next }
	/warning:|WARNING:/ { print }' "$log")
[ -z "$warnings" ] ||
	uc_die "the module build warned (output: $log, build directory: $scratch):
$warnings"
[ "$symvers_note" -eq 0 ] ||
	uc_log "Module.symvers warning expected: symbols resolved from vmlinux.symvers"

rm -f "$dest"/*.ko
for m in "${mods[@]}" "${intree[@]/#/intree/}"; do
	[ -f "$scratch/$m.ko" ] ||
		uc_die "$m.ko was not built; output: $log, build directory: $scratch"
	cp "$scratch/$m.ko" "$dest/"
done
# A kernel with module signing (the distribution's configuration): sign
# every module with the key its build generated, as a distribution signs
# its own, so that they load with signatures enforced
# (module.sig_enforce=1); one unsigned copy is kept, for the check that an
# unsigned module is refused.
if grep -q '^CONFIG_MODULE_SIG=y' "$UC_OUT/.config"; then
	key=$UC_OUT/certs/signing_key.pem
	[ -f "$key" ] && [ -x "$UC_OUT/scripts/sign-file" ] ||
		uc_die "CONFIG_MODULE_SIG=y but no $key or scripts/sign-file in $UC_OUT"
	cp "$dest/uc_testmod_c.ko" "$dest/unsigned_uc_testmod_c.ko"
	for m in "${mods[@]}" "${intree[@]}"; do
		"$UC_OUT/scripts/sign-file" sha256 "$key" "$UC_OUT/certs/signing_key.x509" "$dest/$m.ko" ||
			uc_die "cannot sign $dest/$m.ko"
	done
	uc_log "modules signed with $key (and an unsigned copy, unsigned_uc_testmod_c.ko)"
fi
uc_log "modules in $dest:"
(cd "$dest" && size "${mods[@]/%/.ko}" "${intree[@]/%/.ko}")
