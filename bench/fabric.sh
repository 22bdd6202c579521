#!/bin/sh
# Benchmark of the emulated fabric (prints figures, never fails on time):
#  - time to bring rack8 (8 x 4) and rack16x8 up and down with hyde, the
#    median of a few runs, against the same namespaces, veths and HTB
#    built by an iproute2 shell script in the same run, and against the
#    Mininet 2.3 figures quoted in the issue (Linux bridges, TCLink);
#  - shaping accuracy: iperf3 goodput between the two hosts of a 1 x 2
#    topology whose host rate is 10 Mbit/s, 100 Mbit/s, 1 Gbit/s, 5 Gbit/s,
#    over wire-exact (rate x 1448/1514), in steady state (the server's own
#    1-second intervals 2-7 of an 8 s test).
# Needs root, iperf3. Usage: bench/fabric.sh [RUNS]   (from the build tree,
# or HYDE=path/to/hyde)
set -u
here=$(cd "$(dirname "$0")" && pwd)
HYDE=${HYDE:-$here/../hyde}
RUNS=${1:-5}
P=hydefabbench
[ "$(id -u)" = 0 ] || { echo "bench/fabric.sh: needs root" >&2; exit 2; }
tmp=$(mktemp -d /tmp/hydefabbench.XXXXXX)
trap '"$HYDE" clean --prefix $P >/dev/null 2>&1; "$HYDE" clean --prefix ${P}ip >/dev/null 2>&1; rm -rf "$tmp"' EXIT

ms() { date +%s%N; }
median() { sort -n | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# The same namespaces, veth pairs and HTB classes (no addresses, routes,
# bridge or sysctls: less than hyde builds) with one ip/tc per object.
ip_script() { # RACKS HOSTS -> a shell script on stdout
	R=$1 H=$2 Q=${P}ip
	echo "set -e"
	echo "ip netns add $Q-core; ip netns add $Q-ocs"
	k=0
	while [ $k -lt "$R" ]; do
		echo "ip netns add $Q-tor$k"
		echo "ip -n $Q-tor$k link add name up type veth peer name r$k netns $Q-core"
		echo "ip -n $Q-tor$k link add name ocs type veth peer name p$k netns $Q-ocs"
		for e in "tor$k up" "tor$k ocs" "core r$k" "ocs p$k"; do
			set -- $e
			echo "tc -n $Q-$1 qdisc add dev $2 root handle 1: htb default 1; tc -n $Q-$1 class add dev $2 parent 1: classid 1:1 htb rate 40mbit burst 64k"
		done
		i=0
		while [ $i -lt "$H" ]; do
			echo "ip netns add $Q-r${k}h$i"
			echo "ip -n $Q-tor$k link add name h$i type veth peer name eth0 netns $Q-r${k}h$i"
			for e in "tor$k h$i" "r${k}h$i eth0"; do
				set -- $e
				echo "tc -n $Q-$1 qdisc add dev $2 root handle 1: htb default 1; tc -n $Q-$1 class add dev $2 parent 1: classid 1:1 htb rate 100mbit burst 64k"
			done
			i=$((i + 1))
		done
		k=$((k + 1))
	done
}

updown() { # NAME TOPOLOGY RACKS HOSTS MININET_UP MININET_DOWN
	: >"$tmp/up"
	: >"$tmp/down"
	: >"$tmp/ipup"
	: >"$tmp/ipdown"
	ip_script "$3" "$4" >"$tmp/build.sh"
	r=0
	while [ $r -lt "$RUNS" ]; do
		# The kernel frees the namespaces of a fabric after 'down'
		# returns (cleanup_net); let it finish so that 'up' is timed
		# alone. The back-to-back figure below includes that work.
		sleep 2
		t0=$(ms)
		"$HYDE" topo up -t "$2" --prefix $P >/dev/null || exit 1
		t1=$(ms)
		"$HYDE" topo down --prefix $P >/dev/null || exit 1
		t2=$(ms)
		echo $(((t1 - t0) / 1000)) >>"$tmp/up"
		echo $(((t2 - t1) / 1000)) >>"$tmp/down"
		if [ $r -lt 2 ]; then # the shell reference is slow: two runs
			sleep 2
			t0=$(ms)
			sh "$tmp/build.sh" >/dev/null 2>&1 || echo "(iproute2 reference failed)" >&2
			t1=$(ms)
			for n in $(ip netns list | awk '{print $1}' | grep "^${P}ip-"); do ip netns del "$n"; done
			t2=$(ms)
			echo $(((t1 - t0) / 1000)) >>"$tmp/ipup"
			echo $(((t2 - t1) / 1000)) >>"$tmp/ipdown"
		fi
		r=$((r + 1))
	done
	sleep 2
	t0=$(ms)
	r=0
	while [ $r -lt "$RUNS" ]; do
		"$HYDE" topo up -t "$2" --prefix $P >/dev/null || exit 1
		"$HYDE" topo down --prefix $P >/dev/null || exit 1
		r=$((r + 1))
	done
	t1=$(ms)
	cycle=$(((t1 - t0) / 1000 / RUNS))
	up=$(median <"$tmp/up")
	down=$(median <"$tmp/down")
	ipup=$(median <"$tmp/ipup")
	ipdown=$(median <"$tmp/ipdown")
	awk -v n="$1" -v u="$up" -v d="$down" -v iu="$ipup" -v id="$ipdown" -v mu="$5" -v md="$6" -v runs="$RUNS" -v c="$cycle" 'BEGIN {
		printf "%-9s up    %7.3f s  (iproute2 script %6.3f s: x%5.1f; Mininet 2.3 quoted %5.1f s: x%5.1f)  median of %d\n", n, u / 1e6, iu / 1e6, iu / u, mu, mu * 1e6 / u, runs
		printf "%-9s down  %7.3f s  (iproute2 script %6.3f s: x%5.1f; Mininet 2.3 quoted %5.1f s: x%5.1f)\n", n, d / 1e6, id / 1e6, id / d, md, md * 1e6 / d
		printf "%-9s up+down back to back, with the kernel still freeing the last fabric: %.3f s a cycle (Mininet quoted: %.1f s: x%.1f)\n", n, c / 1e6, mu + md, (mu + md) * 1e6 / c
	}'
}

