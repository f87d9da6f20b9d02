#!/usr/bin/env bash
# DESIGN.md I6: the page allocator's free paths compile exactly as stock.
#
#   1. No patch of the series touches mm/page_alloc.c or mm/swap.c.
#   2. mm/page_alloc.o and mm/swap.o are built from the pristine source with
#      the series build's configuration (olddefconfig drops the cache's
#      options) in $UC_CACHE/build-stock, and the machine code of the free
#      path's functions is compared with the series build's
#      (devtools/disasm-cmp.py): the same instructions, registers, branch
#      targets and relocation symbols; numbers alone may differ (a field
#      or counter index moved by the counters the series adds), and each
#      instruction where they do is printed.
#   3. The comparison's own control, on the stock code: a displacement
#      moved passes, a call inserted where a hook would go fails.
#
# Needs the series build (devtools/build-kernel.sh).  Exit status 1 on any
# difference.
. "$(dirname "$0")/common.sh"

fns_page_alloc=(free_pages_prepare free_unref_page free_unref_folios)
fns_swap=(__folio_put folios_put_refs)
stock=$UC_CACHE/build-stock
log=$UC_CACHE/logs/build-stock.log
rc=0

touched=$(grep -l '^+++ b/mm/\(page_alloc\|swap\)\.c' "$UC_ROOT"/patches/*.patch)
if [ -n "$touched" ]; then
	echo "patches that touch mm/page_alloc.c or mm/swap.c: $touched"
	rc=1
else
	echo "no patch touches mm/page_alloc.c or mm/swap.c"
fi

[ -f "$UC_OUT/.config" ] && [ -f "$UC_OUT/mm/page_alloc.o" ] ||
	uc_die "no series build in $UC_OUT: build the kernel first"
mkdir -p "$stock"
if ! cmp -s "$UC_OUT/.config" "$stock/.uc-series-config"; then
	cp "$UC_OUT/.config" "$stock/.config"
	cp "$UC_OUT/.config" "$stock/.uc-series-config"
	make -C "$UC_PRISTINE" O="$stock" CC="ccache gcc" HOSTCC="ccache gcc" \
		olddefconfig > "$log" 2>&1 ||
		{ tail -20 "$log"; uc_die "stock configuration failed, log: $log"; }
fi
make -C "$UC_PRISTINE" O="$stock" CC="ccache gcc" HOSTCC="ccache gcc" \
	-j"$UC_JOBS" mm/page_alloc.o mm/swap.o >> "$log" 2>&1 ||
	{ tail -20 "$log"; uc_die "stock build of mm/page_alloc.o mm/swap.o failed, log: $log"; }
# The two configurations differ in the cache's options only.
other=$(diff <(grep '^CONFIG_' "$UC_OUT/.config" | sort) <(grep '^CONFIG_' "$stock/.config" | sort) |
	grep '^[<>]' | grep -v '^< CONFIG_\(ARCH_HAS_\)\?UNMAPPED_CACHE')
if [ -n "$other" ]; then
	echo "the stock configuration differs in more than the cache's options:"
	echo "$other" | head -20
	rc=1
fi

cmp_py=$UC_ROOT/devtools/disasm-cmp.py
python3 "$cmp_py" "$stock/mm/page_alloc.o" "$UC_OUT/mm/page_alloc.o" \
	"${fns_page_alloc[@]}" || rc=1
python3 "$cmp_py" "$stock/mm/swap.o" "$UC_OUT/mm/swap.o" "${fns_swap[@]}" || rc=1
python3 "$cmp_py" --self-test "$stock/mm/page_alloc.o" free_pages_prepare || rc=1
exit $rc
