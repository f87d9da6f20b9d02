# SPDX-License-Identifier: GPL-2.0
# Needs the host root over 9p (qemu-run.sh --hostroot) for bpftrace.
# The x86_cpa:direct_map_split tracepoint must see exactly the level-2
# splits that /proc/vmstat counts while memfd_secret() pages are faulted
# through the stock secretmem path (which splits the direct map).
. "$UC_DIR/jobs/lib.sh"
command -v bpftrace >/dev/null || { echo "bpftrace not found"; exit 1; }

out=/run/tmp/splittrace.out
bpftrace -e 'tracepoint:x86_cpa:direct_map_split { @splits[args->level] = count(); @stacks[kstack(4)] = count(); }' > "$out" 2>&1 &
bt=$!
# Wait until the probe is attached (bpftrace prints "Attaching 1 probe...").
i=0
while ! grep -q Attaching "$out" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 120 ] || { echo "bpftrace did not attach"; cat "$out"; exit 1; }
	sleep 1
done
sleep 1
before=$(vmstat direct_map_level2_splits)
"$UC_BIN/secretmem_fault" "${UC_SECRET_PAGES:-8192}" || exit 1
after=$(vmstat direct_map_level2_splits)
sleep 1
kill -INT $bt
wait $bt
cat "$out"
traced=$(sed -n 's/^@splits\[2\]: \([0-9]*\)/\1/p' "$out")
echo "UC-SPLITTRACE traced=${traced:-0} vmstat=$((after - before))"
[ -n "$traced" ] && [ "$traced" -gt 0 ] && [ "$traced" -eq $((after - before)) ]
