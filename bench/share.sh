#!/bin/sh
# How TCP shares one bottleneck among long flows that start together,
# against the model's draws of it (-B share_jitter, share_period): the
# emulated fabric carries a many-to-one transfer RUNS times, with no
# scheduler and no circuit (--coflow-only -C none: every flow placed
# and started at once, over the EPS), and the simulator carries the same
# transfer DRAWS times per option set. Two transfers on rack8, both into
# rack r1 over its 40 Mbit/s downlink: 28 flows of 5.1 MB (about 26 s
# each) and 12 of 25 MB (about 60 s each). Prints for each, per row:
#  - within a run: the CV of the flows' FCTs (median over the runs): how
#    unevenly one run shares the link, which sets when the last of a
#    set of reads ends (a map phase);
#  - across runs: the CV of one flow's FCT over the runs (median over
#    the flows): how far a flow's time is a draw;
#  - the mean FCT, and each figure against the emulated runs'.
# Weights drawn from a uniform range give both CVs alike; TCP's
# across-run CV is the smaller, as a few flows of a run end early and
# most together near the link's total (README, Fidelity, "A long flow's
# share").
# Then how TCP shares a link a newcomer joins (-B join_drains): three long
# flows into one host of r1 from 0, and at 5 s (once at 1 s) one or four
# newcomers of 1.5 MB or 5 MB each, on rack8 (the bottleneck r1's 40 Mbit/s
# downlink) and on flat8 (rack8's hosts with 400 Mbit/s uplinks: the
# bottleneck the host's 100 Mbit/s link); prints the newcomers' mean FCT,
# emulated (RUNS runs) and in the model under each of JOIN_SETS (one run
# each: nothing is drawn).
# Then how TCP shares two full links with a connection that crosses both
# (-B extra_full; a parking lot): 25 MB from r0 to r1, from r0 to r2 and
# into r1 from another rack, all at once, one host per rack, so that the
# first crosses two full links and the others one each: host links (four
# racks, 100 Mbit/s host links, 400 Mbit/s uplinks) and uplinks (three
# racks, 80 Mbit/s uplinks); prints the crossing flow's share of its links
# until the first of the others ends (1 - S / (C x T), C what the link
# carries of payload: -B payload; max-min gives it 0.5), emulated (RUNS
# runs) and in the model under each of TWO_SETS, and its FCT and the
# others' mean.
# A benchmark: prints figures, never fails on them. Root.
# Usage: [RUNS=3] [DRAWS=9] [SETS="-B share_jitter=2; ..."]
#        [JOIN_SETS="-B join_drains=0; -B join_drains=57; ..."]
#        [TWO_SETS="-B extra_full=0; -B extra_full=0.13; ..."]
#        [ONLY=share|join|two]
#        [SIM_OPTS="-B setup=1ms -B payload=0.956 -B burst=yes"] bench/share.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
HYDE=${HYDE:-$here/../hyde}
RUNS=${RUNS:-3}
DRAWS=${DRAWS:-9}
SETS=${SETS:-"-B share_jitter=2; -B share_jitter=3 -B share_period=5s; -B share_jitter=3 -B share_period=15s"}
SIM_OPTS=${SIM_OPTS:-"-B setup=1ms -B payload=0.956 -B burst=yes"}
JOIN_SETS=${JOIN_SETS:-"-B join_drains=0; -B join_drains=38 -B join_weight=0.1; -B join_drains=57"}
TWO_SETS=${TWO_SETS:-"-B extra_full=0; -B extra_full=0.5; -B extra_full=0.25; -B extra_full=0.13; -B extra_full=0.08"}
ONLY=${ONLY:-}
TOPO=$src/topologies/rack8.topo
P=hydeshare$$
[ "$(id -u)" = 0 ] || { echo "bench/share.sh: needs root" >&2; exit 2; }
case $RUNS in '' | *[!0-9]* | 0 | 1) echo "bench/share.sh: RUNS: expected a count of 2 or more, got '$RUNS'" >&2; exit 2 ;; esac
case $DRAWS in '' | *[!0-9]* | 0 | 1) echo "bench/share.sh: DRAWS: expected a count of 2 or more, got '$DRAWS'" >&2; exit 2 ;; esac
case $ONLY in '' | share | join | two) ;; *) echo "bench/share.sh: ONLY: expected share, join or two, got '$ONLY'" >&2; exit 2 ;; esac
tmp=$(mktemp -d /tmp/hydeshare.XXXXXX)
cleanup() {
	"$HYDE" clean --prefix $P >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# the two transfers (Coflow-Benchmark lines: mappers' racks, reducers'
# racks and MB): 7 racks into 4 reducers on r1, 36 MB each; 4 racks into
# 3 reducers on r1, 100 MB each
printf '8 1\n1 0 7 0 2 3 4 5 6 7 4 1:36.0 1:36.0 1:36.0 1:36.0\n' >"$tmp/c28.txt"
printf '8 1\n1 0 4 0 2 3 4 3 1:100.0 1:100.0 1:100.0\n' >"$tmp/c12.txt"

# the figures over some runs' flows.csv: within-run CV (median over the
# files), a flow's CV across the files (median over the flows in all),
# mean FCT (s); population standard deviations
spread() {
	awk -F, '
		FNR == 1 { f++; for (i = 1; i <= NF; i++) { if ($i == "name") cn = i; if ($i == "fct_ns") cf = i; if ($i == "end_ns") ce = i }; next }
		$ce > 0 { v = $cf / 1e9; n[f]++; s[f] += v; q[f] += v * v; fn[$cn]++; fs[$cn] += v; fq[$cn] += v * v; all += v; na++ }
		function med(a, k,   i, j, x) {
			for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
			return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
		}
		function cv(s, q, n,   m, var) { m = s / n; var = q / n - m * m; return var > 0 ? sqrt(var) / m : 0 }
		END {
			for (i = 1; i <= f; i++) w[i] = cv(s[i], q[i], n[i])
			k = 0
			for (x in fn) if (fn[x] == f) a[++k] = cv(fs[x], fq[x], f)
			printf "%.4f %.4f %.3f\n", med(w, f), k ? med(a, k) : 0, na ? all / na : 0
		}' "$@"
}

# RUNS emulated runs of the transfer $tmp/NAME.txt (on TOPO, default
# rack8); es: their flows.csv
emulate() { # NAME [TOPO]
	i=1
	es=""
	while [ $i -le "$RUNS" ]; do
		"$HYDE" run -t "${2:-$TOPO}" --coflow-only -C none -w "coflow:$tmp/$1.txt" -B prefix=$P \
			-o "$tmp/$1-e$i" >"$tmp/$1-e$i.log" 2>&1 ||
			{ echo "bench/share.sh: emulated run $i of $1 failed:" >&2; tail -3 "$tmp/$1-e$i.log" >&2; exit 1; }
		es="$es $tmp/$1-e$i/flows.csv"
		i=$((i + 1))
	done
}

if [ -n "$ONLY" ] && [ "$ONLY" != share ]; then set --; else set -- c28 c12; fi
for c in "$@"; do
	case $c in c28) what="28 flows of 5.1 MB" ;; *) what="12 flows of 25 MB" ;; esac
	emulate "$c"
	# shellcheck disable=SC2086,SC2046
	set -- $(spread $es)
	ew=$1 ea=$2 em=$3
	printf '\n%s into r1 (40 Mbit/s), all at once: %d emulated runs, %d draws per set (%s)\n' "$what" "$RUNS" "$DRAWS" "$SIM_OPTS"
	printf '%-48s %9s %7s %9s %7s %8s %7s\n' "" "within" "/emul" "across" "/emul" "mean s" "/emul"
	printf '%-48s %8.1f%% %7s %8.1f%% %7s %8.2f %7s\n' "emulated" "$(echo "$ew" | awk '{ print 100 * $1 }')" "" \
		"$(echo "$ea" | awk '{ print 100 * $1 }')" "" "$em" ""
	old_ifs=$IFS
	IFS=';'
	set -f
	k=0
	for o in $SETS; do
		IFS=$old_ifs
		k=$((k + 1))
		j=1
		ds=""
		while [ $j -le "$DRAWS" ]; do
			# shellcheck disable=SC2086
			"$HYDE" sim -t "$TOPO" --coflow-only -C none -w "coflow:$tmp/$c.txt" $SIM_OPTS $o -B jitter_seed=$j \
				-o "$tmp/$c-s$k-$j" -q >"$tmp/$c-s$k.log" 2>&1 ||
				{ echo "bench/share.sh: draw $j of '$o' failed: $(tail -1 "$tmp/$c-s$k.log")" >&2; exit 1; }
			ds="$ds $tmp/$c-s$k-$j/flows.csv"
			j=$((j + 1))
		done
		# shellcheck disable=SC2086,SC2046
		set -- $(spread $ds)
		# (echo: the set's words with single spaces; set -f is on)
		# shellcheck disable=SC2086,SC2116
		printf '%-48s %8.1f%% %7.2f %8.1f%% %7.2f %8.2f %7.3f\n' "$(echo $o)" \
			"$(echo "$1" | awk '{ print 100 * $1 }')" "$(echo "$1 $ew" | awk '{ print ($2 > 0 ? $1 / $2 : 0) }')" \
			"$(echo "$2" | awk '{ print 100 * $1 }')" "$(echo "$2 $ea" | awk '{ print ($2 > 0 ? $1 / $2 : 0) }')" \
			"$3" "$(echo "$3 $em" | awk '{ print $1 / $2 }')"
		IFS=';'
	done
	IFS=$old_ifs
	set +f
