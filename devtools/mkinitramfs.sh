#!/usr/bin/env bash
# Build the guest programs (static) and the initramfs of the test guests:
# busybox-static, tools/testing/unmapped_cache/guest/{init,jobs/}, and the
# programs in $UC_GUEST/bin.
#
# Usage: devtools/mkinitramfs.sh      -> $UC_GUEST/initramfs.cpio.gz
. "$(dirname "$0")/common.sh"

gsrc=$UC_ROOT/tools/testing/unmapped_cache/guest
bin=$UC_GUEST/bin
mkdir -p "$bin"

for c in "$gsrc"/*.c; do
	[ -e "$c" ] || continue
	exe=$bin/$(basename "$c" .c)
	if [ ! -x "$exe" ] || [ "$c" -nt "$exe" ]; then
		gcc -static -O2 -Wall -Wextra -Werror -o "$exe" "$c" ||
			uc_die "cannot build guest program $c"
	fi
done

# The kernel's own memfd_secret selftest, from the patched tree, unchanged
# (libcap-dev for its capability calls).
sel=$UC_SRC/tools/testing/selftests
if [ -f "$sel/mm/memfd_secret.c" ]; then
	exe=$bin/memfd_secret
	if [ ! -x "$exe" ] || [ "$sel/mm/memfd_secret.c" -nt "$exe" ]; then
		gcc -static -O2 -I"$sel" -o "$exe" "$sel/mm/memfd_secret.c" -lcap ||
			uc_die "cannot build the memfd_secret selftest"
	fi
else
	uc_log "no $sel/mm/memfd_secret.c (run make tree): memfd_secret selftest not built"
fi

# busybox-static installs a static /bin/busybox.
busybox=/bin/busybox
[ -x "$busybox" ] || uc_die "busybox-static missing: run devtools/deps.sh"

root=$(mktemp -d "$UC_CACHE/initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,uc/bin,uc/jobs,uc/ksft,uc/modules}
cp "$busybox" "$root/bin/busybox"
for applet in $("$busybox" --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
cp "$gsrc/init" "$root/init"
cp "$gsrc"/jobs/* "$root/uc/jobs/"
# The kernel's KTAP helpers for shell selftests, which the jobs report with.
cp "$UC_SRC/tools/testing/selftests/kselftest/ktap_helpers.sh" "$root/uc/ksft/" ||
	uc_die "no $UC_SRC/tools/testing/selftests/kselftest/ktap_helpers.sh: run devtools/prepare-tree.sh"
cp "$bin"/* "$root/uc/bin/" 2>/dev/null
# The project's test modules, if devtools/build-modules.sh built them: the
# hibernate job needs them in memory (its root must survive a resume, which
# a 9p root does not: the new QEMU has none of the old one's open files).
cp "$UC_GUEST"/modules/uc_*.ko "$root/uc/modules/" 2>/dev/null
chmod +x "$root/init"

out=$UC_GUEST/initramfs.cpio.gz
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out.tmp" &&
	mv "$out.tmp" "$out" || uc_die "cannot write $out"
