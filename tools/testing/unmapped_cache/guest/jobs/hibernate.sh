# SPDX-License-Identifier: GPL-2.0
# Hibernation and /proc/kcore with the cache in use.  Three boots of the
# same initramfs guest with two disks, /dev/vda (512 MiB, for the image)
# and /dev/vdb (8 MiB, too small for any image); devtools/check.sh
# (sec_hibernate) runs them.  Each step below prints one UC-HIB line of
# evidence and one KTAP result (jobs/lib.sh): boot 1 its four (the
# kernel powers off without a KTAP total), the resumed shell a KTAP
# document of its own in boot 2's console (one result), boot 3 another
# (one result).
#
# Boot 1 (no uc.hibernate=): what lives in the cache is set up: a test
# module (uc_testmod_a), 100 kprobes and 16 ftrace_ops with trampolines
# held by uc_kprobes hold=1, and 600 BPF programs held by bpf_load -H.
# Then:
#   before     every user works, and the bytes of the module's function and
#              of a JIT image read through /proc/kcore are those the kernel
#              reads through their own mappings;
#   text       kprobe instruction pages and ftrace trampolines come from
#              the cache's ROX caches and module-area text is mapped by 2M
#              entries;
#   refused    with a secretmem mapping in use, hibernation is refused
#              (EPERM) and everything still works; the mapping is intact;
#   nospace    with only the small swap, the image is made (the cache's
#              pages are copied) and then cannot be written: everything
#              still works, nothing split;
# and it hibernates to /dev/vda (kernel powers off).
# Boot 2 (uc.hibernate=resume) resumes that image; boot 1's shell goes on
# where it stopped and prints
#   resumed    every user still works (module, kprobes and ftrace_ops, BPF
#              test runs), kcore bytes as before, verify clean, level-2
#              splits and DirectMap4k unchanged since "before";
# then hibernates again.
# Boot 3 (uc.hibernate=abort), with less memory than the image was made
# on, loads the module (so that the booting kernel's cache holds blocks)
# and resumes; the image is refused once its header is read ("Image
# mismatch"), and the boot goes on:
#   aborted    the booting kernel's cache and module still work.
. "$UC_DIR/jobs/lib.sh"

mods=$UC_DIR/modules
image=/dev/vda
small=/dev/vdb
dbg=/sys/kernel/debug/unmapped_cache
rc=0
bad() {
	echo "hibernate: $*"
	rc=1
}

phase=$(sed -n 's/.*uc\.hibernate=\([a-z]*\).*/\1/p' /proc/cmdline)

# hibernate_to DEV: hibernate with DEV as the only swap; the status of
# the write to /sys/power/state (0 once resumed), its message in $hib_err.
hibernate_to() {
	for s in $(awk 'NR > 1 { print $1 }' /proc/swaps); do swapoff "$s"; done
	mkswap "$1" > /dev/null && swapon "$1" || return 1
	# Where the image goes (and where a resume would look: no image there).
	cat "/sys/block/${1#/dev/}/dev" > /sys/power/resume
	sync
	hib_err=$( (echo disk > /sys/power/state) 2>&1)
}

# works NAME: the module, the kprobes and ftrace_ops answer, verify is
# clean; prints one line of evidence and fails on any problem.
works() {
	m=$(cat /sys/kernel/debug/uc_testmod_a/run 2>&1)
	k=$(cat /sys/kernel/debug/uc_kprobes/check 2>&1)
	v=$(cat $dbg/verify 2>/dev/null)
	echo "hibernate: $1: module: $m; kprobes: $k"
	case "$m" in ok*) ;; *) return 1 ;; esac
	case "$k" in ok*) ;; *) return 1 ;; esac
	uc_verify "$1"
}

