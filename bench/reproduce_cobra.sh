#!/bin/sh
# make reproduce-cobra: COBRA [COBRA] in hyde's setting,
# with repeated runs, PNG figures and a markdown report beside the paper's
# values: Fig. 2's toy, Fig. 5 (simulation, 100 hosts of 8 cores and 16GB,
# a synthetic stand-in for the Google trace, at three loads), Fig. 6 (the
# ramp of running tasks for jobs of more than 2000 tasks), Fig. 7 (rho and
# delta sweeps) and Fig. 8 (28 hosts of 2 cores and 4GB, Table III's
# workloads: in simulation, and, as root, in emulation with time scaled by
# EMUL_SCALE).
#
# Environment: HYDE (the binary), HYDE_SRCDIR, OUT (default
# runs/reproduce-cobra), SEEDS (default "1 2 3"), EMUL (auto: as root;
# no: skip), EMUL_REPS (2), EMUL_APPS (20), EMUL_SCALE (0.25), JOBS
# (simulations at a time, default the cores), SWEEP_ONLY (yes: the
# simulations written out as hyde sweeps for GNU parallel or Slurm,
# nothing run; run this again once they are done).
set -eu
HYDE=${HYDE:-./hyde}
SRC=${HYDE_SRCDIR:-.}
OUT=${OUT:-runs/reproduce-cobra}
SEEDS=${SEEDS:-"1 2 3"}
EMUL=${EMUL:-auto}
EMUL_REPS=${EMUL_REPS:-2}
EMUL_APPS=${EMUL_APPS:-20}
EMUL_SCALE=${EMUL_SCALE:-0.25}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 1)}
T100=$SRC/topologies/cobra100.topo
T28=$SRC/topologies/cobra28.topo
GAPS="4s 2s 1s"
SPARK_GAPS="60s 15s 5s" # 60s: the paper's
MAIN_GAP=2s
NICE="nice -n 10"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
LOG=$OUT/runs.log
: >"$LOG"
say() { printf '%s\n' "$*" >&2; }
have_gnuplot=yes
command -v gnuplot >/dev/null 2>&1 || have_gnuplot=no

# ---- running and measuring ----

# spec "name:k=v:k=v" -> "-s name -S k=v -S k=v"
sched_args() {
	echo "$1" | awk -F: '{ printf "-s %s", $1; for (i = 2; i <= NF; i++) printf " -S %s", $i }'
}

# The figures' functions run twice: first with QUEUE=yes, where sim only
# queues its run (repro/simqueue.sh; metrics reads nothing), then the queue
# runs as hyde sweeps (one per topology, scheduler, options and seed, the
# workloads its grid; JOBS at a time, or written out for GNU parallel or
# Slurm with SWEEP_ONLY=yes), each run linked where the figures read it;
# then again, every run done, to measure. (Fig. 8's emulation runs its
# simulations beside it, one at a time, as before.)
QUEUE=no
. "$SRC/repro/simqueue.sh"
simq_init "$OUT" "$SRC"
# sim DIR TOPO WL SPEC [hyde sim options...]
sim() { # (sh has no locals: these names are sim's own)
	sim_d=$1 sim_t=$2 sim_w=$3 sim_spec=$4
	shift 4
	if [ "$QUEUE" = yes ]; then
		simq_add "$sim_d" "$sim_t" "$sim_w" "$sim_spec" "$@" || exit 2
		return 0
	fi
	# done by the queue; or not queued (Fig. 8's scaled runs beside the
	# emulation): run here
	[ -f "$sim_d/app/apps.csv" ] && return 0
	# shellcheck disable=SC2046
	$NICE "$HYDE" sim -t "$sim_t" -w "$sim_w" $(sched_args "$sim_spec") -o "$sim_d" -q "$@" \
		>>"$LOG" 2>&1 || { say "FAILED: hyde sim $sim_spec on $sim_w (see $LOG)"; return 1; }
}

# avg response (s) and makespan (s, last end - first arrival) of a run
metrics() {
	if [ "$QUEUE" = yes ]; then echo "nan nan 0" && return 0; fi
	awk -F, 'NR > 1 && $7 >= 0 { r += $8; n++; if (first == "" || $6 < first) first = $6;
		if ($7 > last) last = $7 }
		END { if (n) printf "%.3f %.3f %d\n", r / n / 1e9, (last - first) / 1e9, n; else print "nan nan 0" }' \
		"$1/app/apps.csv"
}

