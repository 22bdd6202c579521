#!/bin/sh
# report.sh OUT: the markdown report and the figures of a Co-scheduler
# reproduction (reproduce.sh), from the summary.csv and breakdown.csv that
# hyde compare wrote in OUT/<point>/, with the paper's values
# (paper.csv) side by side. Writes OUT/report.md and OUT/fig*.png.
# Environment (from reproduce.sh): PRESET_WORKLOAD, RUNS, SIDE_RUNS, SWEEP_SCALES,
# SWEEP_RATES, SWEEP_RUNS, FAILED.
set -u
here=$(cd "$(dirname "$0")" && pwd)
OUT=$1
PAPER=$here/paper.csv
R=$OUT/report.md
P=$OUT/plot
mkdir -p "$P" || exit 1
FAILED=${FAILED:-}
SIDE_RUNS=${SIDE_RUNS:-$RUNS}

OCAS=coscheduler:mts=no:psrt=no
MTS_OCAS=coscheduler:psrt=no

# S POINT LABEL METRIC COLUMN: a field of summary.csv (4 runs, 5 mean,
# 7 ci95, 8 pairs, 9 change against the baseline, 10 its ci95)
S() {
	[ -f "$OUT/$1/summary.csv" ] || return 0
	awk -F, -v l="$2" -v m="$3" -v c="$4" '$1 == l && $3 == m { print $c; exit }' \
		"$OUT/$1/summary.csv"
}
# B POINT LABEL CLASS COLUMN: a field of breakdown.csv (4 jobs per run,
# 5.. the parts in seconds, 11 the JCT)
B() {
	[ -f "$OUT/$1/breakdown.csv" ] || return 0
	awk -F, -v l="$2" -v k="$3" -v c="$4" '$1 == l && $3 == k { print $c; exit }' \
		"$OUT/$1/breakdown.csv"
}
# paper FIGURE SCHEDULER AGAINST METRIC
paper() {
	awk -F, -v f="$1" -v s="$2" -v a="$3" -v m="$4" \
		'$1 == f && $3 == s && $4 == a && $5 == m { print $6; exit }' "$PAPER"
}
# a change as a percentage, and with its interval; * when it excludes 0
pct() { awk -v v="$1" 'BEGIN { if (v == "") print "-"; else printf "%+.1f%%", 100 * v }'; }
chg() {
	awk -v v="$1" -v h="$2" 'BEGIN {
		if (v == "") { print "-"; exit }
		if (h == "") { printf "%+.1f%%", 100 * v; exit }
		printf "%+.1f%% ±%.1f%s", 100 * v, 100 * h, (v > h || -v > h) ? "*" : ""
	}'
}
share() {
	awk -v v="$1" -v h="$2" 'BEGIN {
		if (v == "") { print "-"; exit }
		if (h == "") printf "%.1f%%", 100 * v; else printf "%.1f%% ±%.1f", 100 * v, 100 * h
	}'
}
secs() {
	awk -v v="$1" -v h="$2" 'BEGIN {
		if (v == "") { print "-"; exit }
		f = v >= 100 ? "%.0f" : v >= 1 ? "%.2f" : "%.3f"
		printf f " s", v
		if (h != "") printf " ±" f, h
	}'
}
num() { awk -v v="$1" 'BEGIN { if (v == "") print "NaN"; else printf "%.9g", v }'; }
# ratio of a change: 1 + change
one() { awk -v v="$1" 'BEGIN { if (v == "") print "NaN"; else printf "%.9g", 1 + v }'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "NaN"; else printf "%.9g", a / b }'; }

# term W H: gnuplot's terminal line (pngcairo when it has it)
if gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1; then
	GPTERM=pngcairo
elif command -v gnuplot >/dev/null 2>&1; then
	GPTERM=png
else
	GPTERM=
	echo "report.sh: no gnuplot: the report without its figures" >&2
fi
term() {
	if [ "$GPTERM" = pngcairo ]; then
		echo "set terminal pngcairo size $1,$2 font 'sans,10' noenhanced"
	else
		echo "set terminal png size $1,$2 noenhanced"
	fi
}
# a series' colour: a scheduler's the same in every figure, its paper
# value hatched in its colour
colour() {
	case ${1% (paper)} in
	fair | "vs Fair" | vs-Fair) echo 1 ;;
	corral | "vs Corral" | vs-Corral) echo 2 ;;
	coscheduler | hyde | all) echo 3 ;;
	OCAS) echo 4 ;;
	MTS+OCAS) echo 6 ;;
	*) echo 7 ;;
	esac
}

