#!/bin/sh
# hyde sim -B burst=yes (off by default): every link but a circuit has the
# token bucket the emulator's HTB gives it (topo_shaper_burst: rate x 10
# ms, at least 64 KiB); a link that has idled sends it at once. Flows
# with their start times held (--replay of a run whose start times are
# rewritten): one on idle links ends B / rate sooner (125,000 bytes at
# 100 Mbit/s: 10 ms), with or without -B payload; one that starts as the
# one before it ends on the same bottleneck gains nothing (the bucket went
# with the first); one that starts 5 ms after gains 5 ms (the bucket
# refills at the link's rate); one smaller than the buckets crosses at 64
# times the rate. On the main job the incremental rates
# still equal water-filling from scratch (HYDE_SIM_VERIFY) as capacities
# change, every flow ends with its bytes and the links carry exactly the
# flows' bytes (the network view); burst=no is the default run, byte for
# byte; ordered rate models refuse it.
. "${HYDE_SRCDIR}/tests/lib.sh"
command -v cc >/dev/null 2>&1 || { echo "SKIP: needs cc (the network view's plugin)" >&2; exit 77; }

# ---- three flows on one path, their starts held ----
# two racks of one host: a flow crosses both uplinks (100 Mbit/s, the
# bottleneck; host links 1 Gbit/s); 1 MB each, 80 ms at the rate
printf 'racks 2\nhosts 1\ncontainers 2\nreplicas 1\nhost_rate 1Gbit\nuplink_rate 100Mbit\nocs no\n' \
	>"$tmpdir/two.topo"
for j in a b c; do
	printf 'job id=%s arrival=%ss input=1MB shuffle=1MB output=0B maps=1 reduces=1 map_time=0.5s reduce_time=0s map_racks=0 reduce_racks=1\n' \
		"$j" "$(case $j in a) echo 0 ;; b) echo 10 ;; c) echo 20 ;; esac)"
done >"$tmpdir/three.wl"
expect_status 0 "$HYDE" sim -q -t "$tmpdir/two.topo" -w "$tmpdir/three.wl" --no-io -o "$tmpdir/run"
[ "$(awk -F, 'NR > 1 && $4 == "eps"' "$tmpdir/run/flows.csv" | wc -l)" = 3 ] ||
	fail "expected 3 EPS flows: $(cat "$tmpdir/run/flows.csv")"
# a at 1 s; b when a ends with the bucket (1.070 s); c 5 ms after b ends (1.155 s)
cp -r "$tmpdir/run" "$tmpdir/held"
awk -F, 'BEGIN { OFS = "," } NR > 1 { $6 = ($3 == "a" ? 1000000000 : $3 == "b" ? 1070000000 : 1155000000) } 1' \
	"$tmpdir/run/flows.csv" >"$tmpdir/held/flows.csv"
fct() { awk -F, -v j="$2" 'NR > 1 && $3 == j { print $8 }' "$1/flows.csv"; }
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(d <= 100 && d >= -100) }'; }
expect_status 0 "$HYDE" sim --replay "$tmpdir/held" -q -o "$tmpdir/b" -B burst=yes
for w in "a 70000000" "b 80000000" "c 75000000"; do
	set -- $w
	near "$(fct "$tmpdir/b" "$1")" "$2" ||
		fail "burst: flow $1 took $(fct "$tmpdir/b" "$1") ns, expected $2 (within 100 ns)"
done
# with payload 0.956 (the bucket counts frames, the rate carries payload),
# the three a second apart: each, alone on a rested path, still ends 10 ms
# before 8 Mbit at 95.6 Mbit/s
cp -r "$tmpdir/run" "$tmpdir/apart"
awk -F, 'BEGIN { OFS = "," } NR > 1 { $6 = ($3 == "a" ? 1 : $3 == "b" ? 2 : 3) "000000000" } 1' \
	"$tmpdir/run/flows.csv" >"$tmpdir/apart/flows.csv"
expect_status 0 "$HYDE" sim --replay "$tmpdir/apart" -q -o "$tmpdir/p1" -B payload=0.956 -B burst=yes
for j in a b c; do
	near "$(fct "$tmpdir/p1" $j)" 73682008 ||
		fail "burst with payload: flow $j took $(fct "$tmpdir/p1" $j) ns, expected 73682008 (83682008 - 10 ms)"
done

# a flow smaller than every bucket on its path leaves at 64 times the rate,
# as HTB's ceil bucket (as large as its rate bucket) lets it out at the
# veth's speed: 100 KB across the 100 Mbit/s uplinks (125,000-byte
# buckets) in 125 us (6.4 Gbit/s), where the rate alone takes 8 ms
printf 'job id=s arrival=0s input=1MB shuffle=100KB output=0B maps=1 reduces=1 map_time=0.5s reduce_time=0s map_racks=0 reduce_racks=1\n' \
	>"$tmpdir/small.wl"
expect_status 0 "$HYDE" sim -q -t "$tmpdir/two.topo" -w "$tmpdir/small.wl" --no-io -o "$tmpdir/small" -B burst=yes
set -- $(awk -F, 'NR > 1 && $4 == "eps" { print $5, $8 }' "$tmpdir/small/flows.csv")
[ $# = 2 ] && near "$2" "$(($1 * 8 * 10 / 64))" ||
	fail "burst: a flow smaller than the buckets ($1 bytes) took $2 ns, expected $(($1 * 8 * 10 / 64)) (64 x 100 Mbit/s)"

# ---- the main job: verified rates, every flow with its bytes ----
verified_main_job burst -B burst=yes -B payload=0.956
grep -q ',ocs,' "$tmpdir/main-burst/flows.csv" || fail "no OCS flow in the main job"

# ---- the links carry the flows' bytes (a plugin's network view: tor0's
# uplink and r0h0's link, every tick, summed over the run) ----
view_is_flows burst -B burst=yes

# ---- burst=no is the default run; ordered models refuse it ----
T="$HYDE_SRCDIR/topologies/rack8.topo"
W="$HYDE_SRCDIR/workloads/fb-small.wl"
expect_status 0 "$HYDE" sim -q -t "$T" -w "$W" -s fair -o "$tmpdir/no" -B burst=no
for f in flows.csv coflows.csv jobs.csv; do
	cmp -s "$tmpdir/main-default/$f" "$tmpdir/no/$f" || fail "burst=no: $f differs from the default run's"
done
expect_status 2 "$HYDE" sim -q -t "$T" -w "$W" -o "$tmpdir/srpt" --rates srpt -B burst=yes
contains "$err" "burst: only with max-min rates"
[ -e "$tmpdir/srpt/flows.csv" ] && fail "a refused run wrote flows.csv"
finish
