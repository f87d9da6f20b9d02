# SPDX-License-Identifier: GPL-2.0
# The cost of an order-0 alloc_page() + __free_page() pair (needs
# --hostroot for the test module): uc_pagepair times 5 runs of 20000
# pairs and prints them; this job repeats that 3 times and prints
#   UC-PAIR cache=on|off ns_per_pair=X,Y,...   (all 15 runs)
# devtools/pair-timing.sh boots it with the cache off and on in turn.
. "$UC_DIR/jobs/lib.sh"

mods=${UC_BIN%/bin}/modules
mode=$(grep -q 'unmapped_cache=off' /proc/cmdline && echo off || echo on)
all=
for i in 1 2 3; do
	insmod "$mods/uc_pagepair.ko" || { echo "cannot load uc_pagepair"; exit 1; }
	rmmod uc_pagepair
	runs=$(dmesg | sed -n 's/.*uc_pagepair: pairs=[0-9]* ns_per_pair=//p' | tail -n 1)
	all=${all:+$all,}$runs
done
echo "UC-PAIR cache=$mode ns_per_pair=$all"
case ",$all," in *,0,*|,,) exit 1 ;; esac
exit 0