# bars PNG TITLE YLABEL DATA SERIES...: clustered bars with error bars;
# DATA lines: "group" value error value error ...; a series whose name
# says "paper" is hatched
bars() {
	[ -n "$GPTERM" ] || return 0
	png=$1 title=$2 ylabel=$3 data=$4
	shift 4
	{
		term 960 540
		echo "set output '$png'"
		echo "set title '$title'"
		echo "set ylabel '$ylabel'"
		echo "set style data histograms"
		echo "set style histogram errorbars gap 1 lw 1"
		echo "set boxwidth 0.9"
		echo "set datafile missing 'NaN'"
		echo "set key top right"
		echo "set grid ytics"
		echo "set yrange [0:*]"
		printf 'plot '
		c=2
		for s in "$@"; do
			[ $c = 2 ] || printf ', '
			case $s in
			*paper*) fs="fs pattern 4 border -1" ;;
			*) fs="fs solid 0.8 border -1" ;;
			esac
			fs="$fs lc $(colour "$s")"
			if [ $c = 2 ]; then
				printf "'%s' using %d:%d:xtic(1) %s title '%s'" "$data" $c $((c + 1)) "$fs" "$s"
			else
				printf "'' using %d:%d %s title '%s'" $c $((c + 1)) "$fs" "$s"
			fi
			c=$((c + 2))
		done
		echo
	} >"$png.gp"
	gnuplot "$png.gp" 2>"$png.err" || echo "report.sh: $png: $(head -1 "$png.err")" >&2
}

# panels PNG XLABEL YLABEL SERIES -- DATA TITLE [DATA TITLE...]: one panel
# per DATA (lines: x value error value error ...), lines with error bars
panels() {
	[ -n "$GPTERM" ] || return 0
	png=$1 xlabel=$2 ylabel=$3
	shift 3
	series=
	while [ "$1" != -- ]; do
		series="$series $1"
		shift
	done
	shift
	n=$(($# / 2))
	{
		term $((380 * n)) 420
		echo "set output '$png'"
		echo "set multiplot layout 1,$n"
		echo "set xlabel '$xlabel'"
		echo "set ylabel '$ylabel'"
		echo "set datafile missing 'NaN'"
		echo "set grid"
		echo "set offsets graph 0.04, graph 0.04, 0, 0"
		echo "set key top left"
		while [ $# -ge 2 ]; do
			echo "set title '$2'"
			printf 'plot '
			c=2
			for s in $series; do
				[ $c = 2 ] || printf ', '
				case $s in
				paper*) st="with points pt 7 ps 1.5" ;;
				*) st="with yerrorlines" ;;
				esac
				printf "'%s' using 1:%d:%d %s lc %s title '%s'" "$1" $c $((c + 1)) "$st" \
					"$(colour "${s#paper-}")" "$s"
				c=$((c + 2))
			done
			echo
			shift 2
		done
		echo "unset multiplot"
	} >"$png.gp"
	gnuplot "$png.gp" 2>"$png.err" || echo "report.sh: $png: $(head -1 "$png.err")" >&2
}

MET="makespan_s avg_jct_s avg_cct_s"
name_of() {
	case $1 in
	makespan_s) echo makespan ;;
	avg_jct_s) echo "average JCT" ;;
	avg_cct_s) echo "average CCT" ;;
	esac
}

