# shellcheck shell=bash
# Shared settings of the devtools scripts.  Source it; do not run it.
#
# Everything that is not part of the repository lives under two
# directories.  $UC_REUSE holds the inputs that are safe to share between
# runs, and only those:
#
#   $UC_REUSE/linux-source-6.12/  the Debian source, unpacked once, never edited
#   $UC_REUSE/ccache/             ccache's cache
#
# $UC_CACHE holds the state of a run: everything built or written.  Both
# default to ~/.cache/unmapped_cache, which every script and make target
# accepts as an override; .ci/run gives each CI run an empty $UC_CACHE, so
# that no check can pass on what an earlier run left behind:
#
#   $UC_CACHE/src/                a copy with patches/series applied and the
#                                 repository's kernel files laid on top
#   $UC_CACHE/build/              out-of-tree build (O=); the kernel image is
#                                 $UC_CACHE/build/arch/x86/boot/bzImage
#   $UC_CACHE/guest/              initramfs, guest programs, console logs

set -o pipefail

UC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
UC_CACHE=${UC_CACHE:-$HOME/.cache/unmapped_cache}
UC_REUSE=${UC_REUSE:-$UC_CACHE}
export UC_CACHE UC_REUSE
UC_TARBALL=${UC_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
UC_PRISTINE=$UC_REUSE/linux-source-6.12
UC_SRC=$UC_CACHE/src
# UC_VARIANT=debug selects the debug kernel (lockdep, DEBUG_VM, ...): its
# own build directory and one more config fragment.
UC_VARIANT=${UC_VARIANT:-}
UC_OUT=$UC_CACHE/build${UC_VARIANT:+-$UC_VARIANT}
# The debug and RT kernels leave out what their jobs do not use (_minimal).
UC_FRAGMENTS="unmapped_cache_qemu.config unmapped_cache.config"
case $UC_VARIANT in debug|rt) UC_FRAGMENTS+=" unmapped_cache_minimal.config" ;; esac
UC_FRAGMENTS+="${UC_VARIANT:+ unmapped_cache_$UC_VARIANT.config}"
# UC_VARIANT=distro starts from Debian's configuration instead of
# allnoconfig plus the QEMU guest fragment (build-kernel.sh).
UC_DISTRO_CONFIG=${UC_DISTRO_CONFIG:-/usr/src/linux-config-6.12/config.amd64_none_amd64.xz}
[ "$UC_VARIANT" != distro ] || UC_FRAGMENTS="unmapped_cache.config unmapped_cache_distro.config"
UC_GUEST=$UC_CACHE/guest
# UC_KERNEL may point at a copy, so that a long run is not disturbed by a
# rebuild.
UC_KERNEL=${UC_KERNEL:-$UC_OUT/arch/x86/boot/bzImage}
UC_JOBS=${UC_JOBS:-$(nproc)}

export CCACHE_DIR=${CCACHE_DIR:-$UC_REUSE/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Depend mode: on a miss, ccache hashes the -MMD output instead of running
# the preprocessor a second time (a third of a cold build on 2 cores).
export CCACHE_DEPEND=${CCACHE_DEPEND:-1}
# Every run may have its own $UC_CACHE (CI gives each an empty one):
# ccache rewrites the absolute paths under it to relative ones and leaves
# the working directory out of the hash, so that the same source built in
# another state directory still hits.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$UC_CACHE}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
# Kernel builds embed the build time and host; pin them so ccache hits.
export KBUILD_BUILD_TIMESTAMP=${KBUILD_BUILD_TIMESTAMP:-2026-01-01}
export KBUILD_BUILD_USER=unmapped_cache
export KBUILD_BUILD_HOST=devtools

# Files of the repository that belong in the kernel tree, relative to
# $UC_ROOT.  Everything else (devtools/, patches/, README.md, ...) stays out.
UC_KERNEL_PATHS=(mm include arch lib kernel Documentation tools/testing/unmapped_cache tools/mm/unmapped_cache)

uc_log() { printf '==> %s\n' "$*" >&2; }
uc_die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# kmake ARGS...: make in the patched tree, out of tree, with ccache.
kmake() {
	make -C "$UC_SRC" O="$UC_OUT" CC="ccache gcc" HOSTCC="ccache gcc" "$@"
}
