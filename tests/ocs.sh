#!/bin/sh
# The OCS crossbar on a small real fabric (5 racks, one host each, OCS
# ports at 400 Mbit/s as rack8, host links at 1 Gbit/s so that the circuit
# is the bottleneck): a circuit carries TCP at bw_o; reconfiguring other
# ports does not disturb it (not-all-stop) while the changed ports stop for
# delta; a changed circuit resumes promptly and TCP loses no byte; without
# a circuit frames wait, then drop past the VOQ bound, and the counters say
# so; garbage on the control socket gets error replies.
#
# Timing is measured from packet captures on the ToRs' ocs ports (frames
# are stamped when the crossbar sends them) against the crossbar's own
# event times. The machine is shared: assertions that a busy neighbour
# could upset are made over several reconfigurations, and the rate test
# retries a low reading (never a high one).
. "${HYDE_SRCDIR}/tests/lib.sh"
. "${HYDE_SRCDIR}/tests/ocs_fixture.sh"
require_root
for t in iperf3 tcpdump; do
	command -v "$t" >/dev/null || {
		echo "SKIP: needs $t" >&2
		exit 77
	}
done

P=$(test_prefix ocs)
XFER="${HYDE_BUILDDIR:-.}/tests/ocs_xfer"
SOCK="$tmpdir/ocs.sock"
DELTA_MS=10
pids=""