{
echo "# Co-scheduler §V, reproduced in hyde's simulator"
echo
echo "Generated by \`make reproduce-coscheduler\` (repro/coscheduler/reproduce.sh) on"
echo "$(date -u +%Y-%m-%d) with $(hyde_version=$("${HYDE:-hyde}" version 2>/dev/null | head -1); echo "${hyde_version:-hyde}")."
echo "Setting: topologies/paper60.topo (the paper's §V-A: 60 racks of 10 servers, 20"
echo "containers each, 10 Gbit/s hosts, 10:1 EPS, 100 Gbit/s OCS ports, δ 10 ms, T_e"
echo "1.125 GB), workload \`$PRESET_WORKLOAD\`, $RUNS runs per point on seeds"
echo "1..$RUNS (each seed draws its own jobs; every scheduler runs on the same"
echo "draws, so the changes are paired by seed). ± is the 95% confidence interval over"
echo "the runs (Student's t); * marks a change whose interval excludes 0. Changes are"
echo "(hyde − baseline) / baseline: negative is better for times."
[ -z "$FAILED" ] || { echo; echo "**Runs failed in:$FAILED** (see the .err files next to the points)."; }

echo
echo "## Figure 3(a): makespan, average JCT and average CCT"
echo
echo "| metric | Corral vs Fair, paper | hyde | Co-scheduler vs Fair, paper | hyde | Co-scheduler vs Corral, paper | hyde |"
echo "|---|---|---|---|---|---|---|"
for m in $MET; do
	pf=$(paper 3a coscheduler fair $m)
	pc=$(paper 3a coscheduler corral $m)
	# the paper gives Co-scheduler against each; Corral against Fair follows
	pcf=$(awk -v a="$pf" -v b="$pc" 'BEGIN { if (a != "" && b != "") printf "%.4f", (1 + a) / (1 + b) - 1 }')
	echo "| $(name_of $m) | $(pct "$pcf") (derived) | $(chg "$(S main corral $m 9)" "$(S main corral $m 10)") | $(pct "$pf") | $(chg "$(S main coscheduler $m 9)" "$(S main coscheduler $m 10)") | $(pct "$pc") | $(chg "$(S main-vs-corral coscheduler $m 9)" "$(S main-vs-corral coscheduler $m 10)") |"
done
echo
echo "Absolute figures (mean ± 95% CI over $RUNS runs):"
echo
echo "| scheduler | runs | makespan | average JCT | average CCT | OCS share |"
echo "|---|---|---|---|---|---|"
for s in fair corral coscheduler; do
	echo "| $s | $(S main $s makespan_s 4) | $(secs "$(S main $s makespan_s 5)" "$(S main $s makespan_s 7)") | $(secs "$(S main $s avg_jct_s 5)" "$(S main $s avg_jct_s 7)") | $(secs "$(S main $s avg_cct_s 5)" "$(S main $s avg_cct_s 7)") | $(share "$(S main $s ocs_share 5)" "$(S main $s ocs_share 7)") |"
done
echo
echo "![Figure 3(a)](fig3a.png)"

echo
echo "## Figure 3(b): the share of the cross-rack traffic on the OCS"
echo
echo "| scheduler | paper | hyde |"
echo "|---|---|---|"
for s in fair corral coscheduler; do
	echo "| $s | $(share "$(paper 3b $s '' ocs_share)" '') | $(share "$(S main $s ocs_share 5)" "$(S main $s ocs_share 7)") |"
done
echo
echo "![Figure 3(b)](fig3b.png)"

echo
echo "## Figure 4: shuffle-heavy jobs and the rest"
echo
echo "Heavy: a job whose shuffle is at least T_e. The paper's Fig. 4 gives no numbers in its text;"
echo "it says both classes improve, the shuffle-heavy jobs more."
echo
echo "| class | metric | Co-scheduler vs Fair | Co-scheduler vs Corral | jobs per run |"
echo "|---|---|---|---|---|"
for k in heavy light; do
	for m in jct cct; do
		key=avg_${m}_${k}_s
		echo "| $k | average $(echo $m | tr a-z A-Z) | $(chg "$(S main coscheduler $key 9)" "$(S main coscheduler $key 10)") | $(chg "$(S main-vs-corral coscheduler $key 9)" "$(S main-vs-corral coscheduler $key 10)") | $(awk -v v="$(B main coscheduler $k 4)" 'BEGIN { if (v == "") print "-"; else printf "%.1f", v }') |"
	done
done
echo
echo "Where the time goes (average per finished job, seconds; the parts add up to the JCT):"
echo
echo "| scheduler | class | parents | queue | map | wait | shuffle | reduce | JCT |"
echo "|---|---|---|---|---|---|---|---|---|"
for s in fair corral coscheduler; do
	for k in heavy light; do
		printf '| %s | %s |' $s $k
		for c in 5 6 7 8 9 10 11; do
			printf ' %s |' "$(awk -v v="$(B main $s $k $c)" 'BEGIN { if (v == "") print "-"; else printf "%.3f", v }')"
		done
		echo
	done
done
echo
echo "![Figure 4](fig4.png)"

echo
echo "## Figure 5: the mechanisms"
echo
echo "OCAS alone is \`$OCAS\` (Fair when no job has a guideline), MTS + OCAS \`$MTS_OCAS\`,"
echo "all of them \`coscheduler\`. Changes against OCAS alone:"
echo
echo "| metric | MTS + OCAS, paper | hyde | all, hyde | Fair, hyde |"
echo "|---|---|---|---|---|"
for m in $MET; do
	echo "| $(name_of $m) | $(pct "$(paper 5 mts+ocas ocas $m)") | $(chg "$(S main-vs-ocas $MTS_OCAS $m 9)" "$(S main-vs-ocas $MTS_OCAS $m 10)") | $(chg "$(S main-vs-ocas coscheduler $m 9)" "$(S main-vs-ocas coscheduler $m 10)") | $(chg "$(S main-vs-ocas fair $m 9)" "$(S main-vs-ocas fair $m 10)") |"
done
echo
echo "![Figure 5](fig5.png)"

echo
echo "## Figure 6: oversubscription of the EPS"
echo
echo "Each value is the scheduler's mean divided by Fair's mean at 10:1 (the interval: the"
echo "point's own, divided likewise). The paper: Co-scheduler is not sensitive to the ratio,"
echo "Fair and Corral degrade as it grows. $SIDE_RUNS runs per ratio (10:1: the main point's $RUNS)."
echo
echo "| ratio | metric | Fair | Corral | Co-scheduler |"
echo "|---|---|---|---|---|"
for r in 3 5 10 15 20; do
	pt=os-$r
	[ $r = 10 ] && pt=main
	for m in $MET; do
		base=$(S main fair $m 5)
		printf '| %s:1 | %s |' $r "$(name_of $m)"
		for s in fair corral coscheduler; do
			printf ' %s |' "$(awk -v v="$(S $pt $s $m 5)" -v h="$(S $pt $s $m 7)" -v b="$base" 'BEGIN {
				if (v == "" || b == "" || b == 0) { print "-"; exit }
				printf "%.2f", v / b; if (h != "") printf " ±%.2f", h / b }')"
		done
		echo
	done
