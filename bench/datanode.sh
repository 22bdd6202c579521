#!/bin/sh
# Throughput of the DataNode data service (hyde datanode) against the
# shuffle service (hyde shuffled) on one unshaped veth pair between two
# namespaces, the same client for both (bench/dn_get: one request, a
# blocking loop, every byte checked): shuffle GET, datanode READ, datanode
# WRITE (no pipeline), and READ through the dn_read state machine
# (tests/dnclient, if built). Prints the median of RUNS runs of BYTES each
# and each figure as a ratio to the shuffle's; never fails on time.
# Needs root. Usage: bench/datanode.sh [BYTES [RUNS]]   (from the build tree)
set -u
here=$(cd "$(dirname "$0")" && pwd)
HYDE=${HYDE:-$here/../hyde}
GET=${GET:-$here/dn_get}
DC=${DC:-$here/../tests/dnclient}
BYTES=${1:-1000000000}
RUNS=${2:-5}
P=hydednbench
S=$P-s C=$P-c
[ "$(id -u)" = 0 ] || { echo "bench/datanode.sh: needs root" >&2; exit 2; }
[ -x "$GET" ] || { echo "bench/datanode.sh: build $GET first (make bench-datanode)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/hydednbench.XXXXXX)
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	ip netns del "$S" 2>/dev/null
	ip netns del "$C" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ip netns add "$S" && ip netns add "$C" || exit 1
ip -n "$C" link add eth0 type veth peer name eth0 netns "$S"
ip -n "$S" addr add 10.0.0.1/24 dev eth0
ip -n "$C" addr add 10.0.0.2/24 dev eth0
for n in "$S" "$C"; do ip -n "$n" link set lo up; ip -n "$n" link set eth0 up; done

ip netns exec "$S" "$HYDE" shuffled --reg "$tmp/reg.sock" --seed 1 2>"$tmp/shuffled.err" &
pids="$pids $!"
ip netns exec "$S" "$HYDE" datanode --seed 1 2>"$tmp/datanode.err" &
pids="$pids $!"
i=0
until [ -S "$tmp/reg.sock" ] && ip netns exec "$C" "$DC" wait 10.0.0.1 9866 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "bench/datanode.sh: services did not start" >&2; exit 1; }
	sleep 0.1
done
"$HYDE" task map --reg "$tmp/reg.sock" --job 1 --map 0 --ns 0 || exit 1

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# one KIND: seconds of one transfer of BYTES
one() {
	case $1 in
	shuffle) ip netns exec "$C" "$GET" shuffle 10.0.0.1 13562 1 1 0 "$BYTES" | awk '{ print $2 }' ;;
	read) ip netns exec "$C" "$GET" read 10.0.0.1 9866 1 7 "$BYTES" | awk '{ print $2 }' ;;
	write) ip netns exec "$C" "$GET" write 10.0.0.1 9866 1 7 "$BYTES" | awk '{ print $2 }' ;;
	dn_read) ip netns exec "$C" "$DC" read 10.0.0.1 9866 1 7 0 "$BYTES" |
		awk '$1 == "OK" { printf "%.6f\n", ($9 - $6) / 1e9 }' ;;
	esac
}
kinds="shuffle read write"
[ -x "$DC" ] && kinds="$kinds dn_read"
r=0
while [ $r -lt "$RUNS" ]; do # interleaved, so that load drifts hit every kind alike
	for k in $kinds; do
		t=$(one $k)
		[ -n "$t" ] || { echo "bench/datanode.sh: $k failed" >&2; exit 1; }
		echo "$t" >>"$tmp/$k.t"
	done
	r=$((r + 1))
done
base=$(median <"$tmp/shuffle.t")
printf 'one veth pair, unshaped, %s bytes per transfer, median of %s runs (2 cores, shared)\n' "$BYTES" "$RUNS"
printf '%-44s %10s %10s\n' "transfer" "Gbit/s" "vs shuffle"
for k in $kinds; do
	m=$(median <"$tmp/$k.t")
	case $k in
	shuffle) what="shuffle GET (hyde shuffled)" ;;
	read) what="datanode READ" ;;
	write) what="datanode WRITE, no pipeline" ;;
	dn_read) what="datanode READ, dn_read state machine client" ;;
	esac
	awk -v w="$what" -v b="$BYTES" -v t="$m" -v base="$base" \
		'BEGIN { printf "%-44s %10.2f %10.2f\n", w, b * 8 / t / 1e9, base / t }'
done
