#!/bin/sh
# --fetch-order: which waiting fetch a reduce starts when one of its copies
# frees. fifo (the default) takes them in the order the outputs reached the
# reduce; random takes a random one, as Hadoop's fetchers pick a random host
# with output for them. One reduce, one copy, three outputs on three hosts
# of the other rack, 80 ms each over the reduce's 100 Mbit/s link: fifo
# fetches m0, m1, m2; random fetches m0 first (it started alone, before the
# others reached the reduce), then the others in a seed's order, some seed
# not m1 first; every order ends at 580, 660 and 740 ms; a seed repeats;
# summary.json says fetch_order random, and nothing with fifo. A
# circuit's fetches queued for copies (--ocs-fetch copies) start before an
# EPS fetch that waited longer, with either order.
# The main job with random keeps every shuffle byte, with the rates and the
# circuit planner's counts checked (HYDE_SIM_VERIFY), with circuits'
# fetches in the copies (--ocs-fetch copies) too; fifo is the default, byte
# for byte; a bad value, and --replay, are refused.
. "${HYDE_SRCDIR}/tests/lib.sh"

order() { # RUN: the shuffle fetches' start-end (ms) and map, by start
	awk -F, '$13 == "shuffle" { n = $16; sub(/@.*/, "", n); sub(/.*\//, "", n)
		printf "%d %d-%d:%s\n", $6, $6 / 1e6, $7 / 1e6, n }' "$1/flows.csv" | sort -n | cut -d' ' -f2 | tr '\n' ' '
}

printf 'racks 2\nhosts 3\ncontainers 1\nreplicas 1\nhost_rate 100Mbit\nuplink_rate 1Gbit\nocs no\n' >"$tmpdir/o.topo"
printf 'job id=o arrival=0s input=1MB shuffle=3000000B output=0B maps=3 reduces=1 map_time=0.5s reduce_time=0s map_racks=1,1,1 reduce_racks=0\n' >"$tmpdir/o.wl"
moved=0
for s in 1 2 3 4 5 6; do
	for f in fifo random; do
		expect_status 0 "$HYDE" sim -q -t "$tmpdir/o.topo" -w "$tmpdir/o.wl" --no-io --heartbeat 0 --copies 1 \
			--fetch-order $f --seed $s -o "$tmpdir/o-$f-$s"
	done
	[ "$(order "$tmpdir/o-fifo-$s")" = "500-580:m0 580-660:m1 660-740:m2 " ] ||
		fail "seed $s, fifo: $(order "$tmpdir/o-fifo-$s")"
	case "$(order "$tmpdir/o-random-$s")" in
	"500-580:m0 580-660:m1 660-740:m2 ") ;;
	"500-580:m0 580-660:m2 660-740:m1 ") moved=$((moved + 1)) ;;
	*) fail "seed $s, random: $(order "$tmpdir/o-random-$s")" ;;
	esac
done
[ $moved -gt 0 ] || fail "random: m1 first after m0 with every seed, as fifo"
grep -q '"fetch_order": "random"' "$tmpdir/o-random-1/summary.json" || fail "random: summary.json does not say it"
grep -q fetch_order "$tmpdir/o-fifo-1/summary.json" && fail "fifo: summary.json names a fetch order"
expect_status 0 "$HYDE" sim -q -t "$tmpdir/o.topo" -w "$tmpdir/o.wl" --no-io --heartbeat 0 --copies 1 \
	--fetch-order random --seed 3 -o "$tmpdir/o-again"
cmp -s "$tmpdir/o-again/flows.csv" "$tmpdir/o-random-3/flows.csv" || fail "random: seed 3 does not repeat"

# a circuit's fetches waiting for copies go first either way: one copy,
# three outputs on rack 0 (an elephant pair: its circuit), two on rack 2
# (EPS); m3 takes the copy at once, the circuit's three fetches come up
# ahead of m4, which waits for all of them
printf 'racks 3\nhosts 3\ncontainers 1\nreplicas 1\nhost_rate 100Mbit\nuplink_rate 1Gbit\nocs yes\nocs_rate 400Mbit\ndelta 10ms\nt_e 2500000B\n' \
	>"$tmpdir/g.topo"