# mean, min and max of column k over lines
stats() {
	awk -v k="$1" '{ v = $k; s += v; n++; if (n == 1 || v < lo) lo = v; if (n == 1 || v > hi) hi = v }
		END { if (n) printf "%.1f %.1f %.1f\n", s / n, lo, hi; else print "nan nan nan" }'
}

pct() { # (a - b) / b in %
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%+.1f%%", 100 * (a - b) / b; else print "n/a" }'
}

# ---- Fig. 2: the toy ----
toy() {
	d=$OUT/toy
	mkdir -p "$d"
	cat >"$d/toy.topo" <<'EOF'
name toy
racks 1
hosts 1
containers 2
cores 2
memory 4GB
container_delay 1s
replicas 1
host_rate 1Gbit
oversub 1
ocs no
EOF
	app() { # ID ARRIVAL
		printf 'job id=%s01 app=%s arrival=%s input=3KB shuffle=2KB output=2KB maps=3 reduces=2 map_time=5s reduce_time=3s map_cpu=0.5 map_mem=1GB reduce_cpu=0.5 reduce_mem=1GB\n' "$1" "$1" "$2"
		printf 'job id=%s2 app=%s arrival=%s input=parents shuffle=0B output=1KB maps=1 reduces=0 map_time=3s map_cpu=0.5 map_mem=1GB parents=%s01\n' "$1" "$1" "$2" "$1"
	}
	app J 0s >"$d/one.wl"
	{ app J1 0s; app J2 5s; } >"$d/two.wl"
	{
		echo "| Fig. 2(b): one job | paper | hyde |"
		echo "|---|---|---|"
		for spec in default tetris cobra:d1=2; do
			sim "$d/one-$spec" "$d/toy.topo" "$d/one.wl" "$spec" --no-io --heartbeat 0
			case $spec in default) p=20 ;; tetris) p=14 ;; *) p=12 ;; esac
			echo "| $spec | ${p}s | $(metrics "$d/one-$spec" | awk '{ printf "%gs", $1 }') |"
		done
		echo
		echo "| Fig. 2(c): two jobs, mean response | paper | hyde |"
		echo "|---|---|---|"
		for spec in srs:pack=yes cobra:d1=2 cobra:d1=2:waiting_period=no:round_nearest=yes; do
			sim "$d/two-$spec" "$d/toy.topo" "$d/two.wl" "$spec" --no-io --heartbeat 0
			case $spec in srs*) p="16s (static)" ;; *) p="15s (dynamic)" ;; esac
			echo "| $spec | $p | $(metrics "$d/two-$spec" | awk '{ printf "%gs", $1 }') |"
		done
	} >"$OUT/toy.md"
}

# ---- Fig. 5: simulation on the Google-trace stand-in ----
fig5() {
	d=$OUT/fig5
	mkdir -p "$d"
	: >"$d/results.txt" # gap sched seed response makespan
	for gap in $GAPS; do
		for seed in $SEEDS; do
			w=$d/gtrace-$gap-$seed.wl
			[ -f "$w" ] || "$HYDE" gen gtrace seed="$seed" mean_gap="$gap" -o "$w"
			for spec in default tetris cobra; do
				sim "$d/$gap-$spec-$seed" "$T100" "$w" "$spec" --no-io --seed "$seed"
				echo "$gap $spec $seed $(metrics "$d/$gap-$spec-$seed")" >>"$d/results.txt"
			done
		done
	done
	# tau: Pdelay's waits (the paper gives no value)
	for tau in 0 0.1 0.25 0.5 1 2; do
		for seed in $SEEDS; do
			spec=cobra:tau=$tau
			sim "$d/tau-$tau-$seed" "$T100" "$d/gtrace-$MAIN_GAP-$seed.wl" "$spec" --no-io --seed "$seed"
			echo "tau$tau $spec $seed $(metrics "$d/tau-$tau-$seed")" >>"$d/results.txt"
		done
	done
}

