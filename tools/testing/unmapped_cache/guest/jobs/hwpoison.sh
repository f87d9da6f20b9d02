# SPDX-License-Identifier: GPL-2.0
# Hardware poison on the cache's pages, injected through hwpoison-inject
# (/sys/kernel/debug/hwpoison/corrupt-pfn, which calls memory_failure() as
# a machine check would).  Three pages are poisoned, one in each state a
# cache page can be in:
#   inuse     a secretmem page mapped by its process (secret_pfns
#             --poison): the process gets SIGBUS on that page only, the
#             page never comes back to the cache
#   magazine  a free page on top of CPU 0's magazine (the last page a
#             process pinned to CPU 0 freed): the next allocation there
#             sets it aside instead of handing it out
#   block     a free page of a block with no other page in use: the drain
#             that returns that block keeps it instead, out of the direct
#             map
# and once the in-use page's file is gone, hibernation is available again
# (step hibernate; control: not while secret pages are held).  Last,
# unpoison-pfn on the three pages is refused (the cache holds references),
# and after a drain none of them is in the direct map or handed out (step
# unpoison).
# Positive control first: without poison, the last page a process on CPU 0
# freed is the first one the next process there gets, so its absence
# later means something.  Then a process takes every page the NONE arena
# has free, and more, and must get none of the three (step all, with the
# verify file's count of poisoned pages).  A KTAP result per step
# (jobs/lib.sh), and uc_verify's; a step fails on any missing piece of
# evidence.
. "$UC_DIR/jobs/lib.sh"

ktap_print_header
ktap_set_plan 8

dbg=/sys/kernel/debug/unmapped_cache
inject=/sys/kernel/debug/hwpoison/corrupt-pfn
reap=/sys/module/unmapped_cache/parameters/reap_interval_ms
out=/run/tmp/hwpoison
mkdir -p $out

bad() {
	ktap_print_msg "hwpoison: $*"
}

if [ ! -r $dbg/blocks ] || [ ! -w $inject ]; then
	ktap_exit_fail_msg "hwpoison: needs the cache on and hwpoison-inject"
fi
old_reap=$(cat $reap 2>/dev/null)
[ -n "$old_reap" ] && echo 0 > $reap

# none_stat NAME: counter NAME summed over the NONE arenas.
none_stat() {
	awk -v k="$1" '/^arena / { a = $2 }
		a == "none" { l = $0; sub(/^ */, "", l)
			      if (index(l, k ": ") == 1) { sub(/.*: /, "", l); s += l } }
		END { print s + 0 }' $dbg/arenas
}

# run NAME ARGS...: secret_pfns on CPU 0, its output in $out/NAME.
run() {
	name=$1
	shift
	taskset -c 0 "$UC_BIN/secret_pfns" "$@" > $out/$name 2>&1
}
# pfn_of NAME INDEX, last_pfn NAME, has_pfn NAME PFN
pfn_of() { awk -v i="$2" '$1 == "pfn" && $2 == i { print $3 }' $out/$1; }
last_pfn() { awk '$1 == "pfn" { p = $3 } END { print p }' $out/$1; }
has_pfn() { awk -v p="$2" '$1 == "pfn" && $3 == p { f = 1 } END { exit !f }' $out/$1; }

echo 1 > $dbg/drain

# Control: the last page freed on CPU 0 is the first one taken there.
run control-a 64 || bad "control: secret_pfns failed"
last=$(last_pfn control-a)
run control-b 64 || bad "control: secret_pfns failed"
first=$(pfn_of control-b 0)
[ -n "$last" ] && [ "$first" = "$last" ] && reused=1 || reused=0
[ $reused = 1 ] || bad "control: the last page freed on CPU 0 was not the first one taken"
uc_ktap $reused "control: the last page freed on CPU 0 is the first taken there (last_freed=$last first_taken=$first)"

# inuse: poison page 5 of a mapped secretmem file.
run inuse --poison 5 64
inuse_rc=$?
p1=$(pfn_of inuse 5)
line=$(grep 'secret_pfns: poisoned' $out/inuse)
grep -v '^pfn ' $out/inuse | sed 's/^/# /'
ktap_print_msg "secret_pfns exit status $inuse_rc"
mf=$(dmesg | grep -c "Memory failure: $p1:")
[ $inuse_rc = 0 ] || bad "inuse: no SIGBUS on the poisoned page, or another page lost its data"
[ "$mf" -gt 0 ] || bad "inuse: memory_failure() did not report $p1"
ok=0
case "$line" in *sigbus=1\ intact=63\ of\ 63*) [ $inuse_rc = 0 ] && [ "$mf" -gt 0 ] && ok=1 ;; esac
uc_ktap $ok "inuse: a poisoned secretmem page in use: SIGBUS on that page only, every other page intact (${line#secret_pfns: poisoned } memory_failure_lines=$mf)"

# magazine: the last page control-b's successor frees on CPU 0.
set_aside0=$(none_stat 'pages set aside for hardware poison')
run magazine 64 || bad "magazine: secret_pfns failed"
p2=$(last_pfn magazine)
# memory_failure() cannot take the page: the write says so (EBUSY).
echo "$p2" > $inject 2>/dev/null
run after-magazine 64 || bad "magazine: secret_pfns failed after the poison"
set_aside=$(( $(none_stat 'pages set aside for hardware poison') - set_aside0 ))
has_pfn after-magazine "$p2" && handed=1 || handed=0
# Two pages set aside on CPU 0 in this step: the in-use page of the step
# before, which its file gave back to the cache (cleared of nothing: it is
# poisoned) when secret_pfns exited, at the first allocation here, and
# this one.
[ "$set_aside" = 2 ] || bad "magazine: the poisoned pages were not both set aside"
[ $handed = 0 ] || bad "magazine: the poisoned page was handed out"
uc_ktap $(( set_aside == 2 && handed == 0 )) "magazine: a page poisoned in a magazine, and the poisoned in-use page once its file let go, are set aside, not handed out (pfn=$p2 set_aside=+$set_aside handed_out=$handed)"

