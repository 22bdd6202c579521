#!/bin/sh
# How large a cluster this box emulates, with a capture on every ToR port,
# and how close it stays to the simulator (issue: 1,024 hosts in 24 GiB).
# For each fabric, the same FB-like workload (150 jobs, scale 0.005, arrivals
# over 60 s: `hyde gen fb jobs=150 scale=0.005 span=60s seed=1`), fair:
#  - hosts, namespaces, the run's peak number of processes;
#  - memory: hyde's estimate (`hyde run --estimate`) and what was used at
#    the peak (sampled every 2 s: the kernel's growth in Slab + Percpu +
#    KernelStack + PageTables, the capture and crossbar rings as mapped
#    (whole: the kernel allocates them in full), the processes' own pages
#    (PSS)), and the capture rings' share;
#  - set-up (launch to the controller's run_start: fabric, captures,
#    services, crossbar) and teardown (run_end to the process's exit) time;
#  - the CPU time the run took (hyde run and every process it started:
#    tasks, services, captures, crossbar), against the box's 2 cores;
#  - frames the captures dropped (their rings full), summed over ports;
#  - makespan, average JCT and CCT (the controller's own clock) beside
#    `hyde sim`'s on the same topology and workload, and the ratio.
# Fabrics: RxH (rack8's rates: 100 Mbit/s hosts, 10:1, an OCS port of a
# rack's host rates, 2 containers) or a topology file. The default list:
# 8x4, 24x16, topologies/paper60s.topo (60x10) and topologies/rack64x16.topo.
# A fabric hyde refuses (its estimate over what the box has) is said and
# skipped. SCHEDS (default fair) runs each fabric with each scheduler
# named (e.g. SCHEDS="fair coscheduler"). A benchmark: prints, never fails
# on time. Needs root.
# Usage: [SCHEDS="fair ..."] bench/scale.sh [RxH | TOPOLOGY ...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
HYDE=${HYDE:-$here/../hyde}
P=hydescale$$
[ "$(id -u)" = 0 ] || { echo "bench/scale.sh: needs root" >&2; exit 2; }
[ $# -gt 0 ] || set -- 8x4 24x16 "$src/topologies/paper60s.topo" "$src/topologies/rack64x16.topo"
tmp=$(mktemp -d /tmp/hydescale.XXXXXX)
run=
cleanup() {
	[ -n "$run" ] && kill "$run" 2>/dev/null && wait "$run" 2>/dev/null
	"$HYDE" clean --prefix $P >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

kern_kb() { awk '/^(Slab|Percpu|KernelStack|PageTables):/ { s += $2 } END { print s }' /proc/meminfo; }
# a process's memory: mapped packet rings whole (Size), the rest by PSS
proc_kb() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { sock = ($6 ~ /^socket:/) }
	     /^Size:/ && sock { s += $2 } /^Pss:/ && !sock { s += $2 }
	     END { print s + 0 }' "/proc/$1/smaps" 2>/dev/null || echo 0
}
ring_kb() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { sock = ($6 ~ /^socket:/) }
	     /^Size:/ && sock { s += $2 } END { print s + 0 }' "/proc/$1/smaps" 2>/dev/null || echo 0
}
# the run's processes: its children (services, captures, crossbar, tasks)
procs_of() { pgrep -P "$1"; }
sec() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.1f", (b - a) / 1e9; else print "-" }'; }
# avg of a column of an app csv: avg_ns FILE COL_END COL_START
avg_s() {
	awk -F, -v e="$2" -v s="$3" 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == e) ce = i; if ($i == s) cs = i }; next }
		$ce > 0 && $cs > 0 { t += $ce - $cs; n++ } END { if (n) printf "%.2f", t / n / 1e9; else print "-" }' "$1"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.3f", a / b; else print "-" }'; }

SCHEDS=${SCHEDS:-fair}
"$HYDE" gen fb jobs=150 scale=0.005 span=60s seed=1 -o "$tmp/fb150.wl" >/dev/null || exit 1
echo "workload: hyde gen fb jobs=150 scale=0.005 span=60s seed=1, schedulers: $SCHEDS; memory in MB"
printf '%-9s %5s %5s %6s  %8s %8s %8s  %8s %8s %7s %6s  %9s %9s %9s\n' fabric hosts ns procs \
	"estimate" "used" "rings" "setup(s)" "down(s)" "cpu(s)" drops "makespan" "avg JCT" "avg CCT"