done
echo
echo "![Figure 6](fig6.png)"

echo
echo "## Figure 7: error in the estimate of T_rem"
echo
echo "Co-scheduler with its T_rem estimates off by a uniform factor in 1 ± e. The paper, at 50%:"
echo "still −36% makespan and −46% JCT against Fair, −18% and −21% against Corral."
echo
echo "| error | makespan vs Fair | JCT vs Fair | CCT vs Fair | makespan vs Corral | JCT vs Corral |"
echo "|---|---|---|---|---|---|"
for e in 0 0.1 0.2 0.3 0.4 0.5; do
	l=coscheduler:trem_error=$e
	[ $e = 0 ] && l=coscheduler
	printf '| %s%% |' "$(awk -v e=$e 'BEGIN { printf "%d", 100 * e }')"
	for m in $MET; do
		printf ' %s |' "$(chg "$(S main $l $m 9)" "$(S main $l $m 10)")"
	done
	for m in makespan_s avg_jct_s; do
		printf ' %s |' "$(chg "$(S main-vs-corral $l $m 9)" "$(S main-vs-corral $l $m 10)")"
	done
	echo
done
echo "| 50%, paper | $(pct "$(paper 7 coscheduler@0.5 fair makespan_s)") | $(pct "$(paper 7 coscheduler@0.5 fair avg_jct_s)") | - | $(pct "$(paper 7 coscheduler@0.5 corral makespan_s)") | $(pct "$(paper 7 coscheduler@0.5 corral avg_jct_s)") |"
echo
echo "![Figure 7](fig7.png)"

