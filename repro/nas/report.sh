#!/bin/sh
# report.sh OUT: OUT/report.md and OUT/fig3.png, OUT/fig3g.png, OUT/fig4.png
# from the runs of reproduce.sh (OUT/sim/LABEL/seed-N/summary.json, whose
# paper_metrics the controller writes; Fig. 4's in OUT/fig4-sim and
# OUT/fig4-emul, an emulated run's paper_metrics in app/paper_metrics.json),
# beside the paper's values (paper.csv). Means over the runs with 95%
# intervals (Student's t); changes against a baseline are paired by seed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
OUT=$1
SIM=$OUT/sim
R=$OUT/report.md
: "${SCHEDS:=fair,delay:form=skip,shufflewatcher,nas:ca_rts=no:cr_rts=no,nas:cr_rts=no,nas,nas:tt=no,nas:tt=no:cr_rts=no}"
: "${WL:=?}"
: "${NAS_TH:=}" # NAS's class thresholds, scaled as the workload (":light=...")
: "${RUNS:=?}"
: "${USERS:=200}"
: "${JOBS_N:=0}"
: "${USERS_H:=}" # Fig. 3(h)'s numbers of users (OUT/users-U; USERS's in OUT/sim)
: "${F4_SCHEDS:=}"
: "${F4_WL:=?}"
: "${F4_K:=10}"
: "${F4_COARSE:=10}"
: "${F4_FINE:=?}"
D=$SIM # where values() reads the runs

# full LABEL: a NAS spec of the Fig. 3 runs with the thresholds they ran with
full() {
	case $1 in
	nas*light=*) echo "$1" ;;
	nas*) echo "$1$NAS_TH" ;;
	*) echo "$1" ;;
	esac
}

# name LABEL: how the report calls a scheduler spec
name() {
	case ${1%"$NAS_TH"} in
	fair) echo "Fair" ;;
	delay:form=skip) echo "Delay (D=135)" ;;
	shufflewatcher) echo "SW-delay" ;;
	nas:ca_rts=no:cr_rts=no) echo "MTS" ;;
	nas:cr_rts=no) echo "MTS+CA-RTS" ;;
	nas) echo "NAS" ;;
	nas:tt=no) echo "NAS w/o TT" ;;
	nas:tt=no:cr_rts=no) echo "NAS w/o both" ;;
	delay:node_wait=*) echo "Delay (wait)" ;;
	nas:wait=*) echo "NAS (wait)" ;;
	*) echo "$1" ;;
	esac
}

# values LABEL: one line per run of D: seed and the metrics, from
# summary.json (and an emulated run's app/paper_metrics.json)
values() {
	d=$D/$(full "$1" | tr ':' '-')
	# (one run: hyde compare writes it without a seed-N directory)
	for f in "$d"/seed-*/summary.json "$d"/summary.json; do
		[ -f "$f" ] || continue
		seed=${f%/summary.json}
		pm=$seed/app/paper_metrics.json
		[ -f "$pm" ] || pm=/dev/null
		case $seed in */seed-*) seed=${seed##*seed-} ;; *) seed=1 ;; esac
		awk -v seed="$seed" '
		function num(key,   i, s) {
			i = index(text, "\"" key "\":")
			if (!i) return "nan"
			s = substr(text, i + length(key) + 3)
			return s + 0
		}
		{ text = text $0 "\n" }
		END {
			tput = num("throughput_jobs_per_hour"); jct = num("avg_jct_s")
			cross = num("cross_rack_bytes_all_kinds"); mpr = num("avg_map_progress_at_first_reduce")
			cn = num("congested_node_share"); ce = num("rack_congestion_events")
			shx = num("cross_rack_bytes")
			# by class: the avg JCT of light, medium, heavy
			i = index(text, "\"by_class\""); t = substr(text, i)
			split("light medium heavy", cls, " ")
			out = ""
			for (k = 1; k <= 3; k++) {
				j = index(t, "\"" cls[k] "\":"); u = substr(t, j)
				j = index(u, "\"throughput_jobs_per_hour\":"); v = substr(u, j + 27) + 0
				out = out " " v
			}
			print seed, tput, jct, cross, mpr, cn, ce out, shx
		}' "$f" "$pm"
	done | sort -n
}

