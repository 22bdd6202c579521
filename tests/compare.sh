#!/bin/sh
# hyde compare in the simulator (no root): its table's figures are the ones
# the runs' own summaries give, every spec is checked before anything runs,
# and the ablation syntax NAME:KEY=VALUE reaches the scheduler.
. "${HYDE_SRCDIR}/tests/lib.sh"

T="$HYDE_SRCDIR/topologies/tiny.topo"
W="$HYDE_SRCDIR/workloads/small.wl"
O="$tmpdir/cmp"

# bad specs: one message, exit 2, nothing made
expect_status 2 "$HYDE" compare --backend sim -t "$T" -w "$W" -s fair,nosuch -o "$O"
contains "$err" "unknown scheduler 'nosuch'"
expect_status 2 "$HYDE" compare --backend sim -t "$T" -w "$W" -s fair:bogus=1 -o "$O"
contains "$err" "bogus"
expect_status 2 "$HYDE" compare --backend sim -t "$T" -w "$W" -s fair,fair -o "$O"
contains "$err" "twice"
expect_status 2 "$HYDE" compare --backend nope -t "$T" -w "$W" -o "$O"
expect_status 2 "$HYDE" compare --backend sim -t "$tmpdir/none.topo" -w "$W" -o "$O"
[ -e "$O" ] && fail "a refused compare left $O"

# two runs: fair, and fair with the reduces held until every map is done
expect_status 0 "$HYDE" compare --backend sim -t "$T" -w "$W" -s fair,fair:slowstart=1 -o "$O"
contains "$out" "relative to fair"
[ -f "$O/compare.csv" ] || fail "no compare.csv"
for d in fair fair-slowstart=1; do
	[ -f "$O/$d/summary.json" ] || fail "no run directory $O/$d"
done

# the spec's options reach its run, and only its run
grep -qx '0 sched_options slowstart=1' "$O/fair-slowstart=1/events.log" ||
	fail "fair:slowstart=1 ran with: $(grep sched_options "$O/fair-slowstart=1/events.log")"
grep -qx '0 sched_options' "$O/fair/events.log" ||
	fail "fair ran with: $(grep sched_options "$O/fair/events.log")"

# compare.csv against each run's summary.json (computed by the controller,
# not by compare): makespan, average JCT, average CCT, OCS share
json() { sed -n "s/^ *\"$2\": *\\([-0-9.e+]*\\),*\$/\\1/p" "$1/summary.json"; }
row=0
while IFS=, read -r label sched backend ok jobs done mk jct cct thr share rest; do
	row=$((row + 1))
	[ "$row" = 1 ] && continue
	d=$(echo "$label" | tr : -)
	[ "$backend" = sim ] || fail "$label: backend $backend"
	[ "$ok" = 1 ] && [ "$jobs" = 2 ] && [ "$done" = 2 ] || fail "$label: ok=$ok jobs=$done/$jobs"
	for pair in "$mk:makespan_s" "$jct:avg_jct_s" "$cct:avg_cct_s" "$share:ocs_share"; do
		v=${pair%%:*}
		key=${pair#*:}
		want=$(json "$O/$d" "$key")
		awk -v a="$v" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d;
			exit !(b != "" && d <= 1e-6 * (b < 0 ? -b : b) + 1e-9) }' ||
			fail "$label: compare.csv $key=$v, summary.json says $want"
	done
done <"$O/compare.csv"
[ "$row" = 3 ] || fail "compare.csv has $((row - 1)) rows, expected 2"

# the output directory is not overwritten
expect_status 2 "$HYDE" compare --backend sim -t "$T" -w "$W" -s fair -o "$O"
contains "$err" "exists"
finish