done
[ -n "$ONLY" ] && [ "$ONLY" != share ] ||
	printf '\n(within: CV of the FCTs in one run, median over the runs; across: CV of one flow'"'"'s FCT over the runs,\n median over the flows; population standard deviations)\n'
[ "$ONLY" = share ] && exit 0
[ "$ONLY" = two ] && exec_two=1 || exec_two=0

# SETS TOPO WORKLOAD NAME ROW: the model on the transfer WORKLOAD under
# each of SETS (';'-separated option sets, after SIM_OPTS), one run each;
# ROW SET FLOWS.CSV prints the set's figures
each_set() {
	es_sets=$1 es_topo=$2 es_wl=$3 es_name=$4 es_row=$5
	es_ifs=$IFS
	IFS=';'
	set -f
	es_k=0
	for es_o in $es_sets; do
		IFS=$es_ifs
		es_k=$((es_k + 1))
		# shellcheck disable=SC2086
		"$HYDE" sim -t "$es_topo" --coflow-only -C none -w "coflow:$es_wl" $SIM_OPTS $es_o \
			-o "$tmp/$es_name-s$es_k" -q >"$tmp/$es_name-s$es_k.log" 2>&1 ||
			{ echo "bench/share.sh: '$es_o' on $es_name failed: $(tail -1 "$tmp/$es_name-s$es_k.log")" >&2; exit 1; }
		"$es_row" "$es_o" "$tmp/$es_name-s$es_k/flows.csv"
		IFS=';'
	done
	IFS=$es_ifs
	set +f
}

