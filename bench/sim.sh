#!/bin/sh
# Benchmark of the flow-level simulator (prints figures, never fails on
# time): wall time, events per second and peak memory of hyde sim on
#  (a) paper60.topo with 1000 FB-like jobs (hyde gen fb jobs=1000),
#  (b) the full FB-2010 SWIM trace (24,442 jobs) on nas30.topo,
#  (c) the Coflow-Benchmark trace in coflow-only mode, if this hyde has it.
# A run that does not end within LIMIT seconds is stopped (SIGINT: hyde
# sim then ends before its next event, writes its files and prints
# its summary); the line then says how far it got.
# Usage: bench/sim.sh [LIMIT] [EXTRA hyde sim OPTIONS...]   (from the
# build tree, or HYDE=path/to/hyde); e.g. bench/sim.sh 600 --rate-quantum 1ms
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
HYDE=${HYDE:-$here/../hyde}
LIMIT=${1:-300}
[ $# -gt 0 ] && shift
tmp=$(mktemp -d /tmp/hydesimbench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

command -v /usr/bin/time >/dev/null 2>&1 || { echo "bench/sim.sh: needs /usr/bin/time (GNU time)" >&2; exit 2; }

# run NAME TOPO WORKLOAD [OPTIONS...]
run() {
	name=$1 topo=$2 wl=$3
	shift 3
	/usr/bin/time -f '%e %M %U' -o "$tmp/time" \
		timeout -k 120 -s INT "$LIMIT" "$HYDE" sim -t "$topo" -w "$wl" -o "$tmp/run" \
		--progress "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	# (a line before the figures if the command died of a signal)
	set -- $(tail -1 "$tmp/time") ? 0 ?
	wall=$1 rss_kb=$2 cpu=$3
	mem=$(awk -v k="$rss_kb" 'BEGIN { printf "%.0fMB", k / 1024 }')
	last=$(tr '\r' '\n' <"$tmp/err" | grep -a '^sim [0-9]' | tail -1 | sed 's/\x1b\[K//')
	if grep -q '^  events' "$tmp/out"; then
		ev=$(awk '/^  events/ { print $2 }' "$tmp/out" | tr -d ,)
		evs=$(awk '/^  events/ { print $3 }' "$tmp/out")
		jobs=$(awk '/^  (jobs|coflows) / { print $2 "/" $4 }' "$tmp/out")
		flows=$(awk '/^  shuffle/ { for (i = 1; i <= NF; i++) if ($i == "flows:") print $(i - 1) }
			/^  flows / { print $2 }' "$tmp/out")
		stop=$(grep -o 'interrupted at [0-9.]*s' "$tmp/err" | sed 's/interrupted at /stopped at the limit, simulated time reached /')
		printf '%-34s %7ss (cpu %7ss)  %9s events %8s ev/s  %9s flows  peak %7s  jobs %s%s\n' \
			"$name" "$wall" "$cpu" "$ev" "$evs" "$flows" "$mem" "$jobs" "${stop:+  ($stop)}"
	else
		printf '%-34s %7ss (cpu %7ss)  no summary (exit %s); last progress: %s  peak %s\n' \
			"$name" "$wall" "$cpu" "$rc" "${last:-none}" "$mem"
	fi
}

echo "hyde sim benchmark ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg); limit ${LIMIT}s per run; options: ${*:-none})"
echo "(wall: elapsed; cpu: user time of hyde, the better figure on a shared box; ev/s per wall second)"
"$HYDE" gen fb jobs=1000 -o "$tmp/fb1000.wl" >/dev/null || exit 1
run "(a) paper60, 1000 FB-like jobs" "$src/topologies/paper60.topo" "$tmp/fb1000.wl" "$@"
run "(b) nas30, FB-2010 SWIM (24442)" "$src/topologies/nas30.topo" \
	"swim:$src/workloads/traces/FB-2010_samples_24_times_1hr_0.tsv" "$@"
if "$HYDE" sim --help 2>/dev/null | grep -q -- '--coflow-only'; then
	ctopo=$(ls "$src"/topologies/coflow*.topo 2>/dev/null | head -1)
	if [ -n "$ctopo" ]; then
		run "(c) Coflow-Benchmark, coflow-only" "$ctopo" \
			"coflow:$src/workloads/traces/FB2010-1Hr-150-0.txt" --coflow-only "$@"
	else
		echo "(c) Coflow-Benchmark: skipped: no topologies/coflow*.topo for it in this tree"
	fi
else
	echo "(c) Coflow-Benchmark: skipped: this hyde sim has no coflow-only mode (--coflow-only)"
fi
