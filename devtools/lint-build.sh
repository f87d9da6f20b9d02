#!/usr/bin/env bash
# Rebuild the project's own kernel objects with W=1 and sparse (C=2 checks
# them even when up to date) and fail on any warning in them.
# Needs a configured build (devtools/build-kernel.sh).
. "$(dirname "$0")/common.sh"

objs=(mm/unmapped_cache/ arch/x86/mm/unmapped_cache.o lib/tests/unmapped_cache/)
log=$UC_CACHE/logs/lint.log
kmake -j"$UC_JOBS" W=1 C=2 "${objs[@]}" > "$log" 2>&1 ||
	{ tail -20 "$log"; uc_die "W=1/C=2 build failed, log: $log"; }
warnings=$(grep -E 'warning:|error:' "$log")
[ -z "$warnings" ] && exit 0
printf '%s\n' "$warnings"
exit 1