# a newcomer on a full link: three long flows from r2, r3 and r4 into one
# host of r1, and at T (5 s; once 1 s) NEW more from r5, r6, r7 and r0 of
# SIZE each into the same host: on rack8 three of 25 MB (r1's 40 Mbit/s
# downlink the bottleneck), on flat8 three of 60 MB (the host's 100 Mbit/s
# link)
sed -e 's/^name .*/name flat8/' -e 's/^uplink_rate .*/uplink_rate 400Mbit/' -e 's/^ocs .*/ocs no/' \
	-e '/^ocs_rate/d' -e '/^delta/d' -e '/^t_e/d' "$TOPO" >"$tmp/flat8.topo"
# SET FLOWS.CSV: a JOIN_SETS column (at and em: the case's)
join_row() {
	m=$(newcomers "$at" "$2")
	printf ' | %9.3f  %5.2f of emulated        ' "$m" "$(echo "$m $em" | awk '{ print ($2 > 0 ? $1 / $2 : 0) }')"
}
newcomers() { # AT FLOWS.CSV...: the newcomers' (started AT - 0.5 s or more after the first flow) mean FCT, s
	at=$1
	shift
	awk -F, -v th="$(echo "$at" | awk '{ print ($1 - 0.5) * 1e9 }')" '
		FNR == 1 { f++; for (i = 1; i <= NF; i++) { if ($i == "start_ns") cs = i; if ($i == "fct_ns") cf = i }; next }
		{ st[f, FNR] = $cs; fc[f, FNR] = $cf; if (!(f in t0) || $cs < t0[f]) t0[f] = $cs; nr[f] = FNR }
		END {
			for (i = 1; i <= f; i++)
				for (j = 2; j <= nr[i]; j++)
					if (st[i, j] - t0[i] >= th) { s += fc[i, j] / 1e9; n++ }
			printf "%.3f\n", n ? s / n : 0
		}' "$@"
}
if [ "$exec_two" = 0 ]; then
printf '\nA newcomer on a full link: three long flows into a host of r1 from 0, NEW newcomers of SIZE at T\n'
printf '(rack8: 25 MB flows, the bottleneck r1'"'"'s 40 Mbit/s downlink; flat8: 60 MB flows, the host'"'"'s 100 Mbit/s link);\n'
printf 'the newcomers'"'"' mean FCT (s), %d emulated runs, the model (%s) under each set\n' "$RUNS" "$SIM_OPTS"
printf '%-24s %9s' "NEW x SIZE at T" emulated
old_ifs=$IFS
IFS=';'
set -f
for o in $JOIN_SETS; do
	IFS=$old_ifs
	# shellcheck disable=SC2086,SC2116
	printf ' | %-36s' "$(echo $o)"
	IFS=';'
