# Sourced by run.sh: the figures (gnuplot) and report.md from the tables
# in $OUT/tab (lines "bin n mean min max", see fctgap.awk).

BINS_AWK='function label(b) {
	return b == "0" ? "< 10 KB" : b == "1" ? "10-100 KB" : b == "2" ? "100 KB-1 MB" : \
	       b == "3" ? "1-10 MB" : b == "4" ? "10-100 MB" : b == "5" ? ">= 100 MB" : "all"
}'

# md_table NAME:TABLE...: gap per bin, one column per scheme, "mean
# (min-max)" over the seeds, and the flows (coflows) per bin.
md_table() {
	_hdr="| size |"
	_sep="|---|"
	_files=
	for _c in "$@"; do
		_hdr="$_hdr ${_c%%:*} |"
		_sep="$_sep---|"
		_files="$_files $OUT/tab/${_c#*:}"
	done
	printf '%s n |\n%s---|\n' "$_hdr" "$_sep"
	# shellcheck disable=SC2086
	awk "$BINS_AWK"'
	FNR == 1 { f++ }
	{ if (!($1 in seen)) { seen[$1] = 1; order[++nb] = $1 }
	  cell[$1, f] = sprintf("%.3f (%.3f-%.3f)", $3, $4, $5); n[$1] = $2 }
	END {
		for (i = 1; i <= nb; i++) {
			b = order[i]; line = "| " label(b) " |"
			for (k = 1; k <= f; k++) {
				c = "-"
				if ((b, k) in cell)
					c = cell[b, k]
				line = line " " c " |"
			}
			print line " " n[b] " |"
		}
	}' $_files
}

# ratio NEAT_TABLE OTHER_TABLE: "up to" over the bins holding at least
# 1% of the flows: the gap ratio other/NEAT (over bins where NEAT is at
# least 5% from optimal: a ratio of two near-zero gaps says nothing) and
# the AFCT NEAT saves, 1 - AFCT_neat / AFCT_other = 1 - (1 + g_neat) /
# (1 + g_other) (the same flows in both runs: the same AFCT_opt); then
# the same over all flows.
ratio() {
	awk 'FNR == 1 { f++ }
	f == 1 { g[$1] = $3; n[$1] = $2; if ($1 == "all") tot = $2; next }
	($1 in g) { h[$1] = $3 }
	END {
		best = -1; save = -1
		for (b in h) {
			if (b == "all" || n[b] < 0.01 * tot) continue
			if (g[b] >= 0.05 && h[b] / g[b] > best) { best = h[b] / g[b]; bb = b }
			s = 1 - (1 + g[b]) / (1 + h[b])
			if (s > save) { save = s; sb = b }
		}
		ra = 0
		if (g["all"] > 0)
			ra = h["all"] / g["all"]
		bs = "-"
		if (best >= 0)
			bs = sprintf("%.2fx", best)
		printf "%s|%.0f%%|%.2fx|%.0f%%", bs, 100 * save, ra,
			100 * (1 - (1 + g["all"]) / (1 + h["all"]))
	}' "$OUT/tab/$1" "$OUT/tab/$2"
}

