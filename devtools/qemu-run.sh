#!/usr/bin/env bash
# Boot the built kernel in QEMU (TCG) and run one guest job.
#
# Usage: devtools/qemu-run.sh [options] JOB
#   --hostroot        boot with the host's / shared read-only over 9p as the
#                     root file system (needed for bpftrace), instead of the
#                     generated initramfs (to which, with UC_VARIANT set,
#                     the variant's test modules are appended)
#   --append "ARGS"   extra kernel parameters (may be repeated)
#   --smp N           vCPUs (default 2; 4 for the kunit job)
#   --mem MB          guest memory (default 2048; 5120 with KUnit)
#   --numa N          N NUMA nodes, one socket each: the memory and the
#                     vCPUs split evenly between them, in order (QEMU -numa,
#                     seen through ACPI SRAT)
#   --vmem MB         a virtio-mem device (virtio-mem-pci, id vm0, 2 MiB
#                     blocks) of MB MiB, all of it requested at boot, and a
#                     QMP socket through which devtools/vmem-qmp.py resizes
#                     it when the guest asks (needs --share: the guest
#                     writes DIR/vmem-ask, the helper answers in DIR/vmem;
#                     the hotplug job)
#   --timeout SEC     kill the guest after SEC seconds (default 900)
#   --log FILE        console log (default $UC_GUEST/logs/JOB.log)
#   --kernel FILE     kernel image (default: the one built here)
#   --drive FILE      attach FILE as a raw virtio disk (may be repeated:
#                     /dev/vda, /dev/vdb, ... in that order)
#   --share DIR       share the host's DIR read-write over 9p, mounted by
#                     the guest's init on $UC_SHARE (/run/share): a later
#                     boot of a job reads there what an earlier one wrote
#                     and compares (kaslr, hotplug, peers)
#   --kunit           run the KUnit suites at boot before the job (always
#                     for JOB=kunit)
#   --verbose         copy the console to stdout as well
#
# Exit status: the job's exit status as printed by the guest's init
# ("UC-RESULT rc=N"); 124 on timeout; 125 if the guest died without a result
# (panic, crash).  KUnit runs only with JOB=kunit or --kunit.
# Environment: UC_SEED (a number) is passed to the guest as uc.seed= and
# unmapped_cache_kunit.seed=.
. "$(dirname "$0")/common.sh"

# One TCG thread for all vCPUs.  With a thread per vCPU (multi-threaded
# TCG) guests die now and then of an int3 Oops early in boot, at a static
# key site whose bytes already hold the patched instruction (the int3 that
# text_poke_bp() put there and removed is still executed by another vCPU:
# QEMU's cross-vCPU invalidation of translated code loses a race the
# hardware's serialization rules out).  devtools/mttcg-boots.sh measured
# it on 2026-12-04, same kernel, "boot" job: with -smp 4, 2 Oopses in 60
# boots with unmapped_cache=off and 4 in 60 with the cache on, every one
# of them an int3 in sched_clock_cpu()/sched_clock_tick() during boot;
# with -smp 2, none in 20 boots either way; KUnit at boot with -smp 4,
# 1 in 10 (the other 9 passed every case).  The stock kernel crashes the
# same way, so it is the emulator's, not the cache's, but it would make
# CI fail at random.  Single-threaded TCG cannot race that way.
# Override with UC_QEMU_ACCEL=tcg,thread=multi: make check does for the
# RT kernel's job (PREEMPT_RT, lockdep, KCSAN), on 2 vCPUs (none of 20
# such boots crashed), where true parallelism is the point
# (devtools/check.sh, sec_rt).
accel=${UC_QEMU_ACCEL:-tcg,thread=single}
drives=()
share="" hostroot=0 append="" smp=2 mem=2048 timeout=900 log="" kernel=$UC_KERNEL verbose=0 kunit=0 numa=1 vmem=0
while [ $# -gt 0 ]; do
	case "$1" in
	--hostroot) hostroot=1 ;;
	--append) append="$append $2"; shift ;;
	--smp) smp=$2; smp_set=1; shift ;;
	--mem) mem=$2; mem_set=1; shift ;;
	--numa) numa=$2; shift ;;
	--vmem) vmem=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--log) log=$2; shift ;;
	--kernel) kernel=$2; shift ;;
	--drive) drives+=(-drive "file=$2,format=raw,if=virtio"); shift ;;
	--share) share=$2; shift ;;
	--verbose) verbose=1 ;;
	--kunit) kunit=1 ;;
	-*) uc_die "unknown option $1" ;;
	*) break ;;
	esac
	shift
