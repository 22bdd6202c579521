#!/bin/sh
# How far one emulated run repeats (issue: fidelity, repeatable emulation):
# the same topology, workload, scheduler and seed run RUNS times with
# `hyde run`, then once with `hyde sim` for reference. Prints, per run,
# the makespan, average JCT and CCT, the box's load and the CPU time the
# run took; then each metric's mean, standard deviation and coefficient of
# variation (CV) over the runs; and where the spread comes from:
#  - decisions: the share of task starts (job, kind, index) on the same
#    host as in run 1, and of flows (by name, where flows.csv names them)
#    present in every run; a real-time controller hears of task ends in
#    the order the processes report them, so the same seed may place a
#    task elsewhere once a run's timing differs;
#  - the network: for the flows present in every run, the CV of each
#    one's FCT (median, p90), and for the jobs, the CV of each job's CCT
#    and JCT (median, p90);
#  - per flow, the fidelity goal's figure (FCT ratio, median and p90, over
#    the flows between hosts) of each run against run 1, the emulator
#    against itself, and of each run against its replay in the model.
# A benchmark: prints figures, never fails on them. Needs root.
# Usage: [RUNS=5] [SCHED=fair] [SEED=1] [OPTS="--heartbeat 0 ..."]
#        [SIM_OPTS="-B setup=1ms ..."] [DRAWS=9 [DRAW_OPTS="-B share_jitter=2"]]
#        bench/repeat.sh [TOPOLOGY WORKLOAD]
#        (OPTS: both backends; SIM_OPTS: the simulation's only, e.g. the
#        fidelity options of README's Fidelity section; DRAWS: also
#        each run against the median of that many replays with DRAW_OPTS
#        and jitter_seed 1..DRAWS)
#        (default topologies/rack8.topo workloads/fb-small.wl: the main job);
#        KEEP=1 keeps the runs (their directory is printed); FROM=DIR
#        reads the runs kept in DIR instead of running (RUNS as they were)
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
HYDE=${HYDE:-$here/../hyde}
RUNS=${RUNS:-5}
SCHED=${SCHED:-fair}
SEED=${SEED:-1}
TOPO=${1:-$src/topologies/rack8.topo}
WL=${2:-$src/workloads/fb-small.wl}
P=hyderep$$
[ -n "${FROM:-}" ] || [ "$(id -u)" = 0 ] || { echo "bench/repeat.sh: needs root" >&2; exit 2; }
case $RUNS in '' | *[!0-9]* | 0 | 1) echo "bench/repeat.sh: RUNS: expected a count of 2 or more, got '$RUNS'" >&2; exit 2 ;; esac
case ${DRAWS:-0} in *[!0-9]*) echo "bench/repeat.sh: DRAWS: expected a count, got '$DRAWS'" >&2; exit 2 ;; esac
command -v /usr/bin/time >/dev/null 2>&1 || { echo "bench/repeat.sh: needs /usr/bin/time (GNU time)" >&2; exit 2; }
if [ -n "${FROM:-}" ]; then
	tmp=$FROM
else
	tmp=$(mktemp -d /tmp/hyderepeat.XXXXXX)
	cleanup() {
		"$HYDE" clean --prefix $P >/dev/null 2>&1
		[ -n "${KEEP:-}" ] && echo "runs kept in $tmp" || rm -rf "$tmp"
	}
	trap cleanup EXIT INT TERM
fi

# a figure from summary.json: fig FILE KEY
fig() { sed -n "s/^  \"$2\": \\([0-9.eE+-]*\\),*\$/\\1/p" "$1" | head -1; }

# runs kept elsewhere say what they ran
if [ -n "${FROM:-}" ] && [ -f "$tmp/r1/summary.json" ]; then
	s=$(sed -n 's/^  "scheduler": "\([^"]*\)",*$/\1/p' "$tmp/r1/summary.json" | head -1)
	[ -n "$s" ] && SCHED=$s
fi
echo "hyde repeat: $RUNS runs of $SCHED, seed $SEED, $(basename "$TOPO") x $(basename "$WL")${OPTS:+, $OPTS}${SIM_OPTS:+, simulated with $SIM_OPTS} ($(nproc) cores)"
printf '%-5s %10s %10s %10s %7s %7s %9s\n' run makespan_s avg_jct_s avg_cct_s load0 load1 cpu_s
i=1
[ -n "${FROM:-}" ] && i=$((RUNS + 1))
while [ $i -le "$RUNS" ]; do
	l0=$(cut -d' ' -f1 /proc/loadavg)
	/usr/bin/time -f '%U %S' -o "$tmp/time$i" "$HYDE" run -t "$TOPO" -w "$WL" -s "$SCHED" \
		--seed "$SEED" ${OPTS:-} -o "$tmp/r$i" --prefix $P -q >"$tmp/out$i" 2>&1 ||
		{ echo "bench/repeat.sh: run $i failed: $(tail -2 "$tmp/out$i")" >&2; exit 1; }
	l1=$(cut -d' ' -f1 /proc/loadavg)
	cpu=$(awk '{ printf "%.1f", $1 + $2 }' "$tmp/time$i")
	printf '%-5s %10.2f %10.3f %10.3f %7s %7s %9s\n' $i "$(fig "$tmp/r$i/summary.json" makespan_s)" \
		"$(fig "$tmp/r$i/summary.json" avg_jct_s)" "$(fig "$tmp/r$i/summary.json" avg_cct_s)" \
		"$l0" "$l1" "$cpu"
	i=$((i + 1))
