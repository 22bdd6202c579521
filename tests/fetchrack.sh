#!/bin/sh
# hyde sim -B fetch=rack (a coarser model, for scale; off by default): a
# reduce fetches its job's map outputs per rack, not per host, one fetch
# from a rack batching all that rack's outputs it has not fetched yet. Such
# a fetch's source is the rack; its path has the link of the one host its
# outputs are on, or no source host's link when they are on several.
# Two reduces fetching one map's output from one host share that host's
# link (200 ms), as without the option; four outputs on two hosts of a
# rack, one copy at a time, make three fetches per host and two per rack,
# the same bytes, ending at the same instant; three outputs on three hosts,
# one copy at a time, four reduces: the first fetches (one host) end as
# without the option (160 ms), the second (two hosts, no source link) in
# half the time (the coarse model's error, 80 ms against 160); a reduce's
# own host's outputs still cross no link (a same-host fetch, not part of
# its rack's); the main job keeps its shuffle bytes with the rates equal
# to water-filling from scratch and the circuit planner's counts checked
# (HYDE_SIM_VERIFY); fetch=host is the default, byte for byte.
# -B open_batch (also coarser, off by default): at a reduce's opening the
# outputs already done on one host go in one fetch, where each started its
# own while a copy was free (four maps on one host: one fetch of the four
# outputs, not four, ending as they did) or its circuit up (the default
# scheduler on rack8: fewer fetches over circuits, every reduce's bytes
# the same, the planner's counts checked).
. "${HYDE_SRCDIR}/tests/lib.sh"

shuffle_rows() { # RUN: path,bytes,start,end,fct,src,dst,name of its shuffle flows
	awk -F, '$13 == "shuffle" { print $4 "," $5 "," $6 "," $7 "," $8 "," $14 "," $15 "," $16 }' "$1/flows.csv"
}

