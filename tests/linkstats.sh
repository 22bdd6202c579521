#!/bin/sh
# The network view (emul/linkstats.h, hyde topo stats) against packet
# captures, on rack8: three TCP transfers run at once -- across racks over
# the EPS (r0h0 -> r1h0), inside a rack through the ToR's bridge (r2h1 ->
# r2h2) and across racks over an OCS circuit (r3h0 -> r4h0) -- while
# tcpdump captures, one direction each, the ToR interfaces they cross.
# Over the capture window, each loaded link's counter delta (bytes and
# packets) must match its capture within 5%, and every other link must
# stay idle (at most a few ARP broadcasts the bridges flood). Then, with
# tor0's uplink saturated, `hyde topo stats --interval` must report its
# utilisation in (0.5, 1.05]. Also: usage errors, SIGINT, a missing
# interface. Rates are never asserted beyond those bounds (the CPU is
# shared); nothing depends on how long anything takes.
. "${HYDE_SRCDIR}/tests/lib.sh"
require_root
for p in iperf3 tcpdump ss jq setpriv; do
	command -v "$p" >/dev/null 2>&1 || { echo "SKIP: needs $p" >&2; exit 77; }
done

P=$(test_prefix lst)
PCAPSUM="${HYDE_BUILDDIR:-.}/tests/pcapsum"
SECS=4 # per transfer
pids=""

cleanup() {
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	for p in $pids; do
		wait "$p" 2>/dev/null
	done
	for f in "$tmpdir"/iperf-*.pid; do
		[ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	"$HYDE" clean --prefix $P >/dev/null 2>&1
	rm -rf "$tmpdir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# spawn NS CMD...: CMD in namespace P-NS in the background; its PID (ip
# execs CMD) in $spawned and $pids.
spawn() {
	_n=$1
	shift
	ip netns exec "$P-$_n" "$@" &
	spawned=$!
	pids="$pids $spawned"
}
forget() { # PID: reaped, no longer ours to kill
	_np=""
	for _p in $pids; do
		[ "$_p" = "$1" ] || _np="$_np $_p"
	done
	pids=$_np
}
wait_for() { # FILE TEXT: until FILE holds TEXT (at most 10 s)
	_i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		_i=$((_i + 1))
		[ "$_i" -le 200 ] || return 1
		sleep 0.05
	done
}
server() { # NODE PORT: one iperf3 test, then it exits
	ip netns exec "$P-$1" iperf3 -s -1 -D -p "$2" -I "$tmpdir/iperf-$1.pid" >/dev/null 2>&1 ||
		fail "iperf3 server in $1"
	_i=0
	while ! ip netns exec "$P-$1" ss -Hltn "sport = :$2" | grep -q LISTEN; do
		_i=$((_i + 1))
		[ $_i -lt 100 ] || { fail "iperf3 server in $1 not listening"; return 1; }
		sleep 0.05
	done
}
# stats FILE: one reading as "LINK BYTES PACKETS" lines (from --json)
stats() {
	"$HYDE" topo stats --prefix $P --json >"$1.json" 2>"$tmpdir/stats.err" ||
		fail "hyde topo stats: $(cat "$tmpdir/stats.err")"
	jq -r '.links[] | "\(.link) \(.bytes) \(.packets)"' "$1.json" >"$1"
}
# within GOT WANT: |GOT - WANT| <= 5% of WANT
within() {
	awk -v g="$1" -v w="$2" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w > 0 && d <= 0.05 * w) }'
}

# ---- usage: refused before anything is read ----
expect_status 0 "$HYDE" topo stats --help && contains "$out" "--interval TIME"
expect_status 2 "$HYDE" topo stats --prefix $P --interval 5ms && contains "$err" "at least 10ms"
expect_status 2 "$HYDE" topo stats --prefix $P --count 0 && contains "$err" "--count '0'"
expect_status 2 "$HYDE" topo stats --prefix other && contains "$err" "prefix 'other'"
expect_status 2 "$HYDE" topo stats --prefix $P extra && contains "$err" "unexpected argument 'extra'"
expect_status 2 setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$HYDE" topo stats --prefix $P && contains "$err" "needs root"
expect_status 1 "$HYDE" topo stats --prefix $P && contains "$err" "no fabric with prefix '$P'"

expect_status 0 "$HYDE" topo up -t "$HYDE_SRCDIR/topologies/rack8.topo" --prefix $P || finish

# A fabric at rest: every link, every counter 0, and the text form.
expect_status 0 "$HYDE" topo stats --prefix $P &&
	contains "$out" "fabric $P: 8 racks x 4 hosts" &&
	contains "$out" "tor0->core       tor0:up tx     40Mbit                0           0" &&
	contains "$out" "r7h3->tor7       tor7:h3 rx     100Mbit"
