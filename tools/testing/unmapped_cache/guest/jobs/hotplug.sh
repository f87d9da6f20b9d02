# SPDX-License-Identifier: GPL-2.0
# Memory hot-unplug with the cache off (unmapped_cache=off) and on: a
# QEMU virtio-mem device (devtools/qemu-run.sh --vmem MB: plugged at boot,
# 2 MiB device blocks, so that the driver works in subblocks of its
# 128 MiB memory blocks) whose memory is onlined to the zone uc.zone=
# names:
#   normal    ZONE_NORMAL (memhp_default_state=online_kernel).  With 2 GiB
#             of RAM, all below 4 GiB (ZONE_DMA32), the device's memory is
#             the whole of ZONE_NORMAL, which the page allocator tries
#             first: the cache's blocks come from it (the secret pages'
#             frame numbers show it, the positive control of the movable
#             case's 0)
#   movable   ZONE_MOVABLE (memhp_default_state=online_movable): the cache
#             never takes a block there (GFP_KERNEL), so no secret page
#             lies in the device's memory
# Without memhp_default_state= on the command line (the device's memory
# then comes up offline) the job onlines the blocks itself, to the zone.
#
# Steps: find the device's physical range (virtio_mem logs its start
# address and region size at probe; /proc/iomem as a fallback) and its
# memory blocks; hold secret memory (secretmem_fault) while secret_pfns
# faults more and reports its frames; load BPF programs (bpf_load) and a
# test module; let everything exit and free; wait uc.vmem_settle seconds
# (5); then ask the host for size 0 ("UC-VMEM-REQUEST size=0" written to
# $UC_SHARE/vmem-ask, which devtools/vmem-qmp.py turns into a qom-set of
# requested-size) and poll
# MemTotal and the device's memory blocks every 5 s until all of them
# are gone or uc.vmem_wait seconds (180) passed: virtio-mem retries an
# unplug that found memory busy on a timer (50 s, then 100 s, ...).
# Blocks the cache holds free at the request stay plugged until its
# reaper gives them back (idle for unmapped_cache.reap_interval_ms,
# 15 s): the retry 50 s later gets them (secret_2m_blocks_unplugged
# N/N); with the reaper off (interval 0) they stay plugged (0/N).
# "UC-VMEM-QUERY tag=before|after" ask the host to record the device's
# plugged and requested size in $UC_SHARE/vmem.
# Afterwards, for the diagnosis only, each device memory block still
# there is offlined once by hand (offline_pages() dumps the first page it
# cannot isolate).
#
# Prints
#   UC-VMEM-RANGE start=0x.. size_mib=N block_mib=N blocks=FIRST-LAST
#   UC-VMEM-BLOCKS when=.. present=N online=N zones=ZONE:N,...
#   UC-VMEM-SECRET pages=N in_device=N device_2m_blocks=N held_blocks=N
#   UC-VMEM-SECRET-BLOCKS unplugged=N of M stayed=PHYS...
#   UC-VMEM-POLL t=S memtotal_kb=N device_blocks=N  (when they change)
#   UC-VMEM zone=normal|movable cache=on|off plugged_mib=N (device
#     memory blocks present at boot x block size)
#     device_pages_used_by_cache=N secret_pages_in_device=N secret_pages=N
#     unplugged_mib=N (MemTotal's drop) secret_2m_blocks_unplugged=N/M
#     (of the device's 2 MiB blocks the secret pages lay in: with the
#     cache on, its blocks) first_poll_mib=N (MemTotal's drop 5 s
#     after the request) last_change_s=N device_blocks_left=N seconds=N
#   UC-VMEM-CACHE-HOTADDED start=N held=N end=N  (cache on: blocks the
#     arenas hold in hot-added memory after a drain at the start, while
#     the secret pages are held, and at the end)
#   UC-VMEM-DIAG block=N phys=.. state=.. zone=.. offline_by_hand=ok|failed
# The job decides what it can tell itself and reports in KTAP
# (jobs/lib.sh): the device found and its blocks in the zone asked for;
# the workloads ran; the request reached the device; with the cache on,
# uc_verify after the workloads, secret pages in ZONE_NORMAL device
# memory (the positive control) and none in ZONE_MOVABLE, in ZONE_NORMAL
# blocks taken there while the secret pages are held and every 2 MiB
# block of the device they lay in unplugged once they are freed, and no
# more blocks kept there at the end than had live chunks at the start.
# What the device really unplugged is the host's figure: its plugged and
# requested size over QMP (devtools/vmem-qmp.py), which qemu-run.sh
# --share puts in $UC_SHARE/vmem; the job checks that the host saw the
# device plugged at boot and asked for size 0, and writes what was
# unplugged to $UC_SHARE/unplugged-off|on.  The boot with the cache on,
# after the one with it off in the same directory, checks that it
# unplugged at least as much.
. "$UC_DIR/jobs/lib.sh"