echo
echo "## What hyde's Hadoop model adds to the paper's simulator"
echo
echo "hyde places tasks at YARN's node heartbeats (one container per node per second) and"
echo "runs Hadoop's reduce-side fetches; the paper's flow-level simulator says neither. The"
echo "same comparison with tasks placed at every change (\`--heartbeat 0\`), and with a"
echo "circuit's fetches held to the reduces' 5 copies as before hyde let them fill the"
echo "circuit (\`--ocs-fetch copies\`): Co-scheduler's change against Fair ($SIDE_RUNS runs"
echo "each; hyde's own model: the main point's $RUNS)."
echo
echo "| model | makespan | average JCT | average CCT | OCS share, Fair | Co-scheduler |"
echo "|---|---|---|---|---|---|"
for pt in main:"hyde (heartbeats, circuit fetches)" model-noheartbeat:"no heartbeats" model-copies:"fetches held to 5 copies"; do
	d=${pt%%:*}
	printf '| %s |' "${pt#*:}"
	for m in $MET; do
		printf ' %s |' "$(chg "$(S $d coscheduler $m 9)" "$(S $d coscheduler $m 10)")"
	done
	printf ' %s | %s |\n' "$(share "$(S $d fair ocs_share 5)" "$(S $d fair ocs_share 7)")" \
		"$(share "$(S $d coscheduler ocs_share 5)" "$(S $d coscheduler ocs_share 7)")"
done

echo
echo "## The workload question: how the paper's observables move with the scale"
echo
echo "The paper replays SWIM FB jobs whose sizes were scaled for a single-node replay, with the"
echo "task times recorded there, and says neither how the sizes were scaled nor how fast the"
echo "tasks ran. For each scale (sizes) and task rate (bytes a map or reduce processes per"
echo "second), $SWEEP_RUNS runs of each scheduler: the OCS shares the paper reports (Fair 2.2%,"
echo "Corral 33.0%, Co-scheduler 92.2%), Co-scheduler's changes against Fair, Fair's makespan"
echo "over the arrival window (the paper's −51.2% makespan is only possible if Fair's"
echo "makespan is at least 2.05 windows), and the share of a shuffle-heavy job's time spent"
echo "waiting for and moving its shuffle under Fair (the paper: those jobs are dominated by the"
echo "shuffle)."
echo
echo
echo "Three more observables say where the network stands under Fair: the share of the jobs that"
echo "are shuffle-heavy (the paper's introduction: 20% of Facebook's jobs), the EPS's load"
echo "(Fair's cross-rack bits over the window's EPS capacity, ${EPS_GBPS:-600} Gbit/s of ToR uplinks), and"
echo "the network's share of the average JCT (the wait and shuffle parts, all jobs): no"
echo "scheduler can take more than that share off the average JCT by moving shuffles faster."
echo
echo "| rate | scale | heavy jobs | OCS Fair | OCS Corral | OCS Co-sched. | makespan | JCT | CCT | Fair makespan / window | EPS load (Fair) | network share of JCT (Fair) | heavy jobs' shuffle share (Fair) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for rate in $SWEEP_RATES; do
	for sc in $SWEEP_SCALES; do
		pt=sweep-$sc-$rate
		printf '| %s | %s | %s |' $rate $sc "$(awk -v h="$(B $pt fair heavy 4)" -v a="$(B $pt fair all 4)" 'BEGIN { if (a == "" || a == 0) print "-"; else printf "%.1f%%", 100 * h / a }')"
		for s in fair corral coscheduler; do
			printf ' %s |' "$(share "$(S $pt $s ocs_share 5)" "$(S $pt $s ocs_share 7)")"
		done
		for m in $MET; do
			printf ' %s |' "$(chg "$(S $pt coscheduler $m 9)" "$(S $pt coscheduler $m 10)")"
		done
		printf ' %s |' "$(awk -v v="$(S $pt fair makespan_s 5)" -v w="${WINDOW_S:-5400}" 'BEGIN { if (v == "") print "-"; else printf "%.2f", v / w }')"
		printf ' %s |' "$(awk -v b="$(S $pt fair cross_rack_bytes 5)" -v w="${WINDOW_S:-5400}" -v g="${EPS_GBPS:-600}" 'BEGIN { if (b == "") print "-"; else printf "%.1f%%", 100 * 8 * b / (w * g * 1e9) }')"
		printf ' %s |' "$(awk -v w="$(B $pt fair all 8)" -v s="$(B $pt fair all 9)" -v j="$(B $pt fair all 11)" 'BEGIN { if (j == "" || j == 0) print "-"; else printf "%.1f%%", 100 * (w + s) / j }')"
		printf ' %s |\n' "$(awk -v w="$(B $pt fair heavy 8)" -v s="$(B $pt fair heavy 9)" -v j="$(B $pt fair heavy 11)" 'BEGIN { if (j == "" || j == 0) print "-"; else printf "%.1f%%", 100 * (w + s) / j }')"
	done
