#!/bin/sh
# hyde sim --coflow-only: Coflow-Benchmark coflows on Sunflow's setup
# (topologies/coflow150.topo: 1Gbit circuits, delta 10ms, no EPS), each
# CCT from arrival to last byte, checked against values worked out by hand.
# At 1Gbit/s, 1MB (10^6 bytes) takes 8ms.
. "${HYDE_SRCDIR}/tests/lib.sh"

T="$HYDE_SRCDIR/topologies/coflow150.topo"

# cct NAME: the cct_ns of coflow NAME in $tmpdir/run/coflows.csv
cct() {
	awk -F, -v id="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "cct_ns") c = i }
		$2 == id { print $c }' "$tmpdir/run/coflows.csv"
}

check_cct() {
	got=$(cct "$1")
	[ "$got" = "$2" ] || fail "coflow $1: CCT $got ns, expected $2 ns ($3)"
}

# The first three coflows of the trace never overlap (arrivals 0, 10.8s,
# 13.1s), so each takes its own T(C) = max port load / 1Gbit/s + delta per
# circuit the busiest port needs:
#   c1: rack 22 -> 65, 1MB: 8ms + 10ms
#   c2: racks 104, 132 -> 140, 24MB each: rack 140 takes 48MB over two
#       circuits one after the other: 384ms + 2 x 10ms
#   c3: racks 66, 138 -> 38, 2MB each: 32ms + 2 x 10ms
rm -rf "$tmpdir/run"
expect_status 0 "$HYDE" sim -t "$T" --coflow-only -o "$tmpdir/run" \
	-w "coflow:$HYDE_TRACEDIR/FB2010-1Hr-150-0.txt,min_flow=1MB,count=3" &&
	contains "$out" "coflows          3 of 3 done" &&
	contains "$out" "average CCT      0.158000s (arrival to last byte)"
check_cct c1 18000000 "T(C)"
check_cct c2 404000000 "T(C)"
check_cct c3 52000000 "T(C)"

# Three coflows that meet (tests/data/coflow3.txt):
#   c1 at 0: racks 0, 1 -> reducers on 1 (4MB) and 2 (6MB): 0->1 2MB,
#      0->2 3MB, 1->2 3MB (1->1 stays in the rack); T(C) = 48ms + 20ms
#   c2 at 0: 3 -> 4, 8MB; T(C) = 74ms, so c1 (68ms) goes first
#   c3 at 10ms: 0 -> 3, 1MB; T(C) = 18ms: the shortest from then on
# Sunflow: 0->1 [0, 26ms] and 1->2 [0, 34ms] (a matching; 0->2 waits for
# port 0), 3->4 from 0 in the gap of ports 3 and 4. At 10ms c3 comes first
# but 0->1 is not preempted: 0->3 starts at 26ms, is up at 36ms, ends at
# 44ms (c3: 34ms after its arrival). c1's 0->2 then waits for port 0: up
# at 54ms, done at 78ms. 3->4 was never touched: 74ms = c2's T(C).
rm -rf "$tmpdir/run"
expect_status 0 "$HYDE" sim -t "$T" --coflow-only -o "$tmpdir/run" \
	-w "coflow:$HYDE_SRCDIR/tests/data/coflow3.txt,min_flow=1MB" &&
	contains "$out" "average CCT      0.062000s (arrival to last byte)"
check_cct c1 78000000 "priority and non-preemption"
check_cct c2 74000000 "T(C): its ports are never taken"
check_cct c3 34000000 "waits for port 0, then T(C)"

# min_flow: a 1MB reducer fed by two mappers gets two 1MB flows, not two of
# 0.5MB: 0->2 then 1->2, 2 x (8ms + 10ms).
printf '150 1\n7 0 2 0 1 1 2:1.0\n' >"$tmpdir/min.txt"
rm -rf "$tmpdir/run"
expect_status 0 "$HYDE" sim -t "$T" --coflow-only -o "$tmpdir/run" \
	-w "coflow:$tmpdir/min.txt,min_flow=1MB"
check_cct c7 36000000 "two 1MB flows into one port"
rm -rf "$tmpdir/run"
expect_status 0 "$HYDE" sim -t "$T" --coflow-only -o "$tmpdir/run" \
	-w "coflow:$tmpdir/min.txt"
check_cct c7 28000000 "two 0.5MB flows into one port"

# Bad input: one message, exit 2.
expect_status 2 "$HYDE" sim -t "$T" --coflow-only -w "coflow:$tmpdir/min.txt,min_flw=1MB" &&
	contains "$err" "coflow:$tmpdir/min.txt,min_flw=1MB: unknown option 'min_flw' (expected one of: mb, min_flow"
expect_status 2 "$HYDE" sim -t "$T" --coflow-only -w "coflow:$tmpdir/min.txt,mb=lots" &&
	contains "$err" "mb"
expect_status 2 "$HYDE" sim -t "$T" -C none -w "coflow:$tmpdir/min.txt" &&
	contains "$err" "topology coflow150 has no EPS: cross-rack flows need circuits (-C sunflow or greedy, not none)"
printf 'job id=a arrival=0s input=1MB shuffle=1MB output=0B maps=1 reduces=1 map_time=1s reduce_time=0s map_racks=0 reduce_racks=1\n' >"$tmpdir/a.wl"
expect_status 2 "$HYDE" sim -t "$T" --coflow-only -w "$tmpdir/a.wl" &&
	contains "$err" "$tmpdir/a.wl:1: job 'a': coflow-only mode expects map_time=0s and reduce_time=0s (no compute)"
printf '150 1\n7 0 2 0 150 1 2:1.0\n' >"$tmpdir/bad.txt"
expect_status 2 "$HYDE" sim -t "$T" --coflow-only -w "coflow:$tmpdir/bad.txt" &&
	contains "$err" "$tmpdir/bad.txt:2: mapper 2: expected a rack from 0 to 149"
finish
