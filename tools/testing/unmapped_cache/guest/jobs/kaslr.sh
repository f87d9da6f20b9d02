# SPDX-License-Identifier: GPL-2.0
# Module addresses under the cache (needs --hostroot for the test
# modules, and --share DIR: the boots compare through it): load
# uc_testmod_a, b and c, in that order, and print where their text,
# rodata and data are and how much of their text is mapped by 2M
# entries:
#   UC-KASLR mod=a text=0x... rodata=0x... data=0x... text_pages=N text_pages_2m=N
# The host boots this twice with KASLR and twice with nokaslr, each pair
# with a new shared directory.  The first boot of a pair writes its 9
# addresses there; the second compares its own with them: with KASLR
# every one must differ, with nokaslr (the control: the comparison sees
# equal addresses when nothing is randomised) every one must be the
# same.  Each boot checks that the three modules loaded and that their
# text is on 2M mappings wherever the randomised start put it.  All in
# KTAP (jobs/lib.sh).
# Entropy, x86-64 (mm/unmapped_cache/arena.c): a random 2M start among
# 252 in the lower half of the 1008 MiB module area, and a random page
# of 512 in the arena's first block, about 2^17 places for text against
# 2^10 for the stock module load offset.
. "$UC_DIR/jobs/lib.sh"

mods=${UC_BIN%/bin}/modules
prev=$UC_SHARE/addresses
[ -n "$UC_SHARE" ] || ktap_exit_fail_msg "no shared directory (qemu-run.sh --share)"
ktap_print_header
if [ -s "$prev" ]; then ktap_set_plan 3; else ktap_set_plan 2; fi
loaded=0
for m in a b c; do
	insmod "$mods/uc_testmod_$m.ko" && loaded=$((loaded + 1)) ||
		echo "cannot load uc_testmod_$m"
done
t=0 t2=0
for m in a b c; do
	sec=/sys/module/uc_testmod_$m/sections
	[ -d $sec ] || continue
	share=$(text_share "uc_testmod_$m")
	echo "UC-KASLR mod=$m text=$(cat $sec/.text) rodata=$(cat $sec/.rodata 2>/dev/null || echo none)" \
	     "data=$(cat $sec/.data) $share"
	for s in text rodata data; do
		echo "$m.$s $(cat $sec/.$s 2>/dev/null || echo none)"
	done >> /run/tmp/addresses
	n=$(uc_field "$share" text_pages) n2=$(uc_field "$share" text_pages_2m)
	t=$((t + ${n:-0})) t2=$((t2 + ${n2:-0}))
done
for m in c b a; do
	rmmod "uc_testmod_$m" 2>/dev/null
done
[ $loaded = 3 ]
uc_ktap $((! $?)) "$loaded of 3 test modules loaded"
[ $t -gt 0 ] && [ $t2 = $t ]
uc_ktap $((! $?)) "the modules' text is mapped by 2M entries: $t2 of $t pages"
if [ ! -s "$prev" ]; then
	cp /run/tmp/addresses "$prev" || echo "kaslr: cannot write $prev"
	ktap_finished
fi
# The second boot: its 9 addresses against the first boot's.
set -- $(awk 'NR == FNR { a[$1] = $2; next }
	($1 in a) && $2 != "none" { if (a[$1] == $2) s++; else d++ }
	END { print s + 0, d + 0 }' "$prev" /run/tmp/addresses)
same=$1 diff=$2
text="text of uc_testmod_a $(awk '$1 == "a.text" { print $2 }' "$prev") then $(awk '$1 == "a.text" { print $2 }' /run/tmp/addresses)"
if grep -qw nokaslr /proc/cmdline; then
	[ $same = 9 ] && [ $diff = 0 ]
	uc_ktap $((! $?)) "control: with nokaslr, the modules are where the first boot put them: $same of 9 text/rodata/data addresses the same, $diff different ($text)"
else
	[ $same = 0 ] && [ $diff = 9 ]
	uc_ktap $((! $?)) "with KASLR, the modules are not where the first boot put them: $diff of 9 text/rodata/data addresses differ, $same the same ($text)"
fi
ktap_finished
