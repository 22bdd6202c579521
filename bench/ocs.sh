#!/bin/sh
# The OCS crossbar's figures (issue #4), printed as tables, never pass/fail:
#   1. throughput of one circuit (iperf3, links unshaped) against kernel
#      forwarding measured in the same run: the same path with a kernel
#      bridge in place of the crossbar, and a plain router namespace;
#   2. rate exactness at bw_o: TCP goodput over bw_o x 1448/1514, with the
#      crossbar pacing (default) and with the ports' HTB (--no-pacing);
#   3. delta accuracy: stall minus delta over 1000 reconfigurations at
#      delta = 10ms, 1ms, 100us (p50, p99, max), from the crossbar's own
#      event times and from a capture of the frames, while another circuit
#      carries TCP at bw_o;
#   4. CPU of the crossbar at rack8's full OCS load (8 ports at 400 Mbit/s).
# Run as root from a built tree: sudo bench/ocs.sh  (about 4 minutes).
# HYDE, HYDE_SRCDIR, HYDE_BUILDDIR may point elsewhere.
set -u
HYDE_SRCDIR=${HYDE_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
HYDE_BUILDDIR=${HYDE_BUILDDIR:-$(pwd)}
HYDE=${HYDE:-$HYDE_BUILDDIR/hyde}
. "$HYDE_SRCDIR/tests/ocs_fixture.sh"

if [ "$(id -u)" != 0 ]; then
	echo "bench/ocs.sh: run as root (it builds namespaces)" >&2
	exit 2
fi
for t in iperf3 tcpdump; do
	command -v "$t" >/dev/null || {
		echo "bench/ocs.sh: needs $t" >&2
		exit 2
	}
done
make -s -C "$HYDE_BUILDDIR" hyde tests/ocs_xfer bench/ocs_flip >/dev/null || exit 1
XFER=$HYDE_BUILDDIR/tests/ocs_xfer
FLIP=$HYDE_BUILDDIR/bench/ocs_flip

P=hydeocs
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hyde-ocs-bench.XXXXXX")
SOCK=$tmp/ocs.sock
pids=""
dpid=""
cleanup() {
	for p in $pids $dpid; do
		kill "$p" 2>/dev/null
	done
	for p in $pids $dpid; do
		wait "$p" 2>/dev/null
	done
	ocs_fixture_down "$P"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

nsx() {
	_n=$1
	shift
	ip netns exec "$P-$_n" "$@"
}
# spawn NODE CMD...: CMD in NODE's namespace in the background, its PID in
# $spawned and $pids ('&' on ip itself, which execs CMD: a backgrounded
# function call would be a subshell, and killing it would leave CMD).
spawn() {
	_n=$1
	shift
	ip netns exec "$P-$_n" "$@" &
	spawned=$!
	pids="$pids $spawned"
}
ocs() { "$HYDE" ocs "$@" --socket "$SOCK"; }
serve() { # PORTS ARGS...
	_n=$1
	shift
	"$HYDE" ocs serve --netns "$P-ocs" --socket "$SOCK" --ports "$_n" "$@" 2>>"$tmp/serve.err" &
	dpid=$!
	_i=0
	until ocs show >/dev/null 2>&1; do
		_i=$((_i + 1))
		[ "$_i" -le 100 ] && kill -0 "$dpid" 2>/dev/null || {
			echo "the crossbar did not start: $(cat "$tmp/serve.err")" >&2
			exit 1
		}
		sleep 0.05
	done
}
unserve() {
	kill "$dpid" && wait "$dpid"
	dpid=""
}
fixture() { # RACKS OCS_MBIT HOST_MBIT
	ocs_fixture_down "$P"
	ocs_fixture_up "$P" "$@" || {
		echo "could not build the fixture" >&2
		exit 1
	}
}
# cpu_ticks PID: user + system time so far, in clock ticks
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
HZ=$(getconf CLK_TCK)
# iperf NS ADDR SECONDS: receiver goodput in Mbit/s (first second omitted)
iperf() {
	nsx "$1" timeout $(($3 + 20)) iperf3 -c "$2" -t "$3" -O 1 -f m 2>/dev/null |
		awk '/receiver/ {print $(NF - 2)}'
}
median3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
# steal: "steal:total" jiffies of all CPUs so far (/proc/stat)
steal() { awk '/^cpu / {t = 0; for (i = 2; i <= NF; i++) t += $i; print $9 ":" t}' /proc/stat; }
# steal_pct S0 S1: the share of CPU time the hypervisor took between two samples
steal_pct() { echo "$1 $2" | awk '{split($1, a, ":"); split($2, b, ":"); t = b[2] - a[2]; printf "%.0f%%", t ? (b[1] - a[1]) / t * 100 : 0}'; }
# pct FILE P: the P-th percentile of a column of numbers
pct() { sort -n "$1" | awk -v p="$2" '{v[NR] = $1} END {i = int(NR * p / 100 + 0.999); if (i < 1) i = 1; print v[i]}'; }

echo "OCS crossbar benchmark: $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# ---- 1. throughput of one circuit against kernel forwarding ----------------
fixture 2 0 0
ip netns add "$P-ka" && ip netns add "$P-kr" && ip netns add "$P-kb"
for n in ka kr kb; do
	nsx "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip -n "$P-$n" link set lo up
done
ip link add eth0 netns "$P-ka" type veth peer name a netns "$P-kr"
ip link add eth0 netns "$P-kb" type veth peer name b netns "$P-kr"
nsx kr sysctl -qw net.ipv4.ip_forward=1
for l in "ka eth0 10.99.1.1/24" "kb eth0 10.99.2.1/24" "kr a 10.99.1.254/24" "kr b 10.99.2.254/24"; do
	set -- $l
	ip -n "$P-$1" addr add "$3" dev "$2" && ip -n "$P-$1" link set dev "$2" up
done
ip -n "$P-ka" route add default via 10.99.1.254
ip -n "$P-kb" route add default via 10.99.2.254
spawn r1h0 iperf3 -s >/dev/null 2>&1
spawn kb iperf3 -s >/dev/null 2>&1
sleep 0.5
xs="" bs="" rs="" ns="" cpus=""
st0=$(steal)
for rep in 1 2 3; do
	serve 2 --rate 100Gbit --delta 10ms --voq 4MB
	ocs set 0-1 >/dev/null
	sleep 0.05
	c0=$(cpu_ticks "$dpid")
	x=$(iperf r0h0 10.16.1.1 5)
	c1=$(cpu_ticks "$dpid")
	cpus="$cpus $(awk -v a="$c0" -v b="$c1" -v hz="$HZ" 'BEGIN {printf "%.0f", (b - a) / hz / 5 * 100}')"
	unserve
	serve 2 --rate 100Gbit --delta 10ms --voq 4MB --no-pacing
	ocs set 0-1 >/dev/null
	sleep 0.05
	n=$(iperf r0h0 10.16.1.1 5)
	unserve
	ip -n "$P-ocs" link add br0 type bridge
	ip -n "$P-ocs" link set p0 master br0
	ip -n "$P-ocs" link set p1 master br0
	ip -n "$P-ocs" link set br0 up
	sleep 0.2
	b=$(iperf r0h0 10.16.1.1 5)
	ip -n "$P-ocs" link del br0
	r=$(iperf ka 10.99.2.1 5)
	xs="$xs ${x:-0}" ns="$ns ${n:-0}" bs="$bs ${b:-0}" rs="$rs ${r:-0}"
done
x=$(median3 $xs) n=$(median3 $ns) b=$(median3 $bs) r=$(median3 $rs)
echo "1. One circuit, iperf3 1 stream, links unshaped, median of 3 runs of 5 s (steal $(steal_pct "$st0" "$(steal)"))"
printf '   %-58s %8s %10s %10s\n' path Gbit/s "/ bridge" "/ router"
row() { printf '   %-58s %8.2f %10.2f %10.2f\n' "$1" "$(awk -v v="$2" 'BEGIN {print v / 1000}')" \
	"$(awk -v v="$2" -v w="$b" 'BEGIN {print v / w}')" "$(awk -v v="$2" -v w="$r" 'BEGIN {print v / w}')"; }
row "host-ToR-crossbar-ToR-host (paced at 100Gbit, $(median3 $cpus)% CPU)" "$x"
row "host-ToR-crossbar-ToR-host (--no-pacing, through qdiscs)" "$n"
row "host-ToR-kernel bridge-ToR-host (same path, kernel)" "$b"
row "host-router-host (three namespaces, kernel)" "$r"
echo "   runs (Mbit/s): crossbar$xs; no-pacing$ns; bridge$bs; router$rs"
echo

# ---- 2. rate exactness at bw_o ------------------------------------------------
st0=$(steal)
echo "2. Rate exactness: TCP goodput / (bw_o x 1448/1514), iperf3 1 stream, 5 s"
printf '   %-9s %-40s %-40s\n' bw_o "crossbar pacing (ToR HTB in front)" "port HTB, --no-pacing (ToR HTB in front)"
for mbit in 400 2000; do
	fixture 2 "$mbit" 0
	spawn r1h0 iperf3 -s >/dev/null 2>&1
	srv=$spawned
	sleep 0.3
	want=$(awk -v m="$mbit" 'BEGIN {print m * 1448 / 1514}')
	line=""
	for mode in "" --no-pacing; do
		serve 2 --rate "${mbit}Mbit" --delta 10ms $mode
		ocs set 0-1 >/dev/null
		sleep 0.05
		g=$(iperf r0h0 10.16.1.1 5)
		unserve
		line="$line $(awk -v g="${g:-0}" -v w="$want" 'BEGIN {printf "%.4f (%.1f Mbit/s)", g / w, g}')"
	done
	kill "$srv"
	wait "$srv" 2>/dev/null
	:
	set -- $line
	printf '   %-9s %-40s %-40s\n' "${mbit}Mbit" "$1 $2 $3" "$4 $5 $6"
done
echo "   (steal $(steal_pct "$st0" "$(steal)"))"
echo

# ---- 3. delta accuracy --------------------------------------------------------
# Port 1's input switches between r0 and r2 (0>1 2>3 <-> 2>1 0>3); UDP from
# r0 and r2 to r1 (50 Mbit/s each) keeps both VOQs busy, so the first frame
# out of port 1 after a down shows when the port came back. Load "TCP":
# circuit 4-5 carries iperf3 at bw_o meanwhile.
fixture 6 400 1000
spawn r1h0 "$XFER" udprecv 9000 5000 600000 >/dev/null
spawn r5h0 iperf3 -s >/dev/null 2>&1
delta_run() { # DELTA rt|other udp|tcp
	delta=$1 sched=$2 load=$3 count=1000
	if [ "$sched" = rt ]; then
		serve 6 --rate 400Mbit --delta "$delta"
	else
		serve 6 --rate 400Mbit --delta "$delta" --no-rt
	fi
	ocs set '0>1' '2>3' 4-5 >/dev/null
	sleep 0.05
	bg=""
	if [ "$load" = tcp ]; then
		spawn r4h0 timeout 120 iperf3 -c 10.16.5.1 -t 60 >/dev/null 2>&1
		bg=$spawned
	fi
	secs=$(awk -v c="$count" -v d="$delta" 'BEGIN {u = d ~ /us$/ ? 1e-6 : 1e-3; sub(/[mu]s$/, "", d); printf "%d", 2 * c * (d * u + 0.003) + 6}')
	for src in r0h0 r2h0; do
		spawn "$src" "$XFER" udp 10.16.1.1 9000 $((secs * 6000)) 1000 50 >/dev/null
		bg="$bg $spawned"
	done
	rm -f "$tmp/cap.pcap" "$tmp/cap.err"
	spawn tor1 tcpdump -i ocs -Q in -s 96 -U -w "$tmp/cap.pcap" 2>"$tmp/cap.err"
	cap=$spawned
	until grep -q "listening on" "$tmp/cap.err" 2>/dev/null; do sleep 0.05; done
	sleep 1 # TCP on 4-5 at full rate
	dns=$(awk -v d="$delta" 'BEGIN {u = d ~ /us$/ ? 1e3 : 1e6; sub(/[mu]s$/, "", d); print d * u}')
	# the bare timer under the same load, then the crossbar
	"$FLIP" timer "$dns" "$count" $([ "$sched" = rt ] || echo other) | awk '{print $1 / 1000}' >"$tmp/timer"
	s0=$(steal)
	off=$(ocs raw time | awk '/^ok/ {split($2, m, "="); split($3, r, "="); printf "%.9f\n", (r[2] - m[2]) / 1e9}')
	"$FLIP" "$SOCK" "$delta" "$count" 2000 "0>1 2>3 4-5" "2>1 0>3 4-5" >"$tmp/flip" ||
		echo "   ocs_flip failed" >&2
	s1=$(steal)
	for p in $cap $bg; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	unserve
	awk -v d="$dns" '{print ($2 - $1 - d) / 1000}' "$tmp/flip" >"$tmp/err"
	tcpdump -r "$tmp/cap.pcap" -tt -n 2>/dev/null | awk '{print $1}' >"$tmp/ts"
	# first frame after each down (times to the pcap clock), minus delta
	awk -v off="$off" -v d="$dns" 'NR == FNR {t[NR] = $1 / 1e9 + off; n = NR; next}
		{while (k < n && t[k + 1] < $1) {k++; pending = 1}
		 if (pending) {printf "%.1f\n", ($1 - t[k]) * 1e6 - d / 1000; pending = 0}}' \
		"$tmp/flip" "$tmp/ts" >"$tmp/caperr"
	below=$(awk '$1 < 0' "$tmp/caperr" | wc -l)
	printf '   %-5s %-5s %-4s|%7.1f %7.1f %7.0f |%7.1f %7.1f %7.0f %5s |%7.1f %7.1f %7.0f |%5s\n' \
		"$delta" "$([ "$sched" = rt ] && echo FIFO || echo OTHER)" "$load" \
		"$(pct "$tmp/err" 50)" "$(pct "$tmp/err" 99)" "$(pct "$tmp/err" 100)" \
		"$(pct "$tmp/caperr" 50)" "$(pct "$tmp/caperr" 99)" "$(pct "$tmp/caperr" 100)" "$below" \
		"$(pct "$tmp/timer" 50)" "$(pct "$tmp/timer" 99)" "$(pct "$tmp/timer" 100)" \
		"$(steal_pct "$s0" "$s1")"
}
echo "3. delta accuracy: stall - delta over 1000 reconfigurations, in us: from the crossbar's"
echo "   event times; from a capture (first frame out of the port after the down, as stamped"
echo "   on the ToR; '<0': frames inside the stall); and a bare timer (the crossbar's way of"
echo "   waiting, alone) under the same load, for reference. Load: 2 x 50 Mbit/s UDP through"
echo "   the switching port; 'tcp': and TCP at bw_o on an unchanged circuit. steal: CPU time"
echo "   the hypervisor took from this VM during the reconfigurations."
printf '   %-5s %-5s %-4s|%7s %7s %7s |%7s %7s %7s %5s |%7s %7s %7s |%5s\n' delta sched load \
	p50 p99 max "cap p50" p99 max "<0" "timer" p99 max steal
for run in "10ms rt udp" "1ms rt udp" "100us rt udp" "10ms rt tcp" "1ms rt tcp" "100us rt tcp" \
	"1ms other udp" "1ms other tcp"; do
	delta_run $run
done
echo

# ---- 4. CPU at rack8's full OCS load -------------------------------------------
fixture 8 400 1000
serve 8 --rate 400Mbit --delta 10ms
ocs set 0-1 2-3 4-5 6-7 >/dev/null
k=0
while [ "$k" -lt 8 ]; do
	spawn "r${k}h0" iperf3 -s >/dev/null 2>&1
	k=$((k + 1))
done
sleep 0.5
k=0
clients=""
while [ "$k" -lt 8 ]; do
	peer=$((k ^ 1))
	spawn "r${k}h0" timeout 40 iperf3 -c "10.16.$peer.1" -t 8 -O 2 -f m >"$tmp/ipf$k" 2>&1
	clients="$clients $spawned"
	k=$((k + 1))
done
sleep 3
c0=$(cpu_ticks "$dpid")
t0=$(date +%s.%N)
st0=$(steal)
sleep 5
c1=$(cpu_ticks "$dpid")
st1=$(steal)
t1=$(date +%s.%N)
for c in $clients; do
	wait "$c"
done
total=$(cat "$tmp"/ipf? | awk '/receiver/ {s += $(NF - 2)} END {printf "%.0f", s}')
cpu=$(awk -v a="$c0" -v b="$c1" -v hz="$HZ" -v t0="$t0" -v t1="$t1" 'BEGIN {printf "%.1f", (b - a) / hz / (t1 - t0) * 100}')
unserve
echo "4. rack8's full OCS load: 8 ports at bw_o = 400Mbit (circuits 0-1 2-3 4-5 6-7, TCP both ways; steal $(steal_pct "$st0" "$st1"))"
printf '   aggregate goodput %.2f Gbit/s (%.3f of 8 x bw_o x 1448/1514); crossbar CPU %s%% of one core (%.1f%% per Gbit/s)\n' \
	"$(awk -v s="$total" 'BEGIN {print s / 1000}')" \
	"$(awk -v s="$total" 'BEGIN {print s / (8 * 400 * 1448 / 1514)}')" "$cpu" \
	"$(awk -v c="$cpu" -v s="$total" 'BEGIN {print c / (s / 1000)}')"
echo "   (the crossbar's CPU includes the receive work its sends set off in the ToRs and hosts:"
echo "   the kernel runs it in the sender's context)"
