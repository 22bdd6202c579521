#!/bin/sh
# make reproduce-nas: NAS (Li, Shen, Sarker; [NAS]) §IV's simulation,
# a FIRST, REDUCED setting that runs in minutes (the whole FB-2010 day,
# 24,442 jobs, waits for the simulator's speed work):
#
#   the paper   nas30 (30 racks x 20 nodes x 6 containers, 1 Gbit/s rack
#               uplinks, 250 Mbit/s per node, 5:1), the whole FB-2010 trace
#               with its arrivals over a day, 200 users
#   here        the same nas30 and 200 users; JOBS_N (300) jobs drawn from
#               FB-2010 by the paper's class mix (hyde gen fb: 68.70% light,
#               12.58% medium, 18.82% heavy), their sizes x SCALE (0.1) and
#               their arrivals uniform over SPAN (300 s), so that the
#               cluster has a backlog as the day-long trace has at its
#               peaks; NAS's class thresholds x SCALE as the sizes (the
#               jobs keep their drawn class); RUNS (3) runs per scheduler
#               on seeds 1..RUNS (a new draw of the jobs each), 95% intervals
#
# Schedulers: fair, delay (skip counts, D = 135), shufflewatcher (on delay,
# 0.8), NAS's ablations MTS alone, MTS + CA-RTS, and NAS, w/o TT, w/o both
# (Fig. 3(g)). Fig. 3(h): Fair and NAS again with USERS_H users (25 50
# 100 200 400), the same jobs drawn otherwise.
#
# Then §IV-A's real cluster (Fig. 4), in simulation and, with EMUL=1 (as
# root), on the emulated fabric:
#
#   the paper   40 nodes in 8 racks of 5, 16 containers each, 1 Gbit/s to
#               every node and between racks (5:1); 200 jobs of the
#               synthesized FB workload with Fig. 2's class mix, exponential
#               arrivals with a mean of 14 s (45 minutes of submissions);
#               Fair, Delay and NAS with a maximum wait of 5 s instead of
#               skip counts
#   here        topologies/nas40e.topo (the same at a hundredth of the
#               rates: its header says why not a tenth);
#               hyde gen fb, 200 jobs by the class mix with 200 users, the
#               trace's sizes, compressed K (F4_K, 10) times in time: bytes
#               x 1 / (100 K) (the rates' hundredth, then K), mean gap 14 s / K,
#               the derivation's base times / K, heartbeat 1 s / K, waits
#               5 s / K (delay: node_wait, with no rack wait; nas: wait=),
#               NAS's class thresholds x 1 / (100 K) (the jobs keep their
#               drawn class: class=); blocks and bytes per reduce / (100 K)
#               x F4_COARSE (10): a tenth of the trace's maps and reduces,
#               each ten times longer (the same bytes and container time),
#               because the emulated fabric spends about 35 ms of this
#               box's CPU on a map and the trace's 30,000 maps in a run
#               saturated both cores (load 32); RUNS (3) runs in simulation,
#               EMUL_RUNS (2) emulated (each 10-15 minutes), and RUNS in
#               simulation with every task of the trace (F4_COARSE 1: what
#               the coarsening changes)
#
# report.sh then writes OUT/report.md and OUT/*.png beside the paper's
# values (paper.csv).
#
# Usage: reproduce.sh [OUT]   (default runs/reproduce-nas)
# Environment: HYDE, RUNS (3), JOBS (simulations at a time, default the
# cores), JOBS_N (300), USERS (200), USERS_H ("25 50 100 200 400"), SPAN
# (300s), SCALE (0.1); DAY=1 (Fig. 3 on the whole FB-2010 day too, one
# run per scheduler, the coarser model: about 15 CPU-minutes each) or
# DAY=only (that alone; DAY_COUNT=N: the trace's first N jobs, for a
# look); F4_K (10),
# F4_COARSE (10), F4_JOBS (200), EMUL=1 and EMUL_RUNS (2); FETCH_ORDER
# (fifo, hyde's default, or random: Hadoop's, every run given
# --fetch-order; the report says which); QUICK=1: 40 jobs over 60 s, 2
# runs, Fig. 3(h) with 25 and 200 users, Fig. 4 with 20 jobs (for a look,
# not for figures); SWEEP_ONLY=1: the simulations written out as hyde
# sweeps (OUT/sweep/POINT/commands.txt for GNU parallel, slurm.sh for a
# Slurm array), nothing run; run this again once they are done. A finished
# point (its summary.csv) is kept, and a sweep's finished runs are: an
# interrupted reproduction resumes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
HYDE=${HYDE:-$src/hyde}
OUT=${1:-runs/reproduce-nas}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 1)}
if [ -n "${QUICK:-}" ]; then
	JOBS_N=${JOBS_N:-40}
	SPAN=${SPAN:-60s}
	RUNS=${RUNS:-2}
	F4_JOBS=${F4_JOBS:-20}
	EMUL_RUNS=${EMUL_RUNS:-1}
	USERS_H=${USERS_H:-25 200}
