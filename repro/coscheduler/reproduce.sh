#!/bin/sh
# make reproduce-coscheduler: Co-scheduler (Li & Shen) §V in hyde's
# simulator. Every figure's setting, RUNS runs per point on seeds 1..RUNS
# (the paper averages 20), then report.sh writes report.md and the figures
# as PNGs, with the paper's values side by side.
#
#   main     fair, corral, coscheduler, its ablations (§V-C: OCAS alone,
#            MTS + OCAS) and its T_rem estimation errors (§V-D, 10..50%) on
#            the preset: Figures 3(a), 3(b), 4, 5 and 7
#   os-R     fair, corral, coscheduler with the EPS oversubscribed R:1,
#            R in 3 5 15 20 (10 is the preset): Figure 6
#   model-*  fair, corral, coscheduler without YARN's heartbeats, and with
#            a circuit's fetches held to the reduces' copies: what hyde's
#            Hadoop model costs that the paper's simulator did not have
#   sweep-S-R  fair, corral, coscheduler at scale S and task rate R,
#            SWEEP_RUNS runs each: how the paper's observables move with
#            the two unknowns of its workload
#
# Usage: reproduce.sh [OUT]   (default runs/reproduce-coscheduler)
# Environment: HYDE (the hyde binary), RUNS (20), SIDE_RUNS (the runs of
# the os-R and model-* points, default RUNS), JOBS (simulations at a
# time, default the cores), QUICK=1 (a small setting, for the test suite:
# 40 jobs, 3 runs unless RUNS says), SWEEP_ONLY=1 (write each point's
# simulations out as a hyde sweep, OUT/sweep/POINT/commands.txt for GNU
# parallel and slurm.sh for a Slurm array, and run nothing; run this again
# once they are done). A point whose summary.csv exists is kept, and a
# sweep's finished runs are, so an interrupted reproduction resumes where
# it stopped.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
HYDE=${HYDE:-$src/hyde}
OUT=${1:-runs/reproduce-coscheduler}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 1)}
. "$here/preset.sh"
if [ -n "${QUICK:-}" ]; then
	PRESET_SCALE=0.01
	SWEEP_BASE="gen:fb,jobs=40,users=20,span=5min"
	WINDOW_S=300
	PRESET_WORKLOAD="$SWEEP_BASE,scale=$PRESET_SCALE,map_rate=$PRESET_RATE,reduce_rate=$PRESET_RATE"
	SWEEP_SCALES="0.003 0.01"
	SWEEP_RATES="80Mbit 800Mbit"
	SWEEP_RUNS=2
	RUNS=${RUNS:-3}
fi
RUNS=${RUNS:-20}
SIDE_RUNS=${SIDE_RUNS:-$RUNS}
TOPO=$src/$PRESET_TOPOLOGY

[ -x "$HYDE" ] || { echo "reproduce.sh: no hyde at $HYDE (make first)" >&2; exit 2; }
[ -f "$TOPO" ] || { echo "reproduce.sh: $TOPO: no such topology" >&2; exit 2; }
case $RUNS in '' | *[!0-9]* | 0) echo "reproduce.sh: RUNS: expected a count, got '$RUNS'" >&2; exit 2 ;; esac
case $SIDE_RUNS in '' | *[!0-9]* | 0) echo "reproduce.sh: SIDE_RUNS: expected a count, got '$SIDE_RUNS'" >&2; exit 2 ;; esac
case $JOBS in '' | *[!0-9]* | 0) echo "reproduce.sh: JOBS: expected a count, got '$JOBS'" >&2; exit 2 ;; esac
mkdir -p "$OUT/topologies" || exit 2
failed=