# hibernate: the poisoned in-use page's file is gone and the page set
# aside, so no secret page is live: hibernation is available again
# ("disk" in /sys/power/state).  Control: while a process holds secret
# pages, it is not.
rm -f /run/tmp/hwpoison.hold
"$UC_BIN/secretmem_fault" --hold /run/tmp/hwpoison.hold 16 > /dev/null &
holder=$!
i=0
while [ ! -e /run/tmp/hwpoison.hold ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
grep -qw disk /sys/power/state && disk_held=1 || disk_held=0
kill $holder
wait $holder
grep -qw disk /sys/power/state && disk_after=1 || disk_after=0
[ $disk_held = 0 ] || bad "hibernate: hibernation offered while secret pages are in use"
[ $disk_after = 1 ] || bad "hibernate: hibernation still refused once no secret page is live"
uc_ktap $(( disk_held == 0 && disk_after == 1 )) "hibernate: once the poisoned secret page's file is gone, hibernation is offered again; not while secret pages are held (disk_while_held=$disk_held disk_after=$disk_after)"

# block: a free page of a block that the drain will find entirely free:
# one whose 512 pages all went to this process (so no module text or
# other secret shares it).
run spread 1536 || bad "block: secret_pfns failed"
p3=$(awk '$1 == "pfn" { b = $4; n[b]++; if (!(b in first)) first[b] = $3 }
	END { for (b in n) if (n[b] == 512) { print first[b]; exit } }' $out/spread)
kept0=$(uc_stat 'blocks kept for a poisoned page now')
if [ -n "$p3" ]; then
	echo "$p3" > $inject 2>/dev/null
	echo 1 > $dbg/drain
fi
kept=$(( $(uc_stat 'blocks kept for a poisoned page now') - kept0 ))
[ "$kept" = 1 ] || bad "block: the block with the poisoned page was not kept"
uc_ktap $(( kept == 1 )) "block: a free block with a poisoned page is kept out of the direct map by the drain (pfn=${p3:-none} blocks_kept=+$kept)"

# Take everything the NONE arena has free, and more: none of the three.
free=$(( $(none_stat 'pages free in tree') + $(none_stat 'pages in magazines') + $(none_stat 'pages in depot') ))
run all $(( free + 1024 )) || bad "all: secret_pfns failed"
n=$(grep -c '^pfn ' $out/all)
hits=0
for p in $p1 $p2 $p3; do has_pfn all "$p" && hits=$((hits + 1)); done
[ $hits = 0 ] || bad "all: a poisoned page was handed out"

v=$(cat $dbg/verify)
poisoned=$(echo "$v" | sed -n 's/.* poisoned=\([0-9]*\).*/\1/p')
dm=$(echo "$v" | sed -n 's/.* dm_present=\([0-9]*\) .*/\1/p')
[ "$poisoned" = 3 ] || bad "verify: $poisoned poisoned pages in the cache's blocks, not 3"
[ "$dm" = 0 ] || bad "verify: $dm pages of the blocks are in the direct map"
ok=0
[ $hits = 0 ] && [ "$n" -gt "$free" ] && [ "$poisoned" = 3 ] && [ "$dm" = 0 ] && ok=1
uc_ktap $ok "all: none of the 3 poisoned pages handed out again to a process that took all $free free pages and more, all 3 still out of the direct map (pages=$n poisoned_handed_out=$hits poisoned=$poisoned dm_present=$dm)"

# unpoison: hwpoison-inject's unpoison-pfn on the three pages, then a
# drain: unpoison_memory() finds the cache's own references and leaves
# each page poisoned, so nothing of them may come back into the direct
# map or be handed out.
unpoison=/sys/kernel/debug/hwpoison/unpoison-pfn
refused=0
for p in $p1 $p2 $p3; do
	echo "$p" > $unpoison 2>/dev/null || refused=$((refused + 1))
done
echo 1 > $dbg/drain
v=$(cat $dbg/verify)
poisoned=$(echo "$v" | sed -n 's/.* poisoned=\([0-9]*\).*/\1/p')
dm=$(echo "$v" | sed -n 's/.* dm_present=\([0-9]*\) .*/\1/p')
run again $(( free + 1024 )) || bad "unpoison: secret_pfns failed"
hits=0
for p in $p1 $p2 $p3; do has_pfn again "$p" && hits=$((hits + 1)); done
[ "$refused" = 3 ] || bad "unpoison: $((3 - refused)) of the 3 pages unpoisoned while the cache holds them"
[ "$poisoned" = 3 ] && [ "$dm" = 0 ] || bad "unpoison: after the drain, poisoned=$poisoned dm_present=$dm"
[ $hits = 0 ] || bad "unpoison: a poisoned page was handed out"
uc_ktap $(( refused == 3 && poisoned == 3 && dm == 0 && hits == 0 )) "unpoison: unpoison-pfn of the 3 pages is refused while the cache holds them, and after a drain none is in the direct map or handed out (refused=$refused poisoned=$poisoned dm_present=$dm handed_out=$hits)"

[ -n "$old_reap" ] && echo "$old_reap" > $reap
ktap_test_result "verify: no page of the cache mapped where it must not be, no bad call refused" \
	uc_verify hwpoison
ktap_finished