# stat COLUMN: mean and 95% interval of column COLUMN of stdin
stat() {
	awk -v c="$1" '
	BEGIN { split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228", t, " ") }
	{ x[n++] = $c; s += $c }
	END {
		if (!n) { print "nan nan"; exit }
		m = s / n; v = 0
		for (i = 0; i < n; i++) v += (x[i] - m) ^ 2
		ci = n > 1 ? (n - 1 <= 10 ? t[n - 1] : 1.96) * sqrt(v / (n - 1)) / sqrt(n) : 0
		print m, ci
	}'
}

# paired A B COLUMN: mean and interval of (A / B - 1) x 100 over the seeds both have
paired() {
	values "$1" >"$OUT/.a"
	values "$2" >"$OUT/.b"
	awk -v c="$3" 'NR == FNR { b[$1] = $c; next } ($1 in b) && b[$1] != 0 { print ($c / b[$1] - 1) * 100 }' \
		"$OUT/.b" "$OUT/.a" | stat 1
}

# rel S B: S against B run by run (%, mean ± CI) in $rt (throughput),
# $rj (average JET), $rc (cross-rack bytes), $re (congestion occurrences)
rel() {
	_s=$1 _b=$2
	set -- $(paired "$_s" "$_b" 2); rt=$(pct "$1" "$2")
	set -- $(paired "$_s" "$_b" 3); rj=$(pct "$1" "$2")
	set -- $(paired "$_s" "$_b" 11); rc=$(pct "$1" "$2")
	set -- $(paired "$_s" "$_b" 7); re=$(pct "$1" "$2")
}

fmt() { awk -v m="$1" -v ci="$2" -v d="${3:-2}" 'BEGIN { printf "%.*f ± %.*f", d, m, d, ci }'; }
pct() { awk -v m="$1" -v ci="$2" 'BEGIN { printf "%+.1f%% ± %.1f", m, ci }'; }

# Fig. 4's backends: OUT/fig4-sim, OUT/fig4-emul (if run), OUT/fig4-fine
bename() {
	case $1 in fine) echo "sim, all tasks" ;; *) echo "$1" ;; esac
}

# users_dir U: the runs with U users
users_dir() {
	if [ "$1" = "$USERS" ]; then echo "$SIM"; else echo "$OUT/users-$1"; fi
}

# Fig. 3(h): NAS's throughput with USERS_H users over Fair's with USERS
# (OUT/users-U), paired by seed (the same jobs: gen fb draws a job's user
# after its class and sizes); writes OUT/fig3h.dat for the figure
fig3h_section() {
	echo
	echo "## Fig. 3(h): NAS's throughput over the number of users"
	echo
	echo "NAS's throughput with each number of users over Fair's with $USERS (the paper's"
	echo "normalisation, Fair at 200), and NAS against Fair with the same number; the same jobs"
	echo "(a job's user is drawn after its class and sizes), $RUNS runs each, paired by seed."
	echo
	echo "| users | jobs per user | NAS throughput (jobs/h) | NAS / Fair with $USERS users | NAS vs Fair, same users | NAS avg JET (s) |"
	echo "|---|---|---|---|---|---|"
	D=$SIM
	values fair >"$OUT/.f0"
	: >"$OUT/fig3h.dat"
	for u in $(echo "$USERS_H" | tr ' ' '\n' | sort -n); do
		D=$(users_dir "$u")
		v=$(values nas)
		[ -n "$v" ] || { echo "| $u | (no runs) |||||"; continue; }
		set -- $(echo "$v" | stat 2); tps=$(fmt "$1" "$2" 1)
		set -- $(echo "$v" | stat 3); jcs=$(fmt "$1" "$2" 2)
		set -- $(echo "$v" | awk 'NR == FNR { b[$1] = $2; next } ($1 in b) && b[$1] { print $2 / b[$1] }' "$OUT/.f0" - | stat 1)
		nf=$(fmt "$1" "$2" 3)
		echo "$u $1 $2" >>"$OUT/fig3h.dat"
		rel nas fair
		jpu=$(awk -v u="$u" -v j="$JOBS_N" 'BEGIN { printf "%.1f", j / u }')
		echo "| $u | $jpu | $tps | $nf | $rt | $jcs |"
	done
	echo
	awk -F, '$1 == "3h" { print "- Fig. " $1 " (" $2 "): paper: " $4 }' "$here/paper.csv"
	echo
	echo "Figure: fig3h.png."
	D=$SIM
}

