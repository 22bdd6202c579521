#!/bin/sh
# make reproduce-dawn: Dawn ([Dawn], IEEE TPDS) §6.1 in the simulator, a
# REDUCED setting that runs in minutes:
#
#   the paper   a physical cluster of 6 sub-clusters x 4 slaves x 6 YARN
#               containers, 500 MB/s between sub-clusters, 10 Gbit/s inside;
#               4 hours of ML benchmarks (Table 2, B1-B15 drawn at random,
#               581 arrivals: a mean gap of 24.8 s) and of the 22 TPC-H
#               queries over 50 GB on Hive; five runs; Fair, ShuffleWatcher,
#               Dawn (b = 0)
#   here        topologies/dawn24.topo (the same cluster, 500 MB/s read as
#               each rack's 4 Gbit/s uplink); hyde gen dag preset=ml:
#               DAGS_ML (120) DAGs, Poisson arrivals with a mean gap of GAP
#               (24.8 s), sizes x SCALE_ML (0.5); preset=tpch: DAGS_TPCH (88,
#               four of each query) with a mean gap of 27.3 s (22 queries per
#               10 minutes, §5.2), 50 GB; tasks process 100 MB/s (RATE; the
#               generator's default 10 MB/s makes the cluster compute-bound,
#               and no scheduler's network placement then matters: see the
#               report); RUNS (5) runs per point on seeds 1..RUNS (a new
#               draw of the DAGs and of HDFS's placement each). Throughput
#               is the DAGs finished within the arrival window H = DAGs x
#               gap, counted on runs simulated to their end (their WCTs are
#               every DAG's, as the paper's); what finishes by H does not
#               depend on what comes after, and seed 1 of ML and TPC-H is
#               run again stopped at H (hyde sim --horizon): the report
#               says whether those runs' dags_done equal the count.
#   Fair        hyde's delay (the Fair Scheduler with delay scheduling, YARN's
#               default locality; the paper's "Fair"), ShuffleWatcher as
#               shufflewatcher (on delay's skip counts, 0.8), Dawn as dawn.
#   Fig. 15     ML at mean gaps GAPS (20 60 100 140 s), Fair, SW, Dawn
#   Fig. 15-16  Dawn at b in BS (0 0.2 0.4 0.6) at the same gaps
#   network-bound  ML and TPC-H again with NET_UPLINK (1 Gbit/s) rack
#               uplinks: the same cluster with the network as its bottleneck
#               (at 4 Gbit/s the cross-rack links are rarely saturated in
#               hyde's model: the report shows what that changes)
#   EMUL=1      (root) also on the emulated fabric, scaled to this box:
#               dawn24 at 1/100 of its rates (100 Mbit/s hosts, 40 Mbit/s
#               uplinks), EMUL_DAGS (8) ML DAGs at 0.002 of Table 2's
#               sizes (5-24 MB inputs), a 10 s mean gap, tasks at 1 MB/s;
#               Fair, SW and Dawn once each (seed 1, ~7 minutes each), and
#               the same workload in the simulator beside them
#
# Then report.sh writes OUT/report.md and OUT/*.png beside the paper's
# values (paper.csv).
#
# Usage: reproduce.sh [OUT]   (default runs/reproduce-dawn)
# Environment: HYDE, RUNS, JOBS (simulations at a time, default the cores),
# DAGS_ML, DAGS_TPCH, GAP, SCALE_ML, RATE, GAPS, BS, NET_UPLINK, EMUL,
# EMUL_DAGS, PREFIX (the emulated fabric's, default hydedawn); QUICK=1: 30 ML and
# 22 query DAGs, 2 runs, two gaps (a look, not figures); SWEEP_ONLY=1: write
# the simulations out as hyde sweep grids (OUT/sweep/*/commands.txt for GNU
# parallel, slurm.sh for a Slurm array), run nothing; run this again once
# they are done. A finished run is kept: an interrupted reproduction resumes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
HYDE=${HYDE:-$src/hyde}
OUT=${1:-runs/reproduce-dawn}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 1)}
if [ -n "${QUICK:-}" ]; then
	RUNS=${RUNS:-2}
	DAGS_ML=${DAGS_ML:-30}
	DAGS_TPCH=${DAGS_TPCH:-22}
	GAPS=${GAPS:-20 140}
	BS=${BS:-0 0.4}
fi
RUNS=${RUNS:-5}
DAGS_ML=${DAGS_ML:-120}
DAGS_TPCH=${DAGS_TPCH:-88}
GAP=${GAP:-24.8}
SCALE_ML=${SCALE_ML:-0.5}
RATE=${RATE:-800Mbit}
GAPS=${GAPS:-20 60 100 140}
BS=${BS:-0 0.2 0.4 0.6}
NET_UPLINK=${NET_UPLINK:-1Gbit}
TOPO=$src/topologies/dawn24.topo