# ---- Fig. 6: the ramp for jobs of more than 2000 tasks ----
fig6() {
	d=$OUT/fig6
	mkdir -p "$d"
	w=$d/large.wl
	[ -f "$w" ] || "$HYDE" gen gtrace seed=1 apps=3 mean_gap=0s tasks_min=2000 tasks_max=2500 \
		two_stage=0 three_stage=0 -o "$w"
	for spec in default tetris cobra; do
		sim "$d/$spec" "$T100" "$w" "$spec" --no-io
		[ "$QUEUE" = no ] || continue
		# running tasks each second
		awk '$2 == "task_start" { t = int($1 / 1e9); up[t]++; if (t > m) m = t }
			$2 == "task_done" { t = int($1 / 1e9); dn[t]++; if (t > m) m = t }
			END { for (t = 0; t <= m; t++) { run += up[t] - dn[t]; print t, run } }' \
			"$d/$spec/events.log" >"$d/$spec.running"
	done
}

# ---- Fig. 7: rho and delta ----
fig7() {
	d=$OUT/fig7
	mkdir -p "$d"
	: >"$d/results.txt" # param value seed response makespan
	for seed in $SEEDS; do
		w=$OUT/fig5/gtrace-$MAIN_GAP-$seed.wl
		# at the default tau, and at tau = 0 (no locality waits: Af alone)
		for tau in 0.5 0; do
			for rho in 1.2 1.5 2 3; do
				sim "$d/rho-$rho-tau$tau-$seed" "$T100" "$w" "cobra:rho=$rho:tau=$tau" --no-io --seed "$seed"
				echo "rho$tau $rho $seed $(metrics "$d/rho-$rho-tau$tau-$seed")" >>"$d/results.txt"
			done
			for du in 0.5 0.6 0.7 0.8 0.9; do
				sim "$d/delta-$du-tau$tau-$seed" "$T100" "$w" "cobra:delta_u=$du:tau=$tau" --no-io --seed "$seed"
				echo "delta$tau $du $seed $(metrics "$d/delta-$du-tau$tau-$seed")" >>"$d/results.txt"
			done
		done
	done
}

# ---- Fig. 8: Table III's workloads on 28 hosts ----
fig8_sim() {
	d=$OUT/fig8-sim
	mkdir -p "$d"
	: >"$d/results.txt"
	for gap in $SPARK_GAPS; do
		for seed in $SEEDS; do
			w=$d/spark-$gap-$seed.wl
			[ -f "$w" ] || "$HYDE" gen spark seed="$seed" mean_gap="$gap" -o "$w"
			for spec in srs drs cobra cobra:tau=0; do
				sim "$d/$gap-$spec-$seed" "$T28" "$w" "$spec" --seed "$seed"
				echo "$gap $spec $seed $(metrics "$d/$gap-$spec-$seed")" >>"$d/results.txt"
			done
		done
	done
}

# the deployment's setting with every time x EMUL_SCALE: arrivals and
# tasks (gen spark time_scale), heartbeats, container response, Af's
# period, Spark's waits and timeouts
scaled_specs() {
	awk -v k="$EMUL_SCALE" 'BEGIN {
		printf "srs:locality_wait=%gms\n", 3000 * k
		printf "drs:locality_wait=%gms:backlog_timeout=%gms:sustained_timeout=%gms:idle_timeout=%gms\n", 3000 * k, 1000 * k, 1000 * k, 60000 * k
		printf "cobra:period=%gms\n", 5000 * k }'
}

