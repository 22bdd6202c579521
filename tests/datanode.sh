#!/bin/sh
# The DataNode role on real TCP: hosts a, b, c (a data service each) and d
# (none) joined by a bridge in namespace sw, the link to c shaped to
# 200 Mbit/s (so the pipeline's second hop is its bottleneck and the first
# DataNode must hold its client back), tcpdump on the bridge's ports a, b
# and c. Asserts, from dnclient's output, the services' logs and the
# captures: READs verified, a 3-replica pipelined WRITE (a's DataNode ->
# b -> c) verified with both forwarded connections reported in OK and seen
# on the links with the block as their payload, ERR for a wrong byte and an
# unreachable hop, bad peers answered and logged while the service goes on
# serving, idle and stalled peers closed. Nothing is asserted on elapsed
# time: the services that must not close a held peer get timeouts far
# beyond the test, and waits are bounded only to end a hung run.
. "${HYDE_SRCDIR}/tests/lib.sh"
require_root
for t in tcpdump tc timeout; do
	command -v $t >/dev/null 2>&1 || { echo "SKIP: needs $t" >&2; exit 77; }
done

DC="$HYDE_BUILDDIR/tests/dnclient"
P=$(test_prefix dn)
SW=$P-sw A=$P-a B=$P-b C=$P-c D=$P-d
SEED=7
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	for n in "$A" "$B" "$C" "$D" "$SW"; do
		# whatever this test left running in its namespaces keeps them alive
		for p in $(ip netns pids "$n" 2>/dev/null); do kill "$p" 2>/dev/null; done
		ip netns del "$n" 2>/dev/null
	done
	rm -rf "$tmpdir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# on NODE CMD...: run CMD in host NODE's namespace (in the foreground: in
# the background, $! would be a subshell's, not CMD's)
on() {
	_n=$1
	shift
	ip netns exec "$P-$_n" "$@"
}

# until_true WHAT CMD...: poll CMD (up to 60 s: a hung run, not a time limit)
until_true() {
	_what=$1
	shift
	_i=0
	until "$@"; do
		_i=$((_i + 1))
		[ $_i -lt 600 ] || { fail "never happened: $_what"; return 1; }
		sleep 0.1
	done
}

# ---- the fabric ----
ip netns add "$SW" || { fail "cannot create namespace $SW"; finish; }
ip -n "$SW" link add br0 type bridge && ip -n "$SW" link set br0 up &&
	ip -n "$SW" link set lo up || { fail "bridge"; finish; }
i=1
for h in a b c d; do
	ns=$P-$h
	{ ip netns add "$ns" &&
		ip -n "$ns" link add eth0 type veth peer name "p$h" netns "$SW" &&
		ip -n "$ns" addr add "10.0.0.$i/24" dev eth0 &&
		ip -n "$ns" link set lo up && ip -n "$ns" link set eth0 up &&
		ip -n "$SW" link set dev "p$h" master br0 up; } || { fail "host $h"; finish; }
	i=$((i + 1))
done
ip netns exec "$SW" tc qdisc add dev pc root tbf rate 200mbit burst 64kb latency 200ms ||
	{ fail "tbf on c"; finish; }

# ---- the services and the captures ----
# b must keep held peers open through the test; c closes them quickly.
ip netns exec "$P-a" "$HYDE" datanode --seed $SEED 2>"$tmpdir/dn-a.err" &
pids="$pids $!"
ip netns exec "$P-b" "$HYDE" datanode --seed $SEED --idle-timeout 30min --stall-timeout 30min 2>"$tmpdir/dn-b.err" &
pids="$pids $!"
ip netns exec "$P-c" "$HYDE" datanode --seed $SEED --idle-timeout 2s --stall-timeout 5s 2>"$tmpdir/dn-c.err" &
pids="$pids $!"
for l in a b c; do
	ip netns exec "$SW" tcpdump -i "p$l" -s 96 -U -w "$tmpdir/$l.pcap" 'tcp port 9866' \
		2>"$tmpdir/tcpdump-$l.err" &
	eval "tcpdump_$l=$!"
	pids="$pids $!"