[ -x "$HYDE" ] || { echo "reproduce.sh: no hyde at $HYDE (make first)" >&2; exit 2; }
for v in RUNS JOBS DAGS_ML DAGS_TPCH; do
	eval "x=\$$v"
	case $x in '' | *[!0-9]* | 0) echo "reproduce.sh: $v: expected a count, got '$x'" >&2; exit 2 ;; esac
done
mkdir -p "$OUT/sim" || exit 2
TOPO_NET=$OUT/dawn24-net.topo
sed "s/^uplink_rate .*/uplink_rate $NET_UPLINK/; s/^name .*/name dawn24-net/" "$TOPO" >"$TOPO_NET" || exit 2

ML="preset=ml,dags=$DAGS_ML,scale=$SCALE_ML,map_rate=$RATE,reduce_rate=$RATE"
TPCH="preset=tpch,dags=$DAGS_TPCH,mean_gap=27.3s,map_rate=$RATE,reduce_rate=$RATE"
SCHEDS="delay shufflewatcher dawn"

# The simulations are three grids for hyde sweep (it runs them JOBS at a
# time, or writes them out for GNU parallel or Slurm: SWEEP_ONLY=1 stops
# after writing OUT/sweep/*/commands.txt and slurm.sh, to run elsewhere
# and come back): the four main points (two topologies x ML, TPC-H), the
# gaps of Fig. 15-16, and, with EMUL=1, the emulated workload simulated.
# Their runs are then filed as the report reads them, OUT/sim/SET/LABEL/
# seed-N (a link to the sweep's run directory), each trimmed to what the
# report reads: summary.json, and in events.log the run's start and end
# and the scheduler's lines (sched.txt).
mkdir -p "$OUT/sweep" || exit 2
seeds="1..$RUNS"
{
	echo "topology $TOPO $TOPO_NET"
	echo "workload gen:dag,$ML,mean_gap=${GAP}s gen:dag,$TPCH"
	echo "scheduler $SCHEDS"
	echo "seed $seeds"
} >"$OUT/sweep/main.spec"
{
	echo "topology $TOPO"
	printf 'workload'
	for g in $GAPS; do printf ' gen:dag,%s,mean_gap=%ss' "$ML" "$g"; done
	echo
	printf 'scheduler delay shufflewatcher'
	for b in $BS; do printf ' dawn:b=%s' "$b"; done
	echo
	echo "seed $seeds"
} >"$OUT/sweep/gaps.spec"
# seed 1 of ml and tpch again, stopped at H (the sweep's horizon): their
# dags_done is the throughput counted afterwards on the whole runs
# (report.md says); filed as OUT/horizon/SET/LABEL
hz() { # SET: H in seconds
	case $1 in
	ml) awk -v n="$DAGS_ML" -v g="$GAP" 'BEGIN { print n * g }' ;;
	tpch) awk -v n="$DAGS_TPCH" 'BEGIN { print n * 27.3 }' ;;
	esac
}
printf 'topology %s\nworkload %s\nscheduler %s\nseed 1\noption horizon %ss\n' \
	"$TOPO" "gen:dag,$ML,mean_gap=${GAP}s" "$SCHEDS" "$(hz ml)" >"$OUT/sweep/horizon-ml.spec"
printf 'topology %s\nworkload %s\nscheduler %s\nseed 1\noption horizon %ss\n' \
	"$TOPO" "gen:dag,$TPCH" "$SCHEDS" "$(hz tpch)" >"$OUT/sweep/horizon-tpch.spec"
grids="main gaps horizon-ml horizon-tpch"
if [ -n "${EMUL:-}" ]; then
	[ "$(id -u)" = 0 ] || { echo "reproduce.sh: EMUL=1 needs root" >&2; exit 2; }
	TOPO_EMUL=$OUT/dawn24-emul.topo
	sed "s/^host_rate .*/host_rate 100Mbit/; s/^uplink_rate .*/uplink_rate 40Mbit/; s/^name .*/name dawn24-emul/" \
		"$TOPO" >"$TOPO_EMUL" || exit 2
	EMUL_WL="preset=ml,dags=${EMUL_DAGS:-8},mean_gap=10s,scale=0.002,map_rate=8Mbit,reduce_rate=8Mbit,block=4MB,per_reduce=10MB"
	printf 'topology %s\nworkload gen:dag,%s\nscheduler %s\nseed 1\n' "$TOPO_EMUL" "$EMUL_WL" "$SCHEDS" \
		>"$OUT/sweep/emulsim.spec"
	grids="$grids emulsim"
fi

