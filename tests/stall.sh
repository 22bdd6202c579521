#!/bin/sh
# An emulated run in which nothing moves fails, saying what was in flight,
# instead of waiting for ever (root). A reduce fetching 60 MB (5 s on
# tiny's 100 Mbit/s host links; in the other rack than its map, over the
# circuit: in the same rack it could land on the map's host and fetch over
# loopback, done before it is stopped) is stopped (SIGSTOP, by its PID: this
# run's own task) once its fetch has begun: no byte moves, no task ends,
# and with -B stall=3s the run fails 3 s later, naming the fetch and its
# bytes left, its processes gone (the stopped one too) and its fabric
# removed. The same run left alone ends well with that limit, and so does
# a wait longer than it for the next job's arrival. A bad limit is
# refused.
. "${HYDE_SRCDIR}/tests/lib.sh"
require_root

P=$(test_prefix tstall)
T="$HYDE_SRCDIR/topologies/tiny.topo"
rpid=
cleanup() {
	[ -n "$rpid" ] && kill -CONT "$rpid" 2>/dev/null
	"$HYDE" clean --prefix $P >/dev/null 2>&1
	rm -rf "$tmpdir"
}
trap cleanup EXIT
"$HYDE" clean --prefix $P >/dev/null 2>&1

printf 'job id=s arrival=0s input=1MB shuffle=60MB output=0B maps=1 reduces=1 map_time=200ms reduce_time=100ms map_racks=0 reduce_racks=1\n' \
	>"$tmpdir/s.wl"

expect_status 2 "$HYDE" run -t "$T" -w "$tmpdir/s.wl" -B stall=soon -o "$tmpdir/bad" --prefix $P -q &&
	contains "$err" "stall"

# left alone, it ends well with the limit, a later job's arrival 4 s
# after it (a cluster with nothing to do is not stalled)
cp "$tmpdir/s.wl" "$tmpdir/ok.wl"
printf 'job id=t arrival=10s input=1MB shuffle=1MB output=0B maps=1 reduces=1 map_time=200ms reduce_time=100ms\n' \
	>>"$tmpdir/ok.wl"
expect_status 0 "$HYDE" run -t "$T" -w "$tmpdir/ok.wl" -B stall=3s -o "$tmpdir/ok" --prefix $P -q

"$HYDE" run -t "$T" -w "$tmpdir/s.wl" -B stall=3s -o "$tmpdir/run" --prefix $P -q \
	>"$tmpdir/run.out" 2>&1 &
pid=$!
# the reduce, once the manifest has its fetch (the fetch under way)
i=0
while [ $i -lt 600 ] && kill -0 $pid 2>/dev/null; do
	rpid=$(pgrep -f "hyde task reduce --ctl /run/hyde/$P/ctl.sock" | head -n 1)
	[ -n "$rpid" ] && grep -q ',shuffle' "$tmpdir/run/manifest.csv" 2>/dev/null && break
	rpid=
	sleep 0.05
	i=$((i + 1))
done
[ -n "$rpid" ] || { fail "no reduce fetching: $(cat "$tmpdir/run.out")"; finish; }
kill -STOP "$rpid"
# it must end by itself, 3 s on (a minute here: the box may be busy)
i=0
while [ $i -lt 600 ] && kill -0 $pid 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
if kill -0 $pid 2>/dev/null; then
	kill $pid
	fail "a run with its reduce stopped was still waiting a minute later"
fi
wait $pid
st=$?
[ "$st" != 0 ] || fail "a run with its reduce stopped ended well"
grep -q "stalled at .*nothing moved for 3s" "$tmpdir/run.out" ||
	fail "no stall said: $(cat "$tmpdir/run.out")"
grep -q "flow(s) moving: s/shuffle/r0/m0@r0h[01] ([0-9]* of 60000000 bytes left)" "$tmpdir/run.out" ||
	fail "the fetch in flight is not named: $(grep stalled "$tmpdir/run.out")"
kill -0 "$rpid" 2>/dev/null && fail "the stopped reduce ($rpid) outlived its run"
rpid=
[ "$(ip netns list | grep -c "^$P-")" = 0 ] || fail "the stalled run left namespaces"
finish
