#!/bin/sh
# report.sh OUT: OUT/report.md and OUT/fig11.png, fig12.png, fig15.png,
# fig16.png from reproduce.sh's runs (OUT/sim/SET/LABEL/seed-N/summary.json,
# whose paper_metrics.dags the controller writes), beside the paper's values
# (paper.csv, table3.csv). Means over the runs with 95% intervals
# (Student's t); changes against a baseline are paired by seed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
OUT=$1
SIM=$OUT/sim
R=$OUT/report.md
: "${RUNS:=?}" "${DAGS_ML:=120}" "${DAGS_TPCH:=88}" "${GAP:=24.8}" "${GAPS:=20 60 100 140}"
: "${BS:=0 0.2 0.4 0.6}" "${SCALE_ML:=?}" "${RATE:=?}" "${NET_UPLINK:=1Gbit}"

# runs.tsv, one line per run: set label seed horizon dags done_by_h avg_wct
# p99_wct cross_input cross_dependent cross_shuffle cross_output balanced;
# names.tsv, one per (run, benchmark or query): set label seed name avg_wct.
for f in "$SIM"/*/*/seed-*/summary.json; do
	[ -f "$f" ] || continue
	d=${f%/summary.json}
	seed=${d##*seed-}
	d=${d%/seed-*}
	label=${d##*/}
	set=${d%/*}
	set=${set##*/}
	case $set in
	ml | mlnet) h=$(awk -v n="$DAGS_ML" -v g="$GAP" 'BEGIN { print n * g }') ;;
	tpch | tpchnet) h=$(awk -v n="$DAGS_TPCH" 'BEGIN { print n * 27.3 }') ;;
	emul*) h=$(awk -v n="${EMUL_DAGS:-8}" 'BEGIN { print n * 10 }') ;;
	gap*) h=$(awk -v n="$DAGS_ML" -v g="${set#gap}" 'BEGIN { print n * g }') ;;
	esac
	bal=$(sed -n 's/.*balanced=\([0-9]*\).*/\1/p' "${f%/summary.json}/sched.txt" 2>/dev/null | tail -1)
	awk -v set="$set" -v label="$label" -v seed="$seed" -v h="$h" -v bal="${bal:-0}" '
	function field(s, key,   i) {
		i = index(s, "\"" key "\": ")
		return i ? substr(s, i + length(key) + 4) + 0 : 0
	}
	/"id": "d[0-9]/ {
		n++
		if ($0 !~ /"done": true/) next
		w = field($0, "wct_s"); e = field($0, "end_s")
		done++; wsum += w; wct[done] = w
		if (e <= h) byh++
		ci += field($0, "input"); cd += field($0, "dependent")
		cs += field($0, "shuffle"); co += field($0, "output")
	}
	END {
		if (!done) { print set, label, seed, h, n, 0, "nan", "nan", 0, 0, 0, 0, bal; exit }
		# p99: sort the completion times
		for (i = 2; i <= done; i++) {
			v = wct[i]
			for (j = i - 1; j >= 1 && wct[j] > v; j--) wct[j + 1] = wct[j]
			wct[j + 1] = v
		}
		k = int(0.99 * done + 0.999999); if (k < 1) k = 1
		print set, label, seed, h, n, byh + 0, wsum / done, wct[k], ci / done, cd / done,
			cs / done, co / done, bal
	}' "$f"
done >"$OUT/runs.tsv.tmp" 2>/dev/null
# per benchmark / query
for f in "$SIM"/*/*/seed-*/summary.json; do
	[ -f "$f" ] || continue
	d=${f%/summary.json}; seed=${d##*seed-}; d=${d%/seed-*}; label=${d##*/}; set=${d%/*}; set=${set##*/}
	awk -v set="$set" -v label="$label" -v seed="$seed" '
	/"id": "d[0-9]+\./ && /"done": true/ {
		id = $0; sub(/.*"id": "/, "", id); sub(/".*/, "", id); sub(/^d[0-9]+\./, "", id)
		i = index($0, "\"wct_s\": "); w = substr($0, i + 9) + 0
		nw[id] += w; nn[id]++
	}
	END { for (m in nn) print set, label, seed, m, nw[m] / nn[m] }' "$f"
done >"$OUT/names.tsv"
mv "$OUT/runs.tsv.tmp" "$OUT/runs.tsv"
[ -s "$OUT/runs.tsv" ] || { echo "report.sh: no finished run under $SIM" >&2; exit 1; }