stats "$tmpdir/rest"
[ "$(wc -l <"$tmpdir/rest")" = 96 ] || fail "expected 96 links (8 x 4 x 2 + 8 x 4), got $(wc -l <"$tmpdir/rest")"
busy=$(awk '$2 != 0 || $3 != 0' "$tmpdir/rest")
[ -z "$busy" ] || fail "a fabric at rest has links that carried something: $busy"

# ---- three transfers, every link they cross captured ----
"$HYDE" ocs serve --prefix $P --ports 8 --rate 400Mbit --delta 10ms --no-rt \
	2>"$tmpdir/ocs.err" &
ocs_pid=$!
pids="$pids $ocs_pid"
_i=0
until "$HYDE" ocs show --prefix $P >/dev/null 2>&1; do
	_i=$((_i + 1))
	if [ $_i -gt 200 ] || ! kill -0 $ocs_pid 2>/dev/null; then
		fail "the crossbar did not start: $(cat "$tmpdir/ocs.err")"
		finish
	fi
	sleep 0.05
done
expect_status 0 "$HYDE" ocs set 3-4 --prefix $P
# The circuit comes up delta later; wait for it (no timing asserted).
_i=0
until "$HYDE" ocs show --prefix $P | grep -q "3-4 *up"; do
	_i=$((_i + 1))
	[ $_i -lt 200 ] || { fail "circuit 3-4 never came up"; break; }
	sleep 0.05
done

server r1h0 5401
server r2h2 5402
server r4h0 5403

# LINK TOR IFACE DIRECTION: what each loaded link's capture is.
cat >"$tmpdir/loaded" <<EOF
r0h0->tor0 tor0 h0 in
tor0->r0h0 tor0 h0 out
tor0->core tor0 up out
core->tor0 tor0 up in
core->tor1 tor1 up in
tor1->core tor1 up out
tor1->r1h0 tor1 h0 out
r1h0->tor1 tor1 h0 in
r2h1->tor2 tor2 h1 in
tor2->r2h1 tor2 h1 out
tor2->r2h2 tor2 h2 out
r2h2->tor2 tor2 h2 in
r3h0->tor3 tor3 h0 in
tor3->r3h0 tor3 h0 out
tor3->ocs tor3 ocs out
ocs->tor3 tor3 ocs in
ocs->tor4 tor4 ocs in
tor4->ocs tor4 ocs out
tor4->r4h0 tor4 h0 out
r4h0->tor4 tor4 h0 in
EOF
n=0
while read -r link tor ifc dir; do
	n=$((n + 1))
	# Snaplen 96: a pcap record keeps the frame's original length.
	# Immediate mode: else a frame waits in the ring's block for up to
	# a second, and one that came just before SIGINT is never written
	# (a lone ARP probe near the window's end went missing so).
	spawn "$tor" tcpdump -i "$ifc" -Q "$dir" -s 96 -B 8192 -n -Z root --immediate-mode \
		-w "$tmpdir/cap$n.pcap" 2>"$tmpdir/cap$n.err"
	echo "$n $spawned $link" >>"$tmpdir/caps"
done <"$tmpdir/loaded"
while read -r n pid link; do
	wait_for "$tmpdir/cap$n.err" "listening on" || fail "tcpdump for $link did not start"
done <"$tmpdir/caps"

stats "$tmpdir/before"
ip netns exec $P-r0h0 iperf3 -c 10.0.1.1 -p 5401 -t $SECS >"$tmpdir/c1" 2>&1 &
c1=$!
ip netns exec $P-r2h1 iperf3 -c 10.0.2.3 -p 5402 -t $SECS >"$tmpdir/c2" 2>&1 &
c2=$!
ip netns exec $P-r3h0 iperf3 -c 10.16.4.1 -p 5403 -t $SECS >"$tmpdir/c3" 2>&1 &
c3=$!
pids="$pids $c1 $c2 $c3"
for c in $c1 $c2 $c3; do
	wait $c || fail "iperf3 client $c failed: $(tail -3 "$tmpdir/c1" "$tmpdir/c2" "$tmpdir/c3")"
	forget $c
done
# The last FIN and ACKs cross after the clients exit.
sleep 1
stats "$tmpdir/after"
while read -r n pid link; do
	kill -INT "$pid"
	wait "$pid"
	forget "$pid"
done <"$tmpdir/caps"

# Counter deltas over the window, per link: "LINK BYTES PACKETS".
awk 'NR == FNR { b[$1] = $2; p[$1] = $3; next } { print $1, $2 - b[$1], $3 - p[$1] }' \
	"$tmpdir/before" "$tmpdir/after" >"$tmpdir/delta"

