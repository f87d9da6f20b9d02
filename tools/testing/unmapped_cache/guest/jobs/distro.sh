# SPDX-License-Identifier: GPL-2.0
# The distribution kernel's job (UC_VARIANT=distro: Debian's own
# configuration of 6.12 without modules, plus the cache and its tests;
# runs from the initramfs, its signed modules appended to it by
# qemu-run.sh).  make distro-check boots it three ways:
#
#   default                 KUnit at boot (--kunit), KFENCE sampling every
#                           100 ms and page_table_check=on, then every
#                           workload of callers.sh at a reduced size
#   uc.distro=locked        lockdown=integrity, module.sig_enforce=1 and
#                           init_on_free=1: an unsigned module must be
#                           refused (the control that enforcement is on),
#                           then the workloads but "stale" (its probe is a
#                           writable debugfs file, which lockdown closes;
#                           the host leaves it out with uc.workloads=)
#   uc.distro=pagealloc     debug_pagealloc=on: the cache steps aside with
#                           one log line, the workloads run on the stock
#                           paths
#
# Two KTAP results: the boot's configuration (from the line
#   UC-DISTRO mode=M cache=on|off stepped_aside=N lockdown=L
#             sig_enforce=Y|N kfence=on|off auto_init='...' unsigned=...
# and what each mode wants of it), then callers.sh, its results nested.
# The host also fails the run on any splat.
. "$UC_DIR/jobs/lib.sh"

export UC_MODS=${UC_BIN%/bin}/modules-distro
export UC_BPF_PROGS=${UC_BPF_PROGS:-300} UC_MODULE_LOOPS=${UC_MODULE_LOOPS:-3}
export UC_PLAIN_LOOPS=${UC_PLAIN_LOOPS:-3} UC_SECRET_PAGES=${UC_SECRET_PAGES:-512}
export UC_FOOTPRINT=0
mode=$(uc_arg uc.distro default)
rc=0

cache=off
[ -d /sys/kernel/debug/unmapped_cache ] && cache=on
stepped=$(dmesg | grep -ac 'unmapped_cache: debug_pagealloc: .*disabled')
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
lockdown=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/security/lockdown 2>/dev/null)
sig=$(cat /sys/module/module/parameters/sig_enforce 2>/dev/null)
kfence=off
grep -qa 'enabled: 1' /sys/kernel/debug/kfence/stats 2>/dev/null && kfence=on
auto_init=$(dmesg | tr -d '\r' | sed -n 's/.*mem auto-init: \(stack:.*\)/\1/p' | tail -1)

# Signatures enforced: the unsigned copy must be refused, its signed
# twin (loaded by the workloads) accepted.
unsigned=not-tried
if [ "$mode" = locked ]; then
	if insmod "$UC_MODS/unsigned_uc_testmod_c.ko" 2>/dev/null; then
		unsigned=loaded
		rmmod uc_testmod_c
	else
		unsigned=refused
	fi
fi
line="mode=$mode cache=$cache stepped_aside=$stepped lockdown=${lockdown:-unknown}"
line="$line sig_enforce=${sig:-unknown} kfence=$kfence auto_init='$auto_init' unsigned=$unsigned"
echo "UC-DISTRO $line"

ktap_print_header
ktap_set_plan 2
case "$mode" in
default)
	[ $cache = on ] && [ "$stepped" -eq 0 ] && [ $kfence = on ]
	uc_ktap $((! $?)) "cache on, KFENCE sampling on ($line)" ;;
locked)
	ok=0
	[ $cache = on ] && [ "$lockdown" = integrity ] && [ "$sig" = Y ] &&
		[ $unsigned = refused ] && ok=1
	case "$auto_init" in *"heap free:on"*) ;; *) ok=0 ;; esac
	uc_ktap $ok "cache on, lockdown=integrity, module.sig_enforce=1 (the unsigned copy of a test module refused), init_on_free=1 ($line)" ;;
pagealloc)
	[ $cache = off ] && [ "$stepped" -eq 1 ]
	uc_ktap $((! $?)) "debug_pagealloc=on: the cache stepped aside with one log line, the workloads run on the stock paths; control: cache on in the two other boots ($line)" ;;
*)
	ktap_exit_fail_msg "unknown uc.distro=$mode" ;;
esac

uc_subtest callers sh "$UC_DIR/jobs/callers.sh"
ktap_finished
