# SPDX-License-Identifier: GPL-2.0
# Needs the host root over 9p (qemu-run.sh --hostroot): proves that the
# Debian bpftrace loads a program on this kernel and sees a tracepoint.
command -v bpftrace >/dev/null || { echo "bpftrace not found"; exit 1; }
out=$(bpftrace -e 'tracepoint:syscalls:sys_enter_getpid { printf("getpid from %s\n", comm); exit(); }
		  interval:s:30 { exit(); }' -c "$UC_BIN/getpid" 2>&1)
echo "$out"
echo "$out" | grep -q "getpid from getpid"
