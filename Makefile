# unmapped_cache: developer entry points.  See README.md.
#
#   make run          build, boot, run the workloads, print the comparison
#   make check        all tests (host and guest); ends with "N passed, N failed"
#   make distro-check the kernel built from Debian's own configuration:
#                     KUnit and the workloads, lockdown with signed modules,
#                     debug_pagealloc=on (not part of make check: its
#                     build alone is longer than check's cold budget)
#   make peer-check   the kernel's own selftests (memfd_secret, ftracetest,
#                     livepatch, test_verifier) with the cache off and on: on must fail
#                     nothing off passes (two long TCG boots)
#   make kernel       prepare the tree and build bzImage (incremental)
#   make -s kernel-path   print the path of bzImage (building it if needed)
#   make deps         install the Debian packages that are missing
#   make tree         only prepare the patched source tree
#   make initramfs    only build the guest programs and initramfs
#   make kunit        build and run only the KUnit suites in QEMU
#   make mutants      break what tests guard (devtools/mutants/), expect red
#   make series       the upstream patch series (git format-patch) in
#                     $(UC_CACHE)/series; SERIES_CHECK=1 builds every step
#
# UC_CACHE (default ~/.cache/unmapped_cache) holds what a run builds and
# writes: the patched tree, the builds, guest files, logs and results.
# UC_REUSE (default: UC_CACHE) holds what is safe to share between runs:
# the unpacked pristine source and ccache.  .ci/run gives every CI run an
# empty UC_CACHE.

UC_CACHE ?= $(HOME)/.cache/unmapped_cache
UC_REUSE ?= $(UC_CACHE)
export UC_CACHE UC_REUSE

.PHONY: all run check distro-check peer-check deps tree kernel kernel-path initramfs kunit series mutants
all: check

run:
	@devtools/run.sh

check:
	@devtools/check.sh

distro-check:
	@UC_CHECK_ONLY=distro devtools/check.sh

peer-check:
	@UC_CHECK_ONLY=peers devtools/check.sh

mutants:
	@devtools/mutants.sh

deps:
	@devtools/deps.sh

tree: deps
	@devtools/prepare-tree.sh

kernel: deps
	@devtools/build-kernel.sh

kernel-path:
	@devtools/deps.sh >&2 && devtools/build-kernel.sh >&2 && \
		echo "$(UC_CACHE)/build/arch/x86/boot/bzImage"

initramfs: deps
	@devtools/mkinitramfs.sh

kunit: kernel initramfs
	@devtools/qemu-run.sh kunit; UC_CACHE="$(UC_CACHE)" devtools/ktap.py -v "$(UC_CACHE)/guest/logs/kunit.log"

series: tree
	@devtools/mkseries.sh $(if $(SERIES_CHECK),--check)