done
job=$1
[ -n "$job" ] || uc_die "usage: $0 [options] JOB"
[ -f "$kernel" ] || uc_die "no kernel at $kernel: run 'make kernel'"
mkdir -p "$UC_GUEST/logs"
[ -n "$log" ] || log=$UC_GUEST/logs/$job.log

# no_timer_check: under TCG on a loaded host (two guest lanes beside a
# kernel build) the IO-APIC timer check at boot can see too few ticks
# and panic ("IO-APIC + timer doesn't work!"); the check proves nothing
# about QEMU's emulated timer, so skip it, as virtme-ng does.
cmdline="console=ttyS0 panic=-1 no_timer_check uc.job=$job"
# UC_SEED (make check sets it) seeds the guest's workloads and the KUnit
# suites, so that a run can be replayed.
[ -n "$UC_SEED" ] && cmdline="$cmdline uc.seed=$UC_SEED unmapped_cache_kunit.seed=$UC_SEED"
if [ "$job" = kunit ] || [ $kunit -eq 1 ]; then
	# The magazine stress test wants a kthread on each of 4 CPUs.
	[ "$smp_set" = 1 ] || smp=4
	# block_splits_only_in_a_1g_leaf needs a GiB of RAM that the direct
	# map still maps with one 1 GiB entry.  The first GiB is always split
	# (low memory), the last one by the top-down mapping at boot, and the
	# kernel image (physical KASLR puts it anywhere, the debug and RT
	# kernels are 40 MB and more) splits the one or two it lands in: with
	# 2 GiB that left none in about half of the boots.  5 GiB (QEMU: 3
	# below 4G, 2 above) leaves at least one whatever the placement.
	[ "$mem_set" = 1 ] || mem=5120
	cmdline="$cmdline kunit.enable=1 kunit.filter_glob=unmapped_cache*"
else
	cmdline="$cmdline kunit.enable=0"
fi

qemu=(qemu-system-x86_64 -accel "$accel" -cpu max -smp "$smp" -m "$mem"
      -nographic -no-reboot -bios /usr/share/qemu/qboot.rom
      -kernel "$kernel" "${drives[@]}")
if [ "$numa" -gt 1 ]; then
	per=$((mem / numa)) cpus=$((smp / numa))
	[ $((per * numa)) -eq "$mem" ] && [ $((cpus * numa)) -eq "$smp" ] ||
		uc_die "--mem $mem and --smp $smp do not split evenly over $numa nodes"
	# A socket per node: the scheduler wants a cache shared by CPUs of
	# one node (topology_sane() warns otherwise).
	qemu[6]="$smp,sockets=$numa,cores=$cpus,threads=1"
	for n in $(seq 0 $((numa - 1))); do
		qemu+=(-object "memory-backend-ram,id=m$n,size=${per}M"
		       -numa "node,nodeid=$n,memdev=m$n,cpus=$((n * cpus))-$(((n + 1) * cpus - 1))")
	done
fi
qmpdir=
if [ "$vmem" -gt 0 ]; then
	[ "$numa" -le 1 ] || uc_die "--vmem with --numa is not supported"
	[ -n "$share" ] || uc_die "--vmem needs --share (the guest asks for the resize there)"
	# The device's memory lies in QEMU's device memory region, above
	# the guest's RAM (from 4 GiB with 2 GiB of RAM): -m's maxmem must
	# leave room for it.  A unix socket path has at most 107 bytes: the
	# QMP socket goes in a short directory of its own.
	qemu[8]="$mem,maxmem=$((mem + vmem))M"
	qmpdir=$(mktemp -d /tmp/uc-qmp.XXXXXX) || uc_die "cannot make a directory for the QMP socket"
	trap 'rm -rf "$qmpdir"' EXIT
	qemu+=(-object "memory-backend-ram,id=vmem0,size=${vmem}M"
	       -device "virtio-mem-pci,id=vm0,memdev=vmem0,block-size=2M,requested-size=${vmem}M"
	       -qmp "unix:$qmpdir/qmp,server=on,wait=off")