zone=$(uc_arg uc.zone normal)
settle=$(uc_arg uc.vmem_settle 5)
wait_s=$(uc_arg uc.vmem_wait 180)
mem=/sys/devices/system/memory
out=/run/tmp/hotplug
mkdir -p $out
cache=$(uc_cache_mode)
# What went wrong in setting up the device and in the workloads: each
# fails its result.
dev_why="" work_why=""
dev_bad() {
	echo "hotplug: $*"
	dev_why="${dev_why:+$dev_why; }$*"
}
work_bad() {
	echo "hotplug: $*"
	work_why="${work_why:+$work_why; }$*"
}

[ -n "$UC_SHARE" ] || ktap_exit_fail_msg "no shared directory (qemu-run.sh --share)"
ktap_print_header
case "$cache:$zone" in
off:*) ktap_set_plan 4 ;;
on:normal) ktap_set_plan 10 ;;
on:movable) ktap_set_plan 8 ;;
*) ktap_exit_fail_msg "uc.zone=$zone: want normal or movable" ;;
esac
case "$zone" in
normal) online=online_kernel want_zone=Normal ;;
movable) online=online_movable want_zone=Movable ;;
esac
ZONE=$(echo "$zone" | tr '[:lower:]' '[:upper:]')
memhp=$(uc_arg memhp_default_state "")
case "$memhp" in
"" | offline) how=job ;;
"$online" | online) how=boot ;;
*) dev_bad "memhp_default_state=$memhp does not give uc.zone=$zone"; how=boot ;;
esac
[ "$zone:$memhp" = movable:online ] && dev_bad "memhp_default_state=online onlines to ZONE_NORMAL, not ZONE_MOVABLE"

# The device's range: virtio_mem's probe messages, else /proc/iomem (a
# top-level resource named after the virtio device).
start=$(dmesg | sed -n 's/.*virtio_mem virtio[0-9]*: start address: \(0x[0-9a-f]*\).*/\1/p' | head -n 1)
rsize=$(dmesg | sed -n 's/.*virtio_mem virtio[0-9]*: region size: \(0x[0-9a-f]*\).*/\1/p' | head -n 1)
if [ -z "$start" ] || [ -z "$rsize" ]; then
	r=$(sed -n 's/^\([0-9a-f]*\)-\([0-9a-f]*\) : virtio[0-9]*$/\1 \2/p' /proc/iomem | head -n 1)
	if [ -n "$r" ]; then
		set -- $r
		start=0x$1
		rsize=$(( 0x$2 - 0x$1 + 1 ))
	fi
fi
if [ -z "$start" ] || [ -z "$rsize" ] || [ ! -r $mem/block_size_bytes ]; then
	dmesg | grep -i 'virtio_mem\|virtio-mem' | tail -n 10
	ktap_exit_fail_msg "no virtio-mem device found (boot with devtools/qemu-run.sh --vmem MB and CONFIG_VIRTIO_MEM)"