done
echo
echo "![the sweep](sweep.png)"
if [ -f "$here/findings.md" ]; then
	echo
	cat "$here/findings.md"
fi
} >"$R.tmp" && mv "$R.tmp" "$R" || exit 1

# ---- the figures ----
{
	for m in $MET; do
		pf=$(paper 3a coscheduler fair $m)
		pc=$(paper 3a coscheduler corral $m)
		printf '"%s" 1 0 %s %s %s %s %s 0 %s 0\n' "$(name_of $m)" \
			"$(one "$(S main corral $m 9)")" "$(num "$(S main corral $m 10)")" \
			"$(one "$(S main coscheduler $m 9)")" "$(num "$(S main coscheduler $m 10)")" \
			"$(awk -v a="$pf" -v b="$pc" 'BEGIN { if (a == "" || b == "") print "NaN"; else printf "%.4f", (1 + a) / (1 + b) }')" \
			"$(one "$pf")"
	done
} >"$P/fig3a.dat"
bars "$OUT/fig3a.png" "Figure 3(a): normalised to Fair, mean of $RUNS runs, 95% CI" "relative to Fair" \
	"$P/fig3a.dat" fair corral coscheduler "corral (paper)" "coscheduler (paper)"

for s in fair corral coscheduler; do
	printf '"%s" %s %s %s 0\n' $s "$(num "$(S main $s ocs_share 5)")" "$(num "$(S main $s ocs_share 7)")" \
		"$(num "$(paper 3b $s '' ocs_share)")"
done >"$P/fig3b.dat"
bars "$OUT/fig3b.png" "Figure 3(b): share of the cross-rack bytes on the OCS" "OCS share" \
	"$P/fig3b.dat" hyde paper

for k in heavy light; do
	for m in jct cct; do
		key=avg_${m}_${k}_s
		printf '"%s %s" %s %s %s %s\n' $k "$(echo $m | tr a-z A-Z)" \
			"$(one "$(S main coscheduler $key 9)")" "$(num "$(S main coscheduler $key 10)")" \
			"$(one "$(S main-vs-corral coscheduler $key 9)")" "$(num "$(S main-vs-corral coscheduler $key 10)")"
	done
done >"$P/fig4.dat"
bars "$OUT/fig4.png" "Figure 4: Co-scheduler by job class (below 1: faster)" "Co-scheduler / baseline" \
	"$P/fig4.dat" "vs Fair" "vs Corral"

for m in $MET; do
	printf '"%s" 1 0 %s %s %s %s %s 0\n' "$(name_of $m)" \
		"$(one "$(S main-vs-ocas $MTS_OCAS $m 9)")" "$(num "$(S main-vs-ocas $MTS_OCAS $m 10)")" \
		"$(one "$(S main-vs-ocas coscheduler $m 9)")" "$(num "$(S main-vs-ocas coscheduler $m 10)")" \
		"$(one "$(paper 5 mts+ocas ocas $m)")"
done >"$P/fig5.dat"
bars "$OUT/fig5.png" "Figure 5: the mechanisms, normalised to OCAS alone" "relative to OCAS" \
	"$P/fig5.dat" OCAS "MTS+OCAS" "all" "MTS+OCAS (paper)"

for m in $MET; do
	base=$(S main fair $m 5)
	for r in 3 5 10 15 20; do
		pt=os-$r
		[ $r = 10 ] && pt=main
		printf '%s' $r
		for s in fair corral coscheduler; do
			printf ' %s %s' "$(div "$(S $pt $s $m 5)" "$base")" "$(div "$(S $pt $s $m 7)" "$base")"
		done
		echo
	done >"$P/fig6-$m.dat"
done
panels "$OUT/fig6.png" "EPS oversubscription (x:1)" "relative to Fair at 10:1" fair corral coscheduler -- \
	"$P/fig6-makespan_s.dat" makespan "$P/fig6-avg_jct_s.dat" "average JCT" "$P/fig6-avg_cct_s.dat" "average CCT"

