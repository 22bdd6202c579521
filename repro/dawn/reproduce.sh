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
# 22 query DAGs, 2 runs, two gaps (a look, not figures). A finished run
# (its summary.json) is kept: an interrupted reproduction resumes.
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

# One line per run: SET LABEL SCHED[:KV...] WORKLOAD SEED TOPOLOGY
{
	for seed in $(seq 1 "$RUNS"); do
		for s in $SCHEDS; do
			echo "ml $s $s $ML,mean_gap=${GAP}s $seed $TOPO"
			echo "tpch $s $s $TPCH $seed $TOPO"
			echo "mlnet $s $s $ML,mean_gap=${GAP}s $seed $TOPO_NET"
			echo "tpchnet $s $s $TPCH $seed $TOPO_NET"
		done
		for g in $GAPS; do
			for s in delay shufflewatcher; do
				echo "gap$g $s $s $ML,mean_gap=${g}s $seed $TOPO"
			done
			for b in $BS; do
				echo "gap$g dawn-b$b dawn:b=$b $ML,mean_gap=${g}s $seed $TOPO"
			done
		done
	done
} >"$OUT/runs.txt"

# run SET LABEL SPEC WL SEED TOPO: one simulation, kept once finished
run() {
	d=$OUT/sim/$1/$2/seed-$5
	[ -f "$d/summary.json" ] && return 0
	rm -rf "$d"
	mkdir -p "${d%/*}" || return 1
	sched=${3%%:*}
	kv=
	[ "$sched" = "$3" ] || kv="-S ${3#*:}"
	# shellcheck disable=SC2086
	if nice -n 10 "$HYDE" sim -t "$6" -w "gen:dag,$4,seed=$5" -s "$sched" $kv --seed "$5" \
		-o "$d" -q >"$d.log" 2>&1; then
		# keep what the report reads: the summary and the scheduler's line
		grep ' sched ' "$d/events.log" >"$d/sched.txt" 2>/dev/null
		rm -rf "$d/flows.csv" "$d/coflows.csv" "$d/events.log" "$d/app" "$d/inputs" "$d.log"
	else
		echo "reproduce-dawn: $1 $2 seed $5 failed: $(tail -1 "$d.log")" >&2
		return 1
	fi
}

if [ -n "${EMUL:-}" ]; then
	[ "$(id -u)" = 0 ] || { echo "reproduce.sh: EMUL=1 needs root" >&2; exit 2; }
	TOPO_EMUL=$OUT/dawn24-emul.topo
	sed "s/^host_rate .*/host_rate 100Mbit/; s/^uplink_rate .*/uplink_rate 40Mbit/; s/^name .*/name dawn24-emul/" \
		"$TOPO" >"$TOPO_EMUL" || exit 2
	EMUL_WL="preset=ml,dags=${EMUL_DAGS:-8},mean_gap=10s,scale=0.002,map_rate=8Mbit,reduce_rate=8Mbit,block=4MB,per_reduce=10MB"
	for s in $SCHEDS; do
		echo "emulsim $s $s $EMUL_WL 1 $TOPO_EMUL" >>"$OUT/runs.txt"
	done
fi

n=$(wc -l <"$OUT/runs.txt")
echo "reproduce-dawn: $n simulations on dawn24, $JOBS at a time ($(date +%H:%M:%S))"
failed=
i=0
while read -r set label spec wl seed topo; do
	run "$set" "$label" "$spec" "$wl" "$seed" "$topo" &
	i=$((i + 1))
	if [ $((i % JOBS)) = 0 ]; then
		wait || failed=yes
	fi
done <"$OUT/runs.txt"
wait || failed=yes
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
# seed 1 of ml and tpch again, stopped at H: their dags_done is the
# throughput counted afterwards on the whole runs (report.md says)
hz() { # SET: H in seconds
	case $1 in
	ml) awk -v n="$DAGS_ML" -v g="$GAP" 'BEGIN { print n * g }' ;;
	tpch) awk -v n="$DAGS_TPCH" 'BEGIN { print n * 27.3 }' ;;
	esac
}
grep -E '^(ml|tpch) .* 1 [^ ]*$' "$OUT/runs.txt" >"$OUT/horizon.txt"
while read -r set label spec wl seed topo; do
	d=$OUT/horizon/$set/$label
	[ -f "$d/summary.json" ] && continue
	mkdir -p "$d" || exit 2
	if ! nice -n 10 "$HYDE" sim -t "$topo" -w "gen:dag,$wl,seed=$seed" -s "${spec%%:*}" --seed "$seed" \
		--horizon "$(hz "$set")s" -o "$d" -q >"$d.log" 2>&1; then
		echo "reproduce-dawn: $set $label stopped at H failed: $(tail -1 "$d.log")" >&2
		failed=yes
		continue
	fi
	rm -rf "$d/flows.csv" "$d/coflows.csv" "$d/events.log" "$d/app" "$d/inputs" "$d.log"
done <"$OUT/horizon.txt"
EMUL=${EMUL:-} NET_UPLINK=$NET_UPLINK RUNS=$RUNS DAGS_ML=$DAGS_ML DAGS_TPCH=$DAGS_TPCH GAP=$GAP GAPS=$GAPS BS=$BS SCALE_ML=$SCALE_ML \
	RATE=$RATE "$here/report.sh" "$OUT" || exit 1
echo "reproduce-dawn: report in $OUT/report.md"
[ -z "$failed" ] || exit 1
exit 0