# kcore_same NAME ADDR HEX: the bytes at ADDR in /proc/kcore are HEX.
kcore_same() {
	got=$("$UC_BIN/kcore_peek" "$2" $((${#3} / 2)))
	[ -n "$3" ] && [ "$got" = "$3" ] && return 0
	echo "hibernate: $1 at $2: kcore has ${got:-nothing}, want ${3:-nothing}"
	return 1
}

# in_rox_pmd ADDR: ADDR is inside an executable 2M mapping of the module
# area (a block of the cache's ROX arena).
in_rox_pmd() {
	a=$(($1))
	awk '/---\[ Modules \]---/ { m = 1; next } /---\[ End Modules \]---/ { m = 0 }
		m && / x  pmd$/ { split($1, r, "-"); print r[1], r[2] }' \
		/sys/kernel/debug/page_tables/kernel |
	while read -r s e; do
		[ $a -ge $((s)) ] && [ $a -lt $((e)) ] && echo in
	done | grep -q in
}

# kcore_check: the module's function and the JIT images bpf_load printed
# (its first and last program), read through kcore; sets $kcore to how
# many matched and $jit_in_cache to how many of the images are in the
# cache's ROX arena (the first one may share a pack that the kernel
# allocated at boot, before the cache was up).
kcore_check() {
	kcore=0
	jit_in_cache=0
	addr=$(awk '$3 == "uc_a_run_show" { print "0x" $1; exit }' /proc/kallsyms)
	kcore_same module "$addr" "$(cat /sys/kernel/debug/uc_testmod_a/text)" &&
		kcore=$((kcore + 1))
	for j in $(sed -n 's/^UC-BPF-JIT .* addr=\(0x[0-9a-f]*\) .* bytes=\([0-9a-f]*\).*/\1:\2/p' \
		   /run/tmp/bpf.out); do
		kcore_same jit "${j%%:*}" "${j#*:}" && kcore=$((kcore + 1))
		in_rox_pmd "${j%%:*}" && jit_in_cache=$((jit_in_cache + 1))
	done
	[ $kcore -eq 3 ] && [ $jit_in_cache -ge 1 ]
}

if [ "$phase" = resume ]; then
	echo "UC-HIB phase=resume image=$image"
	cat /sys/block/vda/dev > /sys/power/resume
	# A resumed image goes on in boot 1's shell; only a failure gets here.
	echo "hibernate: no image was resumed"
	exit 1
fi

if [ "$phase" = abort ]; then
	ktap_print_header
	ktap_set_plan 1
	insmod "$mods/uc_testmod_a.ko" || ktap_exit_fail_msg "cannot load uc_testmod_a"
	held=$(uc_stat 'blocks held')
	echo "UC-HIB phase=abort image=$image held=$held"
	cat /sys/block/vda/dev > /sys/power/resume
	failed=$(dmesg | grep -c 'Failed to load image')
	m=$(cat /sys/kernel/debug/uc_testmod_a/run 2>&1)
	"$UC_BIN/bpf_load" -n 50 > /run/tmp/bpf-abort.out 2>&1
	b=$?
	ok=1
	case "$m" in ok*) ;; *) ok=0 ;; esac
	[ "$failed" -ge 1 ] && [ "$held" -gt 0 ] && [ $b -eq 0 ] || ok=0
	uc_verify aborted || ok=0
	echo "UC-HIB step=aborted load_failed=$failed held_before=$held module=$m bpf_rc=$b $(uc_snapshot | tr '\n' ' ')ok=$ok"
	uc_ktap $ok "a resume that fails to load its image: $failed image load failure, and the booting kernel's cache, holding $held blocks, the module and BPF still work, verify clean"
	ktap_finished
fi

# Boot 1.
ktap_print_header
ktap_set_plan 4
echo 0 > /sys/power/image_size
echo shutdown > /sys/power/disk
insmod "$mods/uc_testmod_a.ko" || ktap_exit_fail_msg "cannot load uc_testmod_a"
insmod "$mods/uc_kprobes.ko" hold=1 nr_kprobes=100 || ktap_exit_fail_msg "cannot load uc_kprobes"
"$UC_BIN/bpf_load" -n 600 -H /run/tmp/bpf.ready > /run/tmp/bpf.out 2>&1 &
bpf=$!
wait_ready /run/tmp/bpf.ready $bpf 300 ||
	{ cat /run/tmp/bpf.out; ktap_exit_fail_msg "bpf_load not ready"; }

# Where the text lives: pages of the kprobes and ftrace caches (ROX
# arena), and the executable mappings of the module area by level
# (CONFIG_PTDUMP_DEBUGFS), in kB.
cache_pages() {
	awk -v n="$1" '$1 == n { sub(/pages=/, "", $4); print $4; f = 1 }
		END { if (!f) print 0 }' $dbg/caches
}
exec_kb() {
	awk -v l="$1" '/---\[ Modules \]---/ { m = 1; next } /---\[ End Modules \]---/ { m = 0 }
		m && $NF == l && / x  [a-z]+$/ {
			n = $2; u = substr(n, length(n)); n += 0
			s += u == "G" ? n * 1048576 : u == "M" ? n * 1024 : n
		} END { print s + 0 }' /sys/kernel/debug/page_tables/kernel
}
kp=$(cache_pages execmem_kprobes) fp=$(cache_pages execmem_ftrace) x2m=$(exec_kb pmd)
echo "UC-HIB text kprobes_pages=$kp ftrace_pages=$fp" \
     "bpf_pages=$(cache_pages execmem_bpf) module_area_exec_kb_2m=$x2m" \
     "module_area_exec_kb_4k=$(exec_kb pte)"
text_ok=0
[ "$kp" -gt 0 ] && [ "$fp" -gt 0 ] && [ "$x2m" -gt 0 ] && text_ok=1

before=$(uc_snapshot | tr '\n' ' ')
l2=$(vmstat direct_map_level2_splits)
dm4k=$(meminfo DirectMap4k)
ok=1
works before || ok=0
kcore_check || ok=0
echo "UC-HIB step=before kcore_matches=$kcore jit_in_cache=$jit_in_cache $before ok=$ok"
uc_ktap $ok "module, kprobes, ftrace_ops and BPF in the cache work; /proc/kcore shows the module's text and two JIT images, $jit_in_cache of them in the ROX arena, as their own mappings do: $kcore of 3 match"
uc_ktap $text_ok "kprobe instruction pages ($kp) and ftrace trampolines ($fp) come from ROX caches, and $x2m kB of module-area text is mapped by 2M entries"

# Secret memory in use: refused, as stock does for secretmem.
"$UC_BIN/secretmem_fault" --hold /run/tmp/secret.ready 64 > /run/tmp/secret.out 2>&1 &
secret=$!
wait_ready /run/tmp/secret.ready $secret 60
ok=1
hibernate_to $image
hrc=$?
works refused || ok=0
kill -TERM $secret
wait $secret
src=$?
[ $hrc -ne 0 ] && [ $src -eq 0 ] || ok=0
case "$hib_err" in *"not permitted"*) ;; *) ok=0 ;; esac
echo "UC-HIB step=refused status=$hrc error='$hib_err' secret_rc=$src secret='$(tr -d '\n' < /run/tmp/secret.out)' ok=$ok"
uc_ktap $ok "hibernation is refused while a secretmem file is open, as stock refuses it, and everything goes on: $(printf "%s" "$hib_err" | tr "\n#" "  ")"