fi
RUNS=${RUNS:-3}
JOBS_N=${JOBS_N:-300}
USERS=${USERS:-200}
USERS_H=${USERS_H:-25 50 100 200 400}
SPAN=${SPAN:-300s}
SCALE=${SCALE:-0.1}
F4_K=${F4_K:-10}
F4_COARSE=${F4_COARSE:-10}
F4_JOBS=${F4_JOBS:-200}
EMUL_RUNS=${EMUL_RUNS:-2}
TOPO=$src/topologies/nas30.topo

[ -x "$HYDE" ] || { echo "reproduce.sh: no hyde at $HYDE (make first)" >&2; exit 2; }
for v in RUNS JOBS JOBS_N USERS F4_K F4_COARSE F4_JOBS EMUL_RUNS; do
	eval "x=\$$v"
	case $x in '' | *[!0-9]* | 0) echo "reproduce.sh: $v: expected a count, got '$x'" >&2; exit 2 ;; esac
done
for x in $USERS_H; do
	case $x in *[!0-9]* | 0) echo "reproduce.sh: USERS_H: expected counts, got '$USERS_H'" >&2; exit 2 ;; esac
done
case ${FETCH_ORDER:=fifo} in fifo | random) ;; *) echo "reproduce.sh: FETCH_ORDER: expected fifo or random, got '$FETCH_ORDER'" >&2; exit 2 ;; esac
if [ -n "${EMUL:-}" ] && [ "$(id -u)" != 0 ]; then
	echo "reproduce.sh: EMUL=1 runs the emulated fabric: run as root" >&2
	exit 2
fi
mkdir -p "$OUT" || exit 2

WL="gen:fb,jobs=$JOBS_N,users=$USERS,span=$SPAN,scale=$SCALE"
# NAS's class thresholds (light 1 MB, heavy 100 MB, small input 10 MB) are
# of the trace's sizes: scaled as the jobs are (the jobs keep their drawn
# class for the metrics: class=)
NAS_TH=$(awk -v s="$SCALE" 'BEGIN { if (s != 1) printf ":light=%.0fB:heavy=%.0fB:small_input=%.0fB", 1e6 * s, 1e8 * s, 1e7 * s }')
N=$NAS_TH
SCHEDS="fair,delay:form=skip,shufflewatcher,nas:ca_rts=no:cr_rts=no$N,nas:cr_rts=no$N,nas$N,nas:tt=no$N,nas:tt=no:cr_rts=no$N"
failed=
# point DIR WHAT TOPO WORKLOAD SCHEDS [hyde compare options...]: one
# comparison into DIR, kept if DIR has its summary.csv already. In the
# simulator (--backend sim) the runs are a hyde sweep in OUT/sweep/NAME
# (SWEEP_ONLY=1: written out for GNU parallel or Slurm, nothing run), read
# back with hyde compare --from, each run linked in DIR as hyde compare
# files them (LABEL/seed-N, the report reads them there); on the emulated
# fabric, hyde compare itself.
point() {
	_d=$1 _what=$2 _t=$3 _w=$4 _s=$5
	shift 5
	[ "$FETCH_ORDER" = fifo ] || set -- "$@" --fetch-order "$FETCH_ORDER"
	if [ -f "$_d/summary.csv" ]; then
		echo "reproduce-nas: $_d kept from an earlier reproduction"
		return 0
	fi
	_be=emul _n=1 _j=1 _opts=
	for _a in "$@"; do
		case $_a in --backend | --runs | -j | -B | --*) _k=$_a; continue ;; esac
		case ${_k:-} in
		--backend) _be=$_a ;;
		--runs) _n=$_a ;;
		-j) _j=$_a ;;
		-B) _opts="$_opts