done
listening() {
	for l in a b c; do grep -q "listening on" "$tmpdir/tcpdump-$l.err" || return 1; done
}
until_true "tcpdump listening" listening || finish
for ip in 10.0.0.1 10.0.0.2 10.0.0.3; do
	on a "$DC" wait $ip 9866 || { fail "no data service on $ip"; finish; }
done

# field N LINE: the Nth blank-separated field of LINE
field() { echo "$2" | awk -v n="$1" '{ print $n }'; }

# payload SRC DST PCAP: TCP payload bytes SRC -> DST (ip.port) in PCAP,
# from the SYN's sequence number to the highest seen (so a retransmitted
# byte counts once), -1 without a SYN.
payload() {
	tcpdump -nn -S -r "$3" 2>/dev/null | awk -v src="$1" -v dst="$2:" '
		$3 == src && $5 == dst && $6 == "Flags" && $8 == "seq" {
			s = $9; sub(/,$/, "", s)
			if ($7 ~ /S/) { isn = s + 0; syn = 1; next }
			if (split(s, r, ":") == 2) {
				d = r[2] - isn - 1
				if (d < 0) d += 4294967296
				if (d > max) max = d
			}
		}
		END { print syn ? max + 0 : -1 }'
}

# ---- READ ----
U1=$("$DC" uid input 3 4)
LEN=4000000
out=$(on a "$DC" read 10.0.0.3 9866 $SEED "$U1" 0 $LEN 4) || fail "READ of $LEN bytes: $out"
case "$out" in "OK 10.0.0.1 "*" 10.0.0.3 9866 "*" $LEN") ;; *) fail "READ result: $out" ;; esac
read_cli="10.0.0.1.$(field 3 "$out")"
out=$(on a "$DC" read 10.0.0.3 9866 $SEED "$U1" 1000003 3000000) ||
	fail "READ at an offset: $out"
out=$(on a "$DC" read 10.0.0.3 9866 $((SEED + 1)) "$U1" 0 1000) &&
	fail "READ with another seed verified: $out"
contains "$out" "FAIL EBADMSG" && contains "$out" "byte 0 of block $U1 is wrong"

# ---- 3-replica WRITE: a's DataNode -> b -> c, every byte checked ----
U2=$("$DC" uid output 3 1)
WLEN=8000000
out=$(on a "$DC" write 10.0.0.1 9866 $SEED "$U2" $WLEN 10.0.0.2,10.0.0.3) ||
	fail "pipelined WRITE: $out"
echo "$out"
[ "$(echo "$out" | head -1)" = "OK 2" ] || fail "expected OK 2 (two forwarded connections): $out"
own=$(echo "$out" | sed -n 2p)
hop1=$(echo "$out" | sed -n 3p)
hop2=$(echo "$out" | sed -n 4p)
[ "$(field 3 "$own") $(field 4 "$own") $(field 9 "$own")" = "10.0.0.1 9866 $WLEN" ] ||
	fail "the writer's own connection: $own"
[ "$(field 1 "$hop1") $(field 3 "$hop1") $(field 4 "$hop1") $(field 9 "$hop1")" = \
	"10.0.0.1 10.0.0.2 9866 $WLEN" ] || fail "first hop: $hop1"
[ "$(field 1 "$hop2") $(field 3 "$hop2") $(field 4 "$hop2") $(field 9 "$hop2")" = \
	"10.0.0.2 10.0.0.3 9866 $WLEN" ] || fail "second hop: $hop2"
# Each connection's times in order, and causality down the pipeline (one
# clock): a hop gets its first and last byte after the one before it.
echo "$out" | sed -n '2,4p' | awk '
	{ if (!($5 <= $6 && $6 <= $7 && $7 <= $8)) { print "times out of order: " $0; bad = 1 }
	  if (NR > 1 && ($7 < first || $8 < last)) { print "hop before its upstream: " $0; bad = 1 }
	  first = $7; last = $8 }
	END { exit bad }' || fail "hop times"

# The captures: each forwarded connection carries the block, after its
# request line, on the links of both its ends.
hdr1=$(($(printf 'WRITE %s %s 10.0.0.3\n' "$U2" $WLEN | wc -c)))
hdr2=$(($(printf 'WRITE %s %s\n' "$U2" $WLEN | wc -c)))

