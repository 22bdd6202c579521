#!/bin/sh
# hyde sim -B end_grid=G (off by default): a flow ends at the multiple of
# G nearest its exact end (halves up), so flows that end within a step
# share one rate computation. One flow alone ends exactly there; on the
# main job every flow but those over a circuit (their planner needs exact
# ends) ends on the grid, every flow keeps its bytes, and the averages stay
# near the exact run's; the links carry exactly the flows' bytes (the
# network view, summed over the run: a flow past its end carries nothing,
# one ended early has the rest counted); end_grid=0s is the exact run,
# byte for byte; other rate models refuse it.
. "${HYDE_SRCDIR}/tests/lib.sh"
command -v cc >/dev/null 2>&1 || { echo "SKIP: needs cc (the network view's plugin)" >&2; exit 77; }

# ---- one flow: its end, rounded to the nearest multiple ----
printf 'racks 2\nhosts 1\ncontainers 2\nreplicas 1\nhost_rate 1Gbit\nuplink_rate 100Mbit\nocs no\n' \
	>"$tmpdir/two.topo"
printf 'job id=x arrival=0s input=1MB shuffle=10MB output=0B maps=1 reduces=1 map_time=0.5s reduce_time=0s map_racks=0 reduce_racks=1\n' \
	>"$tmpdir/one.wl"
end_of() { awk -F, 'NR == 2 { print $7 }' "$1/flows.csv"; }
expect_status 0 "$HYDE" sim -q -t "$tmpdir/two.topo" -w "$tmpdir/one.wl" --no-io -o "$tmpdir/x"
e=$(end_of "$tmpdir/x")
for g in 7 10 400; do
	expect_status 0 "$HYDE" sim -q -t "$tmpdir/two.topo" -w "$tmpdir/one.wl" --no-io \
		-o "$tmpdir/g$g" -B end_grid=${g}ms
	want=$(awk -v e="$e" -v g="$g" 'BEGIN { g *= 1000000; printf "%.0f", int((e + g / 2) / g) * g }')
	[ "$(end_of "$tmpdir/g$g")" = "$want" ] ||
		fail "end_grid=${g}ms: the flow ends at $(end_of "$tmpdir/g$g"), expected $want (exact: $e)"
done

# ---- the main job ----
T="$HYDE_SRCDIR/topologies/rack8.topo"
W="$HYDE_SRCDIR/workloads/fb-small.wl"
expect_status 0 "$HYDE" sim -q -t "$T" -w "$W" -s fair -o "$tmpdir/exact"
expect_status 0 "$HYDE" sim -q -t "$T" -w "$W" -s fair -o "$tmpdir/grid" -B end_grid=10ms
# on the grid: every ended flow between two hosts but the OCS ones, or,
# when the point nearest its end was already past (a flow of a few bytes:
# at its start), at once; so never in the second half of a step (it would
# have waited for the next point)
awk -F, 'NR > 1 && $7 >= 0 && $4 != "ocs" && $4 != "host" {
	r = $7 % 10000000; if (r == 0) on++; else if (r < 5000000) past++; else print }
	END { print on + 0, past + 0 >"/dev/stderr" }' "$tmpdir/grid/flows.csv" \
	>"$tmpdir/off" 2>"$tmpdir/counts"
[ -s "$tmpdir/off" ] && fail "flows that end in a step's second half: $(head -3 "$tmpdir/off")"
read -r on past <"$tmpdir/counts"
echo "on the 10 ms grid: $on flows; $past at once, their grid point past"
[ "$on" -gt 100 ] && [ "$past" -lt $((on / 10)) ] || fail "only $on flows on the grid ($past at once)"
# circuit flows end exactly, not on the grid
n_ocs=$(awk -F, 'NR > 1 && $4 == "ocs" && $7 >= 0' "$tmpdir/grid/flows.csv" | wc -l)
n_ocs_off=$(awk -F, 'NR > 1 && $4 == "ocs" && $7 >= 0 && $7 % 10000000 != 0' "$tmpdir/grid/flows.csv" | wc -l)
[ "$n_ocs" -gt 10 ] || fail "only $n_ocs OCS flows"
[ "$n_ocs_off" -gt $((n_ocs / 2)) ] || fail "OCS flows on the grid: $((n_ocs - n_ocs_off)) of $n_ocs"
# the same flows, each with its bytes, all ended
for d in exact grid; do
	awk -F, 'NR > 1 { print $16, $5, ($7 >= 0) }' "$tmpdir/$d/flows.csv" | sort >"$tmpdir/$d.fb"
done
cmp -s "$tmpdir/exact.fb" "$tmpdir/grid.fb" ||
	fail "flows or their bytes differ on the grid: $(diff "$tmpdir/exact.fb" "$tmpdir/grid.fb" | head -5)"
# averages within 1% of the exact run's (measured: JCT +0.03%, CCT -0.01%)
avg() { awk -F, -v col="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c[col] >= 0 { t += $c[col]; n++ } END { printf "%.0f", t / n }' "$1"; }
for m in "jobs.csv jct_ns" "coflows.csv cct_ns"; do
	set -- $m
	a=$(avg "$tmpdir/exact/$1" "$2") b=$(avg "$tmpdir/grid/$1" "$2")
	awk -v a="$a" -v b="$b" 'BEGIN { exit !(b >= 0.99 * a && b <= 1.01 * a) }' ||
		fail "average $2: $b on the grid, $a exact"
done

# ---- the links carry the flows' bytes: the network view of a plugin (tor0's
# uplink, r0h0's link, every tick) summed over the run, against the flows
# that cross them; 100 ms and 7 ms grids, heartbeats every second ----
for g in 100ms 7ms; do
	view_is_flows "end_grid=$g" -B end_grid=$g
done

# ---- end_grid=0s is the exact run; other models refuse it ----
expect_status 0 "$HYDE" sim -q -t "$T" -w "$W" -s fair -o "$tmpdir/zero" -B end_grid=0s
for f in flows.csv coflows.csv jobs.csv; do
	cmp -s "$tmpdir/exact/$f" "$tmpdir/zero/$f" || fail "end_grid=0s: $f differs from the exact run's"
done
expect_status 2 "$HYDE" sim -q -t "$T" -w "$W" -o "$tmpdir/srpt" --rates srpt -B end_grid=1ms
contains "$err" "end_grid: only with max-min rates"
[ -e "$tmpdir/srpt/flows.csv" ] && fail "a refused run wrote flows.csv"
finish