printf 'job id=g arrival=0s input=1MB shuffle=5000000B output=0B maps=5 reduces=1 map_time=0.5s reduce_time=0s map_racks=0,0,0,2,2 reduce_racks=1\n' \
	>"$tmpdir/g.wl"
for s in 1 2 3 4 5 6; do
	for f in fifo random; do
		expect_status 0 "$HYDE" sim -q -t "$tmpdir/g.topo" -w "$tmpdir/g.wl" --no-io --heartbeat 0 --copies 1 \
			--ocs-fetch copies --fetch-order $f --seed $s -o "$tmpdir/g-$f-$s"
		got=$(awk -F, '$13 == "shuffle" { print $6, $4 }' "$tmpdir/g-$f-$s/flows.csv" | sort -n | cut -d' ' -f2 | tr '\n' ' ')
		[ "$got" = "eps ocs ocs ocs eps " ] || fail "seed $s, $f, circuit's fetches in the copies: $got"
	done
done

# the main job, on a fabric with circuits, every check on
T="$HYDE_SRCDIR/topologies/rack8.topo"
W="$HYDE_SRCDIR/workloads/fb-small.wl"
for s in fair coscheduler; do
	for o in circuit copies; do
		HYDE_SIM_VERIFY=1
		export HYDE_SIM_VERIFY
		expect_status 0 "$HYDE" sim -q -t "$T" -w "$W" -s $s --fetch-order random --ocs-fetch $o -o "$tmpdir/r-$s-$o"
		unset HYDE_SIM_VERIFY
		expect_status 0 "$HYDE" sim -q -t "$T" -w "$W" -s $s --ocs-fetch $o -o "$tmpdir/f-$s-$o"
		for r in r f; do
			grep -o '"shuffle_bytes": [0-9]*' "$tmpdir/$r-$s-$o/summary.json" >"$tmpdir/$r.sb"
			awk -F, '$13 == "shuffle" { n++; b += $5 } END { print n, b }' "$tmpdir/$r-$s-$o/flows.csv" >"$tmpdir/$r.fl"
		done
		cmp -s "$tmpdir/r.sb" "$tmpdir/f.sb" ||
			fail "$s, ocs-fetch $o: shuffle bytes $(cat "$tmpdir/r.sb"), fifo $(cat "$tmpdir/f.sb")"
		[ "$(cut -d' ' -f2 "$tmpdir/r.fl")" = "$(cut -d' ' -f2 "$tmpdir/f.fl")" ] ||
			fail "$s, ocs-fetch $o: the fetches carry $(cat "$tmpdir/r.fl"), fifo's $(cat "$tmpdir/f.fl")"
		cmp -s "$tmpdir/r-$s-$o/flows.csv" "$tmpdir/f-$s-$o/flows.csv" &&
			fail "$s, ocs-fetch $o: random fetched as fifo did"
	done
done
expect_status 0 "$HYDE" sim -q -t "$T" -w "$W" -s fair --fetch-order fifo -o "$tmpdir/fifo"
for f in flows.csv coflows.csv jobs.csv; do
	cmp -s "$tmpdir/fifo/$f" "$tmpdir/f-fair-circuit/$f" || fail "fetch-order fifo: $f differs from the default's"
done

expect_status 2 "$HYDE" sim -q -t "$T" -w "$W" --fetch-order host -o "$tmpdir/bad"
contains "$err" "--fetch-order: expected fifo or random, got 'host'"
expect_status 2 "$HYDE" run -q -t "$T" -w "$W" --fetch-order 1 -o "$tmpdir/bad"
contains "$err" "--fetch-order: expected fifo or random, got '1'"
expect_status 2 "$HYDE" sim -q --replay "$tmpdir/fifo" --fetch-order random -o "$tmpdir/bad"
contains "$err" "--replay: --fetch-order"
[ -e "$tmpdir/bad" ] && fail "a refused run left $tmpdir/bad"
finish