echo "== fabric up/down (wall time of the hyde command; namespaces are freed by the kernel after down returns)"
updown rack8 "$here/../topologies/rack8.topo" 8 4 3.7 1.5
updown rack16x8 "$here/rack16x8.topo" 16 8 13.2 4.8

echo "== shaping accuracy: iperf3 goodput r0h0 -> r0h1 / (rate x 1448/1514), median of 3 runs, seconds 2-7 of 8 as the server counts them"
for rate in 10Mbit 100Mbit 1Gbit 5Gbit; do
	printf 'name shape\nracks 1\nhosts 2\ncontainers 1\nreplicas 1\nhost_rate %s\nuplink_rate %s\nocs no\n' \
		"$rate" "$rate" >"$tmp/shape.topo"
	"$HYDE" topo up -t "$tmp/shape.topo" --prefix $P >/dev/null || exit 1
	bps=$(echo "$rate" | awk '{v = $1 + 0; if ($1 ~ /Gbit/) v *= 1e9; else v *= 1e6; printf "%.0f", v}')
	: >"$tmp/ratios"
	for r in 1 2 3; do
		ip netns exec $P-r0h1 iperf3 -s -1 -D -J -p 5501 >/dev/null 2>&1
		i=0
		while ! ip netns exec $P-r0h1 ss -Hltn "sport = :5501" | grep -q LISTEN && [ $i -lt 50 ]; do
			i=$((i + 1))
			sleep 0.1
		done
		ip netns exec $P-r0h0 iperf3 -c 10.0.0.2 -p 5501 -t 8 -J --get-server-output >"$tmp/iperf.json" 2>&1
		got=$(awk -F: -v from=2 -v to=7 -f "$here/../tests/iperf-steady.awk" "$tmp/iperf.json")
		awk -v g="${got:-0}" -v w="$bps" 'BEGIN { printf "%.4f\n", g / (w * 1448 / 1514) }' >>"$tmp/ratios"
	done
	printf '%-8s achieved/configured (wire-exact = 1): %s   runs: %s\n' "$rate" \
		"$(median <"$tmp/ratios")" "$(tr '\n' ' ' <"$tmp/ratios")"
	"$HYDE" topo down --prefix $P >/dev/null
done
echo "(Mininet 2.3 TCLink, quoted: 0.999 of wire-exact)"
