#!/usr/bin/env bash
# Compile tools/testing/unmapped_cache/stubs/stubs_test.c with the exact
# flags kbuild used for mm/secretmem.o in the built tree, CONFIG_UNMAPPED_CACHE
# undefined and -Werror: the header's stubs must serve a kernel without the
# option.  (A whole kernel with the option off was also built once by hand,
# see the closing note of the pipeline issue; too slow for every run.)
. "$(dirname "$0")/common.sh"

cmdfile=$UC_OUT/mm/.secretmem.o.cmd
[ -f "$cmdfile" ] || uc_die "no $cmdfile: build the kernel first"
cmd=$(sed -n 's/^savedcmd_mm\/secretmem.o := //p' "$cmdfile")
# Only the compile: kbuild chains objtool after it, on mm/secretmem.o itself,
# which a second run would corrupt for the next link.
cmd=${cmd%%;*}
src=$UC_ROOT/tools/testing/unmapped_cache/stubs/stubs_test.c
obj=$(mktemp --suffix=.o)
trap 'rm -f "$obj"' EXIT
new=$(printf '%s' "$cmd" | sed "s#-c -o mm/secretmem.o [^ ]*secretmem\\.c#-Werror -Wmissing-prototypes -c -o $obj $src#")
[ "$new" != "$cmd" ] || uc_die "unexpected compile command in $cmdfile"
cd "$UC_OUT" && eval "$new"
