#!/bin/sh
# hyde sim -B port_queue=yes (off by default): when a circuit goes down,
# its flows whose destination port is full still get what that port had
# queued (topo_port_queue: 256 KiB at 100 Mbit/s, 21 ms of its rate).
# One OCS flow replayed with its circuit cut short: 10 ms short (125 KB
# left), it ends when it would have with the circuit up; 30 ms short, it
# is stranded with 375 KB less the queue's 262,144 bytes; without the
# option it is stranded both times. Two flows into one port both take
# its queue, whichever class the circuit's end reaches first. On the main job with both fabric
# options the rates still equal water-filling from scratch
# (HYDE_SIM_VERIFY) and every flow ends with its bytes; with port_queue
# the network view still carries exactly the flows' bytes (tail bytes on
# the whole path); ordered rate models refuse the option.
. "${HYDE_SRCDIR}/tests/lib.sh"

small_ocs_topo "$tmpdir/ocs.topo" 1 2
printf 'job id=a arrival=0s input=1MB shuffle=1MB output=0B maps=1 reduces=1 map_time=0.5s reduce_time=0s map_racks=0 reduce_racks=1\n' \
	>"$tmpdir/one.wl"
expect_status 0 "$HYDE" sim -q -t "$tmpdir/ocs.topo" -w "$tmpdir/one.wl" --no-io -o "$tmpdir/run"
set -- $(awk -F, 'NR == 2 { print $4, $6, $7 }' "$tmpdir/run/flows.csv")
[ "${1:-}" = ocs ] || fail "the flow is not on the circuit: $(cat "$tmpdir/run/flows.csv")"
start=${2:-0} end=${3:-0}
# the circuit goes down CUT ms before the flow's end
for cut in 10 30; do
	R="$tmpdir/cut$cut"
	cp -r "$tmpdir/run" "$R"
	awk -v t=$((end - cut * 1000000)) '!d && $1 > t { print t " circuit_down 0 1"; d = 1 } 1
		END { if (!d) print t " circuit_down 0 1" }' "$tmpdir/run/events.log" >"$R/events.log"
	for pq in no yes; do
		expect_status 0 "$HYDE" sim --replay "$R" -o "$R-$pq" -B port_queue=$pq
		eval "out_$cut$pq=\$out"
		eval "end_$cut$pq=\$(awk -F, 'NR == 2 { print \$7 }' \"\$R-\$pq/flows.csv\")"
	done
done
[ "$end_10no" = -1 ] || fail "10 ms short, no port queue: the flow ended ($end_10no)"
[ "$end_30no" = -1 ] || fail "30 ms short, no port queue: the flow ended ($end_30no)"
contains "$out_30no" "375KB left in all"
[ "$end_10yes" = "$end" ] || fail "10 ms short with the port's queue: the flow ends at $end_10yes, expected $end"
[ "$end_30yes" = -1 ] || fail "30 ms short with the port's queue: the flow ended ($end_30yes)"
contains "$out_30yes" "113KB left in all" # 375,000 - 262,144 bytes

# two flows from two hosts of rack 0 into one host of rack 1, started
# together (50 Mbit/s each on the destination's link: 160 ms), the circuit
# cut 10 ms short: both take the port's queue (125 KB in 10 ms), whichever
# goes down first (the port is full at the rates in effect then)
small_ocs_topo "$tmpdir/ocs22.topo" 2 1
printf 'job id=a arrival=0s input=2MB shuffle=2MB output=0B maps=2 reduces=1 map_time=0.5s reduce_time=0s map_racks=0,0 reduce_racks=1\n' \
	>"$tmpdir/two.wl"
expect_status 0 "$HYDE" sim -q -t "$tmpdir/ocs22.topo" -w "$tmpdir/two.wl" --no-io -o "$tmpdir/run2"
[ "$(awk -F, 'NR > 1 && $4 == "ocs" && $15 == "r1h0"' "$tmpdir/run2/flows.csv" | wc -l)" = 2 ] ||
	fail "expected two OCS flows into r1h0: $(cat "$tmpdir/run2/flows.csv")"
R="$tmpdir/both"
cp -r "$tmpdir/run2" "$R"
awk -F, 'BEGIN { OFS = "," } NR > 1 { $6 = 1000000000 } 1' "$tmpdir/run2/flows.csv" >"$R/flows.csv"
awk '!d && $1 > 1150000000 { print "1150000000 circuit_down 0 1"; d = 1 } 1
	END { if (!d) print "1150000000 circuit_down 0 1" }' "$tmpdir/run2/events.log" >"$R/events.log"
expect_status 0 "$HYDE" sim --replay "$R" -o "$R-yes" -B port_queue=yes
contains "$out" "2 of 2 done"
ends=$(awk -F, 'NR > 1 { print $7 }' "$R-yes/flows.csv" | sort -u)
[ "$ends" = 1160000000 ] || fail "two flows into one port: ends $ends, expected both 1160000000"

# ---- the main job with both fabric options ----
verified_main_job both -B port_queue=yes -B burst=yes
# the circuit planner keeps nothing of a pair while a tail moves its flows:
# under HYDE_SIM_VERIFY it checks what it kept against the backend's count
# (cobra's plans read pairs during tails; a kept count there was stale)
HYDE_SIM_VERIFY=1
export HYDE_SIM_VERIFY
expect_status 0 "$HYDE" sim -q -t "$HYDE_SRCDIR/topologies/rack8.topo" -w "$HYDE_SRCDIR/workloads/fb-small.wl" \
	-s cobra -o "$tmpdir/cobra" -B port_queue=yes -B burst=yes
unset HYDE_SIM_VERIFY

T="$HYDE_SRCDIR/topologies/rack8.topo"
W="$HYDE_SRCDIR/workloads/fb-small.wl"
# what the ports deliver after their circuits went down crossed the whole
# path: the network view (r0h0's and tor0's links) still carries exactly
# the flows' bytes, in a run where tails change the flows' ends
command -v cc >/dev/null 2>&1 && {
	view_topo=$T view_wl=$W
	view_is_flows pq -B port_queue=yes
	view_is_flows nopq
	cmp -s "$tmpdir/view-pq/flows.csv" "$tmpdir/view-nopq/flows.csv" &&
		fail "port_queue changed nothing in the main job's view run"
	unset view_topo view_wl
}

expect_status 2 "$HYDE" sim -q -t "$T" -w "$W" -o "$tmpdir/srpt" --rates srpt -B port_queue=yes
contains "$err" "port_queue: only with max-min rates"
finish