# Fig. 4: the real cluster, in simulation (OUT/fig4-sim) and emulation
# (OUT/fig4-emul, if run)
fig4_section() {
	echo
	echo "## Fig. 4: the real cluster (§IV-A), compressed $F4_K times"
	echo
	echo "Setting: topologies/nas40e.topo (8 racks x 5 hosts x 16 containers, 5:1, at a hundredth"
	echo "of the paper's 1 Gbit/s), workload \`$F4_WL\`:"
	echo "200 jobs by Fig. 2's class mix at the trace's sizes, compressed $F4_K times in time"
	echo "(bytes x 1/$((100 * F4_K)): the hundredth of the rates, then $F4_K; mean gap 14 s / $F4_K; task"
	echo "base times likewise), heartbeat 1 s / $F4_K, Delay's and NAS's maximum wait 5 s / $F4_K"
	echo "(§IV-A), NAS's class thresholds x 1/$((100 * F4_K)); blocks and bytes per reduce x $F4_COARSE"
	echo "(a tenth of the trace's maps and reduces, each $F4_COARSE times longer: the emulated"
	echo "fabric cannot start the trace's 30,000 maps in minutes on this box). \"sim, all tasks\""
	echo "is the same in simulation with every task of the trace (\`$F4_FINE\`):"
	echo "what the coarsening changes. Cross-rack is the shuffle's (Fig. 4(c))."
	echo
	echo "| scheduler | backend | runs | throughput (jobs/h) | vs Fair | avg JET (s) | vs Fair | cross-rack shuffle (GB) | vs Fair | rack congestion occurrences | vs Fair |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	for be in sim emul fine; do
		D=$OUT/fig4-$be
		[ -d "$D" ] || continue
		for s in $(echo "$F4_SCHEDS" | tr ',' ' '); do
			v=$(values "$s")
			[ -n "$v" ] || { echo "| $(name "$s") | $be | 0 |||||||||"; continue; }
			n=$(echo "$v" | wc -l)
			set -- $(echo "$v" | stat 2); tps=$(fmt "$1" "$2" 1)
			set -- $(echo "$v" | stat 3); jcs=$(fmt "$1" "$2" 2)
			set -- $(echo "$v" | stat 11); crs=$(fmt "$(awk -v x="$1" 'BEGIN { print x / 1e9 }')" "$(awk -v x="$2" 'BEGIN { print x / 1e9 }')" 2)
			set -- $(echo "$v" | stat 7); ces=$(fmt "$1" "$2" 0)
			b=$(echo "$F4_SCHEDS" | cut -d, -f1)
			if [ "$s" = "$b" ]; then
				rt="—" rj="—" rc="—" re="—"
			else
				rel "$s" "$b"
			fi
			echo "| $(name "$s") | $(bename $be) | $n | $tps | $rt | $jcs | $rj | $crs | $rc | $ces | $re |"
		done
	done
	echo
	echo "NAS against the baselines, beside the paper (Fig. 4(a), 4(b); 4(c) and 4(d) give an order):"
	echo
	echo "| NAS vs | backend | throughput, hyde | throughput, paper | avg JET, hyde | avg JET, paper | cross-rack shuffle, hyde | congestion occurrences, hyde |"
	echo "|---|---|---|---|---|---|---|---|"
	nas=$(echo "$F4_SCHEDS" | tr ',' '\n' | grep '^nas')
	for be in sim emul fine; do
		D=$OUT/fig4-$be
		[ -d "$D" ] || continue
		for b in $(echo "$F4_SCHEDS" | tr ',' '\n' | grep -v '^nas'); do
			case $b in fair) k=nas_vs_fair ;; *) k=nas_vs_delay ;; esac
			pt=$(awk -F, -v k="$k" '$1 == "4a" && $3 == k { print $4 }' "$here/paper.csv")
			pj=$(awk -F, -v k="$k" '$1 == "4b" && $3 == k { print $4 }' "$here/paper.csv")
			rel "$nas" "$b"
			echo "| $(name "$b") | $(bename $be) | $rt | ${pt:-—} | $rj | ${pj:-—} | $rc | $re |"
		done
	done
	echo
	awk -F, '$1 ~ /^4[cd]$|^5b$/ { print "- Fig. " $1 " (" $2 "): paper: " $4 }' "$here/paper.csv"
	echo
	echo "Per shuffle class (Fig. 5(b): throughput with NAS over Fair), jobs of the class over"
	echo "the class's first arrival to last end:"
	echo
	echo "| NAS vs Fair | backend | light | medium | heavy |"
	echo "|---|---|---|---|---|"
	for be in sim emul fine; do
		D=$OUT/fig4-$be
		[ -d "$D" ] || continue
		l=$(paired "$nas" fair 8); m=$(paired "$nas" fair 9); h=$(paired "$nas" fair 10)
		echo "| throughput | $(bename $be) | $(set -- $l; pct "$1" "$2") | $(set -- $m; pct "$1" "$2") | $(set -- $h; pct "$1" "$2") |"
	done
	echo
	echo "Figure: fig4.png (throughput, JET and cross-rack shuffle normalised to Fair, each backend)."
	D=$SIM
}