# point NAME TOPOLOGY WORKLOAD SCHEDULERS RUNS [--OPTION VALUE...]: a
# hyde sweep of the schedulers (comma-separated, as hyde compare) on
# seeds 1..RUNS, with those hyde sim options, in OUT/sweep/NAME; then
# hyde compare --from it writes OUT/NAME. SWEEP_ONLY=1 writes the sweep
# out (commands.txt, slurm.sh) and runs nothing.
point() {
	name=$1 topo=$2 wl=$3 scheds=$4 runs=$5
	shift 5
	dir=$OUT/$name
	if [ -f "$dir/summary.csv" ]; then
		echo "  $name: kept from an earlier reproduction"
		return 0
	fi
	mkdir -p "$OUT/sweep" || exit 2
	{
		echo "topology $topo"
		echo "workload $wl"
		echo "scheduler $(echo "$scheds" | tr ',' ' ')"
		echo "seed 1..$runs"
		while [ $# -ge 2 ]; do
			echo "option ${1#--} $2"
			shift 2
		done
	} >"$OUT/sweep/$name.spec"
	if [ -n "${SWEEP_ONLY:-}" ]; then
		"$HYDE" sweep "$OUT/sweep/$name.spec" -o "$OUT/sweep/$name" -n -q >/dev/null ||
			{ echo "  $name: hyde sweep -n failed" >&2; exit 2; }
		return 0
	fi
	rm -rf "$dir"
	echo "  $name: $runs runs of $scheds ($(date +%H:%M:%S))"
	"$HYDE" sweep "$OUT/sweep/$name.spec" -o "$OUT/sweep/$name" -j "$JOBS" -q >"$dir.sweep.txt" 2>&1
	rc=$?
	if [ $rc != 0 ]; then
		echo "  $name: hyde sweep exited $rc: $(tail -1 "$dir.sweep.txt")"
		failed="$failed $name"
	fi
	"$HYDE" compare --from "$OUT/sweep/$name" -o "$dir" -q >"$dir.txt" 2>"$dir.err"
	rc=$?
	if [ $rc != 0 ]; then
		echo "  $name: hyde compare --from exited $rc: $(tail -1 "$dir.err")"
		failed="$failed $name"
	fi
	return 0
}

# the same runs against another baseline
rebase() { # NAME FROM LABEL
	[ -f "$OUT/$2/compare.csv" ] || return 0
	rm -rf "$OUT/$1"
	"$HYDE" compare --from "$OUT/sweep/$2" --baseline "$3" -o "$OUT/$1" -q >"$OUT/$1.txt" 2>"$OUT/$1.err" ||
		echo "  $1: hyde compare --from exited $?: $(tail -1 "$OUT/$1.err")"
}

OCAS=coscheduler:mts=no:psrt=no
MTS_OCAS=coscheduler:psrt=no
TREM=
for e in 0.1 0.2 0.3 0.4 0.5; do
	TREM="$TREM,coscheduler:trem_error=$e"
done

echo "reproduce-coscheduler: $RUNS runs per point on $PRESET_TOPOLOGY, $PRESET_WORKLOAD; output in $OUT"
point main "$TOPO" "$PRESET_WORKLOAD" "fair,corral,coscheduler,$OCAS,$MTS_OCAS$TREM" "$RUNS"
rebase main-vs-corral main corral
rebase main-vs-ocas main "$OCAS"
for r in 3 5 15 20; do
	t=$OUT/topologies/paper60-os$r.topo
	sed -e "s/^uplink_rate .*/oversub     $r/" -e "s/^name .*/name        paper60-os$r/" \
		"$TOPO" >"$t"
	grep -q "^oversub  *$r\$" "$t" || { echo "reproduce.sh: $TOPO has no uplink_rate line" >&2; exit 2; }
	point "os-$r" "$t" "$PRESET_WORKLOAD" fair,corral,coscheduler "$SIDE_RUNS"
done
# hyde's cluster against the paper's simulator: tasks placed at every
# change rather than at YARN's heartbeats (one container per node per
# second), and a circuit's fetches held to the reduces' 5 copies (before
# hyde let a circuit's fetches fill it)
point model-noheartbeat "$TOPO" "$PRESET_WORKLOAD" fair,corral,coscheduler "$SIDE_RUNS" --heartbeat 0
point model-copies "$TOPO" "$PRESET_WORKLOAD" fair,corral,coscheduler "$SIDE_RUNS" --ocs-fetch copies
for rate in $SWEEP_RATES; do
	for s in $SWEEP_SCALES; do
		point "sweep-$s-$rate" "$TOPO" "$SWEEP_BASE,scale=$s,map_rate=$rate,reduce_rate=$rate" \
			fair,corral,coscheduler "$SWEEP_RUNS"
	done
done

if [ -n "${SWEEP_ONLY:-}" ]; then
	echo "reproduce-coscheduler: sweeps written to $OUT/sweep/*/ (commands.txt, slurm.sh); once run, run this again for the report"
	exit 0
fi
HYDE=$HYDE WINDOW_S=$WINDOW_S EPS_GBPS=$EPS_GBPS PRESET_WORKLOAD=$PRESET_WORKLOAD SWEEP_SCALES=$SWEEP_SCALES SWEEP_RATES=$SWEEP_RATES \
	RUNS=$RUNS SIDE_RUNS=$SIDE_RUNS SWEEP_RUNS=$SWEEP_RUNS FAILED=$failed \
	"$here/report.sh" "$OUT" || exit 1
echo "reproduce-coscheduler: report in $OUT/report.md"
[ -z "$failed" ] || { echo "reproduce-coscheduler: runs failed in:$failed" >&2; exit 1; }
exit 0