printf 'racks 2\nhosts 2\ncontainers 1\nreplicas 1\nhost_rate 100Mbit\nuplink_rate 1Gbit\nocs no\n' >"$tmpdir/a.topo"
printf 'job id=a arrival=0s input=1MB shuffle=2500000B output=0B maps=1 reduces=2 map_time=0.5s reduce_time=0s map_racks=1 reduce_racks=0,0\n' >"$tmpdir/a.wl"
expect_status 0 "$HYDE" sim -q -t "$tmpdir/a.topo" -w "$tmpdir/a.wl" --no-io --heartbeat 0 -o "$tmpdir/a0"
expect_status 0 "$HYDE" sim -q -t "$tmpdir/a.topo" -w "$tmpdir/a.wl" --no-io --heartbeat 0 -B fetch=rack -o "$tmpdir/a1"
h=$(awk -F, 'NR == 2 { print $14 }' "$tmpdir/a0/flows.csv")
case "$h" in r1h[01]) ;; *) fail "the map's output is on '$h', not on rack 1" ;; esac
[ "$(shuffle_rows "$tmpdir/a0")" = "eps,1250000,500000000,700000000,200000000,$h,r0h0,a/shuffle/r0/m0@$h
eps,1250000,500000000,700000000,200000000,$h,r0h1,a/shuffle/r1/m0@$h" ] ||
	fail "fetch=host: $(shuffle_rows "$tmpdir/a0")"
[ "$(shuffle_rows "$tmpdir/a1")" = "eps,1250000,500000000,700000000,200000000,r1,r0h0,a/shuffle/r0/m0@r1
eps,1250000,500000000,700000000,200000000,r1,r0h1,a/shuffle/r1/m0@r1" ] ||
	fail "fetch=rack: $(shuffle_rows "$tmpdir/a1")"

# one_copy NAME HOSTS_PER_RACK CONTAINERS JOB: the job on two racks of 100
# Mbit/s hosts, one copy per reduce, per host ($tmpdir/NAME-host) and per
# rack ($tmpdir/NAME-rack)
one_copy() {
	printf 'racks 2\nhosts %s\ncontainers %s\nreplicas 1\nhost_rate 100Mbit\nuplink_rate 1Gbit\nocs no\n' \
		"$2" "$3" >"$tmpdir/$1.topo"
	printf '%s\n' "$4" >"$tmpdir/$1.wl"
	for f in host rack; do
		expect_status 0 "$HYDE" sim -q -t "$tmpdir/$1.topo" -w "$tmpdir/$1.wl" --no-io --heartbeat 0 --copies 1 \
			-B fetch=$f -o "$tmpdir/$1-$f"
	done
}

one_copy b 2 2 'job id=b arrival=0s input=1MB shuffle=2500000B output=0B maps=4 reduces=1 map_time=0.5s reduce_time=0s map_racks=1,1,1,1 reduce_racks=0'
[ "$(shuffle_rows "$tmpdir/b-host" | wc -l)" = 3 ] || fail "fetch=host: $(shuffle_rows "$tmpdir/b-host")"
[ "$(shuffle_rows "$tmpdir/b-rack")" = "eps,625000,500000000,550000000,50000000,r1,r0h0,b/shuffle/r0/m0@r1
eps,1875000,550000000,700000000,150000000,r1,r0h0,b/shuffle/r0/m1@r1" ] ||
	fail "fetch=rack: $(shuffle_rows "$tmpdir/b-rack")"
[ "$(shuffle_rows "$tmpdir/b-host" | cut -d, -f4 | sort -n | tail -1)" = 700000000 ] ||
	fail "fetch=host: the shuffle does not end at 700 ms: $(shuffle_rows "$tmpdir/b-host")"

# outputs on three hosts of rack 1, four reduces on rack 0, one copy
# each: m0's fetches share m0's host's link (4 x 25 Mbit/s, 160 ms); m1's
# and m2's outputs, batched while they waited, cross neither host's link
# (100 Mbit/s each, the reduce's link: 80 ms; per host 160 ms more)
one_copy e 4 1 'job id=e arrival=0s input=1MB shuffle=6000000B output=0B maps=3 reduces=4 map_time=0.5s reduce_time=0s map_racks=1,1,1 reduce_racks=0,0,0,0'
[ "$(shuffle_rows "$tmpdir/e-host" | cut -d, -f4 | sort -n | uniq -c | awk '{ printf "%s:%s ", $1, $2 }')" = \
	"4:660000000 4:820000000 4:980000000 " ] || fail "three hosts, fetch=host: $(shuffle_rows "$tmpdir/e-host")"
[ "$(shuffle_rows "$tmpdir/e-rack" | cut -d, -f2,3,4 | sort | uniq -c | awk '{ printf "%s:%s ", $1, $2 }')" = \
	"4:1000000,660000000,740000000 4:500000,500000000,660000000 " ] ||
	fail "three hosts, fetch=rack: $(shuffle_rows "$tmpdir/e-rack")"

# the reduce's own host holds an output: that one crosses no link, the
# other host's comes from the rack (before, the rack's fetch held both,
# and the reduce's link carried its own host's output)
printf 'job id=c arrival=0s input=1MB shuffle=2500000B output=0B maps=2 reduces=1 map_time=0.5s reduce_time=0s map_racks=0,0 reduce_racks=0\n' >"$tmpdir/c.wl"
expect_status 0 "$HYDE" sim -q -t "$tmpdir/a.topo" -w "$tmpdir/c.wl" --no-io --heartbeat 0 -B fetch=rack -o "$tmpdir/c"
rows=$(shuffle_rows "$tmpdir/c" | sort)
set -- $(shuffle_rows "$tmpdir/c" | awk -F, '$1 == "host" { print $6, $7 }')
[ $# = 2 ] && [ "$1" = "$2" ] || fail "own host: no same-host fetch: $rows"
[ "$(shuffle_rows "$tmpdir/c" | awk -F, '$1 == "rack" && $6 == "r0" && $2 == 1250000' | wc -l)" = 1 ] ||
	fail "own host: expected one fetch of 1,250,000 bytes from rack 0: $rows"
[ "$(shuffle_rows "$tmpdir/c" | wc -l)" = 2 ] || fail "own host: expected two fetches: $rows"

# the main job, on a fabric with circuits, every check on
T="$HYDE_SRCDIR/topologies/rack8.topo"
W="$HYDE_SRCDIR/workloads/fb-small.wl"
for s in fair coscheduler; do
	HYDE_SIM_VERIFY=1
	export HYDE_SIM_VERIFY
	expect_status 0 "$HYDE" sim -q -t "$T" -w "$W" -s $s -B fetch=rack -o "$tmpdir/m-$s"
	unset HYDE_SIM_VERIFY
	expect_status 0 "$HYDE" sim -q -t "$T" -w "$W" -s $s -o "$tmpdir/x-$s"
	for r in m x; do
		grep -o '"shuffle_bytes": [0-9]*' "$tmpdir/$r-$s/summary.json" >"$tmpdir/$r.sb"
	done
	cmp -s "$tmpdir/m.sb" "$tmpdir/x.sb" || fail "$s: shuffle bytes $(cat "$tmpdir/m.sb"), exact $(cat "$tmpdir/x.sb")"
	awk -F, '$13 == "shuffle" && $4 != "host" && ($14 !~ /^r[0-9]+$/ || $16 !~ "@" $14 "$") { bad++ }
		$13 == "shuffle" && $4 == "host" && $14 != $15 { bad++ }
		$13 == "shuffle" && $4 == "ocs" { ocs++ }
		END { exit bad || !ocs }' "$tmpdir/m-$s/flows.csv" ||
		fail "$s: a fetch between hosts not from a rack, or none on a circuit: $(head -5 "$tmpdir/m-$s/flows.csv")"
	[ "$(wc -l <"$tmpdir/m-$s/flows.csv")" -lt "$(wc -l <"$tmpdir/x-$s/flows.csv")" ] ||
		fail "$s: fetch=rack made no fewer flows"
done
# fetch=host is the default
expect_status 0 "$HYDE" sim -q -t "$T" -w "$W" -s fair -B fetch=host -o "$tmpdir/h"
for f in flows.csv coflows.csv jobs.csv; do
	cmp -s "$tmpdir/h/$f" "$tmpdir/x-fair/$f" || fail "fetch=host: $f differs from the default's"
done

# -B open_batch: four outputs done on one host when the reduce opens
# (slowstart=1), five copies free
printf 'racks 2\nhosts 1\ncontainers 4\nreplicas 1\nhost_rate 100Mbit\nuplink_rate 1Gbit\nocs no\n' >"$tmpdir/o.topo"
printf 'job id=o arrival=0s input=1MB shuffle=4000000B output=0B maps=4 reduces=1 map_time=0.5s reduce_time=0s map_racks=1,1,1,1 reduce_racks=0\n' >"$tmpdir/o.wl"
for b in no yes; do
	expect_status 0 "$HYDE" sim -q -t "$tmpdir/o.topo" -w "$tmpdir/o.wl" --no-io --heartbeat 0 -S slowstart=1 \
		-B open_batch=$b -o "$tmpdir/o-$b"
done
[ "$(shuffle_rows "$tmpdir/o-no" | cut -d, -f1-5 | sort | uniq -c | awk '{ printf "%s:%s ", $1, $2 }')" = \
	"4:eps,1000000,500000000,820000000,320000000 " ] || fail "open_batch=no: $(shuffle_rows "$tmpdir/o-no")"
[ "$(shuffle_rows "$tmpdir/o-yes" | cut -d, -f1-7)" = "eps,4000000,500000000,820000000,320000000,r1h0,r0h0" ] ||
	fail "open_batch=yes: expected one fetch of the four outputs: $(shuffle_rows "$tmpdir/o-yes")"
# circuits up at openings (the default scheduler's): every reduce's bytes
reduce_bytes() { # RUN: job/reduce,bytes of every reduce, sorted
	awk -F, '$13 == "shuffle" { split($16, n, "/"); b[n[1] "/" n[3]] += $5 }
		END { for (k in b) print k "," b[k] }' "$1/flows.csv" | sort
}
HYDE_SIM_VERIFY=1
export HYDE_SIM_VERIFY
expect_status 0 "$HYDE" sim -q -t "$T" -w "$W" -s default -B open_batch=yes -o "$tmpdir/ob"
unset HYDE_SIM_VERIFY
expect_status 0 "$HYDE" sim -q -t "$T" -w "$W" -s default -o "$tmpdir/ob0"
[ "$(reduce_bytes "$tmpdir/ob")" = "$(reduce_bytes "$tmpdir/ob0")" ] || fail "open_batch: a reduce's bytes differ"
n1=$(awk -F, '$13 == "shuffle" && $4 == "ocs"' "$tmpdir/ob/flows.csv" | wc -l)
n0=$(awk -F, '$13 == "shuffle" && $4 == "ocs"' "$tmpdir/ob0/flows.csv" | wc -l)
[ "$n1" -gt 0 ] && [ "$n1" -lt "$n0" ] || fail "open_batch: $n1 fetches over circuits, $n0 without"
expect_status 2 "$HYDE" sim -q --replay "$tmpdir/x-fair" -B open_batch=yes -o "$tmpdir/bad"
contains "$err" "open_batch: not with --replay"

expect_status 2 "$HYDE" sim -q -t "$T" -w "$W" -B fetch=pod -o "$tmpdir/bad"
contains "$err" "fetch: expected host or rack, got 'pod'"
expect_status 2 "$HYDE" sim -q --replay "$tmpdir/x-fair" -B fetch=rack -o "$tmpdir/bad"
contains "$err" "fetch: not with --replay"
[ -e "$tmpdir/bad" ] && fail "a refused run left $tmpdir/bad"
finish
