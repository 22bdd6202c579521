#!/bin/sh
# No ARP in the emulated fabric (root): every neighbour a node's routes
# lead to is a permanent entry, with the MAC the neighbour's interface
# really has, from the moment the fabric is up; traffic inside a rack,
# across racks and over the OCS then sends no ARP frame at all, and a
# host's ToR port carries that host's frames only (the bridges know every
# host's port from the start: no frame is flooded). Why it matters: the
# kernel's neighbour table is one for the whole machine, and past its
# bound hosts stop answering ARP (emul/README.md, Neighbours).
. "${HYDE_SRCDIR}/tests/lib.sh"
require_root
for p in tcpdump iperf3 ss jq; do
	command -v $p >/dev/null 2>&1 || { echo "SKIP: needs $p" >&2; exit 77; }
done

P=$(test_prefix neigh)
T="$HYDE_SRCDIR/topologies"
D="$HYDE_SRCDIR/tests/data"
cleanup() {
	"$HYDE" clean --prefix $P >/dev/null 2>&1
	rm -rf "$tmpdir"
}
trap cleanup EXIT

our_ns() { ip netns list 2>/dev/null | awk '{print $1}' | grep "^$P-" || true; }

left_behind() { # WHEN
	[ -z "$(our_ns)" ] || fail "$1: namespaces left: $(our_ns | tr '\n' ' ')"
	[ ! -e /run/hyde/$P ] || fail "$1: /run/hyde/$P left"
}

# ---- 1. rack8 up: the next hops of every route are permanent neighbours ----
expect_status 0 "$HYDE" topo up -t "$T/rack8.topo" --prefix $P
nss=$(our_ns)
[ "$(echo "$nss" | wc -l)" = 42 ] || fail "expected 42 namespaces, got $(echo "$nss" | wc -l)"

# Who has each address, as the kernel says (not as hyde's plan says):
# "ADDR MAC NS DEV" for every IPv4 address of the fabric.
for ns in $nss; do
	ip -n "$ns" -o -4 addr show | awk '$2 != "lo" { split($4, a, "/"); print a[1], $2 }' |
		while read -r a dev; do
			mac=$(ip -n "$ns" -o link show dev "$dev" | sed -n 's/.*link\/ether \([0-9a-f:]*\) .*/\1/p')
			echo "$a $mac $ns $dev"
		done
done >"$tmpdir/owners"
[ "$(wc -l <"$tmpdir/owners")" -ge 100 ] || fail "too few addresses found: $(wc -l <"$tmpdir/owners")"

# hyde topo show --json gives every interface's MAC, as the kernel has it
expect_status 0 "$HYDE" topo show --prefix $P --json
printf '%s\n' "$out" | jq -r '.nodes[] | .name as $n | .interfaces[] | "\($n) \(.name) \(.mac)"' >"$tmpdir/macs"
[ "$(wc -l <"$tmpdir/macs")" = 104 ] || fail "topo show: expected 104 interfaces, got $(wc -l <"$tmpdir/macs")"
while read -r node ifname mac; do
	have=$(ip -n "$P-$node" -o link show dev "$ifname" | sed -n 's/.*link\/ether \([0-9a-f:]*\) .*/\1/p')
	[ "$have" = "$mac" ] || fail "topo show: $node:$ifname has MAC $mac, the kernel says '$have'"
done <"$tmpdir/macs"

total=0
for ns in $nss; do
	# Where this node sends a packet for every other address of the
	# fabric, plain and with TOS 0x04 (the ToRs' reverse table): the
	# gateway, or the address itself if it is on-link. Unreachable ones
	# (another uplink's /30 from a ToR) answer nothing.
	awk -v ns="$ns" '$3 != ns { print "route get " $1; print "route get " $1 " tos 0x04" }' \
		"$tmpdir/owners" >"$tmpdir/batch"
	ip -n "$ns" -force -batch "$tmpdir/batch" 2>/dev/null |
		awk '/^[0-9]/ { hop = $1; dev = ""
			for (i = 2; i < NF; i++) { if ($i == "via") hop = $(i + 1); if ($i == "dev") dev = $(i + 1) }
			print hop, dev }' | sort -u >"$tmpdir/hops"
	# each with the MAC of the interface that has it
	awk 'NR == FNR { mac[$1] = $2; next } { print $1, $2, ($1 in mac) ? mac[$1] : "nobody" }' \
		"$tmpdir/owners" "$tmpdir/hops" >"$tmpdir/need"
	ip -n "$ns" neigh show nud permanent >"$tmpdir/perm"
	missing=$(awk 'NR == FNR { have[$1 " " $3 " " $5] = 1; next } !(($1 " " $2 " " $3) in have) { printf "%s dev %s lladdr %s; ", $1, $2, $3 }' \
		"$tmpdir/perm" "$tmpdir/need")
	[ -z "$missing" ] || fail "${ns#$P-}: no permanent neighbour for $missing(it has: $(tr '\n' ';' <"$tmpdir/perm"))"
	n=$(wc -l <"$tmpdir/need")
	case $ns in
	$P-ocs) [ "$n" = 0 ] || fail "ocs: the crossbar's node routes nowhere, yet: $(cat "$tmpdir/need")" ;;
	*) [ "$n" -gt 0 ] || fail "${ns#$P-}: no next hop found (routes: $(ip -n "$ns" route show table all | tr '\n' ';'))" ;;
	esac
	total=$((total + n))
done
echo "rack8: $total next hops in 42 namespaces checked"

