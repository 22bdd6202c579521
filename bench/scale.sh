#!/bin/sh
# How large a fabric this box brings up and runs a workload on. For
# growing fabrics (racks x hosts, rack8's rates: 100 Mbit/s hosts, 10:1
# uplinks, a 400 Mbit/s OCS) it measures:
#  - `hyde topo up` alone: its time, and the kernel memory it takes per
#    namespace (the growth of Slab + Percpu + KernelStack + PageTables in
#    /proc/meminfo, over the namespaces made: the namespace, its veths,
#    bridge, HTB qdiscs, routes);
#  - `hyde run` of the same FB-like workload on it (150 jobs, scale 0.005,
#    arrivals over 60 s: `hyde gen fb jobs=150 scale=0.005 span=60s`): its
#    set-up time (launch to the controller's run_start: fabric, captures,
#    services, crossbar), the memory of its processes at their peak (the sum of
#    their PSS, sampled every 2 s: capture rings are mapped into the
#    captures, so they count), and that per captured port, processes,
#    jobs done, makespan, wall time.
# Kernel memory and PSS, not MemAvailable: on a shared box the page cache
# of other work moves MemAvailable by more than a small fabric takes.
# It stops before a size whose predicted peak (from the last size's
# figures per namespace and per captured port) would leave less than
# RESERVE_MB (default 4096) of MemAvailable: the box is shared. A
# benchmark: prints, never fails on time. Needs root.
# Usage: bench/scale.sh [RACKSxHOSTS ...]   (default: 8x4 16x8 24x16 32x16 48x16 64x16)
set -u
here=$(cd "$(dirname "$0")" && pwd)
HYDE=${HYDE:-$here/../hyde}
RESERVE_MB=${RESERVE_MB:-4096}
P=hydescale$$
[ "$(id -u)" = 0 ] || { echo "bench/scale.sh: needs root" >&2; exit 2; }
[ $# -gt 0 ] || set -- 8x4 16x8 24x16 32x16 48x16 64x16
tmp=$(mktemp -d /tmp/hydescale.XXXXXX)
run=
cleanup() {
	[ -n "$run" ] && kill "$run" 2>/dev/null && wait "$run" 2>/dev/null
	"$HYDE" clean --prefix $P >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

avail_mb() { echo $(($(sed -n 's/^MemAvailable:[[:space:]]*\([0-9]*\) kB/\1/p' /proc/meminfo) / 1024)); }
kern_kb() { awk '/^(Slab|Percpu|KernelStack|PageTables):/ { s += $2 } END { print s }' /proc/meminfo; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# PSS of a process and its children, in KB
pss_kb() {
	for p in $1 $(pgrep -P "$1"); do
		cat "/proc/$p/smaps_rollup" 2>/dev/null
	done | awk '/^Pss:/ { s += $2 } END { print s + 0 }'
}

"$HYDE" gen fb jobs=150 scale=0.005 span=60s seed=1 -o "$tmp/fb150.wl" >/dev/null || exit 1
printf '%-7s %5s %6s  %8s %9s  %8s %8s %9s %5s  %8s %9s %8s\n' fabric hosts ns "up (s)" "KB/ns" \
	"setup(s)" "peak MB" "MB/port" procs jobs makespan "wall(s)"
echo "(KB/ns: kernel memory per namespace; peak MB: the run's processes' PSS at its peak plus the fabric's kernel memory; MB/port: the processes' share per captured port)"
per_ns=0 per_port=0
for size in "$@"; do
	R=${size%x*} H=${size#*x}
	ns=$((R * H + R + 2)) ports=$((R * (H + 2)))
	need=$(((per_ns * ns + 1023) / 1024 + per_port * ports))
	avail=$(avail_mb)
	if [ "$per_port" -gt 0 ] && [ $((avail - need)) -lt "$RESERVE_MB" ]; then
		echo "$size: not tried: predicted peak ${need} MB would leave $((avail - need)) MB of the ${avail} MB available (reserve ${RESERVE_MB} MB)"
		break
	fi
	cat >"$tmp/t.topo" <<EOT
name scale${R}x$H
racks $R
hosts $H
containers 2
host_rate 100Mbit
uplink_rate $((H * 10))Mbit
ocs yes
ocs_rate 400Mbit
delta 10ms
t_e 4.5MB
EOT
	# the fabric alone, twice (the memory is the mean: other work moves
	# the kernel's figures too; the time the faster)
	up=0 kern=0 ok=1
	for i in 1 2; do
		sleep 3
		k0=$(kern_kb)
		t0=$(now_ms)
		if ! "$HYDE" topo up -t "$tmp/t.topo" --prefix $P >"$tmp/up.out" 2>&1; then
			echo "$size: hyde topo up failed: $(tail -n 2 "$tmp/up.out")"
			ok=0
			break
		fi
		t=$(($(now_ms) - t0))
		[ $up = 0 ] || [ $t -lt $up ] && up=$t
		sleep 3
		kern=$((kern + $(kern_kb) - k0))
		"$HYDE" topo down --prefix $P >/dev/null 2>&1
	done
	[ $ok = 1 ] || break
	per_ns=$((kern / 2 / ns))
	# a run on it
	sleep 2
	t0=$(date +%s%N)
	"$HYDE" run -t "$tmp/t.topo" -w "$tmp/fb150.wl" -o "$tmp/run" --prefix $P --no-analyze \
		>"$tmp/run.out" 2>"$tmp/run.err" &
	run=$!
	top=0 procs=0
	while kill -0 $run 2>/dev/null; do
		a=$(pss_kb $run)
		[ "$a" -gt "$top" ] && top=$a
		n=$(pgrep -P $run | wc -l)
		[ "$n" -gt "$procs" ] && procs=$n
		sleep 2
	done
	wait $run
	st=$?
	run=
	peak=$(((top + per_ns * ns) / 1024))
	start=$(awk '$2 == "run_start" { print $1; exit }' "$tmp/run/events.log" 2>/dev/null)
	setup=$(awk -v a="$t0" -v b="${start:-0}" 'BEGIN { if (b > 0) printf "%.2f", (b - a) / 1e9; else print "-" }')
	per_port=$((top / 1024 / ports))
	[ "$per_port" -gt 0 ] || per_port=1
	jobs=$(sed -n 's/^ *jobs *\([0-9]* of [0-9]*\) done/\1/p' "$tmp/run.out")
	mk=$(sed -n 's/^ *makespan *//p' "$tmp/run.out")
	wall=$(sed -n 's/^ *wall time *\([0-9.]*\)s/\1/p' "$tmp/run.out")
	printf '%-7s %5d %6d  %8.2f %9d  %8s %8d %9d %5d  %8s %9s %8s\n' "$size" $((R * H)) $ns \
		"$(awk "BEGIN { print $up / 1000 }")" "$per_ns" "$setup" "$peak" "$per_port" \
		"$((procs + 1))" "$(echo "${jobs:-?}" | tr -d ' ' | sed 's/of/\//')" "${mk:-?}" "${wall:-?}"
	if [ $st != 0 ]; then
		echo "$size: the run failed (exit $st): $(grep -v '^hyde ocs' "$tmp/run.err" | tail -n 2)"
		break
	fi
	rm -rf "$tmp/run"
done
