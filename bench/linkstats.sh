#!/bin/sh
# The cost of reading the network view (emul/linkstats.h): one sample of
# every link's counters, on rack8 (8 x 4, 96 links) and rack16x8 (16 x 8,
# 320 links), idle and with both cores busy; against libnl's link cache
# and against a shell sampler that runs 'ip -s link' in each ToR. Prints
# figures, never fails on time.
# Needs root. Usage: bench/linkstats.sh [SAMPLES]   (from the build tree,
# or HYDE=path/to/hyde BENCH=path/to/bench/linkstats_bench)
set -u
here=$(cd "$(dirname "$0")" && pwd)
HYDE=${HYDE:-$here/../hyde}
BENCH=${BENCH:-$here/linkstats_bench}
N=${1:-2000}
P=hydelsbench
[ "$(id -u)" = 0 ] || { echo "bench/linkstats.sh: needs root" >&2; exit 2; }
spin=""
trap 'for p in $spin; do kill $p; done; "$HYDE" clean --prefix $P >/dev/null 2>&1' EXIT

busy() {
	sh -c 'while :; do :; done' &
	spin="$!"
	sh -c 'while :; do :; done' &
	spin="$spin $!"
}
idle() {
	for p in $spin; do kill $p; wait $p 2>/dev/null; done
	spin=""
}

# ip -s link in every ToR, as a shell script would sample: ms per sample.
ip_sampler() { # RACKS
	t0=$(date +%s%N)
	r=0
	while [ $r -lt 10 ]; do
		k=0
		while [ $k -lt "$1" ]; do
			ip -n $P-tor$k -s link show >/dev/null 2>&1
			k=$((k + 1))
		done
		r=$((r + 1))
	done
	t1=$(date +%s%N)
	awk -v d=$((t1 - t0)) 'BEGIN { printf "  %-26s %.1f ms per sample (10 samples)\n", "ip -s link in each ToR", d / 10 / 1e6 }'
}

for t in "$here/../topologies/rack8.topo:8" "$here/rack16x8.topo:16"; do
	topo=${t%:*}
	racks=${t##*:}
	"$HYDE" topo up -t "$topo" --prefix $P >/dev/null || exit 1
	echo "== idle machine"
	"$BENCH" $P "$N" || exit 1
	ip_sampler "$racks"
	echo "== both cores busy (two spinning shells)"
	busy
	"$BENCH" $P "$N" | tail -n +2
	ip_sampler "$racks"
	idle
	"$HYDE" topo down --prefix $P >/dev/null
	echo
done
