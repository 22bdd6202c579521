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
#               peaks; RUNS (3) runs per scheduler on seeds 1..RUNS (a new
#               draw of the jobs each), 95% intervals
#
# Schedulers: fair, delay (skip counts, D = 135), shufflewatcher (on delay,
# 0.8), NAS's ablations MTS alone, MTS + CA-RTS, and NAS, w/o TT, w/o both
# (Fig. 3(g)). Then report.sh writes OUT/report.md and OUT/*.png beside
# the paper's values (paper.csv).
#
# Usage: reproduce.sh [OUT]   (default runs/reproduce-nas)
# Environment: HYDE, RUNS (3), JOBS (simulations at a time, default the
# cores), JOBS_N (300), USERS (200), SPAN (300s), SCALE (0.1); QUICK=1: 40
# jobs over 60 s, 2 runs (for a look, not for figures). A finished
# point (its summary.csv) is kept: an interrupted reproduction resumes.
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
fi
RUNS=${RUNS:-3}
JOBS_N=${JOBS_N:-300}
USERS=${USERS:-200}
SPAN=${SPAN:-300s}
SCALE=${SCALE:-0.1}
TOPO=$src/topologies/nas30.topo

[ -x "$HYDE" ] || { echo "reproduce.sh: no hyde at $HYDE (make first)" >&2; exit 2; }
for v in RUNS JOBS JOBS_N USERS; do
	eval "x=\$$v"
	case $x in '' | *[!0-9]* | 0) echo "reproduce.sh: $v: expected a count, got '$x'" >&2; exit 2 ;; esac
done
mkdir -p "$OUT" || exit 2

WL="gen:fb,jobs=$JOBS_N,users=$USERS,span=$SPAN,scale=$SCALE"
SCHEDS="fair,delay:form=skip,shufflewatcher,nas:ca_rts=no:cr_rts=no,nas:cr_rts=no,nas,nas:tt=no,nas:tt=no:cr_rts=no"
failed=
dir=$OUT/sim
if [ -f "$dir/summary.csv" ]; then
	echo "reproduce-nas: $dir kept from an earlier reproduction"
else
	rm -rf "$dir"
	echo "reproduce-nas: $RUNS runs each of $SCHEDS on nas30, $WL ($(date +%H:%M:%S))"
	nice -n 10 "$HYDE" compare --backend sim -t "$TOPO" -w "$WL" -s "$SCHEDS" --runs "$RUNS" \
		--seed 1 -j "$JOBS" -o "$dir" -q >"$dir.txt" 2>"$dir.err"
	rc=$?
	if [ $rc != 0 ]; then
		echo "reproduce-nas: hyde compare exited $rc: $(tail -1 "$dir.err")" >&2
		failed=sim
	fi
fi
WL=$WL RUNS=$RUNS SCHEDS=$SCHEDS "$here/report.sh" "$OUT" || exit 1
echo "reproduce-nas: report in $OUT/report.md"
[ -z "$failed" ] || exit 1
exit 0