# ---- ERR: a wrong byte, an unreachable next hop; the service goes on ----
out=$(on a "$DC" flip 10.0.0.2 9866 $SEED "$U2" 20000000 5000000 10.0.0.3) &&
	fail "a WRITE with a wrong byte succeeded: $out"
contains "$out" "FAIL EREMOTEIO 10.0.0.2: byte 5000000 of block $U2 is wrong"
out=$(on a "$DC" write 10.0.0.2 9866 $SEED "$U2" 1000000 10.0.0.4) &&
	fail "a WRITE through a host without a data service succeeded: $out"
contains "$out" "FAIL EREMOTEIO 10.0.0.2 -> 10.0.0.4:9866: connect: Connection refused"
out=$(on a "$DC" write 10.0.0.2 9866 $SEED "$U2" 3000000 10.0.0.3) ||
	fail "a WRITE after the failed ones: $out"
contains "$out" "OK 1"

# ---- b, with three peers held open: good clients, bad peers, good again ----
raw() { # raw NAME INPUT ARGS...: a raw peer of b in the background, output in $tmpdir/NAME
	_name=$1 _in=$2
	shift 2
	printf '%s' "$_in" | ip netns exec "$A" timeout 3600 "$DC" raw 10.0.0.2 9866 "$@" \
		>"$tmpdir/$_name" 2>&1 &
	eval "raw_$_name=$!"
	pids="$pids $!"
}
sent() { grep -q sent "$tmpdir/$1"; }
raw idle "" hold
raw slowloris "READ 1" hold
raw slowreader "READ $U1 0 1000000000
" hold noread
for r in idle slowloris slowreader; do until_true "$r connected" sent $r; done

# b serves good clients while the held peers are still connected
out=$(on a "$DC" read 10.0.0.2 9866 $SEED "$U1" 0 $LEN) || fail "READ beside held peers: $out"
out=$(on a "$DC" write 10.0.0.2 9866 $SEED "$U2" 3000000 10.0.0.3) ||
	fail "WRITE beside held peers: $out"
out=$(on a "$DC" many 10.0.0.2 9866 $SEED 20 500000 10.0.0.3) ||
	fail "20 READs and 20 WRITEs at once: $out"
contains "$out" "40 of 40 transfers done"

# bad peers, then good clients again
for c in "unknown|GET 1 2 3:4
|ERR 10.0.0.2: malformed request: unknown request (expected READ or WRITE)" \
	"oversized len|READ 1 0 68719476737