# stat SET LABEL COLUMN: "mean ± half-width" (95%, t) over the seeds
STAT='
function tval(df) {
	split("12.71 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262", t, " ")
	return df < 1 ? t[1] : df <= 9 ? t[df] : 2.228
}
function ci(n, s, ss,   m, v) {
	m = s / n
	if (n < 2) return sprintf("%.3g", m)
	v = (ss - s * s / n) / (n - 1); if (v < 0) v = 0
	return sprintf("%.3g ± %.2g", m, tval(n - 1) * sqrt(v / n))
}'
stat() {
	awk -v set="$1" -v label="$2" -v c="$3" -v scale="${4:-1}" "$STAT"'
	$1 == set && $2 == label && $c != "nan" { x = $c * scale; n++; s += x; ss += x * x }
	END { print n ? ci(n, s, ss) : "-" }' "$OUT/runs.tsv"
}
# change SET LABEL BASE COLUMN: Dawn (LABEL) against BASE, paired by seed, in %
change() {
	awk -v set="$1" -v label="$2" -v base="$3" -v c="$4" "$STAT"'
	$1 == set && $2 == label { a[$3] = $c }
	$1 == set && $2 == base { b[$3] = $c }
	END {
		for (k in a) if ((k in b) && b[k] > 0 && a[k] != "nan") {
			x = 100 * (a[k] / b[k] - 1); n++; s += x; ss += x * x
		}
		if (!n) { print "-"; exit }
		r = ci(n, s, ss); if (s > 0) r = "+" r
		print r "%"
	}' "$OUT/runs.tsv"
}
# mean of a change, for the figures
cmean() {
	awk -v set="$1" -v label="$2" -v base="$3" -v c="$4" '
	$1 == set && $2 == label { a[$3] = $c }
	$1 == set && $2 == base { b[$3] = $c }
	END {
		for (k in a) if ((k in b) && b[k] > 0 && a[k] != "nan") { n++; s += 100 * (a[k] / b[k] - 1) }
		print n ? s / n : "nan"
	}' "$OUT/runs.tsv"
}
paper() { # SET METRIC BASE
	v=$(awk -F, -v s="$1" -v m="$2" -v b="$3" '$1 == s && $2 == m && $3 == b { print $4 }' "$here/paper.csv")
	echo "${v:-not given}"
}
name() {
	case $1 in delay) echo "Fair (delay)" ;; shufflewatcher) echo "ShuffleWatcher" ;; dawn) echo "Dawn" ;;
	dawn-b*) echo "Dawn b=${1#dawn-b}" ;; *) echo "$1" ;; esac
}
# column numbers in runs.tsv
C_DONE=6 C_WCT=7 C_P99=8 C_IN=9 C_DEP=10 C_SH=11 C_OUT=12 C_BAL=13

