#!/bin/sh
# hyde sim -B src_queue=SIZE (off by default): while its circuit is down
# an OCS flow still sends up to SIZE into the crossbar's VOQ over its
# source's link, and when the circuit is up those bytes cross without
# that link, the source feeding the VOQ meanwhile.
# One OCS flow A (r0h1 -> r1h0, 1 MB) replayed with its circuit up from 0
# to 40 ms and from 90 ms, and an in-rack flow B from the same host (1 MB,
# starting at 90 ms): 100 Mbit/s links.
# - without the option A has 500 KB left at 90 ms and shares its source's
#   link with B: A ends at 170 ms, B at 210 ms;
# - with 250,000 bytes: A fills the VOQ alone at 100 Mbit/s (40-60 ms),
#   and from 90 ms crosses at 100 Mbit/s from it while its source feeds it
#   at 50 (B has the other half): the VOQ and A's last byte are done at
#   130 ms, and B, alone from then, ends at 190 ms.
# Both flows carry their bytes, every rate equals water-filling from
# scratch (HYDE_SIM_VERIFY), and the network view still carries exactly
# the flows' bytes (what went into a VOQ counted on its source's link);
# ordered rate models refuse the option.
. "${HYDE_SRCDIR}/tests/lib.sh"

small_ocs_topo "$tmpdir/ocs22.topo" 2 2
# one map on rack 0, a reduce on each rack: an OCS fetch and a same-host one
printf 'job id=a arrival=0s input=1MB shuffle=2MB output=0B maps=1 reduces=2 map_time=0.5s reduce_time=0s map_racks=0 reduce_racks=1,0\n' \
	>"$tmpdir/two.wl"
expect_status 0 "$HYDE" sim -q -t "$tmpdir/ocs22.topo" -w "$tmpdir/two.wl" --no-io -o "$tmpdir/run"
set -- $(awk -F, 'NR == 2 { print $4, $6, $14, $15 }' "$tmpdir/run/flows.csv")
[ "${1:-}" = ocs ] && [ "${3:-}" = r0h1 ] && [ "${4:-}" = r1h0 ] ||
	fail "expected an OCS fetch r0h1 -> r1h0 first: $(cat "$tmpdir/run/flows.csv")"
T=${2:-0}
R="$tmpdir/voq"
cp -r "$tmpdir/run" "$R"
# B: the second fetch, made an in-rack one from the same host, at T + 90 ms
awk -F, -v t=$((T + 90000000)) 'BEGIN { OFS = "," } NR == 3 { $4 = "rack"; $6 = t; $15 = "r0h0" } 1' \
	"$tmpdir/run/flows.csv" >"$R/flows.csv"
# the circuit: up at T (as it was), down at T + 40 ms, up at T + 90 ms
awk -v t=$T '$2 == "circuit_up" || $2 == "circuit_down" { next }
	!/^#/ && !d && $1 + 0 >= t { print t " circuit_up 0 1"; d = 1 }
	!/^#/ && !d2 && $1 + 0 >= t + 40000000 { print t + 40000000 " circuit_down 0 1"; d2 = 1 }
	!/^#/ && !d3 && $1 + 0 >= t + 90000000 { print t + 90000000 " circuit_up 0 1"; d3 = 1 }
	{ print }
	END { if (!d3) print t + 90000000 " circuit_up 0 1" }' "$tmpdir/run/events.log" >"$R/events.log"
[ "$(grep -c ' circuit_' "$R/events.log")" = 3 ] || fail "the replayed circuits: $(grep ' circuit_' "$R/events.log")"

ends() { # the two flows' ends, ms after T
	awk -F, -v t=$T 'NR > 1 { printf "%s%.6f", (NR > 2 ? " " : ""), ($7 - t) / 1e6 }' "$1/flows.csv"
}
HYDE_SIM_VERIFY=1
export HYDE_SIM_VERIFY
expect_status 0 "$HYDE" sim --replay "$R" -o "$R-no"
contains "$out" "2 of 2 done"
[ "$(ends "$R-no")" = "170.000000 210.000000" ] || fail "without the option: ends $(ends "$R-no"), expected 170 and 210 ms"
expect_status 0 "$HYDE" sim --replay "$R" -o "$R-0" -B src_queue=0B
[ "$(ends "$R-0")" = "170.000000 210.000000" ] || fail "src_queue=0B: ends $(ends "$R-0"), expected 170 and 210 ms"
expect_status 0 "$HYDE" sim --replay "$R" -o "$R-yes" -B src_queue=250000B
contains "$out" "2 of 2 done"
[ "$(ends "$R-yes")" = "130.000000 190.000000" ] ||
	fail "with a 250,000-byte VOQ: ends $(ends "$R-yes"), expected 130 and 190 ms"
unset HYDE_SIM_VERIFY

# ---- the main job ----
verified_main_job sq -B src_queue=256KiB
verified_main_job sqall -B src_queue=256KiB -B port_queue=yes -B burst=yes -B setup=1ms -B payload=0.956
cmp -s "$tmpdir/main-default/flows.csv" "$tmpdir/main-sq/flows.csv" &&
	fail "src_queue changed nothing in the main job"
HYDE_SIM_VERIFY=1
export HYDE_SIM_VERIFY
for s in cobra dawn neat; do
	expect_status 0 "$HYDE" sim -q -t "$HYDE_SRCDIR/topologies/rack8.topo" -w "$HYDE_SRCDIR/workloads/fb-small.wl" \
		-s $s -o "$tmpdir/$s" -B src_queue=256KiB -B port_queue=yes
	[ "$(awk -F, 'NR > 1 && $7 < 0' "$tmpdir/$s/flows.csv" | wc -l)" = 0 ] || fail "$s: a flow did not end"
done
unset HYDE_SIM_VERIFY

T="$HYDE_SRCDIR/topologies/rack8.topo"
W="$HYDE_SRCDIR/workloads/fb-small.wl"
# what went into a VOQ crossed its source's link then, the rest later:
# the network view (r0h0's and tor0's links) carries exactly the flows'
# bytes
command -v cc >/dev/null 2>&1 && {
	view_topo=$T view_wl=$W
	view_is_flows sq -B src_queue=256KiB
	view_is_flows sqpq -B src_queue=64KiB -B port_queue=yes
	unset view_topo view_wl
}

expect_status 2 "$HYDE" sim -q -t "$T" -w "$W" -o "$tmpdir/srpt" --rates srpt -B src_queue=64KiB
contains "$err" "src_queue: only with max-min rates"
finish