fi
start=$((start))
rsize=$((rsize))
bsz=$(( 0x$(cat $mem/block_size_bytes) ))
first=$((start / bsz))
last=$(( (start + rsize) / bsz - 1 ))
# The range in 2 MiB blocks (secret_pfns prints each frame's PFN / 512).
b2first=$((start / 2097152))
b2end=$(( (start + rsize) / 2097152 ))
echo "UC-VMEM-RANGE start=$(printf 0x%x $start) size_mib=$((rsize >> 20)) block_mib=$((bsz >> 20)) blocks=$first-$last cache=$cache zone=$zone onlined_by=$how"

# gone_2m BLOCK: is the 2 MiB block BLOCK (PFN / 512) unplugged?  Its
# first page is then fake-offline (PageOffline: KPF_OFFLINE, bit 23) in
# a memory block still present, or has no online memmap (KPF_NOPAGE,
# bit 20) once its memory block is removed.
gone_2m() {
	f=$(dd if=/proc/kpageflags bs=8 skip=$(($1 * 512)) count=1 2>/dev/null | od -An -tx8 | tr -d ' ')
	[ -n "$f" ] && [ $(( (0x$f >> 23 & 1) | (0x$f >> 20 & 1) )) = 1 ]
}
# device_blocks: the device's memory blocks present (added to Linux).
device_blocks() {
	n=0
	i=$first
	while [ $i -le $last ]; do
		[ -d $mem/memory$i ] && n=$((n + 1))
		i=$((i + 1))
	done
	echo $n
}
# show_blocks WHEN: how many of them are present and online, and the
# zone of each online one (valid_zones names it).
show_blocks() {
	n=0 on=0 zones=""
	i=$first
	while [ $i -le $last ]; do
		if [ -d $mem/memory$i ]; then
			n=$((n + 1))
			if [ "$(cat $mem/memory$i/state)" = online ]; then
				on=$((on + 1))
				zones="$zones $(cat $mem/memory$i/valid_zones)"
			fi
		fi
		i=$((i + 1))
	done
	[ -z "$zones" ] ||
		zones=$(echo $zones | tr ' ' '\n' | sort | uniq -c | awk '{ printf "%s%s:%d", s, $2, $1; s = "," }')
	echo "UC-VMEM-BLOCKS when=$1 present=$n online=$on zones=${zones:-none}"
}

# The driver plugs and adds the device's memory from a work item after
# its probe: wait (60 s at most) for all of its memory blocks.
n=0
while [ "$(device_blocks)" -lt $((last - first + 1)) ] && [ $n -lt 60 ]; do
	sleep 1
	n=$((n + 1))
done
# Online what came up offline, to the zone asked for.
if [ $how = job ]; then
	i=$first
	while [ $i -le $last ]; do
		if [ -d $mem/memory$i ] && [ "$(cat $mem/memory$i/state)" = offline ]; then
			echo $online > $mem/memory$i/state || dev_bad "cannot $online memory$i"
		fi
		i=$((i + 1))
	done
fi
line=$(show_blocks boot)
echo "$line"
case "$line" in
*" present=0 "*) dev_bad "none of the device's memory blocks present" ;;
*" zones=$want_zone:"*) ;;
*) dev_bad "the device's blocks are not all in ZONE_$ZONE: $line" ;;
esac
case "$line" in *,*) dev_bad "the device's blocks are in more than one zone: $line" ;; esac
awk '$1 == "Node" { z = $4 } $1 == "managed" && (z == "Normal" || z == "Movable" || z == "DMA32") { printf "%s_managed_pages=%d ", z, $2 }
     END { print "" }' /proc/zoneinfo | sed 's/^/UC-VMEM-ZONES /'
# Plugged at boot, as the guest sees it: the device's memory blocks
# present (the driver logs its plugged size only when the requested size
# changes; the host's figure is in LOG.vmem).
plugged=$(( $(device_blocks) * (bsz >> 20) ))
[ -z "$dev_why" ]
uc_ktap $((! $?)) "the device's ${plugged} MiB plugged at boot, onlined by the $how to ZONE_$ZONE${dev_why:+: $dev_why}"