for m in $MET; do
	for e in 0 0.1 0.2 0.3 0.4 0.5; do
		l=coscheduler:trem_error=$e
		[ $e = 0 ] && l=coscheduler
		pf=NaN pc=NaN
		if [ $e = 0.5 ]; then
			pf=$(one "$(paper 7 coscheduler@0.5 fair $m)")
			pc=$(one "$(paper 7 coscheduler@0.5 corral $m)")
		fi
		printf '%s %s %s %s %s %s 0 %s 0\n' "$(awk -v e=$e 'BEGIN { print 100 * e }')" \
			"$(one "$(S main $l $m 9)")" "$(num "$(S main $l $m 10)")" \
			"$(one "$(S main-vs-corral $l $m 9)")" "$(num "$(S main-vs-corral $l $m 10)")" \
			"$pf" "$pc"
	done >"$P/fig7-$m.dat"
done
panels "$OUT/fig7.png" "error in T_rem (%)" "Co-scheduler / baseline" vs-Fair vs-Corral \
	paper-vs-Fair paper-vs-Corral -- \
	"$P/fig7-makespan_s.dat" makespan "$P/fig7-avg_jct_s.dat" "average JCT" "$P/fig7-avg_cct_s.dat" "average CCT"

nr=0
for rate in $SWEEP_RATES; do
	nr=$((nr + 1))
	for sc in $SWEEP_SCALES; do
		pt=sweep-$sc-$rate
		printf '%s' $sc
		for s in fair corral coscheduler; do
			printf ' %s %s' "$(num "$(S $pt $s ocs_share 5)")" "$(num "$(S $pt $s ocs_share 7)")"
		done
		for m in $MET; do
			printf ' %s %s' "$(one "$(S $pt coscheduler $m 9)")" "$(num "$(S $pt coscheduler $m 10)")"
		done
		echo
	done >"$P/sweep-$rate.dat"
done
if [ -n "$GPTERM" ] && [ $nr -gt 0 ]; then
	{
		term 1000 $((380 * nr))
		echo "set output '$OUT/sweep.png'"
		echo "set multiplot layout $nr,2"
		echo "set logscale x"
		echo "set xlabel 'scale'"
		echo "set datafile missing 'NaN'"
		echo "set grid"
		echo "set key bottom right"
		for rate in $SWEEP_RATES; do
			d=$P/sweep-$rate.dat
			echo "set title 'OCS share, tasks at $rate (dashed: the paper)'"
			echo "set yrange [0:1]"
			echo "set arrow 1 from graph 0, first 0.022 to graph 1, first 0.022 nohead dt 2 lc 1"
			echo "set arrow 2 from graph 0, first 0.33 to graph 1, first 0.33 nohead dt 2 lc 2"
			echo "set arrow 3 from graph 0, first 0.922 to graph 1, first 0.922 nohead dt 2 lc 3"
			echo "plot '$d' using 1:2:3 with yerrorlines lc 1 title 'fair', '' using 1:4:5 with yerrorlines lc 2 title 'corral', '' using 1:6:7 with yerrorlines lc 3 title 'coscheduler'"
			echo "unset arrow"
			echo "set yrange [*:*]"
			echo "set title 'Co-scheduler / Fair, tasks at $rate (dotted: the paper)'"
			echo "set arrow 1 from graph 0, first 0.488 to graph 1, first 0.488 nohead dt 3 lc 1"
			echo "set arrow 2 from graph 0, first 0.454 to graph 1, first 0.454 nohead dt 3 lc 2"
			echo "set arrow 3 from graph 0, first 0.264 to graph 1, first 0.264 nohead dt 3 lc 3"
			echo "set arrow 4 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc 0"
			echo "plot '$d' using 1:8:9 with yerrorlines lc 1 title 'makespan', '' using 1:10:11 with yerrorlines lc 2 title 'avg JCT', '' using 1:12:13 with yerrorlines lc 3 title 'avg CCT'"
			echo "unset arrow"
		done
		echo "unset multiplot"
	} >"$OUT/sweep.png.gp"
	gnuplot "$OUT/sweep.png.gp" 2>"$OUT/sweep.png.err" ||
		echo "report.sh: sweep.png: $(head -1 "$OUT/sweep.png.err")" >&2
fi
exit 0