fig8_emul() {
	d=$OUT/fig8-emul
	mkdir -p "$d"
	: >"$d/results.txt"
	# 100Mbit links (a tenth of the paper's) and bytes x EMUL_SCALE / 10:
	# a transfer takes the same share of a task's time as at 1Gbit
	sed -e "s/^container_delay .*/container_delay table1:$EMUL_SCALE/" \
		-e "s/^host_rate .*/host_rate 100Mbit/" "$T28" >"$d/cobra28-scaled.topo"
	bytes=$(awk -v k="$EMUL_SCALE" 'BEGIN { print k / 10 }')
	hb=$(awk -v k="$EMUL_SCALE" 'BEGIN { printf "%gms", 1000 * k }')
	rep=1
	while [ "$rep" -le "$EMUL_REPS" ]; do
		w=$d/spark-$rep.wl
		[ -f "$w" ] || "$HYDE" gen spark seed="$rep" apps="$EMUL_APPS" time_scale="$EMUL_SCALE" \
			size_scale="$bytes" -o "$w"
		for spec in $(scaled_specs); do
			name=${spec%%:*}
			if [ ! -f "$d/$name-$rep/app/apps.csv" ]; then
				say "  emulation: $name, run $rep of $EMUL_REPS ..."
				# shellcheck disable=SC2046
				$NICE "$HYDE" run -t "$d/cobra28-scaled.topo" -w "$w" $(sched_args "$spec") \
					--heartbeat "$hb" --seed "$rep" --prefix hydecobra --no-analyze -q \
					-o "$d/$name-$rep" >>"$LOG" 2>&1 ||
					{ say "FAILED: hyde run $spec (see $LOG)"; rep=$((rep + 1)); continue; }
			fi
			echo "emul $name $rep $(metrics "$d/$name-$rep")" >>"$d/results.txt"
			# the same, simulated
			sim "$d/sim-$name-$rep" "$d/cobra28-scaled.topo" "$w" "$spec" --heartbeat "$hb" --seed "$rep"
			echo "simscaled $name $rep $(metrics "$d/sim-$name-$rep")" >>"$d/results.txt"
		done
		rep=$((rep + 1))
	done
}

# ---- figures ----

plot() { # script
	[ "$have_gnuplot" = yes ] || return 0
	gnuplot -e "$1" >>"$LOG" 2>&1 || say "gnuplot failed (see $LOG)"
}

cdf_data() { # out dirs...: response times (s), sorted, with F
	cdf_o=$1
	shift
	for cdf_r in "$@"; do awk -F, 'NR > 1 && $8 >= 0 { print $8 / 1e9 }' "$cdf_r/app/apps.csv"; done |
		sort -g | awk '{ v[NR] = $1 } END { for (i = 1; i <= NR; i++) print v[i], i / NR }' >"$cdf_o"
}