# hot_added: blocks the cache's arenas hold in memory added after boot
# (here, the device's), free or not.
dbg=/sys/kernel/debug/unmapped_cache
# ask LINE: the line on the console and to the host (vmem-qmp.py).
ask() {
	echo "$*"
	echo "$*" >> "$UC_SHARE/vmem-ask"
}
hot_added() {
	awk -F': ' '$1 == "  blocks in hot-added memory" { s += $2 } END { print s + 0 }' \
		$dbg/arenas 2>/dev/null || echo 0
}
# With the cache on, start from arenas that hold only blocks with live
# chunks: then in ZONE_NORMAL every block the workloads make the cache
# take is in the device's memory, and some arena (the NONE one at
# least) ends up with hot-added blocks only.  Once they are free, the
# reaper must give back all of them, even the one block an arena keeps
# (uc_arena_shrink(): a free hot-added block is never kept).  Counted
# at the start, while the secret pages are held (the positive control:
# the count sees the cache's blocks in the device), and at the end.
ha_start=0 ha_held=0
if [ $cache = on ]; then
	echo 1 > $dbg/drain || work_bad "cannot drain the cache"
	ha_start=$(hot_added)
fi

# Workloads.  Secret memory: 4096 pages (16 MiB) held by one process
# while secret_pfns faults 2048 more and prints their frames.
uc_footprint before
rm -f $out/held
"$UC_BIN/secretmem_fault" --hold $out/held 4096 > $out/holder 2>&1 &
holder=$!
n=0
while [ ! -e $out/held ] && [ $n -lt 600 ] && kill -0 $holder 2>/dev/null; do
	sleep 0.1
	n=$((n + 1))
done
[ -e $out/held ] || work_bad "secretmem_fault did not get its pages: $(cat $out/holder)"
# Secret pages count against the user's RLIMIT_MEMLOCK (8 MiB), which the
# holder's 16 MiB already passed (secretmem_fault lifts its own limit).
(ulimit -l unlimited && exec "$UC_BIN/secret_pfns" 2048) > $out/pfns 2>&1 ||
	work_bad "secret_pfns failed: $(tail -n 3 $out/pfns)"