for size in "$@"; do
for sched in $SCHEDS; do
	case $size in
	[0-9]*x[0-9]*)
		R=${size%x*} H=${size#*x}
		topo="$tmp/t$size.topo"
		cat >"$topo" <<EOT
name scale${R}x$H
racks $R
hosts $H
containers 2
host_rate 100Mbit
uplink_rate $((H * 10))Mbit
ocs yes
ocs_rate $((H * 100))Mbit
delta 10ms
t_e $((H * 100 * 90 / 8 / 1000))MB
EOT
		name=$size
		;;
	*)
		topo=$size
		name=$(basename "$size" .topo)
		;;
	esac
	[ "$SCHEDS" = fair ] || name="$name/$sched"
	est=$("$HYDE" run -t "$topo" -w "$tmp/fb150.wl" --estimate 2>&1) ||
		{ echo "$name: no estimate: $est"; continue; }
	est_mb=$(printf '%s\n' "$est" | sed -n 's/^bytes *total \([0-9]*\),.*/\1/p' | awk '{ printf "%d", $1 / 1048576 }')
	ns=$(printf '%s\n' "$est" | sed -n 's/.* \([0-9]*\) namespaces.*/\1/p')
	hosts=$(awk '$1 == "racks" { r = $2 } $1 == "hosts" { h = $2 } END { print r * h }' "$topo")
	sleep 3
	sync
	k0=$(kern_kb)
	rm -rf "$tmp/run"
	t0=$(date +%s%N)
	/usr/bin/time -f '%U %S' -o "$tmp/cpu" \
		"$HYDE" run -t "$topo" -w "$tmp/fb150.wl" -s "$sched" -o "$tmp/run" --prefix $P --no-analyze \
		>"$tmp/run.out" 2>"$tmp/run.err" &
	run=$!
	top=0 procs=0 rings=0
	while kill -0 $run 2>/dev/null; do
		hp=$(pgrep -P $run | head -n 1) # hyde run, under GNU time
		[ -n "$hp" ] || { sleep 1; continue; }
		used=$(kern_kb)
		used=$((used - k0 + $(proc_kb "$hp")))
		r=0 n=0
		for p in $(procs_of "$hp"); do
			used=$((used + $(proc_kb "$p")))
			r=$((r + $(ring_kb "$p")))
			n=$((n + 1))
		done
		[ "$used" -gt "$top" ] && top=$used
		[ "$r" -gt "$rings" ] && rings=$r
		[ "$n" -gt "$procs" ] && procs=$n
		sleep 2
	done
	wait $run
	st=$?
	t_exit=$(date +%s%N)
	run=
	if [ $st = 2 ]; then
		echo "$name: refused: $(grep -v '^hyde ocs' "$tmp/run.err" | tail -n 1)"
		continue
	fi
	ev="$tmp/run/events.log"
	start=$(awk '$2 == "run_start" { print $1; exit }' "$ev" 2>/dev/null)
	end=$(awk '$2 == "run_end" { print $1; exit }' "$ev" 2>/dev/null)
	drops=$(cat "$tmp/run/pcap/"*.capstats 2>/dev/null | awk '$1 != "iface" { s += $5 } END { print s + 0 }')
	jobs="$tmp/run/app/jobs.csv"
	mk=$(awk -F, 'NR > 1 && $7 > 0 { if (!a || $3 < a) a = $3; if ($7 > b) b = $7 } END { if (b) printf "%.1f", (b - a) / 1e9; else print "-" }' "$jobs" 2>/dev/null)
	jct=$(avg_s "$jobs" end_ns arrival_ns 2>/dev/null)
	cct=$(avg_s "$tmp/run/app/coflows.csv" end_ns start_ns 2>/dev/null)
	# the simulator on the same topology and workload
	"$HYDE" sim -t "$topo" -w "$tmp/fb150.wl" -s "$sched" -o "$tmp/sim" -q >/dev/null 2>&1
	smk=$(sed -n 's/^  "makespan_s": \([0-9.]*\).*/\1/p' "$tmp/sim/summary.json" | head -n 1)
	sjct=$(sed -n 's/^  "avg_jct_s": \([0-9.]*\).*/\1/p' "$tmp/sim/summary.json" | head -n 1)
	scct=$(sed -n 's/^  "avg_cct_s": \([0-9.]*\).*/\1/p' "$tmp/sim/summary.json" | head -n 1)
	rm -rf "$tmp/sim"
	cpu=$(awk 'NF == 2 && $1 ~ /^[0-9.]+$/ { printf "%.0f", $1 + $2 }' "$tmp/cpu" 2>/dev/null)
	printf '%-9s %5d %5s %6d  %8s %8d %8d  %8s %8s %7s %6s  %9s %9s %9s\n' "$name" "$hosts" "$ns" \
		$((procs + 1)) "$est_mb" $((top / 1024)) $((rings / 1024)) \
		"$(sec "$t0" "${start:-0}")" "$(sec "${end:-0}" "$t_exit")" "${cpu:--}" "$drops" \
		"${mk}s" "${jct}s" "${cct}s"
	printf '%-9s %5s %5s %6s  %8s %8s %8s  %8s %8s %7s %6s  %9s %9s %9s\n' "  sim" "" "" "" "" "" "" "" "" "" "" \
		"$(printf '%.1fs' "${smk:-0}")" "$(printf '%.2fs' "${sjct:-0}")" "$(printf '%.2fs' "${scct:-0}")"
	printf '%-9s %5s %5s %6s  %8s %8s %8s  %8s %8s %7s %6s  %9s %9s %9s\n' "  ratio" "" "" "" "" "" "" "" "" "" "" \
		"$(ratio "$mk" "$smk")" "$(ratio "$jct" "$sjct")" "$(ratio "$cct" "$scct")"
	[ $st = 0 ] || echo "$name: the run failed (exit $st): $(grep -v '^hyde ocs' "$tmp/run.err" | tail -n 2)"
	rm -rf "$tmp/run"
done
done