done
IFS=$old_ifs
set +f
printf '\n'
for c in rack8:1x1.5 rack8:4x1.5 rack8:1x5 rack8:4x5 rack8:4x1.5@1 flat8:1x1.5 flat8:4x1.5; do
	tn=${c%%:*} c=${c#*:}
	at=5
	case $c in *@*) at=${c#*@} c=${c%@*} ;; esac
	n=${c%x*} mb=${c#*x}
	racks=$(echo "5 6 7 0" | cut -d' ' -f1-"$n")
	if [ "$tn" = flat8 ]; then topo=$tmp/flat8.topo inc=180.0; else topo=$TOPO inc=75.0; fi
	c=$tn-$c-$at
	printf '8 2\n1 0 3 2 3 4 1 1:%s\n2 %s %s %s 1 1:%s\n' "$inc" "$((at * 1000))" "$n" "$racks" \
		"$(echo "$n $mb" | awk '{ printf "%.1f", $1 * $2 }')" >"$tmp/j$c.txt"
	emulate "j$c" "$topo"
	# shellcheck disable=SC2086
	em=$(newcomers "$at" $es)
	printf '%-24s %9.3f' "$tn: $n x ${mb}MB at ${at}s" "$em"
	each_set "$JOIN_SETS" "$topo" "$tmp/j$c.txt" "j$c" join_row
	printf '\n'
done
fi
[ "$ONLY" = join ] && exit 0

# a connection across two full links, r0->r1, against r0->r2 and one more
# into r1, 25 MB each at once, one host per rack: on four racks with 100
# Mbit/s host links and 400 Mbit/s uplinks (the host links bind: r0's and
# r1's), and on three with 80 Mbit/s uplinks (the uplinks bind: r0's up,
# r1's down)
printf 'name two4\nracks 4\nhosts 1\ncontainers 2\nhost_rate 100Mbit\nuplink_rate 400Mbit\nocs no\n' >"$tmp/two4.topo"
printf '4 2\n1 0 1 0 2 1:25.0 2:25.0\n2 0 1 3 1 1:25.0\n' >"$tmp/two4.txt"
printf 'name two3\nracks 3\nhosts 1\ncontainers 2\nhost_rate 100Mbit\nuplink_rate 80Mbit\nocs no\n' >"$tmp/two3.topo"
printf '3 2\n1 0 1 0 2 1:25.0 2:25.0\n2 0 1 2 1 1:25.0\n' >"$tmp/two3.txt"
# RATE PAYLOAD FLOWS.CSV...: the crossing flow's share of its links until
# the first other ends (RATE, Mbit/s, x PAYLOAD carries bytes), its FCT and
# the others' mean FCT (s), means over the files
crossing() {
	cr_rate=$1 cr_pl=$2
	shift 2
	awk -F, -v rate="$cr_rate" -v pl="$cr_pl" '
		FNR == 1 { f++; for (i = 1; i <= NF; i++) { if ($i == "src") cs = i; if ($i == "dst") cd = i; if ($i == "fct_ns") cf = i; if ($i == "bytes") cb = i }; next }
		{ t = $cf / 1e9 }
		$cs ~ /^r0/ && $cd ~ /^r1/ { x += t; nx++; next }
		{ o += t; no++; if (!(f in first) || t < first[f]) { first[f] = t; fb[f] = $cb } }
		END {
			for (i = 1; i <= f; i++) sh += 1 - fb[i] * 8 / (rate * 1e6 * pl * first[i])
			printf "%.3f %.3f %.3f\n", f ? sh / f : 0, nx ? x / nx : 0, no ? o / no : 0
		}' "$@"
}
# SET FLOWS.CSV: a TWO_SETS row (rate and pl: the case's)
two_row() {
	# shellcheck disable=SC2086,SC2046,SC2116,SC2183
	printf '  %-42s %7.3f %9.3f %9.3f\n' "$(echo $1)" $(crossing $rate "$pl" "$2")
}
pl=$(echo "$SIM_OPTS" | sed -n 's/.*payload=\([0-9.]*\).*/\1/p')
[ -n "$pl" ] || pl=1
printf '\nA connection across two full links: r0->r1 against r0->r2 and one more into r1, 25 MB each at once, one host\n'
printf 'per rack; its share of its links until the first other ends (max-min: 0.5), its FCT, the others'"'"' mean FCT (s);\n'
printf '%d emulated runs, the model (%s) under each set\n' "$RUNS" "$SIM_OPTS"
printf '%-44s %7s %9s %9s\n' "" share "its FCT" others
for c in two4 two3; do
	if [ $c = two4 ]; then
		rate=100
		printf 'host links bind (100 Mbit/s; r3->r1):\n'
	else
		rate=80
		printf 'uplinks bind (80 Mbit/s; r2->r1):\n'
	fi
	emulate $c "$tmp/$c.topo"
	# shellcheck disable=SC2086,SC2046,SC2183
	printf '  %-42s %7.3f %9.3f %9.3f\n' emulated $(crossing $rate "$pl" $es)
	each_set "$TWO_SETS" "$tmp/$c.topo" "$tmp/$c.txt" "$c" two_row
done