done
[ -f "$tmp/sim/summary.json" ] ||
	"$HYDE" sim -t "$TOPO" -w "$WL" -s "$SCHED" --seed "$SEED" ${OPTS:-} ${SIM_OPTS:-} -o "$tmp/sim" -q >/dev/null 2>&1 ||
	{ echo "bench/repeat.sh: hyde sim failed" >&2; exit 1; }
printf '%-5s %10.2f %10.3f %10.3f\n' sim "$(fig "$tmp/sim/summary.json" makespan_s)" \
	"$(fig "$tmp/sim/summary.json" avg_jct_s)" "$(fig "$tmp/sim/summary.json" avg_cct_s)"

# mean, sd and CV of each metric over the emulated runs
for k in makespan_s avg_jct_s avg_cct_s; do
	i=1
	while [ $i -le "$RUNS" ]; do
		fig "$tmp/r$i/summary.json" $k
		i=$((i + 1))
	done | awk -v k=$k -v sim="$(fig "$tmp/sim/summary.json" $k)" '
		{ x[NR] = $1; s += $1 }
		END { m = s / NR; for (i = 1; i <= NR; i++) v += (x[i] - m) ^ 2; sd = sqrt(v / (NR - 1))
		      printf "%-11s mean %9.3f  sd %8.3f  CV %5.1f%%  (sim %.3f: emulated mean / sim %.3f)\n",
			k, m, sd, 100 * sd / m, sim, (sim > 0 ? m / sim : 0) }'
done