# Fig. 3 on the whole FB-2010 day (OUT/day, reproduce.sh's DAY=1): one
# run per scheduler, the coarser model
day_section() {
	_th=$NAS_TH
	NAS_TH=
	D=$OUT/day
	echo
	echo "## Fig. 3 on the whole FB-2010 day"
	echo
	case ${DAY_WL:-} in
	*,count=*) echo "Setting: topologies/nas30.topo, the FIRST ${DAY_WL##*,count=} JOBS of the FB-2010 trace (not the day: \`$DAY_WL\`), one run per scheduler" ;;
	*) echo "Setting: topologies/nas30.topo, the paper's workload: the whole FB-2010 trace (24,442"
	   echo "jobs with the trace's arrivals over a day, \`${DAY_WL:-?}\`), one run per scheduler" ;;
	esac
	echo "(seed 1: the users' draw and ties), with the simulator's coarser model and grid"
	echo "(\`${DAY_B:-?}\`: a reduce fetches per rack, flows end on a 10 ms grid; the exact model"
	echo "cannot run the day in hours). At nas30 this model is far off: on the first 4,000 jobs, per host,"
	echo "NAS is -27.5% throughput and +54.8% JET against Fair where it gave +17.5% and +40.8%, and"
	echo "NAS's shuffle is not shorter than Fair's (README, Results: NAS, The coarse model at nas30)."
	echo "Since 2026-11-29 a fetch of one host's outputs crosses that host's link (-11.6%, +31.2%, and"
	echo "the per-host ranking of Fair, Delay, SW-delay and NAS); tables made before are the older model's."
	echo "One run each: no interval."
	echo
	echo "| scheduler | throughput (jobs/h) | vs Fair | avg JET (s) | vs Fair | cross-rack bytes, all kinds (TB) | vs Fair | MapProgressRate at first reduce | congested nodes (%) | rack congestion occurrences |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	for s in $(echo "${DAY_SCHEDS:-}" | tr ',' ' '); do
		v=$(values "$s")
		[ -n "$v" ] || { echo "| $(name "$s") | (no run) |||||||||"; continue; }
		set -- $v
		tps=$(awk -v x="$2" 'BEGIN { printf "%.1f", x }'); jcs=$(awk -v x="$3" 'BEGIN { printf "%.1f", x }')
		crs=$(awk -v x="$4" 'BEGIN { printf "%.1f", x / 1e12 }'); mps=$(awk -v x="$5" 'BEGIN { printf "%.3f", x }')
		cns=$(awk -v x="$6" 'BEGIN { printf "%.3f", x * 100 }'); ces=$7
		if [ "$s" = fair ]; then
			rt="—" rj="—" rc="—"
		else
			set -- $(paired "$s" fair 2); rt=$(awk -v x="$1" 'BEGIN { printf "%+.1f%%", x }')
			set -- $(paired "$s" fair 3); rj=$(awk -v x="$1" 'BEGIN { printf "%+.1f%%", x }')
			set -- $(paired "$s" fair 4); rc=$(awk -v x="$1" 'BEGIN { printf "%+.1f%%", x }')
		fi
		echo "| $(name "$s") | $tps | $rt | $jcs | $rj | $crs | $rc | $mps | $cns | $ces |"
	done
	echo
	echo "NAS against the baselines on the day, beside the paper (Fig. 3(a)-(c), 3(g)):"
	echo
	echo "| NAS vs | throughput, hyde | throughput, paper | avg JET, hyde | avg JET, paper | cross-rack, hyde | cross-rack, paper |"
	echo "|---|---|---|---|---|---|---|"
	for b in fair delay:form=skip shufflewatcher; do
		[ -n "$(values "$b")" ] && [ -n "$(values nas)" ] || continue
		case $b in fair) k=nas_vs_fair ;; delay*) k=nas_vs_delay ;; *) k=nas_vs_shufflewatcher ;; esac
		pt=$(awk -F, -v k="$k" '$1 == "3a" && $3 == k { print $4 }' "$here/paper.csv")
		pj=$(awk -F, -v k="$k" '$1 == "3b" && $3 == k { print $4 }' "$here/paper.csv")
		pc=$(awk -F, -v k="$k" '$1 == "3c" && $3 == k { print $4 }' "$here/paper.csv")
		set -- $(paired nas "$b" 2); ht=$(awk -v x="$1" 'BEGIN { printf "%+.1f%%", x }')
		set -- $(paired nas "$b" 3); hj=$(awk -v x="$1" 'BEGIN { printf "%+.1f%%", x }')
		set -- $(paired nas "$b" 4); hc=$(awk -v x="$1" 'BEGIN { printf "%+.1f%%", x }')
		echo "| $(name "$b") | $ht | ${pt:-—} | $hj | ${pj:-—} | $hc | ${pc:-"(not stated)"} |"
	done
	echo
	echo "| Fig. 3(g), the day | rack congestion occurrences, hyde | hyde / NAS | paper | paper / NAS |"
	echo "|---|---|---|---|---|"
	nasce=
	[ -n "$(values nas)" ] && { set -- $(values nas); nasce=$7; }
	for s in nas:tt=no nas:tt=no:cr_rts=no nas; do
		case $s in nas:tt=no) k=wo_tt ;; nas:tt=no:cr_rts=no) k=wo_both ;; *) k=nas ;; esac
		p=$(awk -F, -v k="$k" '$1 == "3g" && $3 == k { print $4 }' "$here/paper.csv")
		[ -n "$(values "$s")" ] && [ -n "$nasce" ] || { echo "| $(name "$s") | (no run) | | $p | $(awk -v a="$p" 'BEGIN { printf "%.2f", a / 3198 }') |"; continue; }
		set -- $(values "$s") x x x x x x x
		echo "| $(name "$s") | $7 | $(awk -v a="$7" -v b="$nasce" 'BEGIN { printf "%.2f", (b + 0) ? a / b : 0 }') | $p | $(awk -v a="$p" 'BEGIN { printf "%.2f", a / 3198 }') |"
	done
	NAS_TH=$_th
	D=$SIM
}

