# SPDX-License-Identifier: GPL-2.0
# Boot to user space and stop (devtools/mttcg-boots.sh counts how often a
# kernel gets here under multi-threaded TCG).  With the cache on, take one
# secret page and one module-area chunk's worth of cache memory first, so
# that the boot also changes the direct map and patches text.
. "$UC_DIR/jobs/lib.sh"
[ -w /sys/kernel/debug/unmapped_cache/exercise_population ] &&
	{ echo 64 > /sys/kernel/debug/unmapped_cache/exercise_population || exit 1; }
echo "boot job: user space reached, uptime $(cut -d' ' -f1 /proc/uptime) s"