# Traffic inside a rack and across racks (EPS): no neighbour is learnt,
# no ARP frame is sent.
for port in h0 h1 h2 up; do
	ip netns exec $P-tor0 tcpdump -Z root -i $port -n -w "$tmpdir/tor0-$port.pcap" 2>"$tmpdir/tcpdump-$port.err" &
	echo $! >"$tmpdir/tcpdump-$port.pid"
done
for port in h0 h1 h2 up; do
	i=0
	while ! grep -q "listening on $port" "$tmpdir/tcpdump-$port.err" && [ $i -lt 50 ]; do
		i=$((i + 1))
		sleep 0.1
	done
done
ip netns exec $P-r0h1 iperf3 -s -1 -D -p 5401 -I "$tmpdir/iperf1.pid"
ip netns exec $P-r1h0 iperf3 -s -1 -D -p 5402 -I "$tmpdir/iperf2.pid"
i=0
while ! { ip netns exec $P-r0h1 ss -Hltn "sport = :5401" | grep -q LISTEN &&
	ip netns exec $P-r1h0 ss -Hltn "sport = :5402" | grep -q LISTEN; } && [ $i -lt 50 ]; do
	i=$((i + 1))
	sleep 0.1
done
expect_status 0 ip netns exec $P-r0h0 iperf3 -c 10.0.0.2 -p 5401 -t 1 -J && contains "$out" '"sum_received"'
expect_status 0 ip netns exec $P-r0h0 iperf3 -c 10.0.1.1 -p 5402 -t 1 -J && contains "$out" '"sum_received"'
for port in h0 h1 h2 up; do
	kill -INT "$(cat "$tmpdir/tcpdump-$port.pid")"
	wait "$(cat "$tmpdir/tcpdump-$port.pid")"
done
frames=0
for port in h0 h1 h2 up; do
	f="$tmpdir/tor0-$port.pcap"
	tcpdump -nr "$f" >"$tmpdir/all.txt" 2>/dev/null || fail "tcpdump cannot read $f"
	frames=$((frames + $(wc -l <"$tmpdir/all.txt")))
	n=$(tcpdump -nr "$f" arp 2>/dev/null | wc -l)
	[ "$n" = 0 ] || fail "tor0:$port: $n ARP frame(s): $(tcpdump -nr "$f" arp 2>/dev/null | head -3)"
done
[ "$frames" -gt 100 ] || fail "iperf3's traffic not in the captures of tor0 ($frames frames)"
# r0h2 took no part: its port saw no frame (nothing flooded to it)
n=$(tcpdump -nr "$tmpdir/tor0-h2.pcap" 2>/dev/null | wc -l)
[ "$n" = 0 ] || fail "tor0:h2 saw $n frame(s) of others' traffic: $(tcpdump -nr "$tmpdir/tor0-h2.pcap" 2>/dev/null | head -3)"
for ns in $nss; do
	learnt=$(ip -n "$ns" neigh show | grep -v PERMANENT || true)
	[ -z "$learnt" ] || fail "${ns#$P-}: neighbours besides the permanent ones: $learnt"
done
expect_status 0 "$HYDE" topo down --prefix $P
left_behind "topo down"

# ---- 2. a run: inside a rack, across racks, over the OCS; no ARP ----
R="$tmpdir/run"
expect_status 0 "$HYDE" run -t "$D/run2x2io.topo" -w "$D/neigh.wl" -o "$R" --prefix $P -q
left_behind "the run"
awk -F, 'NR > 1 && $8 != 1 { bad = 1 } END { exit bad }' "$R/app/fetches.csv" ||
	fail "a flow not verified: $(cat "$R/app/fetches.csv")"
# the paths taken: one flow between two hosts of a rack, one across the
# racks over the EPS, one over the OCS at least
for path in rack eps ocs; do
	n=$(awk -F, -v p=$path 'NR > 1 && $13 == p && $7 != $10 && $14 > 0' "$R/manifest.csv" | wc -l)
	[ "$n" -gt 0 ] || fail "no $path flow between two hosts in the run: $(cut -d, -f7,10,13,14 "$R/manifest.csv" | tr '\n' ' ')"
done
frames=0
for f in "$R"/pcap/*.pcap; do
	port=$(basename "$f" .pcap)
	tcpdump -enr "$f" >"$tmpdir/all.txt" 2>/dev/null || fail "tcpdump cannot read $f"
	frames=$((frames + $(wc -l <"$tmpdir/all.txt")))
	n=$(grep -c "ethertype ARP" "$tmpdir/all.txt")
	[ "$n" = 0 ] || fail "$port: $n ARP frame(s): $(grep "ethertype ARP" "$tmpdir/all.txt" | head -3)"
	case $port in
	tor*-h*) ;;
	*) continue ;;
	esac
	# A host's port: its own frames only. Its MAC is the source of the
	# frames from its EPS address (emul/README.md: host i of rack k is
	# 10.0.k.(i+1)).
	k=${port#tor}
	k=${k%%-*}
	i=${port##*-h}
	me="10.0.$k.$((i + 1))"
	mac=$(awk -v me="$me" '$0 ~ ("IPv4.*: " me "\\.") { print $2; exit }' "$tmpdir/all.txt")
	[ -n "$mac" ] || { fail "$port: no frame from $me"; continue; }
	others=$(awk -v m="$mac" '$2 != m && $4 != m ","' "$tmpdir/all.txt" | wc -l)
	[ "$others" = 0 ] || fail "$port: $others frame(s) neither from nor to $me ($mac): $(awk -v m="$mac" '$2 != m && $4 != m ","' "$tmpdir/all.txt" | head -2)"
done
echo "run: $frames frames on $(ls "$R"/pcap/*.pcap | wc -l) ports checked"
[ "$frames" -gt 1000 ] || fail "the captures hold only $frames frames"

finish
