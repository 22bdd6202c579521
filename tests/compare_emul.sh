#!/bin/sh
# hyde compare in emulation (root), as the README's main job runs it: on
# tiny.topo with the small workload, fair and coscheduler both finish every
# job, every shuffle byte is verified by its reducer, and the fabric is gone
# afterwards.
. "${HYDE_SRCDIR}/tests/lib.sh"
require_root
command -v tcpdump >/dev/null || { echo "SKIP: no tcpdump" >&2; exit 77; }

P=$(test_prefix tcmp)
SCHEDS=${HYDE_COMPARE_SCHEDS:-fair,coscheduler}
cleanup() {
	"$HYDE" clean --prefix $P >/dev/null 2>&1
	rm -rf "$tmpdir"
}
trap cleanup EXIT
"$HYDE" clean --prefix $P >/dev/null 2>&1

O="$tmpdir/cmp"
expect_status 0 "$HYDE" compare -t "$HYDE_SRCDIR/topologies/tiny.topo" \
	-w "$HYDE_SRCDIR/workloads/small.wl" -s "$SCHEDS" -o "$O" --prefix $P
contains "$out" "emulation"
contains "$out" "relative to"
for s in $(echo "$SCHEDS" | tr , ' '); do
	d="$O/$(echo "$s" | tr : -)"
	[ -f "$d/manifest.csv" ] || { fail "$s: no run directory"; continue; }
	# every flow verified; the shuffle's bytes add up to the workload's
	awk -F, 'NR == FNR { if (FNR > 1) kind[$2] = $15; next }
		 FNR > 1 { if ($8 != 1) bad++; if (kind[$1] == "shuffle") b += $7 }
		 END { exit !(b == 20100000 && !bad) }' "$d/manifest.csv" "$d/app/fetches.csv" ||
		fail "$s: fetches: $(cat "$d/app/fetches.csv")"
	# both jobs measured from the captures
	n=$(awk -F, 'NR > 1 && $5 >= 0' "$d/jobs.csv" | wc -l)
	[ "$n" = 2 ] || fail "$s: $n of 2 jobs finished in jobs.csv"
	grep -q "^$s,.*,emul,1,2,2," "$O/compare.csv" || fail "$s: compare.csv: $(cat "$O/compare.csv")"
done
n=$(ip netns list | grep -c "^$P-")
[ "$n" = 0 ] || fail "$n namespace(s) $P-* left"

# hyde compare killed outright while its first run is under way: the run
# is told (SIGTERM, by the kernel) and removes its fabric itself
"$HYDE" compare -t "$HYDE_SRCDIR/topologies/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" \
	-s fair -o "$tmpdir/killed" --prefix $P >/dev/null 2>&1 &
cmp=$!
i=0
until [ -e "/run/hyde/$P/ready" ] || [ $i -ge 600 ]; do
	i=$((i + 1))
	sleep 0.1
done
[ -e "/run/hyde/$P/ready" ] || fail "the compare's run did not bring its fabric up"
kill -9 $cmp
wait $cmp 2>/dev/null
# the run stops on its own; only one that never does fails
i=0
while { [ -e "/run/hyde/$P" ] || pgrep -f "hyde run .*--prefix $P" >/dev/null; } && [ $i -lt 600 ]; do
	i=$((i + 1))
	sleep 0.1
done
pgrep -af "hyde run .*--prefix $P" && fail "the run of a killed compare is still running"
[ -e "/run/hyde/$P" ] && fail "the run of a killed compare left /run/hyde/$P"
n=$(ip netns list | grep -c "^$P-")
[ "$n" = 0 ] || fail "the run of a killed compare left $n namespace(s)"
grep -q "interrupted by" "$tmpdir/killed/fair.log" ||
	fail "the run did not say why it stopped: $(tail -n 3 "$tmpdir/killed/fair.log")"
finish
