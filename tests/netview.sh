#!/bin/sh
# The network view on the emulated fabric (root): a scheduler plugin logs,
# every tick, what hyde_net_link says of tor0's uplink, tor1's downlink and
# r0h0's link over the view's last interval, while iperf3 fills tor0's
# uplink (tiny.topo: 20 Mbit/s) from r0h0 to r1h0. In every interval in
# which the uplink was busy, each of the three agrees within 5% with the
# bytes the run's own captures saw cross that link in that interval (the
# frames its sender put on it), and the uplink's utilisation is near 1.
# An interval's bounds are its samples' stamps, the middle of a read that
# dumps one ToR after the other: tor0's counters were read up to half the
# read's span before the stamp, tor1's up to half after (milliseconds; tens
# under the sanitizers, on a loaded box). So the captured bytes are also
# taken over the interval moved by 5 to 30 ms either way, and one of them
# must agree (a sender's burst at a bound, 100 Mbit/s against the uplink's
# 20, made 5.3% of one interval in CI when the stamp was taken after the
# read; frames cross in 64 KB bursts, a few ms apart at 20 Mbit/s).
. "${HYDE_SRCDIR}/tests/lib.sh"
require_root
for p in cc iperf3; do
	command -v "$p" >/dev/null 2>&1 || { echo "SKIP: needs $p" >&2; exit 77; }
done

P=$(test_prefix nv)
T="$HYDE_SRCDIR/topologies/tiny.topo"
SUM="$HYDE_BUILDDIR/tests/pcapsum"
R="$tmpdir/run"
ipid=
cleanup() {
	[ -n "$ipid" ] && kill "$ipid" 2>/dev/null
	"$HYDE" clean --prefix $P >/dev/null 2>&1
	rm -rf "$tmpdir"
}
trap cleanup EXIT

cc -std=c11 -Wall -Werror -shared -fPIC -I"$HYDE_SRCDIR/include" -o "$tmpdir/netlog.so" \
	"$HYDE_SRCDIR/tests/plugin_netlog.c" || { fail "cannot build the plugin"; finish; }
# one map that works 12 s: the run lasts that long, its network is iperf3's
printf 'job id=hold arrival=0s input=1KB shuffle=0B output=0B maps=1 reduces=0 map_time=12s\n' \
	>"$tmpdir/hold.wl"
"$HYDE" run -t "$T" -w "$tmpdir/hold.wl" -s "$tmpdir/netlog.so" -o "$R" --prefix $P -q \
	--no-analyze 2>"$tmpdir/run.err" &
rpid=$!
i=0
until [ -e "/run/hyde/$P/ready" ] || [ $i -ge 300 ]; do
	i=$((i + 1))
	sleep 0.1
done
# the senders of the three links: tor0 on its uplink, the core towards
# tor1, r0h0 towards tor0
mac() { ip -n "$P-$1" -o link show dev "$2" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p'; }
m_up0=$(mac tor0 up)
m_down1=$(mac core r1)
m_host0=$(mac r0h0 eth0)
[ -n "$m_up0" ] && [ -n "$m_down1" ] && [ -n "$m_host0" ] || fail "no MACs: '$m_up0' '$m_down1' '$m_host0'"
ip netns exec $P-r1h0 iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
ipid=$!
sleep 0.5
ip netns exec $P-r0h0 iperf3 -c 10.0.1.1 -p 5201 -t 8 >/dev/null 2>&1 || fail "iperf3 across the racks failed"
wait $rpid || fail "the run failed: $(cat "$tmpdir/run.err")"

grep ' sched netlog: view ' "$R/events.log" | awk '{ print $5, $6, $7, $8, $9, $10 }' >"$tmpdir/views"
[ -s "$tmpdir/views" ] || { fail "the plugin logged no view: $(tail -3 "$R/events.log")"; finish; }
busy=0
while read -r from to b_up util b_down b_host; do
	secs=$(awk -v a="$from" -v b="$to" 'BEGIN { print (b - a) / 1e9 }')
	# busy: at least half the uplink's 20 Mbit/s
	awk -v b="$b_up" -v s="$secs" 'BEGIN { exit !(b * 8 >= 0.5 * 20e6 * s) }' || continue
	busy=$((busy + 1))
	for l in "up0 tor0-up $m_up0 $b_up" "down1 tor1-up $m_down1 $b_down" "host0 tor0-h0 $m_host0 $b_host"; do
		set -- $l
		caps= ok=
		for lag in 0 5 -5 10 -10 15 -15 20 -20 25 -25 30 -30; do
			f=$((from - lag * 1000000)) t=$((to - lag * 1000000))
			cap=$("$SUM" --from "$f" --to "$t" --src-mac "$3" "$R/pcap/$2.pcap" | awk '{ print $3 }')
			caps="$caps ${lag}ms:$cap"
			if awk -v v="$4" -v c="$cap" 'BEGIN { exit !(c > 0 && v >= 0.95 * c && v <= 1.05 * c) }'; then
				ok=yes
				break
			fi
		done
		[ -n "$ok" ] || fail "$1 in [$from, $to): the view says $4 bytes, the capture (moved earlier by)$caps"
	done
	awk -v u="$util" 'BEGIN { exit !(u > 0.5 && u <= 1.05) }' ||
		fail "uplink utilisation $util in a busy interval"
	echo "[$from, $to): view $b_up bytes (util $util), capture $cap on the host port"
done <"$tmpdir/views"
[ "$busy" -ge 4 ] || fail "only $busy busy interval(s) in the view: $(cat "$tmpdir/views")"
finish
