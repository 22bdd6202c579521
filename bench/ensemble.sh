#!/bin/sh
# How far one simulated run's figures would move (issue: fidelity). The
# model is deterministic: one run per seed. An emulated run is one draw of
# what the model leaves out: how unevenly TCP shares a link between
# connections, and how late the box lets each task process end. A
# scheduler whose decisions turn on timing (a task ending before or after
# a heartbeat, a map's read ending before a period's sample) can place the
# next tasks elsewhere on either, and its figures move with them.
# For each scheduler: the plain simulation, then N runs that draw both anew
# (hyde compare --backend sim --draws N: -B task_jitter=10ms and
# share_jitter=2, each run its own -B jitter_seed, 1..N): average JCT and
# CCT, min, median, max, mean and CV over the N, the plain run against
# their median, and in how many draws each scheduler was the fastest.
# Beside make bench-repeat (the emulator against itself), it says whether
# an emulated run that parts from the plain model lies where the model's
# own draws do.
# A benchmark: prints figures, never fails on them. No root.
# Usage: [N=20] [SCHEDS="fair cobra"] [SEED=1]
#        [SIM_OPTS="-B setup=300us -B payload=0.956 -B task_overhead=3ms"]
#        [EMUL="RUNDIR..."] bench/ensemble.sh [TOPOLOGY WORKLOAD]
#        (default topologies/rack8.topo workloads/fb-small.wl: the main
#        job); SIM_OPTS may set the draws' spread (-B task_jitter=T,
#        -B share_jitter=X), which the plain run then has too (its
#        jitter_seed 0); EMUL: emulated runs (hyde run's directories) of
#        these schedulers and seed: each one's figures and its place among
#        the draws of its scheduler
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
HYDE=${HYDE:-$here/../hyde}
N=${N:-20}
SCHEDS=${SCHEDS:-fair cobra}
SEED=${SEED:-1}
SIM_OPTS=${SIM_OPTS:--B setup=300us -B payload=0.956 -B task_overhead=3ms}
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
# the draws' figures of scheduler s: "avg_jct avg_cct" a line (compare.csv's
# columns by their names)
draws_of() {
	for f in "$tmp/c"/draws/*/compare.csv; do
		awk -F, -v s="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["label"] == s && $c["ok"] == 1 { print $c["avg_jct_s"], $c["avg_cct_s"] }' "$f"
	done
}
# where x falls among the draws: rank FILE COLUMN X; "k of N below"
rank() { awk -v k="$2" -v x="$3" '$k < x { b++ } END { printf "%d of %d draws below", b, NR }' "$1"; }

echo "hyde ensemble: $N draws per scheduler, seed $SEED, $(basename "$TOPO") x $(basename "$WL"); $SIM_OPTS"
# shellcheck disable=SC2086
"$HYDE" compare --backend sim -t "$TOPO" -w "$WL" -s "$(echo $SCHEDS | tr ' ' ,)" --seed "$SEED" \
	$SIM_OPTS --draws "$N" -o "$tmp/c" -q >"$tmp/out" 2>"$tmp/err" ||
	{ echo "bench/ensemble.sh: hyde compare --draws failed: $(head -3 "$tmp/err")" >&2; exit 1; }
sed -n '/^draws: /,$p' "$tmp/out" | grep -v '^(also in '
for d in ${EMUL:-}; do
	s=$(awk '$2 == "run_start" { print $4; exit }' "$d/events.log")
	sd=$(awk '$2 == "run_options" { for (i = 3; i <= NF; i++) if ($i ~ /^seed=/) print substr($i, 6); exit }' "$d/events.log")
	j=$(fig "$d/summary.json" avg_jct_s) c=$(fig "$d/summary.json" avg_cct_s)
	draws_of "$s" >"$tmp/draws"
	if [ ! -s "$tmp/draws" ]; then
		echo "emulated $d: $s, not among SCHEDS: not placed"
	elif [ -n "$sd" ] && [ "$sd" != "$SEED" ]; then
		echo "emulated $d: seed $sd, not SEED $SEED: not placed"
	else
		printf 'emulated %s (%s): JCT %.3f, %s; CCT %.3f, %s\n' "$d" "$s" "$j" \
			"$(rank "$tmp/draws" 1 "$j")" "$c" "$(rank "$tmp/draws" 2 "$c")"
	fi
done