# bars3 BASE TITLE THIRD: BASE.png from BASE.dat (label, then throughput,
# avg JET and THIRD normalised to Fair)
bars3() {
	gnuplot <<GP 2>/dev/null
set terminal png size 1000,450 noenhanced
set output "$1.png"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel "normalised to Fair"
set xtics rotate by -25
set key outside right top
set yrange [0:*]
set title "$2"
plot "$1.dat" using 2:xtic(1) title "throughput", '' using 3 title "avg JET", '' using 4 title "$3"
GP
}

# day_figure: OUT/fig3day.png, the day's throughput, avg JET and cross-rack
# bytes normalised to Fair's (one run each)
day_figure() {
	command -v gnuplot >/dev/null 2>&1 && [ -d "$OUT/day" ] || return 0
	_th=$NAS_TH
	NAS_TH=
	D=$OUT/day
	set -- $(values fair) x x x x
	ft=$2 fj=$3 fc=$4
	: >"$OUT/fig3day.dat"
	for s in $(echo "${DAY_SCHEDS:-}" | tr ',' ' '); do
		set -- $(values "$s") x x x x
		[ "$1" = x ] && continue
		echo "\"$(name "$s")\" $(awk -v t="$2" -v j="$3" -v c="$4" -v bt="$ft" -v bj="$fj" -v bc="$fc" \
			'BEGIN { printf "%g %g %g", bt ? t / bt : 0, bj ? j / bj : 0, bc ? c / bc : 0 }')" >>"$OUT/fig3day.dat"
	done
	bars3 "$OUT/fig3day" "NAS reproduction: Fig. 3(a)-(c) on the whole FB-2010 day (coarser model)" \
		"cross-rack bytes"
	rm -f "$OUT/fig3day.dat"
	NAS_TH=$_th
	D=$SIM
}