while read -r n pid link; do
	dropped=$(sed -n 's/^\([0-9]*\) packets\{0,1\} dropped by kernel.*/\1/p' "$tmpdir/cap$n.err")
	[ "$dropped" = 0 ] || fail "$link: the capture dropped '${dropped:-?}' packets: the comparison is void"
	set -- $("$PCAPSUM" "$tmpdir/cap$n.pcap")
	cpk=$2 cby=$3
	set -- $(grep "^$link " "$tmpdir/delta")
	dby=${2:-0} dpk=${3:-0}
	echo "$link: counters $dby bytes $dpk packets, capture $cby bytes $cpk packets"
	# Loaded: every link here carries a transfer's data or its ACKs.
	[ "$cby" -ge 20000 ] || fail "$link: only $cby bytes captured: not loaded"
	within "$dby" "$cby" || fail "$link: counters say $dby bytes, the capture $cby (more than 5% apart)"
	within "$dpk" "$cpk" || fail "$link: counters say $dpk packets, the capture $cpk (more than 5% apart)"
done <"$tmpdir/caps"

# Idle: every link not crossed. A host's ARP request for its gateway or a
# neighbour is broadcast, and the bridge floods it to the rack's other
# hosts: a few 42-byte frames; nothing else.
awk 'NR == FNR { loaded[$1] = 1; next } !($1 in loaded)' "$tmpdir/loaded" "$tmpdir/delta" >"$tmpdir/idle"
[ "$(wc -l <"$tmpdir/idle")" = 76 ] || fail "expected 76 idle links, got $(wc -l <"$tmpdir/idle")"
awk '$2 > 1024 || $3 > 16 { print "FAIL: idle link " $1 " carried " $2 " bytes, " $3 " packets"; bad = 1 }
	END { exit bad }' "$tmpdir/idle" >&2 || failures=$((failures + 1))
echo "idle links: at most $(sort -k2 -n "$tmpdir/idle" | tail -1 | cut -d' ' -f2) bytes; carried something: $(awk '$2 > 0 { printf "%s(%d) ", $1, $2 }' "$tmpdir/idle")"

# ---- utilisation of a saturated uplink ----
# Two streams from r0h0 (host link 100 Mbit/s) into tor0's 40 Mbit/s
# uplink: a queue forms at the uplink, which sends at its rate.
server r1h0 5404
ip netns exec $P-r0h0 iperf3 -c 10.0.1.1 -p 5404 -P 2 -t 6 >"$tmpdir/c4" 2>&1 &
c4=$!
pids="$pids $c4"
# Past slow start. Then two 1-second reports.
sleep 2
"$HYDE" topo stats --prefix $P --interval 1s --count 2 --json >"$tmpdir/util.json" 2>"$tmpdir/util.err" ||
	fail "hyde topo stats --interval: $(cat "$tmpdir/util.err")"
wait $c4 || fail "iperf3 client for the saturated uplink failed: $(tail -3 "$tmpdir/c4")"
forget $c4
[ "$(wc -l <"$tmpdir/util.json")" = 2 ] || fail "expected 2 reports, got $(wc -l <"$tmpdir/util.json")"
jq -r '.links[] | select(.link == "tor0->core" or .link == "core->tor1") | "\(.link) \(.util) \(.interval_ns)"' \
	"$tmpdir/util.json" >"$tmpdir/util"
[ "$(wc -l <"$tmpdir/util")" = 4 ] || fail "expected 4 utilisation figures, got: $(cat "$tmpdir/util")"
while read -r link u ns; do
	echo "$link: utilisation $u over $ns ns"
	awk -v u="$u" 'BEGIN { exit !(u > 0.5 && u <= 1.05) }' ||
		fail "$link saturated: utilisation $u, expected in (0.5, 1.05]"
done <"$tmpdir/util"
# An idle link in the same reports reads 0.
idle_u=$(jq -r '.links[] | select(.link == "tor5->core") | .util' "$tmpdir/util.json" | sort -u)
[ "$idle_u" = 0 ] || fail "tor5->core, idle, reads utilisation '$idle_u'"

# ---- SIGINT ends a report loop cleanly ----
"$HYDE" topo stats --prefix $P --interval 100ms --active >"$tmpdir/loop" 2>&1 &
loop=$!
pids="$pids $loop"
sleep 0.5
kill -INT $loop
# A loop that ignores SIGINT (a background job of a script inherits it
# ignored) would hang the suite: after a minute it is a failure.
_i=0
while kill -0 $loop 2>/dev/null && [ $_i -lt 600 ] &&
	[ "$(ps -o stat= -p $loop | cut -c1)" != Z ]; do
	_i=$((_i + 1))
	sleep 0.1
done
[ $_i -lt 600 ] || { fail "hyde topo stats --interval ignored SIGINT"; kill -TERM $loop; }
wait $loop
rc=$?
forget $loop
[ "$rc" = 0 ] || fail "hyde topo stats --interval exited $rc on SIGINT: $(cat "$tmpdir/loop")"

# ---- a fabric that lost an interface: said, not misread ----
ip -n $P-tor5 link del h3
expect_status 1 "$HYDE" topo stats --prefix $P && contains "$err" "tor5: no interface h3"

finish
