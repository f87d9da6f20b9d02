#!/usr/bin/env bash
# Install the Debian packages the build and the guests need, if missing.
# Usage: devtools/deps.sh
. "$(dirname "$0")/common.sh"

pkgs=(
	linux-source-6.12
	# Debian's configuration of the same kernel: the distro job's base.
	linux-config-6.12
	build-essential bc bison flex libelf-dev libssl-dev dwarves kmod cpio
	xz-utils rsync python3 ccache sparse
	qemu-system-x86 busybox-static bpftrace
	libcap-dev python3-matplotlib python3-ply
)

missing=()
for p in "${pkgs[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
	[ "$status" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

uc_log "installing: ${missing[*]}"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q >/dev/null || uc_die "apt-get update failed"
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
	uc_die "apt-get install ${missing[*]} failed"
