#!/bin/sh
# NAS's Alg. 1 on the emulated fabric (root): reduce requests go to CR-RTS
# while the requesting rack's NetState (its EPS uplink or downlink over the
# network view's last interval) is at or over 0.8, to CA-RTS otherwise.
# tiny.topo (20 Mbit/s uplinks); three shuffle-light jobs whose reduces are
# asked for between 4 and 9 s. With iperf3 filling r0h0 -> r1h0 (tor0's
# uplink and tor1's downlink: both racks congested) for 11 s, CR-RTS places
# reduces; the same run without iperf3 places them all by CA-RTS. The
# controller counts the loaded run's congested rack intervals
# (app/paper_metrics.json), more than the idle run's.
. "${HYDE_SRCDIR}/tests/lib.sh"
require_root
command -v iperf3 >/dev/null 2>&1 || { echo "SKIP: needs iperf3" >&2; exit 77; }

P=$(test_prefix nasns)
T="$HYDE_SRCDIR/topologies/tiny.topo"
ipid=
cleanup() {
	[ -n "$ipid" ] && kill "$ipid" 2>/dev/null
	"$HYDE" clean --prefix $P >/dev/null 2>&1
	rm -rf "$tmpdir"
}
trap cleanup EXIT

# hold: one map working 15 s keeps the fabric up while iperf3 runs
cat >"$tmpdir/light.wl" <<WL
job id=hold user=u0 arrival=0s input=1KB shuffle=0B output=0B maps=1 reduces=0 map_time=15s
job id=a user=u1 arrival=4s input=2MB shuffle=200KB output=10KB maps=2 reduces=2 map_time=1s reduce_time=500ms
job id=b user=u2 arrival=5s input=2MB shuffle=200KB output=10KB maps=2 reduces=2 map_time=1s reduce_time=500ms
job id=c user=u3 arrival=6s input=2MB shuffle=200KB output=10KB maps=2 reduces=2 map_time=1s reduce_time=500ms
WL

# counted RUN KEY: the number after KEY= in nas's log line
counted() {
	grep "sched nas: " "$tmpdir/$1/events.log" | tail -1 | tr ' ,' '\n\n' |
		awk -F= -v k="$2" '$1 == k { print $2 }'
}

# the loaded run: iperf3 from the moment the fabric is up
"$HYDE" run -t "$T" -w "$tmpdir/light.wl" -s nas -o "$tmpdir/load" --prefix $P -q \
	--no-analyze 2>"$tmpdir/run.err" &
rpid=$!
i=0
until [ -e "/run/hyde/$P/ready" ] || [ $i -ge 300 ]; do
	i=$((i + 1))
	sleep 0.1
done
ip netns exec $P-r1h0 iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
ipid=$!
sleep 0.5
ip netns exec $P-r0h0 iperf3 -c 10.0.1.1 -p 5201 -t 11 >/dev/null 2>&1 || fail "iperf3 across the racks failed"
wait $rpid || fail "the loaded run failed: $(cat "$tmpdir/run.err")"
ipid=
cr=$(counted load cr-rts)
ca=$(counted load ca-rts)
echo "loaded: ca-rts=$ca cr-rts=$cr"
[ -n "$cr" ] && [ "$cr" -gt 0 ] || fail "loaded: no reduce went to CR-RTS (ca-rts=$ca cr-rts=$cr)"
[ "$((cr + ca))" = 6 ] || fail "loaded: CA-RTS and CR-RTS placed $((cr + ca)) of 6 reduces"
# the controller's count of congested rack intervals (app/paper_metrics.json)
events() { grep -o '"rack_congestion_events": [0-9]*' "$tmpdir/$1/app/paper_metrics.json" | awk '{ print $2 }'; }
ev=$(events load)
[ -n "$ev" ] && [ "$ev" -ge 2 ] || fail "loaded: $ev rack congestion occurrences, expected both racks at least once"

# the same without load
expect_status 0 "$HYDE" run -t "$T" -w "$tmpdir/light.wl" -s nas -o "$tmpdir/idle" --prefix $P -q \
	--no-analyze
[ "$(counted idle ca-rts)" = 6 ] && [ "$(counted idle cr-rts)" = 0 ] ||
	fail "idle: ca-rts=$(counted idle ca-rts) cr-rts=$(counted idle cr-rts), expected 6 and 0"
[ "$(events idle)" -lt "$ev" ] || fail "idle: $(events idle) rack congestion occurrences, loaded $ev"
finish