# plot PNG TITLE NAME:TABLE...: clustered bars of the gap per bin, with the
# seeds' range
plot() {
	_png=$1
	_title=$2
	shift 2
	[ -x "$(command -v gnuplot)" ] || return 0
	_dat=$OUT/fig/$(basename "$_png" .png).dat
	_files=
	_names=
	for _c in "$@"; do
		_files="$_files $OUT/tab/${_c#*:}"
		_names="$_names ${_c%%:*}"
	done
	# shellcheck disable=SC2086
	awk "$BINS_AWK"'
	FNR == 1 { f++ }
	$1 != "all" { if (!($1 in seen)) { seen[$1] = 1; order[++nb] = $1 }
	  cell[$1, f] = $3 " " $4 " " $5 }
	END {
		for (i = 1; i <= nb; i++) {
			b = order[i]; line = "\"" label(b) "\""
			for (k = 1; k <= f; k++) {
				c = "0 0 0"
				if ((b, k) in cell)
					c = cell[b, k]
				line = line " " c
			}
			print line
		}
	}' $_files >"$_dat"
	{
		printf "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo size 900,500 noenhanced font ',11' } else { set terminal png size 900,500 noenhanced }\n"
		printf "set output '%s'\nset title '%s'\n" "$_png" "$_title"
		printf "set style data histogram\nset style histogram errorbars gap 1 lw 1\n"
		printf "set style fill solid 0.8 border -1\nset key top left\nset grid y\n"
		printf "set ylabel 'gap from optimal (mean over seeds; bars: min-max)'\nset xlabel 'flow size'\n"
		printf "set yrange [0:*]\nplot "
		_k=0
		for _n in $_names; do
			[ $_k -gt 0 ] && printf ", "
			printf "'%s' using %d:%d:%d%s title '%s'" "$_dat" $((3 * _k + 2)) $((3 * _k + 3)) \
				$((3 * _k + 4)) "$([ $_k = 0 ] && printf ':xtic(1)')" "$_n"
			_k=$((_k + 1))
		done
		printf "\n"
	} >"$OUT/fig/$(basename "$_png" .png).gp"
	gnuplot "$OUT/fig/$(basename "$_png" .png).gp" 2>/dev/null || log "gnuplot failed on $_png"
}

# err_table TABLE: prediction errors per bin
err_table() {
	printf '| size | flows | mean error | 10th pct | median | 90th pct | within 5%% | within 20%% |\n'
	printf '|---|---|---|---|---|---|---|---|\n'
	awk "$BINS_AWK"'{ printf "| %s | %d | %+.3f | %+.3f | %+.3f | %+.3f | %.0f%% | %.0f%% |\n",
		label($1), $2, $3, $4, $5, $6, 100 * $7, 100 * $8 }' "$OUT/tab/$1"
}

F=$OUT/fig
plot "$F/fig3-fair.png" "Fig. 3 setting: data-mining flows under Fair" \
	minDist:fair-dm-mindist minLoad:fair-dm-minload
plot "$F/fig5a-hadoop.png" "Fig. 5(a): data-mining (Hadoop stand-in) flows under Fair" \
	NEAT:fair-dm-neat minLoad:fair-dm-minload minDist:fair-dm-mindist
plot "$F/fig5b-websearch.png" "Fig. 5(b): web-search flows under Fair" \
	NEAT:fair-ws-neat minLoad:fair-ws-minload minDist:fair-ws-mindist
plot "$F/fig6a-las.png" "Fig. 6(a): data-mining flows under LAS" \
	NEAT:las-dm-neat minLoad:las-dm-minload minDist:las-dm-mindist
plot "$F/fig6b-srpt.png" "Fig. 6(b): data-mining flows under SRPT" \
	NEAT:srpt-dm-neat minLoad:srpt-dm-minload minDist:srpt-dm-mindist
plot "$F/fig7a-varys.png" "Fig. 7(a): coflows of 4 data-mining flows under Varys (CCT)" \
	NEAT:varys-cf-neat minLoad:varys-cf-minload minDist:varys-cf-mindist
plot "$F/fig7b-scf.png" "Fig. 7(b): coflows of 4 data-mining flows under SCF (CCT)" \
	NEAT:scf-cf-neat minLoad:scf-cf-minload minDist:scf-cf-mindist
plot "$F/fig8-predictor.png" "Fig. 8: Fair predictor vs SRPT predictor, under SRPT" \
	Fair-predictor:srpt-dm-neat SRPT-predictor:srpt-dm-neatsrpt
plot "$F/fig9-minfct.png" "Fig. 9: preferred hosts (NEAT) vs minFCT, under SRPT" \
	NEAT:srpt-dm-neat minFCT:srpt-dm-minfct minDist:srpt-dm-mindist
[ "$emul_ok" = yes ] && plot "$F/fig11-testbed.png" "Fig. 11: emulated testbed (10 hosts, 100 Mbit/s), data-mining x 0.1" \
	NEAT-Fair:tb-fair-neat minLoad-Fair:tb-fair-minload NEAT-LAS:tb-las-neat minLoad-LAS:tb-las-minload