figures() {
	set +e
	term='set terminal pngcairo size 800,500 noenhanced font ",11"'
	# Fig. 5: normalised to default, per load
	for gap in $GAPS; do
		for spec in default tetris cobra; do
			r=$(awk -v g="$gap" -v s="$spec" '$1 == g && $2 == s' "$OUT/fig5/results.txt" | stats 4 | cut -d' ' -f1)
			m=$(awk -v g="$gap" -v s="$spec" '$1 == g && $2 == s' "$OUT/fig5/results.txt" | stats 5 | cut -d' ' -f1)
			echo "$gap $spec $r $m"
		done
	done >"$OUT/fig5/means.txt"
	awk '{ if ($2 == "default") { r0 = $3; m0 = $4 } ; v[NR] = $0; g[NR] = $1; s[NR] = $2; r[NR] = $3; m[NR] = $4 }
		END { for (i = 1; i <= NR; i++) if (s[i] != "default") {
			for (j = 1; j <= NR; j++) if (g[j] == g[i] && s[j] == "default") { rb = r[j]; mb = m[j] }
			print g[i] "-" s[i], r[i] / rb, m[i] / mb } }' "$OUT/fig5/means.txt" >"$OUT/fig5/norm.txt"
	plot "$term; set output '$OUT/fig5-normalised.png'; set title 'Fig. 5 (simulation, Google-trace stand-in): relative to default'; set style data histograms; set style fill solid 0.8; set yrange [0:*]; set ylabel 'relative to default (1 = default)'; set xtics rotate by -30; plot '$OUT/fig5/norm.txt' using 2:xtic(1) title 'mean response', '' using 3 title 'makespan', 1 notitle lc rgb 'black'"
	for spec in default tetris cobra; do
		# shellcheck disable=SC2046
		cdf_data "$OUT/fig5/cdf-$spec.txt" $(for s in $SEEDS; do echo "$OUT/fig5/$MAIN_GAP-$spec-$s"; done)
	done
	plot "$term; set output '$OUT/fig5-cdf.png'; set title 'Fig. 5: response times, mean gap $MAIN_GAP (seeds $SEEDS pooled)'; set logscale x; set xlabel 'response time (s)'; set ylabel 'CDF'; set key bottom right; plot '$OUT/fig5/cdf-default.txt' w l lw 2 t 'default', '$OUT/fig5/cdf-tetris.txt' w l lw 2 t 'tetris', '$OUT/fig5/cdf-cobra.txt' w l lw 2 t 'cobra'"
	plot "$term; set output '$OUT/fig6-running.png'; set title 'Fig. 6: running tasks, 3 apps of 2000-2500 tasks at time 0'; set xlabel 'time (s)'; set ylabel 'running tasks'; plot '$OUT/fig6/default.running' w l lw 2 t 'default', '$OUT/fig6/tetris.running' w l lw 2 t 'tetris', '$OUT/fig6/cobra.running' w l lw 2 t 'cobra'"
	# Fig. 7: reduction of the mean response against default, same seeds
	for p in rho0.5 delta0.5 rho0 delta0; do
		awk -v p="$p" -v g="$MAIN_GAP" 'FILENAME ~ /fig5/ && $1 == g && $2 == "default" { base[$3] = $4 }
			FILENAME ~ /fig7/ && $1 == p { red[$2] += 100 * (base[$3] - $4) / base[$3]; n[$2]++ }
			END { for (v in red) printf "%s %.2f\n", v, red[v] / n[v] }' \
			"$OUT/fig5/results.txt" "$OUT/fig7/results.txt" | sort -g >"$OUT/fig7/$p.txt"
	done
	plot "$term; set output '$OUT/fig7-rho.png'; set title 'Fig. 7(a): delta_u = 0.7'; set xlabel 'rho'; set ylabel 'mean response reduction vs default (%)'; set key bottom right; plot '$OUT/fig7/rho0.5.txt' w lp lw 2 pt 7 t 'cobra, tau 0.5', '$OUT/fig7/rho0.txt' w lp lw 2 pt 5 t 'cobra, tau 0', 0 notitle lc rgb 'black'"
	plot "$term; set output '$OUT/fig7-delta.png'; set title 'Fig. 7(b): rho = 1.5'; set xlabel 'delta_u'; set ylabel 'mean response reduction vs default (%)'; set key bottom right; plot '$OUT/fig7/delta0.5.txt' w lp lw 2 pt 7 t 'cobra, tau 0.5', '$OUT/fig7/delta0.txt' w lp lw 2 pt 5 t 'cobra, tau 0', 0 notitle lc rgb 'black'"
	for spec in srs drs cobra; do
		# shellcheck disable=SC2046
		cdf_data "$OUT/fig8-sim/cdf-$spec.txt" $(for s in $SEEDS; do echo "$OUT/fig8-sim/60s-$spec-$s"; done)
		if [ -s "$OUT/fig8-emul/results.txt" ]; then
			# shellcheck disable=SC2046
			cdf_data "$OUT/fig8-emul/cdf-$spec.txt" $(ls -d "$OUT/fig8-emul/$spec"-[0-9]* 2>/dev/null)
		fi
	done
	plot "$term; set output '$OUT/fig8-sim-cdf.png'; set title 'Fig. 8(a) in simulation: response times, 28 hosts, mean gap 60s'; set xlabel 'response time (s)'; set ylabel 'CDF'; set key bottom right; plot '$OUT/fig8-sim/cdf-srs.txt' w l lw 2 t 'SRS', '$OUT/fig8-sim/cdf-drs.txt' w l lw 2 t 'DRS', '$OUT/fig8-sim/cdf-cobra.txt' w l lw 2 t 'COBRA'"
	if [ -s "$OUT/fig8-emul/results.txt" ]; then
		plot "$term; set output '$OUT/fig8-emul-cdf.png'; set title 'Fig. 8(a) in emulation (time x $EMUL_SCALE): response times'; set xlabel 'response time (s)'; set ylabel 'CDF'; set key bottom right; plot '$OUT/fig8-emul/cdf-srs.txt' w l lw 2 t 'SRS', '$OUT/fig8-emul/cdf-drs.txt' w l lw 2 t 'DRS', '$OUT/fig8-emul/cdf-cobra.txt' w l lw 2 t 'COBRA'"
	fi
	set -e
}

# ---- the report ----

row() { # file filter-awk label -> "| label | resp mean [min-max] | makespan ... |"
	awk "$2" "$1" >"$OUT/.sel"
	r=$(stats 4 <"$OUT/.sel")
	m=$(stats 5 <"$OUT/.sel")
	echo "$r $m"
}