backend ${_a%%=*} ${_a#*=}" ;;
		*) _opts="$_opts
option ${_k#--} $_a" ;;
		esac
		_k=
	done
	if [ "$_be" = sim ]; then
		_name=$(basename "$_d")
		mkdir -p "$OUT/sweep" || exit 2
		printf 'topology %s\nworkload %s\nscheduler %s\nseed 1..%s%s\n' "$_t" "$_w" \
			"$(echo "$_s" | tr ',' ' ')" "$_n" "$_opts" >"$OUT/sweep/$_name.spec"
		if [ -n "${SWEEP_ONLY:-}" ]; then
			"$HYDE" sweep "$OUT/sweep/$_name.spec" -o "$OUT/sweep/$_name" -n -q >/dev/null || exit 2
			return 0
		fi
	fi
	rm -rf "$_d"
	echo "reproduce-nas: $_what, each of $_s on $(basename "$_t" .topo), $_w ($(date +%H:%M:%S))"
	if [ "$_be" = sim ]; then
		nice -n 10 "$HYDE" sweep "$OUT/sweep/$_name.spec" -o "$OUT/sweep/$_name" -j "$_j" -q \
			>"$_d.sweep.txt" 2>&1 &&
			"$HYDE" compare --from "$OUT/sweep/$_name" -o "$_d" -q >"$_d.txt" 2>"$_d.err" &&
			link_runs "$OUT/sweep/$_name" "$_d"
	else
		nice -n 10 "$HYDE" compare -t "$_t" -w "$_w" -s "$_s" --seed 1 -o "$_d" -q "$@" \
			>"$_d.txt" 2>"$_d.err"
	fi
	_rc=$?
	if [ $_rc != 0 ]; then
		echo "reproduce-nas: $(basename "$_d") failed (exit $_rc): $(tail -1 "$_d.err" 2>/dev/null || tail -1 "$_d.sweep.txt")" >&2
		failed="$failed $(basename "$_d")"
	fi
}
# link_runs SWEEP DIR: each run of the sweep as DIR/LABEL/seed-N (a label's
# ':' a '-', as hyde compare names them), relative links
link_runs() {
	awk -f "$here/../sweep_tsv.awk" "$1/sweep.csv" |
		awk -F '\t' '{ lab = $7; gsub(/:/, "-", lab); print $2, lab, $NF }' |
		while read -r _rd _lab _seed; do
			mkdir -p "$2/$_lab" &&
				ln -sfn "../../sweep/${1##*/}/runs/${_rd##*/}" "$2/$_lab/seed-$_seed" || return 1
		done
}
# Fig. 3 on the paper's own workload, the whole FB-2010 day (24,442 jobs,
# the trace's arrivals), DAY=1: one run per scheduler with the coarser
# model and the grid (-B fetch=rack -B end_grid=10ms: the exact model
# cannot run the day; README, The simulator, gives their error); DAY=only
# runs this point alone
DAY_SCHEDS="fair,delay:form=skip,shufflewatcher,nas,nas:tt=no,nas:tt=no:cr_rts=no"
DAY_WL="swim:$src/workloads/traces/FB-2010_samples_24_times_1hr_0.tsv,users=$USERS${DAY_COUNT:+,count=$DAY_COUNT}"
DAY_B="-B fetch=rack -B end_grid=10ms"
[ -n "${DAY:-}" ] && point "$OUT/day" "Fig. 3 on the whole FB-2010 day" "$TOPO" "$DAY_WL" "$DAY_SCHEDS" \
	--backend sim --runs 1 -j "$JOBS" $DAY_B
if [ "${DAY:-}" = only ]; then
	[ -n "${SWEEP_ONLY:-}" ] && exit 0
	DAY_SCHEDS=$DAY_SCHEDS DAY_WL=$DAY_WL DAY_B=$DAY_B USERS=$USERS DAY_ONLY=1 FETCH_ORDER=$FETCH_ORDER "$here/report.sh" "$OUT" || exit 1
	echo "reproduce-nas: report in $OUT/report.md"
	exit 0
