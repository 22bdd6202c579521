#!/bin/sh
# How far one simulated run's figures would move (issue: fidelity). The
# model is deterministic: one run per seed. An emulated run is one draw of
# what the model leaves out: how unevenly TCP shares a link between
# connections, and how late the box lets each task process end. A
# scheduler whose decisions turn on timing (a task ending before or after
# a heartbeat, a map's read ending before a period's sample) can place the
# next tasks elsewhere on either, and its figures move with them.
# For each scheduler: the plain simulation, then N runs that draw both anew
# (JITTER: -B task_jitter and -B share_jitter, each run its own -B
# jitter_seed, 1..N): average JCT and CCT, min, median, max, mean and CV
# over the N, and the plain run against their median. Beside make
# bench-repeat (the emulator against itself), it says whether an emulated
# run that parts from the plain model lies where the model's own draws do.
# A benchmark: prints figures, never fails on them. No root.
# Usage: [N=20] [SCHEDS="fair cobra"] [SEED=1]
#        [SIM_OPTS="-B setup=300us -B payload=0.956 -B task_overhead=3ms"]
#        [JITTER="-B task_jitter=2ms -B share_jitter=2"]
#        [EMUL="RUNDIR..."] bench/ensemble.sh [TOPOLOGY WORKLOAD]
#        (default topologies/rack8.topo workloads/fb-small.wl: the main
#        job); EMUL: emulated runs (hyde run's directories) of these
#        schedulers and seed: each one's figures and its place among the
#        draws of its scheduler
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
HYDE=${HYDE:-$here/../hyde}
N=${N:-20}
SCHEDS=${SCHEDS:-fair cobra}
SEED=${SEED:-1}
SIM_OPTS=${SIM_OPTS:--B setup=300us -B payload=0.956 -B task_overhead=3ms}
JITTER=${JITTER:--B task_jitter=2ms -B share_jitter=2}
TOPO=${1:-$src/topologies/rack8.topo}
WL=${2:-$src/workloads/fb-small.wl}
case $N in '' | *[!0-9]* | 0 | 1) echo "bench/ensemble.sh: N: expected a count of 2 or more, got '$N'" >&2; exit 2 ;; esac
for d in ${EMUL:-}; do
	[ -f "$d/summary.json" ] && [ -f "$d/events.log" ] ||
		{ echo "bench/ensemble.sh: EMUL: $d: not a run directory (no summary.json or events.log)" >&2; exit 2; }
done
tmp=$(mktemp -d /tmp/hydeensemble.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

# a figure from summary.json: fig FILE KEY
fig() { sed -n "s/^  \"$2\": \\([0-9.eE+-]*\\),*\$/\\1/p" "$1" | head -1; }
# one simulation: sim OUT [OPTIONS...]; prints "avg_jct avg_cct"
sim() {
	out=$1
	shift
	rm -rf "$out"
	# shellcheck disable=SC2086
	"$HYDE" sim -t "$TOPO" -w "$WL" -s "$s" --seed "$SEED" $SIM_OPTS "$@" -o "$out" -q \
		>/dev/null 2>"$tmp/err" || { echo "bench/ensemble.sh: hyde sim -s $s $*: $(head -1 "$tmp/err")" >&2; exit 1; }
	echo "$(fig "$out/summary.json" avg_jct_s) $(fig "$out/summary.json" avg_cct_s)"
}
# the draws' figures: stats FILE COLUMN PLAIN; "min median max mean CV plain/median"
stats() {
	sort -g -k"$2" "$1" | awk -v k="$2" -v p="$3" '{ v[NR] = $k; s += $k; q += $k * $k }
		END { m = s / NR; sd = q / NR - m * m; sd = sd > 0 ? sqrt(sd) : 0
		      med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		      printf "%7.3f %7.3f %7.3f %7.3f %5.1f%% %6.3f", v[1], med, v[NR], m, 100 * sd / m, p / med }'
}
# where x falls among the draws: rank FILE COLUMN X; "k of N below"
rank() { awk -v k="$2" -v x="$3" '$k < x { b++ } END { printf "%d of %d draws below", b, NR }' "$1"; }

echo "hyde ensemble: $N draws per scheduler, seed $SEED, $(basename "$TOPO") x $(basename "$WL"); $SIM_OPTS; draws: $JITTER, jitter_seed 1..$N"
printf '%-15s %-4s %8s | %7s %7s %7s %7s %6s %6s\n' scheduler fig plain min median max mean CV plain/med
for s in $SCHEDS; do
	plain=$(sim "$tmp/plain") || exit 1
	: >"$tmp/draws"
	i=1
	while [ $i -le "$N" ]; do
		# shellcheck disable=SC2086
		sim "$tmp/d" $JITTER -B jitter_seed=$i >>"$tmp/draws" || exit 1
		i=$((i + 1))
	done
	set -- $plain
	printf '%-15s %-4s %8.3f | %s\n' "$s" JCT "$1" "$(stats "$tmp/draws" 1 "$1")"
	printf '%-15s %-4s %8.3f | %s\n' "" CCT "$2" "$(stats "$tmp/draws" 2 "$2")"
	cp "$tmp/draws" "$tmp/draws.$s"
done
for d in ${EMUL:-}; do
	s=$(awk '$2 == "run_start" { print $4; exit }' "$d/events.log")
	sd=$(awk '$2 == "run_options" { for (i = 3; i <= NF; i++) if ($i ~ /^seed=/) print substr($i, 6); exit }' "$d/events.log")
	j=$(fig "$d/summary.json" avg_jct_s) c=$(fig "$d/summary.json" avg_cct_s)
	if [ ! -f "$tmp/draws.$s" ]; then
		echo "emulated $d: $s, not among SCHEDS: not placed"
	elif [ -n "$sd" ] && [ "$sd" != "$SEED" ]; then
		echo "emulated $d: seed $sd, not SEED $SEED: not placed"
	else
		printf 'emulated %s (%s): JCT %.3f, %s; CCT %.3f, %s\n' "$d" "$s" "$j" \
			"$(rank "$tmp/draws.$s" 1 "$j")" "$c" "$(rank "$tmp/draws.$s" 2 "$c")"
	fi
done