fi
if [ $hostroot -eq 1 ]; then
	qemu+=(-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap")
	cmdline="$cmdline root=hostroot rootfstype=9p rootflags=trans=virtio,version=9p2000.L,msize=512000 ro"
	cmdline="$cmdline init=$UC_ROOT/tools/testing/unmapped_cache/guest/init"
	cmdline="$cmdline uc.dir=$UC_ROOT/tools/testing/unmapped_cache/guest uc.bin=$UC_GUEST/bin"
	cmdline="$cmdline uc.ksft=$UC_SRC/tools/testing/selftests/kselftest"
else
	initrd=$UC_GUEST/initramfs.cpio.gz
	[ -f "$initrd" ] || uc_die "no initramfs: run devtools/mkinitramfs.sh"
	# The debug and RT kernels have no 9p (their configuration fragments):
	# their test modules, built after the initramfs, go in a second
	# archive appended to it, as /uc/modules-VARIANT (the kernel unpacks
	# concatenated archives in order).
	mods=$UC_GUEST/modules${UC_VARIANT:+-$UC_VARIANT}
	if [ -n "$UC_VARIANT" ] && [ -d "$mods" ]; then
		extra=$(mktemp -d "$UC_CACHE/initrd.XXXXXX")
		mkdir -p "$extra/uc/modules-$UC_VARIANT"
		cp "$mods"/*.ko "$extra/uc/modules-$UC_VARIANT/" ||
			{ rm -rf "$extra"; uc_die "no modules in $mods: run devtools/build-modules.sh"; }
		{ cat "$initrd"; (cd "$extra" && find . | cpio -o -H newc --quiet | gzip -1); } \
			> "$UC_GUEST/initramfs-$UC_VARIANT.cpio.gz"
		rm -rf "$extra"
		initrd=$UC_GUEST/initramfs-$UC_VARIANT.cpio.gz
	fi
	qemu+=(-initrd "$initrd")
fi
if [ -n "$share" ]; then
	mkdir -p "$share" || uc_die "cannot make $share"
	qemu+=(-virtfs "local,path=$share,mount_tag=ucshare,security_model=none")
	cmdline="$cmdline uc.share=1"
fi
cmdline="$cmdline$append"

{ echo "# $(date -u +%FT%TZ) job=$job"; echo "# cmdline: $cmdline"; } > "$log"
helper=
if [ -n "$qmpdir" ]; then
	rm -f "$share/vmem" "$share/vmem-ask"
	python3 "$UC_ROOT/devtools/vmem-qmp.py" --qmp "$qmpdir/qmp" --ask "$share/vmem-ask" \
		--out "$share/vmem" --parent $$ --device vm0 </dev/null >>"$share/vmem" 2>&1 &
	helper=$!
fi
if [ $verbose -eq 1 ]; then
	timeout -k 10 "$timeout" "${qemu[@]}" -append "$cmdline" </dev/null 2>&1 | tee -a "$log"
	status=${PIPESTATUS[0]}
else
	timeout -k 10 "$timeout" "${qemu[@]}" -append "$cmdline" </dev/null >>"$log" 2>&1
	status=$?
fi
if [ -n "$helper" ]; then
	# QEMU is gone: the helper sees its QMP connection close and exits;
	# give it 5 s to do so, then stop it.
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		kill -0 "$helper" 2>/dev/null || break
		sleep 0.5
	done
	kill "$helper" 2>/dev/null
	wait "$helper" 2>/dev/null
	cp "$share/vmem" "$log.vmem"
fi

if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
	echo "qemu-run: job $job timed out after ${timeout}s, log: $log" >&2
	exit 124
fi
rc=$(sed -n 's/^UC-RESULT rc=\([0-9]*\).*/\1/p' "$log" | tail -n 1)
if [ -z "$rc" ]; then
	echo "qemu-run: job $job ended without a result (qemu status $status), log: $log" >&2
	grep -m5 -E 'Kernel panic|BUG:|Oops|general protection' "$log" >&2
	exit 125
fi
exit "$rc"