# The image is made, then does not fit: hibernation fails after the copy.
copied=$(uc_stat 'pages copied for hibernation')
left=$(uc_stat 'pages left out of hibernation')
ok=1
hibernate_to $small
hrc=$?
works nospace || ok=0
copied2=$(uc_stat 'pages copied for hibernation')
left2=$(uc_stat 'pages left out of hibernation')
nl2=$(vmstat direct_map_level2_splits)
[ $hrc -ne 0 ] && [ "$copied2" -gt "$copied" ] && [ "$left2" -eq "$left" ] &&
	[ "$nl2" -eq "$l2" ] || ok=0
# The pair of the refusal above: the secretmem file is closed now, so this
# attempt must not be refused (stock would not refuse it either), even
# though the cache may still hold the secret pages it freed.
case "$hib_err" in *"No space"*) ;; *) ok=0 ;; esac
echo "UC-HIB step=nospace status=$hrc error='$hib_err' copied=+$((copied2 - copied)) left_out=+$((left2 - left)) l2=$l2:$nl2 ok=$ok"
uc_ktap $ok "once the secretmem file is closed hibernation is not refused; an image that cannot be written: $((copied2 - copied)) cache pages copied, $((left2 - left)) left out, level-2 splits $l2 then $nl2, and everything goes on: $(printf "%s" "$hib_err" | tr "\n#" "  ")"
[ $((KTAP_CNT_PASS)) = 4 ] || rc=1

# Hibernate for real.  The next line is boot 1's last (it is printed as a
# result so that this boot's log is complete); after the resume, this
# shell goes on in boot 2, with a KTAP document of its own.
echo "UC-RESULT rc=$rc (hibernating; the job goes on after the resume)"
hibernate_to $image
hrc=$?
rc=0
KTAP_TESTNO=1 KTAP_CNT_PASS=0 KTAP_CNT_FAIL=0 KTAP_CNT_SKIP=0
ktap_print_header
ktap_set_plan 1
ok=1
[ $hrc -eq 0 ] || ok=0
works resumed || ok=0
kcore_check || ok=0
kill -USR1 $bpf
wait $bpf
brc=$?
held=$(grep -a '^UC-BPF-HOLD ' /run/tmp/bpf.out)
[ $brc -eq 0 ] || ok=0
after=$(uc_snapshot | tr '\n' ' ')
nl2=$(vmstat direct_map_level2_splits)
ndm4k=$(meminfo DirectMap4k)
[ "$nl2" -eq "$l2" ] && [ "$ndm4k" -eq "$dm4k" ] || ok=0
echo "UC-HIB step=resumed status=$hrc error='$hib_err' kcore_matches=$kcore jit_in_cache=$jit_in_cache bpf_rc=$brc ${held:-no UC-BPF-HOLD line} l2=$l2:$nl2 dm4k=$dm4k:$ndm4k $after ok=$ok"
case "$held" in *"progs=600 runs=600 bad=0"*) ;; *) ok=0 ;; esac
uc_ktap $ok "after resume, module, kprobes, ftrace_ops and BPF test runs work, kcore matches ($kcore of 3), verify clean, level-2 splits $l2 then $nl2 and DirectMap4k $dm4k then $ndm4k kB unchanged"
[ $ok -eq 1 ] || rc=1
rmmod uc_kprobes || bad "cannot unload uc_kprobes"
rmmod uc_testmod_a || bad "cannot unload uc_testmod_a"

# A second image, which boot 3 (another memory size) must refuse.
echo "UC-RESULT rc=$rc (hibernating again, for the aborted resume)"
hibernate_to $image
echo "hibernate: the second hibernation returned ($hib_err)"
exit 1