# ---- report.md ----
{
	cat <<EOF
# NEAT (Munir et al., CoNEXT'16) reproduced in hyde

Generated by \`make reproduce-neat\` (repro/neat/run.sh) on $(date -u '+%Y-%m-%d %H:%M UTC'),
$("$HYDE" version 2>/dev/null | head -n 1).

**Setting.** Simulation: \`hyde sim\` on topologies/neat160.topo (16 racks x 10
hosts, 1 Gbit/s host links, 10 Gbit/s uplinks: 1:1, the paper's 160 hosts
with a non-blocking core), tasks placed as they arrive (\`--heartbeat 0\`).
Workloads: \`hyde gen flows\`, $FLOWS flows per workload, Poisson arrivals
loading the host links to $LOAD, each flow's source a random host, its
destination the host the scheduler picks (a remote map: never its
source). Sizes: web-search (DCTCP's CDF) and data-mining (VL2's), which
stands in for the paper's "Hadoop" workload (no CDF of it is published; it
is heavier: the paper's has 4% of flows above 80 GB, VL2's tops at 1 GB).
Coflows (Fig. 7): jobs of 4 flows from 4 random hosts. Seeds: $SEEDS (a
workload and a run per seed and scheme; every scheme of a figure runs on
the same workloads). Metric (§6.1): the gap from optimal per flow-size
bin, (AFCT - AFCT_opt) / AFCT_opt, AFCT_opt the flows' times alone in the
network (bytes / 1 Gbit/s in the fluid model); cells give the mean over
the seeds and (min-max). "Up to" compares bins that hold at least 1% of
the flows (gap ratios: where NEAT's gap is at least 0.05, "-" if none);
AFCT saved = 1 - AFCT_NEAT / AFCT_other in a bin (the same flows, so the
same AFCT_opt).

Network policies: Fair = max-min (the paper's DCTCP), LAS (its L2DCT),
SRPT (its PASE) in the simulator's rate models; coflows: Varys (SEBF +
MADD) and SCF. NEAT's predictor: the Fair one for every flow policy, as
the paper evaluates it (§6.1), on the candidate's edge link (\`mode=edge\`);
under a coflow policy, that policy's CCT model with eq. (2)'s objective.

## Fig. 3: minDist vs minLoad (data-mining)

The paper: minLoad better than minDist under Fair for most sizes (ratio
minDist/minLoad > 1), minDist better under SRPT.

| policy | FCT minDist / minLoad, per bin (mean over seeds, from the gaps) |
|---|---|
EOF
	for net in fair srpt; do
		printf '| %s | %s |\n' "$net" "$(awk "$BINS_AWK"'FNR == 1 { f++ }
			f == 1 { d[$1] = $3; next } { if ($1 != "all") printf "%s %.2f; ", label($1), (1 + d[$1]) / (1 + $3) }' \
			"$OUT/tab/$net-dm-mindist" "$OUT/tab/$net-dm-minload")"
	done
	cat <<EOF

## Fig. 5: flow placement under Fair

The paper: NEAT up to 3.6x better than minLoad and minDist (web-search),
up to 3.7x (Hadoop).

| workload | vs | ours: gap ratio, up to | ours: AFCT saved, up to | ours: gap ratio, all flows | ours: AFCT saved, all flows | paper |
|---|---|---|---|---|---|---|
| web-search | minLoad | $(ratio fair-ws-neat fair-ws-minload | sed 's/|/ | /g') | up to 3.6x |
| web-search | minDist | $(ratio fair-ws-neat fair-ws-mindist | sed 's/|/ | /g') | up to 3.6x |
| data-mining | minLoad | $(ratio fair-dm-neat fair-dm-minload | sed 's/|/ | /g') | up to 3.7x (Hadoop) |
| data-mining | minDist | $(ratio fair-dm-neat fair-dm-mindist | sed 's/|/ | /g') | up to 3.7x (Hadoop) |

Data-mining under Fair (![](fig/fig5a-hadoop.png)):

$(md_table NEAT:fair-dm-neat minLoad:fair-dm-minload minDist:fair-dm-mindist)

Web-search under Fair (![](fig/fig5b-websearch.png)):

$(md_table NEAT:fair-ws-neat minLoad:fair-ws-minload minDist:fair-ws-mindist)

The same at lower loads (gap over all flows; the paper does not give its load):

| load | workload | NEAT | minLoad | minDist | NEAT vs minLoad: gap ratio / AFCT saved (all) |
|---|---|---|---|---|---|
EOF
	for l in 0.3 0.5; do
		for w in ws dm; do
			printf '| %s | %s | %s | %s | %s | %s |\n' $l $w \
				"$(awk '$1 == "all" { printf "%.3f", $3 }' "$OUT/tab/fair-$w$l-neat")" \
				"$(awk '$1 == "all" { printf "%.3f", $3 }' "$OUT/tab/fair-$w$l-minload")" \
				"$(awk '$1 == "all" { printf "%.3f", $3 }' "$OUT/tab/fair-$w$l-mindist")" \
				"$(ratio fair-$w$l-neat fair-$w$l-minload | awk -F'|' '{ print $3 " / " $4 }')"
		done
	done
	cat <<EOF

## Fig. 6: flow placement under LAS and SRPT (data-mining)

The paper: under LAS, NEAT 2.7x better than minLoad, up to 3.2x than
minDist; under SRPT, 30% better than minLoad, up to 20% than minDist.

| policy | vs | ours: gap ratio, up to | ours: AFCT saved, up to | ours: gap ratio, all | ours: AFCT saved, all | paper |
|---|---|---|---|---|---|---|
| LAS | minLoad | $(ratio las-dm-neat las-dm-minload | sed 's/|/ | /g') | 2.7x |
| LAS | minDist | $(ratio las-dm-neat las-dm-mindist | sed 's/|/ | /g') | up to 3.2x |
| SRPT | minLoad | $(ratio srpt-dm-neat srpt-dm-minload | sed 's/|/ | /g') | 30% |
| SRPT | minDist | $(ratio srpt-dm-neat srpt-dm-mindist | sed 's/|/ | /g') | up to 20% |

LAS (![](fig/fig6a-las.png)):

$(md_table NEAT:las-dm-neat minLoad:las-dm-minload minDist:las-dm-mindist)

SRPT (![](fig/fig6b-srpt.png)):

$(md_table NEAT:srpt-dm-neat minLoad:srpt-dm-minload minDist:srpt-dm-mindist)

## Fig. 7: coflow placement (4 data-mining flows a coflow)

The paper: NEAT improves CCT up to 25% under Varys and under SCF; minDist
under Varys beats NEAT under SCF. Bins by the coflow's bytes; CCT_opt =
the most bytes of the coflow on one of its edge links, at 1 Gbit/s.

| policy | vs | ours: gap ratio, up to | ours: CCT saved, up to | ours: gap ratio, all | ours: CCT saved, all | paper |
|---|---|---|---|---|---|---|
| Varys | minLoad | $(ratio varys-cf-neat varys-cf-minload | sed 's/|/ | /g') | up to 25% |
| Varys | minDist | $(ratio varys-cf-neat varys-cf-mindist | sed 's/|/ | /g') | up to 25% |
| SCF | minLoad | $(ratio scf-cf-neat scf-cf-minload | sed 's/|/ | /g') | up to 25% |
| SCF | minDist | $(ratio scf-cf-neat scf-cf-mindist | sed 's/|/ | /g') | up to 25% |

Varys (![](fig/fig7a-varys.png)):

$(md_table NEAT:varys-cf-neat minLoad:varys-cf-minload minDist:varys-cf-mindist)

SCF (![](fig/fig7b-scf.png)):

$(md_table NEAT:scf-cf-neat minLoad:scf-cf-minload minDist:scf-cf-mindist)

## Fig. 8: the Fair predictor under SRPT

The paper: both predictors give similar performance (Prop. 4.1).

$(md_table Fair-predictor:srpt-dm-neat SRPT-predictor:srpt-dm-neatsrpt)

![](fig/fig8-predictor.png)

## Fig. 9: preferred hosts (NEAT vs minFCT)

The paper: minFCT up to 50% worse than NEAT, and worse than minDist.

| policy | minFCT vs NEAT: gap ratio, up to | AFCT NEAT saves, up to | gap ratio, all | AFCT saved, all | paper |
|---|---|---|---|---|---|
| SRPT | $(ratio srpt-dm-neat srpt-dm-minfct | sed 's/|/ | /g') | up to 50% |
| Fair | $(ratio fair-dm-neat fair-dm-minfct | sed 's/|/ | /g') | (not shown) |

$(md_table NEAT:srpt-dm-neat minFCT:srpt-dm-minfct minDist:srpt-dm-mindist)

![](fig/fig9-minfct.png)

## Fig. 10: prediction error (NEAT, data-mining)

The paper: error grows with flow size; short flows within 5%. Error =
(FCT - FCT_pred) / FCT_pred for each placed flow, FCT_pred for the host
NEAT chose.

Under SRPT, the Fair predictor (the paper's default):

$(err_table err-srpt-fairpred)

Under SRPT, the SRPT predictor:

$(err_table err-srpt-srptpred)

Under Fair, the Fair predictor on the edge link (the paper) and on the
whole path (\`mode=path\`: the source's uplink too):

$(err_table err-fair-edge)

$(err_table err-fair-path)

## Ablations (data-mining, Fair)

| variant | gap, all flows | gap, < 10 KB | gap, 1-10 MB | gap, >= 100 MB |
|---|---|---|---|---|
EOF
	for v in neat:"NEAT" neatpath:"NEAT mode=path" neatbins:"NEAT bins=8" neatrack:"NEAT fallback=rack" \
		minfct:"minFCT" minload:"minLoad (bytes left)" neathb:"NEAT, heartbeats 10 ms" \
		minloadutil:"minLoad (utilisation over 10 ms, heartbeats 10 ms)" mindist:"minDist"; do
		printf '| %s | %s |\n' "${v#*:}" "$(awk '{ g[$1] = sprintf("%.3f", $3) }
			END { printf "%s | %s | %s | %s", g["all"], g["0"], g["3"], g["5"] }' "$OUT/tab/fair-dm-${v%%:*}")"
	done
	if [ "$emul_ok" = yes ]; then
		cat <<EOF

## Fig. 11: the testbed, emulated

The paper (10 hosts, one rack, 1 GbE, Hadoop workload at load 0.5): NEAT
up to 30% better than minLoad under Fair (DCTCP), 27% under LAS (L2DCT).
Ours: topologies/neat10.topo (10 hosts, one rack, 100 Mbit/s: the
testbed's rates / 10), data-mining sizes x 0.1, load 0.5, $EFLOWS flows,
seeds $ESEEDS; real TCP between namespaces, FCT from the captures. The
policy is enforced by the fabric: under LAS every link has 8 strict
priority bands and the data services mark each flow by the bytes it has
sent (emul/prio.h); under Fair, TCP shares. AFCT_opt per flow: the time a
flow of its size took alone on this fabric (calibration run: sizes from
100 B to 100 MB, one at a time; handshake and request included).

| policy | NEAT vs minLoad: gap ratio, up to | AFCT saved, up to | gap ratio, all | AFCT saved, all | paper |
|---|---|---|---|---|---|
| Fair | $(ratio tb-fair-neat tb-fair-minload | sed 's/|/ | /g') | up to 30% |
| LAS | $(ratio tb-las-neat tb-las-minload | sed 's/|/ | /g') | up to 27% |

$(md_table NEAT-Fair:tb-fair-neat minLoad-Fair:tb-fair-minload NEAT-LAS:tb-las-neat minLoad-LAS:tb-las-minload)

![](fig/fig11-testbed.png)

Flows alone on the emulated fabric (calibration: bytes, seconds):

\`\`\`
$(cat "$OUT/emul/calib.txt")
\`\`\`
EOF
	else
		printf '\n## Fig. 11: the testbed, emulated\n\nNot run: the emulation needs root (NEAT_EMUL=%s).\n' "$EMUL"
	fi
	cat <<EOF

## Where the numbers come from

Per run: \`$OUT/sim/<policy>-<workload>-<scheme>-<seed>/\` (flows.csv,
events.log with NEAT's predictions), workloads in \`$OUT/wl/\`, the
tables behind every cell in \`$OUT/tab/\` (bin, flows, mean, min, max),
figures and their gnuplot scripts in \`$OUT/fig/\`. What the differences
from the paper mean is discussed in README.md, section NEAT.
EOF
} >"$OUT/report.md"
log "wrote $OUT/report.md"