# decisions: task starts on the same host as run 1
i=2
while [ $i -le "$RUNS" ]; do
	awk -v run=$i '$2 == "task_start" { k = $3 " " $4 " " $5
		if (FILENAME == ARGV[1]) h[k] = $6; else { n++; if (h[k] == $6) same++ } }
		END { printf "run %d: %d of %d task starts on run 1'"'"'s host (%.1f%%)\n", run, same, n, n ? 100 * same / n : 0 }' \
		"$tmp/r1/events.log" "$tmp/r$i/events.log"
	i=$((i + 1))
done

# per-job CCT and JCT, per-flow FCT (flows by name, where flows.csv has
# names): the CV of each over the runs, for the items present in every run
cv_of() { # FILE_GLOB KEYCOL VALCOL WHAT [MIN]: median and p90 of the per-item
	# CV (MIN: only items whose mean is at least that)
	awk -F, -v runs="${CV_RUNS:-$RUNS}" -v kc="$2" -v vc="$3" -v what="$4" -v min="${5:-0}" '
		FNR == 1 { for (i = 1; i <= NF; i++) { if ($i == kc) ck = i; if ($i == vc) cv = i }; next }
		ck && cv && $cv > 0 { n[$ck]++; s[$ck] += $cv; q[$ck] += $cv * $cv }
		END {
			if (!ck || !cv) { printf "%s: no %s/%s columns\n", what, kc, vc; exit }
			for (k in n) { if (s[k] / n[k] < min) continue
				total++; if (n[k] != runs) continue
				m = s[k] / runs; v = (q[k] - runs * m * m) / (runs - 1); if (v < 0) v = 0
				c[++kept] = sqrt(v) / m }
			for (i = 2; i <= kept; i++) { x = c[i]; for (j = i - 1; j >= 1 && c[j] > x; j--) c[j + 1] = c[j]; c[j + 1] = x }
			if (!kept) { printf "%s: none present in every run\n", what; exit }
			p90 = int(0.9 * kept + 0.5); if (p90 < 1) p90 = 1
			printf "%-16s %4d of %4d in every run; CV of each over the runs: median %5.1f%%, p90 %5.1f%%, worst %5.1f%%\n",
				what, kept, total, 100 * c[int((kept + 1) / 2)], 100 * c[p90], 100 * c[kept] }' $1
}
files() { i=1; while [ $i -le "$RUNS" ]; do printf '%s ' "$tmp/r$i/$1"; i=$((i + 1)); done; }
cv_of "$(files jobs.csv)" job jct_ns "job JCT"
cv_of "$(files coflows.csv)" job cct_ns "job CCT"
if head -1 "$tmp/r1/flows.csv" | grep -q ',name'; then
	cv_of "$(files flows.csv)" name fct_ns "flow FCT (name)"
	# a long flow's spread: TCP's uneven share of a link averages out
	# over a long connection (the draws' -B share_period)
	cv_of "$(files flows.csv)" name fct_ns "flow FCT >= 10 s" 10000000000
else
	echo "flow FCT: flows.csv has no name column: flows are not comparable across runs"
fi

# The per-flow figure the fidelity goal is stated on (FCT ratio over the
# flows between hosts, hyde fidelity), for the emulator against itself
# (each run against run 1: how far TCP alone moves a flow, the floor under
# any model's error) and for each run against its replay in the model
# (hyde sim --replay with SIM_OPTS: the decisions held equal)
between() { # FIDELITY_OUTPUT: n, ratio median / p90 of the flows between hosts
	awk '/^  between hosts / { printf "n %4d  median %6.3f  p90 %6.3f", $3, $4, $5; exit }' "$1"
}
echo "flow FCT ratio, flows between hosts (hyde fidelity; the per-flow goal: median 0.9-1.1, p90 under 1.5):"
i=2
while [ $i -le "$RUNS" ]; do
	mkdir -p "$tmp/fid$i"
	"$HYDE" fidelity "$tmp/r$i" "$tmp/r1" -o "$tmp/fid$i" >"$tmp/fid$i.txt" 2>&1 &&
		printf '  run %d against run 1 (the emulator against itself): %s\n' $i "$(between "$tmp/fid$i.txt")"
	i=$((i + 1))
done
i=1
while [ $i -le "$RUNS" ]; do
	[ -f "$tmp/rp$i/flows.csv" ] ||
		"$HYDE" sim --replay "$tmp/r$i" ${SIM_OPTS:-} -o "$tmp/rp$i" -q >/dev/null 2>&1
	mkdir -p "$tmp/fidp$i"
	"$HYDE" fidelity "$tmp/r$i" "$tmp/rp$i" -o "$tmp/fidp$i" >"$tmp/fidp$i.txt" 2>&1 &&
		printf '  run %d against its replay%s: %s, %s OCS flows stranded\n' $i "${SIM_OPTS:+ ($SIM_OPTS)}" \
			"$(between "$tmp/fidp$i.txt")" \
			"$(sed -n 's/^FCT: .*not ended: [0-9]* in EMUL_RUN, \([0-9]*\) in SIM_RUN.*/\1/p' "$tmp/fidp$i.txt")"
	i=$((i + 1))
done
# and against the model's median over DRAWS replays with TCP's uneven
# share drawn (DRAW_OPTS, jitter_seed 1..DRAWS; hyde fidelity with several
# SIM_RUNs): the plain model's even share ends most flows of a shared link
# later than TCP's uneven one, and the median of the draws is the model's
# prediction where that share is a draw it does not know
if [ "${DRAWS:-0}" -gt 0 ]; then
	i=1
	while [ $i -le "$RUNS" ]; do
		ds=""
		j=1
		while [ $j -le "$DRAWS" ]; do
			# shellcheck disable=SC2086
			[ -f "$tmp/rd$i-$j/flows.csv" ] ||
				"$HYDE" sim --replay "$tmp/r$i" ${SIM_OPTS:-} ${DRAW_OPTS:--B share_jitter=2} \
					-B jitter_seed=$j -o "$tmp/rd$i-$j" -q >/dev/null 2>&1 ||
				{ echo "bench/repeat.sh: replay draw $j of run $i failed" >&2; exit 1; }
			ds="$ds $tmp/rd$i-$j"
			j=$((j + 1))
		done
		mkdir -p "$tmp/fidd$i"
		# shellcheck disable=SC2086
		"$HYDE" fidelity "$tmp/r$i" $ds -o "$tmp/fidd$i" >"$tmp/fidd$i.txt" 2>&1 &&
			printf '  run %d against the median of %d replays (%s): %s, %s OCS flows stranded\n' $i "$DRAWS" \
				"$(echo ${SIM_OPTS:-} ${DRAW_OPTS:--B share_jitter=2})" "$(between "$tmp/fidd$i.txt")" \
				"$(sed -n 's/^FCT: .*not ended: [0-9]* in EMUL_RUN, \([0-9]*\) in SIM_RUN.*/\1/p' "$tmp/fidd$i.txt")"
		i=$((i + 1))
	done
	# the spread the draws give a flow, beside the runs' (flow FCT above):
	# share_jitter's width is chosen to match it
	ds=""
	j=1
	while [ $j -le "$DRAWS" ]; do ds="$ds $tmp/rd1-$j/flows.csv"; j=$((j + 1)); done
	[ "$DRAWS" -gt 1 ] && CV_RUNS=$DRAWS cv_of "$ds" name fct_ns "flow FCT, run 1's replays (draws)"
	[ "$DRAWS" -gt 1 ] && CV_RUNS=$DRAWS cv_of "$ds" name fct_ns "flow FCT >= 10 s, run 1's replays (draws)" 10000000000
fi