set -- $(awk -v f=$b2first -v e=$b2end '$1 == "pfn" { n++; if ($4 >= f && $4 < e) d++ }
	END { print n + 0, d + 0 }' $out/pfns)
secret=$1 in_dev=$2
# The device's 2 MiB blocks they lay in: with the cache on, blocks it took.
awk -v f=$b2first -v e=$b2end '$1 == "pfn" && $4 >= f && $4 < e { print $4 }' $out/pfns |
	sort -un > $out/blocks2m
nb2=$(wc -l < $out/blocks2m)
held=$(uc_stat 'blocks held')
[ $cache = off ] || ha_held=$(hot_added)
echo "UC-VMEM-SECRET pages=$secret in_device=$in_dev device_2m_blocks=$nb2 held_blocks=$held"
uc_footprint secret-held
kill -TERM $holder 2>/dev/null
wait $holder || work_bad "secretmem_fault: $(cat $out/holder)"

# BPF programs (JIT images from the ROX arena with the cache on) and a
# module (text, rodata, data from the cache), loaded and freed.
"$UC_BIN/bpf_load" -n 200 -s "$(uc_seed)" > $out/bpf 2>&1 ||
	work_bad "bpf_load failed: $(tail -n 3 $out/bpf)"
grep '^UC-BPF ' $out/bpf
for i in 1 2 3; do
	insmod "$UC_DIR/modules/uc_testmod_a.ko" && rmmod uc_testmod_a ||
		{ work_bad "uc_testmod_a load/unload $i failed"; break; }
done
uc_footprint workloads-done
[ -z "$work_why" ]
uc_ktap $((! $?)) "workloads: $secret secret pages held and freed ($in_dev in the device's memory), 200 BPF programs, 3 module loads${work_why:+: $work_why}"
if [ $cache = on ]; then
	uc_verify hotplug
	uc_ktap $((! $?)) "after the workloads no cache page is present in the direct map and no mapping breaks W^X or its arena's permission"
fi

# Unplug everything: let what was freed settle, then ask.
sleep "$settle"
uc_footprint settled
show_blocks before-unplug
mt0=$(meminfo MemTotal)
ask "UC-VMEM-QUERY tag=before"
sleep 2
t0=$(awk '{ printf "%d", $1 }' /proc/uptime)
ask "UC-VMEM-REQUEST size=0"
t=0 seen=0 last_poll="$mt0 $(device_blocks)" first_mib="" done_at=0
echo "UC-VMEM-POLL t=0 memtotal_kb=$mt0 device_blocks=$(device_blocks)"
while :; do
	sleep 5
	t=$(( $(awk '{ printf "%d", $1 }' /proc/uptime) - t0 ))
	left=$(device_blocks)
	# A line when something changed.
	poll="$(meminfo MemTotal) $left"
	if [ "$poll" != "$last_poll" ]; then
		echo "UC-VMEM-POLL t=$t memtotal_kb=${poll% *} device_blocks=$left"
		done_at=$t
	fi
	last_poll=$poll
	# What the driver's first attempt unplugged (the next comes 50 s
	# later, after an attempt that found memory busy).
	[ -n "$first_mib" ] || first_mib=$(( (mt0 - ${poll% *}) / 1024 ))
	dmesg | grep -q 'virtio_mem virtio[0-9]*: requested size: 0x0$' && seen=1
	[ "$left" -eq 0 ] && break
	[ $t -ge "$wait_s" ] && break
	# The host did not pass the request on within 30 s: give up.
	[ $seen = 0 ] && [ $t -ge 30 ] && break
done
mt1=$(meminfo MemTotal)
echo "UC-VMEM-POLL t=$t memtotal_kb=$mt1 device_blocks=$left end"
[ $seen = 1 ]
uc_ktap $((! $?)) "the device saw requested size 0 (the host's devtools/vmem-qmp.py passed the request on; $left of its memory blocks left after ${t} s)"
ask "UC-VMEM-QUERY tag=after"
# The host's answers: the device's plugged size before the request, and
# its plugged and requested size after the wait.
n=0
until grep -q 'tag=after' "$UC_SHARE/vmem" 2>/dev/null || [ $n -ge 20 ]; do
	sleep 0.5
	n=$((n + 1))
done
p0=$(sed -n 's/^UC-VMEM-HOST size_mib=\([0-9]*\) .* tag=before$/\1/p' "$UC_SHARE/vmem" 2>/dev/null)
set -- $(sed -n 's/^UC-VMEM-HOST size_mib=\([0-9]*\) requested_mib=\([0-9]*\) tag=after$/\1 \2/p' "$UC_SHARE/vmem" 2>/dev/null)
p1=$1 r1=$2
achieved=$(( ${p0:-0} - ${p1:-${p0:-0}} ))
[ "${p0:-0}" -gt 0 ] && [ "$r1" = 0 ] && [ -n "$p1" ]
uc_ktap $((! $?)) "the host saw the device plugged at boot (${p0:-no answer} MiB) and asked it for size 0 over QMP; it unplugged $achieved MiB, ${p1:-?} MiB left"
echo "$achieved" > "$UC_SHARE/unplugged-$cache"
show_blocks after-unplug
unplugged=$(( (mt0 - mt1) / 1024 ))
uc_footprint after-unplug
# Which of the 2 MiB blocks the secret pages lay in were unplugged.
gone2=0 stayed2=""
while read -r b; do
	if gone_2m $b; then
		gone2=$((gone2 + 1))
	else
		stayed2="$stayed2 $(printf 0x%x $((b * 2097152)))"
	fi
done < $out/blocks2m
echo "UC-VMEM-SECRET-BLOCKS unplugged=$gone2 of $nb2 stayed=${stayed2# }"

# What the cache took in the device's memory: the secret pages it handed
# out there (with the cache off the same count is the page allocator's).
used=0
[ $cache = on ] && used=$in_dev
if [ $cache = on ] && [ $zone = movable ]; then
	[ "$in_dev" -eq 0 ]
	uc_ktap $((! $?)) "no block of the cache in the device's ZONE_MOVABLE memory: $in_dev of its $secret secret pages there"
elif [ $cache = on ]; then
	[ "$in_dev" -gt 0 ]
	uc_ktap $((! $?)) "the cache took blocks in the device's ZONE_NORMAL memory: $in_dev of its $secret secret pages there (the positive control of ZONE_MOVABLE's 0)"
fi
# The cache's blocks in the device's memory: none may be left but those
# that had live chunks at the start; in ZONE_NORMAL the same count saw
# the blocks taken there while the secret pages were held.
if [ $cache = on ]; then
	ha_end=$(hot_added)
	echo "UC-VMEM-CACHE-HOTADDED start=$ha_start held=$ha_held end=$ha_end"
	if [ $zone = normal ]; then
		[ "$ha_held" -gt "$ha_start" ]
		uc_ktap $((! $?)) "the arenas' count of blocks in hot-added memory saw the secret pages' blocks: $ha_held while they were held, $ha_start at the start"
	fi
	[ "$ha_end" -le "$ha_start" ]
	uc_ktap $((! $?)) "no free block kept in hot-added memory: $ha_end blocks there at the end, $ha_start with live chunks at the start"
fi
# The rule itself, in ZONE_NORMAL: every 2 MiB block of the device the
# cache's secret pages lay in is unplugged once they are freed.
if [ $cache = on ] && [ $zone = normal ]; then
	[ "$nb2" -gt 0 ] && [ "$gone2" = "$nb2" ]
	uc_ktap $((! $?)) "all $gone2 of the $nb2 2 MiB blocks of the device the cache's secret pages lay in were unplugged once freed${stayed2:+ (stayed:$stayed2)}"
fi
# Goal: every unplug that succeeds with the cache off succeeds with it on.
# The blocks the cache holds free at the request are unplugged by
# virtio-mem's retry 50 s later, once the reaper gave them back (with
# unmapped_cache.reap_interval_ms=0 they stay plugged and this fails:
# 470 MiB on against 480-484 off).
if [ $cache = on ]; then
	off=$(cat "$UC_SHARE/unplugged-off" 2>/dev/null)
	[ -n "$off" ] && [ "$achieved" -ge "$off" ]
	uc_ktap $((! $?)) "the cache on unplugs as much as off: ${off:-no figure of the boot with the cache off} MiB off, $achieved MiB on"
fi
echo "UC-VMEM zone=$zone cache=$cache plugged_mib=$plugged device_pages_used_by_cache=$used secret_pages_in_device=$in_dev secret_pages=$secret unplugged_mib=$unplugged secret_2m_blocks_unplugged=$gone2/$nb2 first_poll_mib=$first_mib last_change_s=$done_at device_blocks_left=$left seconds=$t"

# Diagnosis (after the figures): which device blocks stayed, and what
# offlining each of them by hand finds in the way: offline_pages() dumps
# the first page it cannot isolate, on the console (as are virtio_mem's
# own messages).
if [ "$left" -gt 0 ]; then
	i=$first
	while [ $i -le $last ]; do
		if [ -d $mem/memory$i ]; then
			st=$(cat $mem/memory$i/state)
			z=$(cat $mem/memory$i/valid_zones 2>/dev/null)
			r=skipped
			if [ "$st" = online ]; then
				if timeout 10 sh -c "echo offline > $mem/memory$i/state" 2>/dev/null; then
					r=ok
				else
					r=failed
				fi
			fi
			echo "UC-VMEM-DIAG block=$i phys=$(printf 0x%x $((i * bsz))) state=$st zone=${z:-?} offline_by_hand=$r"
		fi
		i=$((i + 1))
	done
fi
ktap_finished