# the order in which a reduce fetches, when not hyde's default
fetch_order_line() {
	[ "${FETCH_ORDER:-fifo}" = fifo ] && return 0
	echo
	echo "Every run with \`--fetch-order $FETCH_ORDER\` (FETCH_ORDER): a reduce takes a random one of its waiting fetches, as Hadoop's fetchers pick a random host, where hyde's default takes them first come, first served."
}

if [ -n "${DAY_ONLY:-}" ]; then
	{
		echo "# NAS (CCGrid 2018) in hyde's simulator: §IV's Fig. 3 on the whole FB-2010 day"
		fetch_order_line
		day_section
		echo
		echo "Figure: fig3day.png (throughput, JET and cross-rack bytes normalised to Fair)."
	} >"$R"
	day_figure
	rm -f "$OUT/.a" "$OUT/.b"
	exit 0
fi

{
	echo "# NAS (CCGrid 2018) in hyde's simulator: a first, reduced reproduction of §IV"
	echo
	echo "Setting: topologies/nas30.topo (30 racks x 20 nodes x 6 containers, 1 Gbit/s rack"
	echo "uplinks, 250 Mbit/s per node: the paper's 5:1), workload \`$WL\`, $RUNS runs per"
	echo "scheduler (seeds 1..$RUNS, each a new draw of the jobs), 95% intervals (Student's t);"
	echo "changes paired by seed. REDUCED against the paper: a few hundred jobs drawn from"
	echo "FB-2010 by the paper's class mix (Fig. 2), sizes scaled and arrivals compressed into"
	echo "the span above, instead of the whole 24,442-job day with the trace's arrivals."
	[ -n "$NAS_TH" ] && echo "NAS's class thresholds are scaled as the jobs' sizes (\`$NAS_TH\`; the jobs keep their drawn class)."
	echo "Throughput is jobs over the total time (first arrival to last end), as §IV-B."
	fetch_order_line
	echo
	echo "## Every scheduler (Fig. 3(a)-(f))"
	echo
	echo "| scheduler | throughput (jobs/h) | vs Fair | avg JET (s) | vs Fair | cross-rack bytes, all kinds (GB) | vs Fair | MapProgressRate at first reduce | congested nodes (%) | rack congestion occurrences |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	for s in $(echo "$SCHEDS" | tr ',' ' '); do
		v=$(values "$s")
		[ -n "$v" ] || { echo "| $(name "$s") | (no runs) |||||||||"; continue; }
		tp=$(echo "$v" | stat 2); jc=$(echo "$v" | stat 3); cr=$(echo "$v" | stat 4)
		mp=$(echo "$v" | stat 5); cn=$(echo "$v" | stat 6); ce=$(echo "$v" | stat 7)
		set -- $tp; tps=$(fmt "$1" "$2" 1)
		set -- $jc; jcs=$(fmt "$1" "$2" 2)
		set -- $cr; crs=$(fmt "$(awk -v x="$1" 'BEGIN { print x / 1e9 }')" "$(awk -v x="$2" 'BEGIN { print x / 1e9 }')" 1)
		set -- $mp; mps=$(fmt "$1" "$2" 3)
		set -- $cn; cns=$(fmt "$(awk -v x="$1" 'BEGIN { print x * 100 }')" "$(awk -v x="$2" 'BEGIN { print x * 100 }')" 3)
		set -- $ce; ces=$(fmt "$1" "$2" 0)
		if [ "$s" = fair ]; then
			rt="—" rj="—" rc="—"
		else
			set -- $(paired "$s" fair 2); rt=$(pct "$1" "$2")
			set -- $(paired "$s" fair 3); rj=$(pct "$1" "$2")
			set -- $(paired "$s" fair 4); rc=$(pct "$1" "$2")
		fi
		echo "| $(name "$s") | $tps | $rt | $jcs | $rj | $crs | $rc | $mps | $cns | $ces |"
	done
	echo
	echo "## NAS against the baselines, beside the paper (Fig. 3(a), 3(b), 3(c))"
	echo
	echo "| NAS vs | throughput, hyde | throughput, paper | avg JET, hyde | avg JET, paper | cross-rack, hyde | cross-rack, paper |"
	echo "|---|---|---|---|---|---|---|"
	for b in fair delay:form=skip shufflewatcher; do
		case $b in fair) k=nas_vs_fair ;; delay*) k=nas_vs_delay ;; *) k=nas_vs_shufflewatcher ;; esac
		pt=$(awk -F, -v k="$k" '$1 == "3a" && $3 == k { print $4 }' "$here/paper.csv")
		pj=$(awk -F, -v k="$k" '$1 == "3b" && $3 == k { print $4 }' "$here/paper.csv")
		pc=$(awk -F, -v k="$k" '$1 == "3c" && $3 == k { print $4 }' "$here/paper.csv")
		set -- $(paired nas "$b" 2); ht=$(pct "$1" "$2")
		set -- $(paired nas "$b" 3); hj=$(pct "$1" "$2")
		set -- $(paired nas "$b" 4); hc=$(pct "$1" "$2")
		echo "| $(name "$b") | $ht | ${pt:-—} | $hj | ${pj:-—} | $hc | ${pc:-"(not stated)"} |"
	done
	echo
	echo "## Fig. 3(g): rack congestion occurrences without TT, without both, NAS"
	echo
	echo "hyde counts a rack's heartbeat period (1 s) in which its EPS uplink or downlink"
	echo "carried at least 80% of its capacity; the paper does not say how it counted."
	echo "\"w/o both\" is read as without TT and without CR-RTS (src/sched/nas.c says why)."
	echo
	echo "| variant | hyde | hyde / NAS | paper | paper / NAS |"
	echo "|---|---|---|---|---|"
	set -- $(values nas | stat 7); nasce=$1
	for s in nas:tt=no nas:tt=no:cr_rts=no nas; do
		case $s in nas:tt=no) k=wo_tt ;; nas:tt=no:cr_rts=no) k=wo_both ;; *) k=nas ;; esac
		p=$(awk -F, -v k="$k" '$1 == "3g" && $3 == k { print $4 }' "$here/paper.csv")
		set -- $(values "$s" | stat 7)
		echo "| $(name "$s") | $(fmt "$1" "$2" 0) | $(awk -v a="$1" -v b="$nasce" 'BEGIN { printf "%.2f", b ? a / b : 0 }') | $p | $(awk -v a="$p" 'BEGIN { printf "%.2f", a / 3198 }') |"
	done
	echo
	echo "## Fig. 3(d)-(f), 5: what the paper states, and hyde's order"
	echo
	awk -F, '$1 ~ /^3[def]$/ { print "- Fig. " $1 " (" $2 "): paper: " $4 }' "$here/paper.csv"
	echo "- hyde: the table above (MapProgressRate, congested nodes, rack congestion occurrences)."
	echo
	echo "Per shuffle class (Fig. 5: throughput with NAS over without), jobs of the class over"
	echo "the class's first arrival to last end:"
	echo
	echo "| NAS vs Fair | light | medium | heavy |"
	echo "|---|---|---|---|"
	l=$(paired nas fair 8); m=$(paired nas fair 9); h=$(paired nas fair 10)
	echo "| throughput | $(set -- $l; pct "$1" "$2") | $(set -- $m; pct "$1" "$2") | $(set -- $h; pct "$1" "$2") |"
	echo
	echo "Figures: fig3.png (throughput, JET and cross-rack bytes normalised to Fair, Fig. 3(a)-(c)),"
	echo "fig3g.png (congestion occurrences, normalised to NAS, hyde beside the paper)."
	[ -n "$USERS_H" ] && fig3h_section
	[ -n "$F4_SCHEDS" ] && fig4_section
	if [ -d "$OUT/day" ]; then
		day_section
		echo
		echo "Figure: fig3day.png (throughput, JET and cross-rack bytes normalised to Fair)."
	fi
} >"$R"
day_figure

