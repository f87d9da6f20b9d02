# SPDX-License-Identifier: GPL-2.0
# Module addresses under the cache (needs --hostroot for the test
# modules): load uc_testmod_a, b and c, in that order, and print where
# their text, rodata and data are and how much of their text is mapped
# by 2M entries:
#   UC-KASLR mod=a text=0x... rodata=0x... data=0x... text_pages=N text_pages_2m=N
# The host boots this twice with KASLR and twice with nokaslr, and
# compares the addresses between the two boots of each pair.  What one
# boot shows the job checks itself and reports in KTAP (jobs/lib.sh):
# the three modules loaded, and their text on 2M mappings wherever the
# randomised start put it.
. "$UC_DIR/jobs/lib.sh"

mods=${UC_BIN%/bin}/modules
ktap_print_header
ktap_set_plan 2
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
ktap_finished