# file GRID: each finished run of the grid's sweep.csv where the report
# reads it, OUT/sim/SET/LABEL/seed-N (OUT/horizon/SET/LABEL for the
# horizon grids), a link relative to OUT
file_runs() {
	awk -f "$here/../sweep_tsv.awk" "$OUT/sweep/$1/sweep.csv" |
		awk -F '\t' -v grid="$1" -v gaps_ml="gen:dag,$ML,mean_gap=" '
	{
		dir = $2; topo = $5; wl = $6; sched = $7; seed = $NF
		if (grid == "main")
			set = (wl ~ /preset=tpch/ ? "tpch" : "ml") (topo ~ /-net\.topo$/ ? "net" : "")
		else if (grid == "gaps") {
			g = substr(wl, length(gaps_ml) + 1); sub(/s$/, "", g); set = "gap" g
		} else
			set = grid
		label = sched
		if (sched ~ /^dawn:b=/) label = "dawn-b" substr(sched, 8)
		print dir, set, label, seed
	}' |
		while read -r dir set label seed; do
			[ -f "$dir/summary.json" ] || continue
			if [ ! -f "$dir/sched.txt" ]; then
				grep ' sched ' "$dir/events.log" >"$dir/sched.txt" 2>/dev/null
				grep -E ' (run_start|sched|run_end) ' "$dir/events.log" >"$dir/events.trim" &&
					mv "$dir/events.trim" "$dir/events.log"
				rm -rf "$dir/flows.csv" "$dir/coflows.csv" "$dir/app" "$dir/inputs" "$dir.log"
			fi
			case $set in
			horizon-*)
				mkdir -p "$OUT/horizon/${set#horizon-}" || return 1
				ln -sfn "../../sweep/$1/runs/${dir##*/}" "$OUT/horizon/${set#horizon-}/$label" || return 1
				;;
			*)
				mkdir -p "$OUT/sim/$set/$label" || return 1
				ln -sfn "../../../sweep/$1/runs/${dir##*/}" "$OUT/sim/$set/$label/seed-$seed" || return 1
				;;
			esac
		done
}

failed=
for grid in $grids; do
	if [ -n "${SWEEP_ONLY:-}" ]; then
		"$HYDE" sweep "$OUT/sweep/$grid.spec" -o "$OUT/sweep/$grid" -n -q >/dev/null || exit 2
		continue
	fi
	echo "reproduce-dawn: hyde sweep $OUT/sweep/$grid.spec, $JOBS at a time ($(date +%H:%M:%S))"
	nice -n 10 "$HYDE" sweep "$OUT/sweep/$grid.spec" -o "$OUT/sweep/$grid" -j "$JOBS" -q ||
		{ echo "reproduce-dawn: a run of sweep $grid failed: see $OUT/sweep/$grid/runs/*.log" >&2; failed=yes; }
	file_runs "$grid" || exit 2
done
if [ -n "${SWEEP_ONLY:-}" ]; then
	echo "reproduce-dawn: grids written to $OUT/sweep/*/ (commands.txt, slurm.sh); once run, run this again to file them and report"
	exit 0
fi
# emulation: one run at a time, the fabric's prefix PREFIX
if [ -n "${EMUL:-}" ]; then
	for s in $SCHEDS; do
		d=$OUT/sim/emul/$s/seed-1
		[ -f "$d/summary.json" ] && continue
		rm -rf "$d"
		mkdir -p "${d%/*}" || exit 2
		echo "reproduce-dawn: $s on the emulated fabric ($(date +%H:%M:%S))"
		if "$HYDE" run -t "$TOPO_EMUL" -w "gen:dag,$EMUL_WL,seed=1" -s "$s" --seed 1 -o "$d" \
			--prefix "${PREFIX:-hydedawn}" -q >"$d.log" 2>&1 &&
			cp "$d/app/paper_metrics.json" "$d/summary.json"; then
			grep ' sched ' "$d/events.log" >"$d/sched.txt" 2>/dev/null
			rm -f "$d.log"
		else
			echo "reproduce-dawn: emulated $s failed: $(tail -1 "$d.log")" >&2
			failed=yes
		fi
	done
fi
for d in "$OUT"/sim/*/*/seed-*; do
	[ -f "$d/summary.json" ] || failed=yes
done
EMUL=${EMUL:-} NET_UPLINK=$NET_UPLINK RUNS=$RUNS DAGS_ML=$DAGS_ML DAGS_TPCH=$DAGS_TPCH GAP=$GAP GAPS=$GAPS BS=$BS SCALE_ML=$SCALE_ML \
	RATE=$RATE "$here/report.sh" "$OUT" || exit 1
echo "reproduce-dawn: report in $OUT/report.md"
[ -z "$failed" ] || exit 1
exit 0