cleanup() {
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	for p in $pids; do
		wait "$p" 2>/dev/null
	done
	ocs_fixture_down "$P"
	rm -rf "$tmpdir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

nsx() {
	_n=$1
	shift
	ip netns exec "$P-$_n" "$@"
}
# spawn NODE CMD...: CMD in NODE's namespace in the background, its PID in
# $spawned and $pids. The '&' must apply to ip itself (which execs CMD),
# not to a function call: that would background a subshell, and killing
# the subshell leaves CMD running.
spawn() {
	_n=$1
	shift
	ip netns exec "$P-$_n" "$@" &
	spawned=$!
	pids="$pids $spawned"
}
ocs() {
	"$HYDE" ocs "$@" --socket "$SOCK"
}
# wait_for FILE TEXT: until FILE holds TEXT (at most 5 s)
wait_for() {
	_i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		_i=$((_i + 1))
		[ "$_i" -le 100 ] || return 1
		sleep 0.05
	done
}
serve() {
	"$HYDE" ocs serve --netns "$P-ocs" --socket "$SOCK" --ports 5 --rate 400Mbit \
		--delta "${DELTA_MS}ms" "$@" 2>>"$tmpdir/serve.err" &
	dpid=$!
	pids="$pids $dpid"
	_i=0
	until ocs show >/dev/null 2>&1; do
		_i=$((_i + 1))
		if [ "$_i" -gt 100 ] || ! kill -0 "$dpid" 2>/dev/null; then
			fail "the crossbar did not start: $(cat "$tmpdir/serve.err")"
			finish
		fi
		sleep 0.05
	done
}
stop_daemon() {
	kill "$dpid" && wait "$dpid"
	_rc=$?
	[ "$_rc" = 0 ] || fail "the crossbar exited $_rc on SIGTERM"
	[ -e "$SOCK" ] && fail "the crossbar left its socket behind"
}
# capture NODE NAME: frames the OCS sends to NODE's ocs port, in NAME.pcap
capture() {
	spawn "$1" tcpdump -i ocs -Q in -s 96 -U -w "$tmpdir/$2.pcap" 2>"$tmpdir/$2.err"
	eval "cap_$2=$spawned"
	wait_for "$tmpdir/$2.err" "listening on" || fail "tcpdump in $1 did not start"
}
end_capture() {
	eval "_p=\$cap_$1"
	kill "$_p" && wait "$_p"
	tcpdump -r "$tmpdir/$1.pcap" -tt -n 2>/dev/null | awk '{print $1}' >"$tmpdir/$1.ts"
}
# Realtime (pcap clock) minus CLOCK_MONOTONIC (the crossbar's), in seconds.
clock_offset() {
	ocs raw time | awk '/^ok/ {split($2, m, "="); split($3, r, "="); printf "%.9f\n", (r[2] - m[2]) / 1e9}'
}
# The crossbar's events, times converted to the pcap clock: "up|down I J T"
# (kind src dst seconds-on-the-capture-clock daemon-ns: stalls are taken
# from the daemon's own nanoseconds, which rounding to microseconds could
# shorten by one)
events_real() {
	ocs events | awk -v off="$1" '$1 == "event" {printf "%s %s %s %.6f %s\n", $2, $3, $4, $5 / 1e9 + off, $5}'
}
# silent_after TS T: ms from T (a down) to the first frame after it. A frame
# sent just before T may be stamped after it (the capture stamps a frame
# when the receiving softirq runs, up to a millisecond later on a busy
# machine), so frames within 1 ms of T are taken as sent before it; a
# frame leaking through the stall anywhere after that is caught.
silent_after() {
	awk -v t="$2" '$1 > t + 0.001 {printf "%.3f\n", ($1 - t) * 1000; f = 1; exit}
		END {if (!f) print "none"}' "$1"
}
# max_free TS A B: the longest stretch of [A, B] without a frame, in ms
max_free() {
	awk -v a="$2" -v b="$3" 'BEGIN {p = a + 0; m = 0}
		$1 > a + 0 && $1 < b + 0 {if ($1 - p > m) m = $1 - p; p = $1}
		END {if (b - p > m) m = b - p; printf "%.3f\n", m * 1000}' "$1"
}
# ge A B / lt A B on decimals (awk, not sh)
ge() { awk -v a="$1" -v b="$2" 'BEGIN {exit !(a != "none" && a + 0 >= b + 0)}'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN {exit !(a != "none" && a + 0 < b + 0)}'; }
# Value of key=... on the line of `ocs stats` that starts with PREFIX.
stat() {
	grep "^$1 " "$tmpdir/stats" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

ocs_fixture_down "$P" # what an interrupted run may have left
ocs_fixture_up "$P" 5 400 1000 || {
	fail "could not build the fixture"
	finish
}
[ -x "$XFER" ] || {
	fail "$XFER not built (make check builds it)"
	finish
}
# The VOQs at 500 KB (the crossbar's default is 16 MB): UDP from r3 and
# r4 to r2 below waits in its VOQ while the other's circuit is up, and
# 16 MB would hold all of it and pour it out at each reconfiguration (2.5
# MB at 400 Mbit/s into the captures); what this part measures is the
# stall, not the VOQ's depth (part 4 is about the bound)
serve --voq 500KB --log "$tmpdir/events.log"

# ---- 1, 2: a circuit at bw_o; reconfiguring other ports leaves it alone --
# r0 <-> r1 carries iperf3 while r2 <-> r3 becomes r2 <-> r4 and back,
# three times; UDP from r3 and r4 to r2 shows port 2's stall.
want_kbit=$((400000 * 1448 / 1514)) # bw_o x 1448/1514, wire-exact TCP goodput
lo_kbit=$((want_kbit * 97 / 100))
hi_kbit=$((want_kbit * 103 / 100))
# A low rate or a busy-neighbour pause is retried (at most 5 attempts); a
# rate above bw_o or a frame inside a stall fails at once.
soft_ok=0
attempt=0
while [ "$soft_ok" = 0 ] && [ "$attempt" -lt 5 ] && [ "$failures" = 0 ]; do
	attempt=$((attempt + 1))
	expect_status 0 ocs set 0-1 2-3 && contains "$out" "stalled ports"
	sleep 0.05
	rm -f "$tmpdir"/tor1.* "$tmpdir"/tor2.*
	capture tor1 tor1
	capture tor2 tor2
	spawn r2h0 "$XFER" udprecv 9000 2000 15000 >/dev/null
	spawn r1h0 iperf3 -s -1 >/dev/null 2>&1
	sleep 0.3
	spawn r3h0 "$XFER" udp 10.16.2.1 9000 12000 1000 20 >/dev/null
	u3=$spawned
	spawn r4h0 "$XFER" udp 10.16.2.1 9000 12000 1000 20 >/dev/null
	u4=$spawned
	spawn r0h0 timeout 30 iperf3 -c 10.16.1.1 -t 5 -O 1 -f k >"$tmpdir/iperf.out" 2>&1
	ip=$spawned
	off=$(clock_offset)
	nev=$(ocs events | grep -c '^event')
	for conf in "0-1 2-4" "0-1 2-3" "0-1 2-4"; do
		sleep 1
		ocs set $conf >/dev/null || fail "set $conf"
	done
	wait "$ip" || fail "iperf3 over the circuit failed: $(cat "$tmpdir/iperf.out")"
	wait "$u3" "$u4"
	end_capture tor1
	end_capture tor2
	kbit=$(awk '/receiver/ {print $(NF - 2)}' "$tmpdir/iperf.out")
	echo "attempt $attempt: r0 -> r1 over the circuit: $kbit Kbit/s (want $want_kbit +-3%)"
	if [ -z "$kbit" ]; then
		fail "no iperf3 result: $(cat "$tmpdir/iperf.out")"
		break
	fi
	[ "$kbit" -gt "$hi_kbit" ] && fail "circuit faster than bw_o: $kbit Kbit/s > $hi_kbit"
	# Each reconfiguration: the crossbar's down/up of port 2's circuit
	# and the captures around it.
	events_real "$off" | tail -n +$((nev + 1)) >"$tmpdir/ev"
	quiet=0
	n=0
	measured=0
	while read -r kind src dst t tns; do
		[ "$kind" = down ] && [ "$dst" = 2 ] || continue
		# its up: the first "up ... 2" after this down
		tup=$(awk -v t="$tns" '$1 == "up" && $3 == 2 && $5 + 0 >= t + 0 {print $4, $5; exit}' "$tmpdir/ev")
		n=$((n + 1))
		if [ -z "$tup" ]; then
			fail "reconfiguration $n: port 2's new circuit never came up"
			continue
		fi
		tupns=${tup#* }
		tup=${tup% *}
		stall=$(awk -v a="$tns" -v b="$tupns" 'BEGIN {printf "%.6f\n", (b - a) / 1e6}')
		gap2=$(silent_after "$tmpdir/tor2.ts" "$t")
		free1=$(max_free "$tmpdir/tor1.ts" "$(awk -v t="$t" 'BEGIN {printf "%.6f", t - 0.001}')" \
			"$(awk -v t="$tup" 'BEGIN {printf "%.6f", t + 0.001}')")
		echo "  reconfiguration $n ($src>2 down): port 2 down->up ${stall}ms (daemon), port 2 silent ${gap2}ms (capture), r0->r1 longest silence ${free1}ms"
		ge "$stall" "$DELTA_MS" || fail "reconfiguration $n: port 2 up again after ${stall}ms < delta"
		lt "$free1" "$((DELTA_MS / 2))" && quiet=$((quiet + 1))
		# "none": r3's and r4's datagrams had all gone before this down
		# (a loaded box ran the sets late), so no frame came before delta
		# either, but nothing was measured: the attempt is retried
		[ "$gap2" = none ] && continue
		measured=$((measured + 1))
		# 0.02 ms: the two clocks are read a microsecond or so apart
		ge "$gap2" "$(awk -v d="$DELTA_MS" 'BEGIN {print d - 0.02}')" ||
			fail "reconfiguration $n: port 2 sent a frame ${gap2}ms after the down, before delta"
	done <"$tmpdir/ev"
	[ "$n" = 3 ] || fail "expected 3 reconfigurations of port 2 in the event log, found $n"
	# Not-all-stop: an all-stop crossbar silences r0 <-> r1 for delta every
	# time; a busy neighbour may delay a frame now and then.
	[ "$kbit" -ge "$lo_kbit" ] && [ "$quiet" -ge 2 ] && [ "$measured" -ge 2 ] && soft_ok=1
done
if [ "$soft_ok" = 0 ] && [ "$failures" = 0 ]; then
	[ "$kbit" -ge "$lo_kbit" ] || fail "r0 -> r1 reached $kbit Kbit/s, below $lo_kbit, in $attempt attempts"
	[ "$quiet" -ge 2 ] || fail "r0 -> r1 paused for delta/2 or more in $((n - quiet)) of $n reconfigurations of other ports"
	[ "$measured" -ge 2 ] || fail "port 2 carried frames after only $measured of $n reconfigurations in $attempt attempts"
fi
# Every event is in the log file too.
[ "$(wc -l <"$tmpdir/events.log")" = "$(ocs events | grep -c '^event')" ] ||
	fail "the event log file and 'events' disagree"

# ---- 3: reconfiguring r0's circuit: stall of delta, TCP resumes intact ----
# 40 MB from r1 to r0 over r1 -> r0 while r0's circuit moves to r2 and
# back twice; UDP from r2 to r0 waits in its VOQ meanwhile.
ocs set 0-1 2-3 >/dev/null
sleep 0.05
capture tor0 tor0
spawn r0h0 timeout 60 "$XFER" recv 7000 40000000 >"$tmpdir/recv.out" 2>&1
rp=$spawned
spawn r0h0 "$XFER" udprecv 9001 2000 15000 >/dev/null
wait_for "$tmpdir/recv.out" listening || fail "receiver did not start"
spawn r2h0 "$XFER" udp 10.16.0.1 9001 6000 1000 20 >/dev/null
spawn r1h0 timeout 60 "$XFER" send 10.16.0.1 7000 40000000 >"$tmpdir/send.out" 2>&1
sp=$spawned
off=$(clock_offset)
nev=$(ocs events | grep -c '^event')
sleep 0.2
for conf in "0-2 3-4" "0-1 2-3" "0-2 3-4" "0-1 2-3"; do
	ocs set $conf >/dev/null || fail "set $conf"
	sleep 0.15
done
wait "$sp" || fail "sender: $(cat "$tmpdir/send.out")"
wait "$rp" || fail "receiver: $(cat "$tmpdir/recv.out")"
contains "$(cat "$tmpdir/recv.out")" "received 40000000 bytes, all verified"
end_capture tor0
events_real "$off" | tail -n +$((nev + 1)) >"$tmpdir/ev"
n=0
for t in $(awk '$1 == "down" && $3 == 0 {print $4}' "$tmpdir/ev"); do
	n=$((n + 1))
	s=$(silent_after "$tmpdir/tor0.ts" "$t")
	if [ "$s" = none ]; then
		# the transfer ended before this down: no frame after it at
		# all, so none before delta either (seen on a loaded machine)
		echo "  r0's circuit, reconfiguration $n: no frame into r0 after the down (the transfer had ended)"
		continue
	fi
	echo "  r0's circuit, reconfiguration $n: first frame into r0 ${s}ms after the down"
	echo "$s" >>"$tmpdir/stalls"
	ge "$s" "$(awk -v d="$DELTA_MS" 'BEGIN {print d - 0.02}')" ||
		fail "r0's circuit, reconfiguration $n: a frame ${s}ms after the down, before delta"
done
[ "$n" = 4 ] || fail "expected 4 reconfigurations of r0's circuit, found $n"
med=$(sort -n "$tmpdir/stalls" | awk '{v[NR] = $1} END {print (v[int((NR + 1) / 2)] + v[int(NR / 2) + 1]) / 2}')
# The upper bounds here are timing figures of hyde as built for use: under
# AddressSanitizer the crossbar runs several times slower (CI saw a median
# of 12.09 ms there, one stall ending in a 500 ms TCP timeout), so a
# sanitizer build checks the lower bounds only (no frame inside a stall)
# and says so, as tests/run.sh does.
if [ "${HYDE_SANITIZERS:-no}" = yes ]; then
	echo "note: a sanitizer build: the median stall ${med}ms is not compared with delta + 2ms"
else
	lt "$med" "$((DELTA_MS + 2))" || fail "r0's circuit: median stall ${med}ms, more than delta + 2ms"
fi

# ---- 4: no circuit: nothing crosses, frames wait, drop past the bound -----
# A fresh crossbar with 100 KB VOQs and no circuit; 200 datagrams of 1000
# bytes (1042-byte frames) from r3 to r4: 95 fit the bound, 105 drop.
stop_daemon
serve --voq 100KB
capture tor4 tor4
spawn r4h0 "$XFER" udprecv 9004 1000 20000 >"$tmpdir/udp4.out"
up4=$spawned
pids="$pids $up4"
wait_for "$tmpdir/udp4.out" listening
nsx r3h0 "$XFER" udp 10.16.4.1 9004 200 1000 20 >/dev/null || fail "udp send"
sleep 0.3
ocs stats >"$tmpdir/stats" || fail "stats"
for kv in rx_frames=200 queued_frames=95 queued_bytes=98990 dropped_frames=105 dropped_bytes=109410 tx_frames=0; do
	[ "$(stat "port 3" "${kv%=*}")" = "${kv#*=}" ] ||
		fail "no circuit: port 3 ${kv%=*} = $(stat "port 3" "${kv%=*}"), expected ${kv#*=}"
done
[ "$(stat "port 4" tx_frames)" = 0 ] || fail "port 4 sent frames without a circuit"
[ "$(stat "voq 3 4" queued_frames)" = 95 ] || fail "VOQ 3 -> 4: $(grep '^voq' "$tmpdir/stats")"
sleep 0.2
[ "$(tcpdump -r "$tmpdir/tor4.pcap" -n 2>/dev/null | wc -l)" = 0 ] ||
	fail "frames reached r4 without a circuit"
# The circuit comes up: the 95 waiting frames go out, in order, and no more.
expect_status 0 ocs set '3>4'
wait "$up4"
contains "$(cat "$tmpdir/udp4.out")" "received 95 datagrams, numbers 0..94"
ocs stats >"$tmpdir/stats"
[ "$(stat "port 3" queued_frames)" = 0 ] || fail "frames still queued after the circuit came up"
[ "$(stat "port 4" tx_frames)" = 95 ] || fail "port 4 sent $(stat "port 4" tx_frames) frames, expected 95"
# drained, the VOQ still says how full it got
[ "$(stat "voq 3 4" peak_bytes)" = 98990 ] || fail "VOQ 3 -> 4 drained: $(grep '^voq' "$tmpdir/stats"), expected peak_bytes=98990"
end_capture tor4
[ "$(wc -l <"$tmpdir/tor4.ts")" = 95 ] || fail "r4's ToR saw $(wc -l <"$tmpdir/tor4.ts") frames, expected 95"
# Frames that arrive during a stall wait for it to end even when their VOQ
# is empty: datagrams sent right after a 'set' with a long delta are held
# in their VOQ, and reach r4 when the stall ends, not before. Long: under
# the sanitizers on a busy box, starting the sender took 360-520 ms after
# the set and a hyde command 100 ms more, so a 500 ms stall could be over
# before the VOQ was looked at (it then read 0, the frames gone through);
# there the stall is 1500 ms. What is judged is a look at the VOQ inside
# the stall and 50 ms after the send ended, on the crossbar's own clock
# (stats and time in one connection, answered one after the other); an
# attempt without one proves nothing and is made again, 3 at most.
if [ "${HYDE_SANITIZERS:-no}" = yes ]; then STALL_MS=1500; else STALL_MS=500; fi
stall_ns=$((STALL_MS * 1000000))
# snap: the crossbar's stats into $tmpdir/stats; prints its clock just after
snap() {
	printf 'stats\ntime\nquit\n' | timeout 10 "$XFER" ctl "$SOCK" >"$tmpdir/stats"
	sed -n 's/^ok mono=\([0-9]*\) .*/\1/p' "$tmpdir/stats"
}
# stall_try N: 0 judged (failures reported), 2 no look in time: again
stall_try() {
	expect_status 0 ocs set none
	capture tor4 tor4
	spawn r4h0 "$XFER" udprecv 9004 1000 20000 >"$tmpdir/udp4.out"
	up4=$spawned
	wait_for "$tmpdir/udp4.out" listening
	off=$(clock_offset)
	t_set=$(ocs raw set '3>4' | sed -n 's/^ok t=\([0-9]*\) .*/\1/p')
	nsx r3h0 "$XFER" udp 10.16.4.1 9004 5 1000 >/dev/null || fail "udp send"
	t_sent=$(snap)
	judged= queued=
	while [ -n "$t_sent" ]; do
		t_snap=$(snap)
		[ -n "$t_snap" ] || { fail "the crossbar did not answer stats"; break; }
		[ $((t_snap - t_set)) -lt $stall_ns ] || break
		queued=$(stat "voq 3 4" queued_frames)
		if [ "$queued" = 5 ] || [ $((t_snap - t_sent)) -ge 50000000 ]; then
			judged=yes
			break
		fi
		sleep 0.01
	done
	wait "$up4"
	contains "$(cat "$tmpdir/udp4.out")" "received 5 datagrams"
	end_capture tor4
	if [ -z "$judged" ]; then
		echo "  attempt $1: no look at the VOQ inside the ${STALL_MS}ms stall after the send ($(((t_sent - t_set) / 1000000))ms after the set)"
		return 2
	fi
	[ "$queued" = 5 ] || fail "5 datagrams sent $(((t_sent - t_set) / 1000000))ms into a ${STALL_MS}ms stall: VOQ 3 -> 4 holds ${queued:-0} $(((t_snap - t_set) / 1000000))ms into it"
	s=$(silent_after "$tmpdir/tor4.ts" "$(awk -v t="$t_set" -v o="$off" 'BEGIN {printf "%.6f", t / 1e9 + o}')")
	echo "  frames sent during a ${STALL_MS}ms stall reached r4 ${s}ms after the set"
	ge "$s" "$(awk -v m="$STALL_MS" 'BEGIN { print m - 0.02 }')" ||
		fail "frames crossed ${s}ms after set, inside the ${STALL_MS}ms stall"
	# (not under the sanitizers.) One frame's release, not a median as
	# for the stalls above: the crossbar's wake-up at the stall's end on a
	# busy two-core box is in it (502.18 ms once in a clean-clone check),
	# so 10 ms over, 2% of the stall: frames held on past it (to a later
	# reconfiguration, a retry) are still caught
	[ "${HYDE_SANITIZERS:-no}" = yes ] || lt "$s" $((STALL_MS + 10)) ||
		fail "frames waited ${s}ms for a ${STALL_MS}ms stall"
	return 0
}
expect_status 0 ocs raw delta "${STALL_MS}ms"
n=1
until stall_try $n; do
	[ $n -lt 3 ] || { fail "no look at the VOQ inside the stall in 3 attempts"; break; }
	n=$((n + 1))
done
expect_status 0 ocs raw delta "${DELTA_MS}ms"

# ---- 5: the control socket: bad input gets errors, the daemon lives on ----
printf 'frobnicate\nset 0-1 0-2\nset 0-9\nset 2-2\nshow extra\ndelta 5\nsh\000ow\n\n  \nset 1>2 3>2\nquit\nshow\n' |
	timeout 10 "$XFER" ctl "$SOCK" >"$tmpdir/ctl.out"
for want in "err unknown command 'frobnicate'" \
	"err '0-1' and '0-2' both leave port 0: not a matching" \
	"err '0-9': port 9 does not exist (ports 0..4)" \
	"err '2-2': a port cannot have a circuit to itself" \
	"err show takes no argument" "err delta: expected a time" \
	"err not a command: byte 0x00 at column 3" \
	"err '1>2' and '3>2' both enter port 2: not a matching" "ok bye"; do
	grep -qF "$want" "$tmpdir/ctl.out" || fail "control: no '$want' in: $(cat "$tmpdir/ctl.out")"
done
[ "$(wc -l <"$tmpdir/ctl.out")" = 9 ] || fail "control: expected 9 replies (blank lines get none, nothing after quit): $(cat "$tmpdir/ctl.out")"
# random bytes: only error replies; an overlong line: one error, then on
head -c 20000 /dev/urandom | timeout 10 "$XFER" ctl "$SOCK" >"$tmpdir/ctl.out"
grep -v '^err ' "$tmpdir/ctl.out" | grep -q . && fail "random bytes got a non-error reply: $(grep -v '^err ' "$tmpdir/ctl.out" | head -3)"
{
	head -c 10000 /dev/zero | tr '\0' a
	printf '\nshow\n'
} | timeout 10 "$XFER" ctl "$SOCK" >"$tmpdir/ctl.out"
contains "$(cat "$tmpdir/ctl.out")" "err line too long"
contains "$(cat "$tmpdir/ctl.out")" "ok ports=5"
# a partial line then disconnection changes nothing
printf 'set 0-1' | timeout 10 "$XFER" ctl "$SOCK" >"$tmpdir/ctl.out"
[ -s "$tmpdir/ctl.out" ] && fail "a partial line got a reply: $(cat "$tmpdir/ctl.out")"
expect_status 0 ocs show && contains "$out" "3>4"
# more clients than the daemon takes: the extra ones are refused, politely.
# Each holds its connection until the test closes the FIFO it reads (fd 8,
# which the clients do not inherit), so once the daemon has accepted 64
# (its end of each connection bears the socket's path: ss, in the root
# namespace where the daemon made the socket) it is full until then,
# however slowly the 70 started on a busy machine (a fixed second was not
# enough: CI's 'ocs show' was served).
mkfifo "$tmpdir/hold"
exec 8<>"$tmpdir/hold"
i=0
many=""
: >"$tmpdir/many"
while [ "$i" -lt 70 ]; do
	timeout 60 "$XFER" ctl "$SOCK" <"$tmpdir/hold" >>"$tmpdir/many" 2>>"$tmpdir/many.err" 8>&- &
	many="$many $!"
	i=$((i + 1))
done
pids="$pids $many"
i=0
while [ "$(ss -xH src "$SOCK" | wc -l)" -lt 64 ]; do
	i=$((i + 1))
	if [ "$i" -gt 600 ]; then
		fail "the crossbar accepted $(ss -xH src "$SOCK" | wc -l) of 70 clients in 30 s: $(head -3 "$tmpdir/many.err")"
		break
	fi
	sleep 0.05
done
expect_status 2 ocs show && contains "$err" "too many clients"
exec 8>&-
for p in $many; do
	wait "$p"
done
[ "$(grep -c 'err too many clients' "$tmpdir/many")" -ge 6 ] || fail "expected 6 refused clients: $(sort "$tmpdir/many" | uniq -c)"
expect_status 0 ocs show && contains "$out" "3>4"
# the command line refuses what is not a matching, with the reason
expect_status 2 ocs set 0-1 1-2 && contains "$err" "both leave port 1: not a matching"
expect_status 2 ocs set 0-7 && contains "$err" "port 7 does not exist"
expect_status 1 "$HYDE" ocs set 0-1 --socket "$tmpdir/none.sock" && contains "$err" "cannot reach the crossbar"
kill -0 "$dpid" || fail "the crossbar died"
stop_daemon

finish