# figures
if command -v gnuplot >/dev/null 2>&1; then
	: >"$OUT/.fig3"
	for s in $(echo "$SCHEDS" | tr ',' ' '); do
		set -- $(values "$s" | stat 2); t=$1
		set -- $(values "$s" | stat 3); j=$1
		set -- $(values "$s" | stat 4); c=$1
		echo "\"$(name "$s")\" $t $j $c" >>"$OUT/.fig3"
	done
	set -- $(head -1 "$OUT/.fig3" | awk '{ n = NF; print $(n - 2), $(n - 1), $n }')
	ft=$1 fj=$2 fc=$3
	awk -v t="$ft" -v j="$fj" -v c="$fc" '{ n = NF; printf "%s %g %g %g\n", substr($0, 1, index($0, "\" ")), $(n - 2) / t, $(n - 1) / j, $n / c }' \
		"$OUT/.fig3" >"$OUT/fig3.dat"
	bars3 "$OUT/fig3" "NAS reproduction (reduced): Fig. 3(a)-(c)" "cross-rack bytes"
	: >"$OUT/fig3g.dat"
	set -- $(values nas | stat 7); n=$1
	for s in nas:tt=no nas:tt=no:cr_rts=no nas; do
		case $s in nas:tt=no) p=3901 ;; nas:tt=no:cr_rts=no) p=4197 ;; *) p=3198 ;; esac
		set -- $(values "$s" | stat 7)
		echo "\"$(name "$s")\" $(awk -v a="$1" -v b="$n" -v p="$p" 'BEGIN { printf "%g %g", b ? a / b : 0, p / 3198 }')" >>"$OUT/fig3g.dat"
	done
	gnuplot <<GP 2>/dev/null
