# SPDX-License-Identifier: GPL-2.0
# Module addresses under the cache (needs --hostroot for the test
# modules): load uc_testmod_a, b and c, in that order, and print where
# their text, rodata and data are and how much of their text is mapped
# by 2M entries:
#   UC-KASLR mod=a text=0x... rodata=0x... data=0x... text_pages=N text_pages_2m=N
# The host boots this twice with KASLR and twice with nokaslr, and
# compares the addresses between the two boots of each pair.
. "$UC_DIR/jobs/lib.sh"

mods=${UC_BIN%/bin}/modules
rc=0
for m in a b c; do
	insmod "$mods/uc_testmod_$m.ko" || { echo "cannot load uc_testmod_$m"; rc=1; continue; }
done
for m in a b c; do
	sec=/sys/module/uc_testmod_$m/sections
	[ -d $sec ] || continue
	echo "UC-KASLR mod=$m text=$(cat $sec/.text) rodata=$(cat $sec/.rodata 2>/dev/null || echo none)" \
	     "data=$(cat $sec/.data) $(text_share "uc_testmod_$m")"
done
for m in c b a; do
	rmmod "uc_testmod_$m" 2>/dev/null
done
exit $rc