fi
point "$OUT/sim" "Fig. 3, $RUNS runs" "$TOPO" "$WL" "$SCHEDS" --backend sim --runs "$RUNS" -j "$JOBS"
# Fig. 3(h): NAS (and Fair, for a change at the same count) with other
# numbers of users, the same jobs otherwise; the report divides NAS's
# throughput by Fair's at USERS, as the paper by Fair's at 200
for u in $USERS_H; do
	[ "$u" = "$USERS" ] ||
		point "$OUT/users-$u" "Fig. 3(h), $RUNS runs" "$TOPO" \
			"gen:fb,jobs=$JOBS_N,users=$u,span=$SPAN,scale=$SCALE" "fair,nas$N" \
			--backend sim --runs "$RUNS" -j "$JOBS"
done
# Fig. 4: the real cluster compressed F4_K times (see the header)
# (r: nas40e's rates are the paper's / 100)
f4() { awk -v k="$F4_K" -v c="$F4_COARSE" -v r=100 "BEGIN { $1 }"; }
F4_BASE="gen:fb,jobs=$F4_JOBS,users=200,mean_gap=$(f4 'printf "%dus", 14e6 / k'),scale=$(f4 'printf "%.9g", 1 / (r * k)')"
F4_BASE="$F4_BASE,map_rate=$(f4 'printf "%dbit", 80e6 / r'),reduce_rate=$(f4 'printf "%dbit", 80e6 / r')"
F4_BASE="$F4_BASE,map_base=$(f4 'printf "%dus", 2e6 / k'),reduce_base=$(f4 'printf "%dus", 2e6 / k')"
F4_WL="$F4_BASE,block=$(f4 'printf "%dB", 134217728 * c / (r * k)'),per_reduce=$(f4 'printf "%dB", 1e9 * c / (r * k)')"
F4_FINE="$F4_BASE,block=$(f4 'printf "%dB", 134217728 / (r * k)'),per_reduce=$(f4 'printf "%dB", 1e9 / (r * k)')"
F4_HB=$(f4 'printf "%dus", 1e6 / k')
F4_WAIT=$(f4 'printf "%dus", 5e6 / k')
F4_NAS="light=$(f4 'printf "%dB", 1e6 / (r * k)'):heavy=$(f4 'printf "%dB", 1e8 / (r * k)'):small_input=$(f4 'printf "%dB", 1e7 / (r * k)')"
F4_SCHEDS="fair,delay:node_wait=$F4_WAIT:rack_wait=0s,nas:wait=$F4_WAIT:$F4_NAS"
F4_TOPO=$src/topologies/nas40e.topo
# fig4 DIR BACKEND RUNS WORKLOAD [OPTIONS...]
fig4() {
	_fd=$1 _be=$2 _n=$3 _fw=$4
	shift 4
	point "$_fd" "Fig. 4 ($_be), $_n runs" "$F4_TOPO" "$_fw" "$F4_SCHEDS" --backend "$_be" \
		--runs "$_n" --heartbeat "$F4_HB" "$@"
}
fig4 "$OUT/fig4-sim" sim "$RUNS" "$F4_WL" -j "$JOBS"
[ "$F4_COARSE" = 1 ] || fig4 "$OUT/fig4-fine" sim "$RUNS" "$F4_FINE" -j "$JOBS"
[ -n "${EMUL:-}" ] && fig4 "$OUT/fig4-emul" emul "$EMUL_RUNS" "$F4_WL"
if [ -n "${SWEEP_ONLY:-}" ]; then
	echo "reproduce-nas: the simulations written to $OUT/sweep/*/ (commands.txt, slurm.sh); once run, run this again for the report"
	exit 0
fi
DAY_SCHEDS=$DAY_SCHEDS DAY_WL=$DAY_WL DAY_B=$DAY_B \
	WL=$WL RUNS=$RUNS SCHEDS=$SCHEDS NAS_TH=$NAS_TH USERS=$USERS USERS_H=$USERS_H JOBS_N=$JOBS_N F4_WL=$F4_WL F4_FINE=$F4_FINE F4_SCHEDS=$F4_SCHEDS F4_K=$F4_K \
	F4_COARSE=$F4_COARSE FETCH_ORDER=$FETCH_ORDER \
	"$here/report.sh" "$OUT" || exit 1
echo "reproduce-nas: report in $OUT/report.md"
[ -z "$failed" ] || exit 1
exit 0