set terminal png size 760,400 noenhanced
set output "$OUT/fig3g.png"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel "congestion occurrences / NAS's"
set key outside right top
set yrange [0:*]
set title "Fig. 3(g)"
plot "$OUT/fig3g.dat" using 2:xtic(1) title "hyde", '' using 3 title "paper"
GP
	[ -s "$OUT/fig3h.dat" ] && gnuplot <<GP 2>/dev/null
set terminal png size 700,400 noenhanced
set output "$OUT/fig3h.png"
set logscale x 2
set xlabel "users"
set ylabel "NAS's throughput / Fair's with $USERS users"
set key off
set yrange [0:*]
set title "Fig. 3(h)"
plot "$OUT/fig3h.dat" using 1:2:3 with yerrorlines lw 2 pt 7
GP
	: >"$OUT/fig4.dat"
	for be in sim emul fine; do
		D=$OUT/fig4-$be
		[ -n "$F4_SCHEDS" ] && [ -d "$D" ] || continue
		b=$(echo "$F4_SCHEDS" | cut -d, -f1)
		set -- $(values "$b" | stat 2) $(values "$b" | stat 3) $(values "$b" | stat 11)
		bt=$1 bj=$3 bc=$5
		for s in $(echo "$F4_SCHEDS" | tr ',' ' '); do
			set -- $(values "$s" | stat 2) $(values "$s" | stat 3) $(values "$s" | stat 11)
			echo "\"$(name "$s") ($(bename $be))\" $(awk -v t="$1" -v j="$3" -v c="$5" -v bt="$bt" -v bj="$bj" -v bc="$bc" \
				'BEGIN { printf "%g %g %g", bt ? t / bt : 0, bj ? j / bj : 0, bc ? c / bc : 0 }')" >>"$OUT/fig4.dat"
		done
	done
	D=$SIM
	[ -s "$OUT/fig4.dat" ] &&
		bars3 "$OUT/fig4" "NAS reproduction: Fig. 4(a)-(c), the real cluster compressed $F4_K times" \
			"cross-rack shuffle"
fi
rm -f "$OUT/.a" "$OUT/.b" "$OUT/.f0" "$OUT/.fig3" "$OUT/fig3h.dat" "$OUT/fig4.dat"
exit 0