report() {
	f=$OUT/report.md
	{
		echo "# COBRA (Zhang et al., INFOCOM 2018) in hyde: make reproduce-cobra"
		echo
		echo "Generated by bench/reproduce_cobra.sh on $(date -u +%Y-%m-%d) ($(uname -n), $(nproc) cores);"
		echo "seeds: $SEEDS. Every number below is a mean over the seeds with [min-max];"
		echo "response: an app's arrival to its end; makespan: last end - first arrival."
		echo "Relative figures compare means; negative is better (shorter)."
		echo
		echo "## Fig. 2: the toy example (exact, simulator)"
		echo
		cat "$OUT/toy.md"
		echo
		echo "## Fig. 5: simulation, 100 hosts of 8 cores and 16GB (cobra100.topo), Google-trace stand-in (hyde gen gtrace)"
		echo
		echo "| mean gap (load) | scheduler | mean response (s) | makespan (s) |"
		echo "|---|---|---|---|"
		for gap in $GAPS; do
			for spec in default tetris cobra; do
				set -- $(row "$OUT/fig5/results.txt" "\$1 == \"$gap\" && \$2 == \"$spec\"")
				echo "| $gap | $spec | $1 [$2-$3] | $4 [$5-$6] |"
			done
		done
		echo
		echo "| mean gap | cobra vs tetris, response | paper | cobra vs default, response | paper | cobra vs default, makespan | paper | cobra vs tetris, makespan | paper |"
		echo "|---|---|---|---|---|---|---|---|---|"
		for gap in $GAPS; do
			get() { awk -v g="$gap" -v s="$1" -v c="$2" '$1 == g && $2 == s { print $c }' "$OUT/fig5/means.txt"; }
			echo "| $gap | $(pct "$(get cobra 3)" "$(get tetris 3)") | within +7% | $(pct "$(get cobra 3)" "$(get default 3)") | -35% | $(pct "$(get cobra 4)" "$(get default 4)") | about -40% | $(pct "$(get cobra 4)" "$(get tetris 4)") | within +9% |"
		done
		echo
		echo "Pdelay's tau (no value in the paper; the default 0.5), mean gap $MAIN_GAP:"
		echo
		echo "| tau | mean response (s) | makespan (s) | response vs default | makespan vs default |"
		echo "|---|---|---|---|---|"
		dr=$(awk -v g="$MAIN_GAP" '$1 == g && $2 == "default" { print $3 }' "$OUT/fig5/means.txt")
		dm=$(awk -v g="$MAIN_GAP" '$1 == g && $2 == "default" { print $4 }' "$OUT/fig5/means.txt")
		for tau in 0 0.1 0.25 0.5 1 2; do
			set -- $(row "$OUT/fig5/results.txt" "\$1 == \"tau$tau\"")
			echo "| $tau | $1 [$2-$3] | $4 [$5-$6] | $(pct "$1" "$dr") | $(pct "$4" "$dm") |"
		done
		echo
		echo "Breakdown, mean gap $MAIN_GAP (all seeds): mean response by the app's tasks (and how many"
		echo "apps), and the mean wait of a task (its start minus its job's readiness):"
		echo
		echo "| run | apps of 1-5 tasks | 6-100 | over 100 | task wait (s) |"
		echo "|---|---|---|---|---|"
		for r in "$MAIN_GAP-default:default" "$MAIN_GAP-tetris:tetris" "$MAIN_GAP-cobra:cobra" "tau-0:cobra, tau 0"; do
			pre=${r%%:*}
			for s in $SEEDS; do
				awk -F, 'NR > 1 { c = $4 <= 5 ? 1 : $4 <= 100 ? 2 : 3; print c, $8 / 1e9 }' "$OUT/fig5/$pre-$s/app/apps.csv"
			done | awk '{ r[$1] += $2; n[$1]++ } END { printf "%.1f (%d) | %.1f (%d) | %.1f (%d)", r[1] / n[1], n[1], r[2] / n[2], n[2], r[3] / n[3], n[3] }' >"$OUT/.b1"
			for s in $SEEDS; do
				awk '$2 == "job_ready" { rd[$3] = $1 } $2 == "task_start" { print ($1 - rd[$3]) / 1e9 }' "$OUT/fig5/$pre-$s/events.log"
			done | awk '{ w += $1; n++ } END { printf "%.1f", w / n }' >"$OUT/.b2"
			echo "| ${r#*:} | $(cat "$OUT/.b1") | $(cat "$OUT/.b2") |"
		done
		echo
		echo "Af's periods by case (cobra, all seeds): the share of periods found inefficient, deprived, satisfied:"
		echo
		echo "| mean gap | inefficient | deprived | satisfied |"
		echo "|---|---|---|---|"
		for gap in $GAPS; do
			for s in $SEEDS; do grep -o -- "-> [a-z]*" "$OUT/fig5/$gap-cobra-$s/events.log"; done |
				awk -v g="$gap" '{ c[$2]++; n++ } END { printf "| %s | %.0f%% | %.0f%% | %.0f%% |\n", g, 100 * c["inefficient"] / n, 100 * c["deprived"] / n, 100 * c["satisfied"] / n }'
		done
		echo
		echo "![Fig. 5 normalised](fig5-normalised.png) ![Fig. 5 CDF](fig5-cdf.png)"
		echo
		echo "## Fig. 6: running tasks, three apps of 2000-2500 tasks submitted at 0"
		echo
		echo "| scheduler | peak running tasks | first second at 90% of its peak | last task done (s) |"
		echo "|---|---|---|---|"
		for spec in default tetris cobra; do
			awk -v s="$spec" '{ if ($2 > p) p = $2; v[NR] = $2; t[NR] = $1 }
				END { for (i = 1; i <= NR; i++) if (v[i] >= 0.9 * p) { f = t[i]; break }
					printf "| %s | %d | %d | %d |\n", s, p, f, t[NR] }' "$OUT/fig6/$spec.running"
		done
		echo
		echo "Paper: COBRA reaches almost Tetris's peak, much above Default's, ramping up exponentially."
		echo
		echo "![Fig. 6](fig6-running.png)"
		echo
		echo "## Fig. 7: sensitivity (mean gap $MAIN_GAP), mean response reduction against default"
		echo
		echo "| rho (delta_u 0.7) | reduction, tau 0.5 | reduction, tau 0 |"
		echo "|---|---|---|"
		join "$OUT/fig7/rho0.5.txt" "$OUT/fig7/rho0.txt" | awk '{ printf "| %s | %.1f%% | %.1f%% |\n", $1, $2, $3 }'
		echo
		echo "| delta_u (rho 1.5) | reduction, tau 0.5 | reduction, tau 0 |"
		echo "|---|---|---|"
		join "$OUT/fig7/delta0.5.txt" "$OUT/fig7/delta0.txt" | awk '{ printf "| %s | %.1f%% | %.1f%% |\n", $1, $2, $3 }'
		echo
		echo "Paper: rho = 1.5 is a good choice, rho = 3 delays other jobs; a smaller delta wastes"
		echo "resources, a larger one delays the job itself (both curves peak inside the range)."
		echo
		echo "![Fig. 7 rho](fig7-rho.png) ![Fig. 7 delta](fig7-delta.png)"
		echo
		echo "## Fig. 8: Table III's workloads, 28 hosts of 2 cores and 4GB (cobra28.topo)"
		echo
		echo "Simulation at the paper's time scale (hyde gen spark, 30 apps; mean gap 60s as the paper, then"
		echo "15s and 5s for more load; HDFS and shuffle traffic on):"
		echo
		echo "| mean gap | scheduler | mean response (s) | makespan (s) | vs SRS: response | makespan |"
		echo "|---|---|---|---|---|---|"
		for gap in $SPARK_GAPS; do
			s_r=$(awk -v g="$gap" '$1 == g && $2 == "srs"' "$OUT/fig8-sim/results.txt" | stats 4 | cut -d' ' -f1)
			s_m=$(awk -v g="$gap" '$1 == g && $2 == "srs"' "$OUT/fig8-sim/results.txt" | stats 5 | cut -d' ' -f1)
			for spec in srs drs cobra cobra:tau=0; do
				set -- $(row "$OUT/fig8-sim/results.txt" "\$1 == \"$gap\" && \$2 == \"$spec\"")
				echo "| $gap | $spec | $1 [$2-$3] | $4 [$5-$6] | $(pct "$1" "$s_r") | $(pct "$4" "$s_m") |"
			done
		done
		echo
		echo "Paper (deployment, mean gap 60s): COBRA vs SRS, mean response -37%, makespan -38%."
		echo
		echo "![Fig. 8 simulation](fig8-sim-cdf.png)"
		echo
		if [ -s "$OUT/fig8-emul/results.txt" ]; then
			echo "Emulation on this box ($EMUL_APPS apps, every time x $EMUL_SCALE: arrivals, tasks, heartbeats, container response, L, Spark's waits; containers are cgroups; runs: $EMUL_REPS), beside the simulator on the same scaled setting:"
			echo
			echo "| scheduler | emulation: mean response (s) | makespan (s) | simulation: mean response (s) | makespan (s) |"
			echo "|---|---|---|---|---|"
			for spec in srs drs cobra; do
				set -- $(row "$OUT/fig8-emul/results.txt" "\$1 == \"emul\" && \$2 == \"$spec\"")
				e="$1 [$2-$3] | $4 [$5-$6]"
				set -- $(row "$OUT/fig8-emul/results.txt" "\$1 == \"simscaled\" && \$2 == \"$spec\"")
				echo "| $spec | $e | $1 [$2-$3] | $4 [$5-$6] |"
			done
			s_r=$(awk '$1 == "emul" && $2 == "srs"' "$OUT/fig8-emul/results.txt" | stats 4 | cut -d' ' -f1)
			c_r=$(awk '$1 == "emul" && $2 == "cobra"' "$OUT/fig8-emul/results.txt" | stats 4 | cut -d' ' -f1)
			s_m=$(awk '$1 == "emul" && $2 == "srs"' "$OUT/fig8-emul/results.txt" | stats 5 | cut -d' ' -f1)
			c_m=$(awk '$1 == "emul" && $2 == "cobra"' "$OUT/fig8-emul/results.txt" | stats 5 | cut -d' ' -f1)
			echo
			echo "COBRA vs SRS in emulation: mean response $(pct "$c_r" "$s_r") (paper -37%), makespan $(pct "$c_m" "$s_m") (paper -38%)."
			echo
			echo "The containers' CPU and memory as their cgroups counted them, against what their tasks"
			echo "declared (cobra, all runs; fractions of the container's size, samples with a task at work):"
			echo
			for r in "$OUT/fig8-emul"/cobra-[0-9]*; do cat "$r/events.log"; done |
				awk '$2 == "container_usage" && $7 > 0 { m += $4; d += $7; mm += $5; dm += $8; n++ }
					END { if (n) printf "%d samples: CPU measured %.3f, declared %.3f; memory measured %.3f, declared %.3f.\n", n, m / n, d / n, mm / n, dm / n }'
			echo
			echo "![Fig. 8 emulation](fig8-emul-cdf.png)"
		else
			echo "Emulation: not run ($EMUL_NOTE)."
		fi
		echo
		cat "$SRC/bench/reproduce_cobra.md"
	} >"$f"
	say "report: $f"
}

say "reproduce-cobra: output in $OUT"
QUEUE=yes
toy
fig5
fig6
fig7
fig8_sim
QUEUE=no
say "[0/6] the simulations: $(wc -l <"$OUT/sim.queue") runs as hyde sweeps, $JOBS at a time"
rc=0
simq_run || rc=$?
[ "${SWEEP_ONLY:-no}" = yes ] && exit 0
[ $rc = 0 ] || { say "FAILED: simulations (see $OUT/sweep/*.out)"; exit 1; }
say "[1/6] Fig. 2 toy"
toy
say "[2/6] Fig. 5 (simulation, 3 loads x seeds $SEEDS)"
fig5
say "[3/6] Fig. 6"
fig6
say "[4/6] Fig. 7"
fig7
say "[5/6] Fig. 8 in simulation"
fig8_sim
EMUL_NOTE=""
if [ "$EMUL" = no ]; then
	EMUL_NOTE="EMUL=no"
elif [ "$(id -u)" != 0 ]; then
	EMUL_NOTE="needs root"
else
	say "[6/6] Fig. 8 in emulation ($EMUL_REPS runs of 3 schedulers, $EMUL_APPS apps, time x $EMUL_SCALE)"
	fig8_emul
fi
figures
report