|ERR 10.0.0.2: malformed request: len above 64 GiB" \
	"truncated line|READ 1 0|ERR 10.0.0.2: request cut short: no end of line" \
	"oversized line|$(head -c 600 /dev/zero | tr '\0' A)|ERR 10.0.0.2: request line longer than 511 bytes"; do
	name=${c%%|*}
	rest=${c#*|}
	want=${rest#*|}
	got=$(printf '%s' "${rest%%|*}" | on a timeout 60 "$DC" raw 10.0.0.2 9866)
	contains "$got" "$want" || fail "bad peer '$name' got: $got"
done
out=$(on a timeout 60 "$DC" cut 10.0.0.2 9866 $SEED "$U2" 100000 1234)
contains "$out" "ERR 10.0.0.2: the stream ended after 1234 of 100000 bytes"

out=$(on a "$DC" read 10.0.0.2 9866 $SEED "$U1" 0 $LEN) || fail "READ after the bad peers: $out"
out=$(on a "$DC" write 10.0.0.2 9866 $SEED "$U2" 3000000 10.0.0.3) ||
	fail "WRITE after the bad peers: $out"
for r in idle slowloris slowreader; do
	eval "kill -0 \$raw_$r" 2>/dev/null || fail "b closed the held peer '$r': $(cat "$tmpdir/$r")"
done
kill $raw_idle $raw_slowloris $raw_slowreader
wait $raw_idle $raw_slowloris $raw_slowreader 2>/dev/null

# ---- idle and stalled peers of c are closed ----
out=$(printf '' | on a timeout 120 "$DC" raw 10.0.0.3 9866 hold)
contains "$out" "ERR 10.0.0.3: no request line within 2000 ms"
out=$(printf 'READ 1' | on a timeout 120 "$DC" raw 10.0.0.3 9866 hold)
contains "$out" "ERR 10.0.0.3: no request line within 2000 ms"
printf 'READ %s 0 1000000000\n' "$U1" |
	ip netns exec "$A" timeout 120 "$DC" raw 10.0.0.3 9866 hold noread >/dev/null 2>&1 &
slow_c=$!
pids="$pids $slow_c"
stalled() { grep -q "READ of block $U1: no byte moved for 5000 ms" "$tmpdir/dn-c.err"; }
until_true "c closes a reader that reads nothing" stalled
kill $slow_c
out=$(on a "$DC" read 10.0.0.3 9866 $SEED "$U1" 0 1000) || fail "c after its timeouts: $out"

# ---- logs: one line per bad peer (or counted), nothing for good ones ----
# logged FILE: bad-peer lines, with those the rate limit counted
logged() {
	awk '/ more bad or failed connection/ { n += $3; next } /^hyde: datanode: / { n++ }
	     END { print n + 0 }' "$1"
}
# b: flip, refused hop, 4 bad lines, cut, and the slowloris and slow
# reader once killed (the idle one sent nothing: a probe)
count_b() { [ "$(logged "$tmpdir/dn-b.err")" -ge 9 ]; }
until_true "9 bad peers logged by b" count_b
[ "$(logged "$tmpdir/dn-b.err")" = 9 ] || fail "b logged: $(cat "$tmpdir/dn-b.err")"
# c: the stream b cut after the wrong byte, idle, slowloris, stalled reader
count_c() { [ "$(logged "$tmpdir/dn-c.err")" -ge 4 ]; }
until_true "4 bad peers logged by c" count_c
[ "$(logged "$tmpdir/dn-c.err")" = 4 ] || fail "c logged: $(cat "$tmpdir/dn-c.err")"
[ -s "$tmpdir/dn-a.err" ] && fail "a logged for good clients: $(cat "$tmpdir/dn-a.err")"
grep -q "10.0.0.1:[0-9]*: WRITE of block $U2: byte 5000000 is wrong" "$tmpdir/dn-b.err" ||
	fail "b did not log the wrong byte: $(cat "$tmpdir/dn-b.err")"

# ---- the captures ----
for l in a b c; do
	eval "kill -INT \$tcpdump_$l"
	eval "wait \$tcpdump_$l"
done
h1s="$(field 1 "$hop1").$(field 2 "$hop1")"
h1d="$(field 3 "$hop1").$(field 4 "$hop1")"
h2s="$(field 1 "$hop2").$(field 2 "$hop2")"
h2d="$(field 3 "$hop2").$(field 4 "$hop2")"
for l in a b; do
	got=$(payload "$h1s" "$h1d" "$tmpdir/$l.pcap")
	[ "$got" = $((WLEN + hdr1)) ] ||
		fail "hop $h1s -> $h1d on link $l: $got payload bytes, expected $WLEN + $hdr1"
done
for l in b c; do
	got=$(payload "$h2s" "$h2d" "$tmpdir/$l.pcap")
	[ "$got" = $((WLEN + hdr2)) ] ||
		fail "hop $h2s -> $h2d on link $l: $got payload bytes, expected $WLEN + $hdr2"
done
got=$(payload 10.0.0.3.9866 "$read_cli" "$tmpdir/c.pcap")
[ "$got" = $LEN ] || fail "READ $read_cli on link c: $got payload bytes, expected $LEN"
# the READ asked for TOS 4: every packet of its client says so
n4=$(tcpdump -nn -r "$tmpdir/a.pcap" "ip[1] = 4 and src host 10.0.0.1 and src port ${read_cli##*.} and dst host 10.0.0.3" 2>/dev/null | wc -l)
n0=$(tcpdump -nn -r "$tmpdir/a.pcap" "ip[1] != 4 and src host 10.0.0.1 and src port ${read_cli##*.} and dst host 10.0.0.3" 2>/dev/null | wc -l)
[ "$n4" -gt 0 ] && [ "$n0" = 0 ] || fail "TOS 4 on the READ's packets: $n4 with, $n0 without"
finish
