#!/bin/sh
# A capture that falls behind loses frames, and says how many: hyde
# capture on one end of a veth pair (two namespaces of this test's own),
# its ring at its smallest (a 1 Mbit/s port, a 1 ms window), is stopped
# (SIGSTOP: descheduled, as on a box with no CPU to spare) while 20,000
# pings cross the link, then resumed. Its counts (NODE.capstats) must
# account for every frame: captured in the file, or counted as dropped;
# and a capture that keeps up (same traffic, not stopped) drops none and
# has every frame in its file. Then a ring sized from the port's rate:
# the sizes capture_ring_bytes gives, seen in the counts.
. "${HYDE_SRCDIR}/tests/lib.sh"
require_root
command -v tshark >/dev/null 2>&1 || command -v tcpdump >/dev/null 2>&1 ||
	{ echo "SKIP: needs tcpdump or tshark (to count the file's frames)" >&2; exit 77; }

P=$(test_prefix cdrop)
A=$P-a
B=$P-b
cap=
cleanup() {
	if [ -n "$cap" ]; then
		kill -CONT "$cap" 2>/dev/null
		kill "$cap" 2>/dev/null
		wait "$cap" 2>/dev/null
	fi
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
	rm -rf "$tmpdir"
}
trap cleanup EXIT INT TERM

ip netns add "$A" && ip netns add "$B" || { fail "cannot create namespaces"; finish; }
ip -n "$A" link add h0 type veth peer name eth0 netns "$B"
ip -n "$A" addr add 10.9.0.1/24 dev h0
ip -n "$B" addr add 10.9.0.2/24 dev eth0
ip -n "$A" link set h0 up
ip -n "$B" link set eth0 up
ip -n "$A" link set lo up
ip -n "$B" link set lo up

# frames in a capture file
frames() {
	if command -v tshark >/dev/null 2>&1; then
		tshark -r "$1" -T fields -e frame.number 2>/dev/null | wc -l
	else
		tcpdump -r "$1" -n 2>/dev/null | wc -l
	fi
}

# capture DIR MODE PORT WINDOW: capture h0 (at the rate PORT says) while 20,000
# pings (40,000 frames) cross; MODE stop: the capture stopped meanwhile
capture() {
	dir=$1 mode=$2
	mkdir -p "$dir"
	ip netns exec "$A" "$HYDE" capture --dir "$dir" --node n --window "$4" "$3" \
		>"$dir/ready" 2>"$dir/err" &
	cap=$!
	i=0
	until grep -q ready "$dir/ready" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || { fail "hyde capture did not start: $(cat "$dir/err")"; return 1; }
		sleep 0.1
	done
	[ "$mode" = stop ] && kill -STOP "$cap"
	ip netns exec "$B" ping -q -f -c 20000 -s 200 10.9.0.1 >"$dir/ping" 2>&1 ||
		fail "ping: $(cat "$dir/ping")"
	[ "$mode" = stop ] && kill -CONT "$cap"
	kill "$cap"
	wait "$cap" || fail "hyde capture exited $?: $(cat "$dir/err")"
	cap=
	[ -f "$dir/n.capstats" ] || { fail "no $dir/n.capstats"; return 1; }
	# iface rate_bps ring_bytes received dropped ifdropped lost
	set -- $(sed -n 2p "$dir/n.capstats")
	ring=$3 recv=$4 drop=$(($5 + $7))
	got=$(frames "$dir/n-h0.pcap")
	echo "$mode: ring $ring received $recv dropped $drop in file $got" >&2
}

# a ring for 2 Gbit/s (28 MB: room for all 40,000 frames): nothing dropped,
# every frame in the file (those of the last block too)
capture "$tmpdir/kept" go h0@2Gbit 250ms
[ "$drop" = 0 ] || fail "a capture with room for every frame dropped $drop frames (ring $ring)"
[ "$got" -ge 40000 ] || fail "a capture with room for every frame has $got frames in its file, expected the 40000 that crossed"

capture "$tmpdir/behind" stop h0@1Mbit 1ms
[ "$ring" = 524288 ] || fail "a 1 Mbit/s port's ring is $ring bytes, expected the floor, 512 KB"
[ "$drop" -gt 0 ] || fail "a stopped capture with a 512 KB ring dropped nothing of 40000 frames (file: $got)"
[ $((got + drop)) -ge 40000 ] ||
	fail "frames lost silently: $got in the file + $drop counted as dropped < the 40000 that crossed"
contains "$(cat "$tmpdir/behind/err")" "dropped"

# rings follow the rate: 100 Mbit/s and 1 Gbit/s ports in one capture
mkdir -p "$tmpdir/rate"
ip -n "$A" link add h1 type veth peer name eth1 netns "$B"
ip -n "$A" link set h1 up
ip netns exec "$A" "$HYDE" capture --dir "$tmpdir/rate" --node n h0@100Mbit h1@1Gbit \
	>"$tmpdir/rate/ready" 2>"$tmpdir/rate/err" &
cap=$!
i=0
until grep -q ready "$tmpdir/rate/ready" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || { fail "hyde capture did not start: $(cat "$tmpdir/rate/err")"; break; }
	sleep 0.1
done
kill "$cap"
wait "$cap"
cap=
r100=$(awk '$1 == "h0" { print $3 }' "$tmpdir/rate/n.capstats")
r1g=$(awk '$1 == "h1" { print $3 }' "$tmpdir/rate/n.capstats")
# 2 directions x 1.5 frames per MTU x (128 + 96 bytes) x 250 ms, in whole
# pages: 100 Mbit/s 1.39 MB, 1 Gbit/s 13.9 MB
in_pages() { # RING MIN_BYTES
	[ -n "$1" ] && [ "$1" -ge "$2" ] && [ "$1" -le $(($2 + 8192)) ] && [ $(($1 % 4096)) = 0 ]
}
in_pages "$r100" 1387000 || fail "a 100 Mbit/s port's ring is '$r100' bytes, expected 1.39 MB in whole pages"
in_pages "$r1g" 13870000 || fail "a 1 Gbit/s port's ring is '$r1g' bytes, expected 13.9 MB in whole pages"

expect_status 2 "$HYDE" capture --dir "$tmpdir" --node n h0@fast
contains "$err" "IFACE@RATE"
finish