{
	echo "# Dawn (IEEE TPDS) §6.1 in hyde's simulator: a reduced reproduction"
	echo
	echo "Generated by \`make reproduce-dawn\` (repro/dawn/reproduce.sh, report.sh)."
	echo "Cluster: topologies/dawn24.topo (6 racks x 4 hosts x 6 containers, 10 Gbit/s"
	echo "hosts, 4 Gbit/s = 500 MB/s rack uplinks, no OCS). Runs: $RUNS per point (seeds"
	echo "1..$RUNS; each a new draw of the DAGs, their arrivals and HDFS's placement)."
	echo "ML: \`hyde gen dag preset=ml\`, $DAGS_ML DAGs, Poisson arrivals with a $GAP s mean"
	echo "gap, sizes x $SCALE_ML; TPC-H: \`preset=tpch\`, $DAGS_TPCH DAGs (each query in turn),"
	echo "27.3 s mean gap, 50 GB; tasks process $RATE/s of data. Throughput: the DAGs"
	echo "finished within the arrival window (DAGs x mean gap). WCT: a DAG's submission"
	echo "to its last job's end (every DAG, runs simulated to their end). Cross-rack:"
	echo "bytes per finished DAG. Means with 95% intervals; changes paired by seed."
	echo "\"Fair\" is hyde's \`delay\` (the Fair Scheduler with delay scheduling, as YARN's"
	echo "Fair runs), ShuffleWatcher hyde's \`shufflewatcher\` (a reconstruction)."
	echo
	echo "## Fig. 11: overall (ML and TPC-H)"
	echo
	for set in ml tpch mlnet tpchnet; do
		case $set in
		mlnet) echo "### ml, network-bound ($NET_UPLINK rack uplinks; not in the paper)" ;;
		tpchnet) echo "### tpch, network-bound ($NET_UPLINK rack uplinks; not in the paper)" ;;
		*) echo "### $set" ;;
		esac
		echo
		echo "| scheduler | DAGs done within H | avg WCT (s) | p99 WCT (s) | cross-rack per DAG (GB) |"
		echo "|---|---|---|---|---|"
		for l in delay shufflewatcher dawn; do
			x=$(awk -v s=$set -v l=$l '$1 == s && $2 == l { t = $9 + $10 + $11 + $12; print $1, $2, $3, t }' \
				"$OUT/runs.tsv" | awk "$STAT"'{ x = $4 / 1e9; n++; s += x; ss += x * x } END { print n ? ci(n, s, ss) : "-" }')
			echo "| $(name $l) | $(stat $set $l $C_DONE) | $(stat $set $l $C_WCT) | $(stat $set $l $C_P99) | $x |"
		done
		echo
		echo "| Dawn against | throughput | avg WCT | cross-rack (all kinds) |"
		echo "|---|---|---|---|"
		for b in delay shufflewatcher; do
			pb=$b; [ $b = delay ] && pb=fair
			ps=${set%net}
			awk -v s=$set '$1 == s { $14 = $9 + $10 + $11 + $12 } $1 == s' "$OUT/runs.tsv" >"$OUT/x.tsv"
			cr=$(awk -v set="$set" -v label=dawn -v base="$b" "$STAT"'
				$2 == label { a[$3] = $9 + $10 + $11 + $12 }
				$2 == base { b[$3] = $9 + $10 + $11 + $12 }
				END { for (k in a) if ((k in b) && b[k] > 0) { x = 100 * (a[k] / b[k] - 1); n++; s += x; ss += x * x }
				      r = n ? ci(n, s, ss) : "-"; if (s > 0) r = "+" r; print r "%" }' "$OUT/x.tsv")
			echo "| $(name $b) | $(change $set dawn $b $C_DONE) (paper $(paper $ps throughput $pb)) | $(change $set dawn $b $C_WCT) (paper $(paper $ps wct $pb)) | $cr (paper $(paper $ps cross_rack $pb)) |"
		done
		rm -f "$OUT/x.tsv"
		echo
	done
	echo "Dawn's scheduler line (events.log, first seed): offers answered while the"
	echo "network was saturated / unsaturated, offers left idle (no job prefers the rack):"
	echo
	for set in ml tpch mlnet tpchnet; do
		echo "- $set: $(grep 'sched dawn: offers' "$SIM/$set/dawn/seed-1/sched.txt" 2>/dev/null | sed 's/.*sched dawn: //' | tail -1)"
	done
	echo
	if [ -d "$SIM/emul" ]; then
		echo "### Emulation against simulation (EMUL=1; seed 1)"
		echo
		echo "dawn24 at 1/100 of its rates on the emulated fabric (real task processes,"
		echo "TCP, HDFS reads), ${EMUL_DAGS:-8} ML DAGs at 0.002 of Table 2's sizes, and the same"
		echo "workload in the simulator. Cross-rack: the controller's count of the"
		echo "flows it ran, MB per DAG."
		echo
		echo "| scheduler | avg WCT emulated (s) | simulated (s) | cross-rack emulated: input / dependent / shuffle (MB) | simulated (MB) |"
		echo "|---|---|---|---|---|"
		for l in delay shufflewatcher dawn; do
			e=$(awk -v l=$l '$1 == "emul" && $2 == l { printf "%.0f | ", $7; x = sprintf("%.1f / %.1f / %.1f", $9 / 1e6, $10 / 1e6, $11 / 1e6) } END { printf "%s", x }' "$OUT/runs.tsv")
			m=$(awk -v l=$l '$1 == "emulsim" && $2 == l { printf "%.0f | ", $7; x = sprintf("%.1f / %.1f / %.1f", $9 / 1e6, $10 / 1e6, $11 / 1e6) } END { printf "%s", x }' "$OUT/runs.tsv")
			ew=${e%% |*}; ec=${e#* | }; mw=${m%% |*}; mc=${m#* | }
			echo "| $(name $l) | ${ew:--} | ${mw:--} | ${ec:--} | ${mc:--} |"
		done
		echo
	fi
	echo "## Fig. 12: cross-rack bytes per finished DAG by data (GB)"
	echo
	for set in ml tpch mlnet tpchnet; do
		echo "| $set | first-level input | dependent data | shuffle | output replicas |"
		echo "|---|---|---|---|---|"
		for l in delay shufflewatcher dawn; do
			echo "| $(name $l) | $(stat $set $l $C_IN 1e-9) | $(stat $set $l $C_DEP 1e-9) | $(stat $set $l $C_SH 1e-9) | $(stat $set $l $C_OUT 1e-9) |"
		done
		echo
	done
	echo "Paper (Fig. 12, prose): Dawn's first-level input traffic is the highest of the"
	echo "three, its dependent-data and shuffle traffic the lowest."
	echo
	echo "## Fig. 14: Dawn's tasks by the data they process and the network's state"
	echo
	echo "Summed over the runs, from Dawn's log: a task is \"cross\" when some of its"
	echo "data was off the rack it was placed on (a map's block, a reduce's map output)."
	echo
	echo "| set | data | tasks (share) | of them cross-rack | cross-rack tasks placed while unsaturated | local tasks placed while saturated |"
	echo "|---|---|---|---|---|---|"
	for set in ml tpch mlnet tpchnet; do
		cat "$SIM/$set"/dawn/seed-*/sched.txt 2>/dev/null | awk -v set=$set '
		/ tasks / {
			k = $0; sub(/.* tasks /, "", k); sub(/:.*/, "", k)
			split($0, w, /[ =]/)
			for (i = 1; i in w; i++) {
				if (w[i] == "saturated") st = "s"; if (w[i] == "unsaturated") st = "u"
				if (w[i] == "local" || w[i] == "cross") v[k, st, w[i]] += w[i + 1]
			}
			kinds[k] = 1
		}
		END {
			split("input dependent intermediate", ord, " ")
			for (i = 1; i <= 3; i++) { k = ord[i]; tot += v[k, "s", "local"] + v[k, "s", "cross"] + v[k, "u", "local"] + v[k, "u", "cross"] }
			for (i = 1; i <= 3; i++) {
				k = ord[i]; if (!(k in kinds)) continue
				n = v[k, "s", "local"] + v[k, "s", "cross"] + v[k, "u", "local"] + v[k, "u", "cross"]
				c = v[k, "s", "cross"] + v[k, "u", "cross"]; l = n - c
				printf "| %s | %s | %d (%.0f%%) | %.0f%% | %s | %s |\n", set, k, n, tot ? 100 * n / tot : 0,
					n ? 100 * c / n : 0, c ? sprintf("%.0f%%", 100 * v[k, "u", "cross"] / c) : "-",
					l ? sprintf("%.0f%%", 100 * v[k, "s", "local"] / l) : "-"
			}
		}'
	done
	echo
	echo "Paper (Fig. 14, prose): tasks processing dependent and intermediate data far"
	echo "outnumber those processing input; 79% of the input tasks and 11% of the others"
	echo "incur cross-rack traffic; 89% of the tasks with traffic run while unsaturated,"
	echo "90% of those without while saturated."
	echo
	echo "## DAG statistics of the generated workloads (§2.2)"
	echo
	echo "| preset | DAGs | jobs | jobs with parents | with two or more | median depth | mean depth |"
	echo "|---|---|---|---|---|---|---|"
	for pr in "ml dags=$DAGS_ML" "tpch dags=22"; do
		"${HYDE:-$here/../../hyde}" gen dag preset=$pr 2>/dev/null | awk -v pr="${pr%% *}" '
		/^job/ {
			id = ""; app = ""; np = 0
			for (i = 2; i <= NF; i++) {
				split($i, kv, "=")
				if (kv[1] == "id") id = kv[2]
				if (kv[1] == "app") app = kv[2]
				if (kv[1] == "parents") np = split(kv[2], par, ",")
			}
			n++; if (np) p1++; if (np >= 2) p2++
			d = 1
			for (k = 1; k <= np; k++) if (dep[par[k]] + 1 > d) d = dep[par[k]] + 1
			dep[id] = d
			if (d > depth[app]) depth[app] = d
		}
		END {
			m = 0; for (a in depth) { m++; v[m] = depth[a]; s += depth[a] }
			for (i = 2; i <= m; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
			med = m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
			printf "| %s | %d | %d | %.0f%% | %.0f%% | %g | %.1f |\n", pr, m, n, 100 * p1 / n, 100 * p2 / n, med, s / m
		}'
	done
	echo
	echo "Paper (§2.2, over its 3 ML and 22 query workloads): 80% of jobs have parents,"
	echo "47% two or more, median depth 5; mean depth 13 (ML) and 6 (queries)."
	echo
	echo "## Tables 3 and 4: average completion time per benchmark / query (s)"
	echo
	echo "| DAG | Fair (delay) | ShuffleWatcher | Dawn | Dawn vs Fair | paper: Fair / SW / Dawn (Dawn vs Fair) |"
	echo "|---|---|---|---|---|---|"
	tail -n +4 "$here/table3.csv" | while IFS=, read -r nm pf ps pd; do
		case $nm in q*) set=tpch ;; *) set=ml ;; esac
		line=$(awk -v set=$set -v nm="$nm" '
			$1 == set && $4 == nm { s[$2] += $5; n[$2]++; if ($2 == "delay") f[$3] = $5; if ($2 == "dawn") d[$3] = $5 }
			END {
				for (k in d) if (k in f) { c += 100 * (d[k] / f[k] - 1); m++ }
				printf "%s | %s | %s | %s", n["delay"] ? sprintf("%.0f", s["delay"] / n["delay"]) : "-",
					n["shufflewatcher"] ? sprintf("%.0f", s["shufflewatcher"] / n["shufflewatcher"]) : "-",
					n["dawn"] ? sprintf("%.0f", s["dawn"] / n["dawn"]) : "-",
					m ? sprintf("%+.0f%%", c / m) : "-"
			}' "$OUT/names.tsv")
		echo "| $nm | $line | $pf / $ps / $pd ($(awk -v a="$pd" -v b="$pf" 'BEGIN { printf "%+.0f%%", 100 * (a / b - 1) }')) |"
	done
	echo
	echo "## Fig. 15: load (ML, mean gap between DAGs)"
	echo
	echo "| gap (s) | Fair done in H | SW done in H | Dawn done in H | Dawn vs Fair: throughput | WCT | balancing events (Dawn) |"
	echo "|---|---|---|---|---|---|---|"
	for g in $GAPS; do
		echo "| $g | $(stat gap$g delay $C_DONE) | $(stat gap$g shufflewatcher $C_DONE) | $(stat gap$g dawn-b0 $C_DONE) | $(change gap$g dawn-b0 delay $C_DONE) | $(change gap$g dawn-b0 delay $C_WCT) | $(stat gap$g dawn-b0 $C_BAL) |"
	done
	echo
	echo "Paper (Fig. 15(a), prose): Dawn's gain is largest at high load and about"
	echo "nothing at the lowest (a 140 s gap), where balancing runs most often."
	echo
	echo "## Fig. 15(b-d) and 16: the balancing factor b (Dawn, ML)"
	echo
	echo "| gap (s) | b | done in H | avg WCT (s) | p99 WCT (s) | balancing events |"
	echo "|---|---|---|---|---|---|"
	for g in $GAPS; do
		for b in $BS; do
			echo "| $g | $b | $(stat gap$g dawn-b$b $C_DONE) | $(stat gap$g dawn-b$b $C_WCT) | $(stat gap$g dawn-b$b $C_P99) | $(stat gap$g dawn-b$b $C_BAL) |"
		done
	done
	echo
	echo "Paper (§6.1.4): at high load a larger b balances more often and lowers the"
	echo "throughput; at a 60 s gap the 99th percentile WCT of PageRank falls as b grows."
	echo
	if ls "$OUT"/horizon/*/*/summary.json >/dev/null 2>&1; then
		echo "## Throughput counted by a run stopped at H (seed 1)"
		echo
		echo "The tables count the DAGs that end by H on runs simulated to their end"
		echo "(their WCTs are every DAG's). Seed 1 of ML and TPC-H run again with"
		echo "\`hyde sim --horizon H\`, stopped there, count in summary.json's dags_done:"
		echo
		echo "| set | scheduler | H (s) | done by H, whole run | dags_done, stopped at H | avg WCT (s) of those, stopped at H |"
		echo "|---|---|---|---|---|---|"
		for f in "$OUT"/horizon/*/*/summary.json; do
			d=${f%/summary.json}; label=${d##*/}; set=${d%/*}; set=${set##*/}
			got=$(sed -n 's/.*"dags_done": \([0-9]*\).*/\1/p' "$f")
			wct=$(sed -n 's/.*"avg_wct_s": \([0-9.]*\).*/\1/p' "$f")
			awk -v set="$set" -v label="$label" -v got="$got" -v wct="$wct" '
				$1 == set && $2 == label && $3 == 1 {
					printf "| %s | %s | %g | %d | %d%s | %.1f |\n", set, label, $4, $6, got,
						got == $6 ? "" : " (differs)", wct
				}' "$OUT/runs.tsv"
		done
		echo
	fi
} >"$R"

# ---- figures ----
command -v gnuplot >/dev/null 2>&1 || { echo "report.sh: no gnuplot: no figures" >&2; exit 0; }
{
	for set in ml tpch; do
		for b in delay shufflewatcher; do
			pb=$b; [ $b = delay ] && pb=fair
			for m in throughput wct; do
				col=$C_DONE; [ $m = wct ] && col=$C_WCT
				p=$(paper $set $m $pb | tr -d '%+' | sed 's/not given/nan/')
				echo "\"$set $m vs $pb\" $(cmean $set dawn $b $col) ${p:-nan}"
			done
		done
	done
} >"$OUT/fig11.dat"
for set in ml tpch; do
	for l in delay shufflewatcher dawn; do
		awk -v s=$set -v l=$l '$1 == s && $2 == l { n++; a += $9; b += $10; c += $11; d += $12 }
			END { if (n) printf "\"%s %s\" %g %g %g %g\n", s, l, a / n / 1e9, b / n / 1e9, c / n / 1e9, d / n / 1e9 }' \
			"$OUT/runs.tsv"
	done
done >"$OUT/fig12.dat"
for g in $GAPS; do
	printf '%s' "$g"
	for l in delay shufflewatcher dawn-b0; do
		printf ' %s' "$(awk -v s=gap$g -v l=$l '$1 == s && $2 == l { n++; x += $6 / $5 } END { print n ? 100 * x / n : "nan" }' "$OUT/runs.tsv")"
	done
	for b in $BS; do
		printf ' %s %s' "$(awk -v s=gap$g -v l=dawn-b$b '$1 == s && $2 == l { n++; x += $6 / $5 } END { print n ? 100 * x / n : "nan" }' "$OUT/runs.tsv")" \
			"$(awk -v s=gap$g -v l=dawn-b$b '$1 == s && $2 == l { n++; x += $8 } END { print n ? x / n : "nan" }' "$OUT/runs.tsv")"
	done
	echo
done >"$OUT/fig15.dat"
nb=$(echo $BS | wc -w)
gnuplot <<EOF 2>"$OUT/gnuplot.err" || echo "report.sh: gnuplot failed (see $OUT/gnuplot.err)" >&2
set terminal pngcairo size 1000,500 noenhanced
set datafile missing "nan"
set output "$OUT/fig11.png"
set title "Fig. 11: Dawn's change against Fair (delay) and ShuffleWatcher (%): hyde vs paper"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set xtics rotate by -30
set ylabel "change (%)"
set grid ytics
plot "$OUT/fig11.dat" using 2:xtic(1) title "hyde (mean over runs)", "" using 3 title "paper"
set output "$OUT/fig12.png"
set title "Fig. 12: cross-rack bytes per finished DAG by data (GB)"
set style histogram rowstacked
set ylabel "GB per DAG"
plot "$OUT/fig12.dat" using 2:xtic(1) title "first-level input", "" using 3 title "dependent data", "" using 4 title "shuffle", "" using 5 title "output"
set output "$OUT/fig15.png"
set title "Fig. 15: ML DAGs finished within the arrival window (%) against the mean gap"
set style data linespoints
unset style
set xtics norotate
set xlabel "mean gap between DAGs (s)"
set ylabel "% of the DAGs finished within H"
plot "$OUT/fig15.dat" using 1:2 title "Fair (delay)" with linespoints, "" using 1:3 title "ShuffleWatcher" with linespoints, "" using 1:4 title "Dawn (b=0)" with linespoints
set output "$OUT/fig16.png"
set title "Fig. 15(b-d)/16: Dawn's 99th percentile WCT (s) against the gap, by b"
set ylabel "p99 WCT (s)"
plot for [k=1:$nb] "$OUT/fig15.dat" using 1:(column(4 + 2 * k)) title sprintf("b = %s", word("$BS", k)) with linespoints
EOF
exit 0
