#!/bin/sh
# The fluid model against emulated runs, decisions held equal (issue:
# fidelity, replay): each emulated run given is replayed (`hyde sim
# --replay`) under each set of model options and joined flow by flow with
# `hyde fidelity`. Prints, per run and option set, hyde fidelity's figures
# over the flows between two hosts (same-host fetches are not in the
# network model) and over those of 100 KB or more: how many ended on both,
# the FCT ratio emulated / simulated (median, p90) and the median |error|;
# how many flows the model left with bytes (stranded: an OCS flow whose
# circuit went down for the last time first) and how many coflows never
# ended in the model.
# Then, per option set and scheduler, the same figures over the flows
# between hosts of all its runs pooled (for runs with too few flows for a
# median of their own, as on tiny).
# A benchmark: prints figures, never fails on them.
# Usage: bench/fidelity.sh EMUL_RUN...
#        (e.g. the runs of `hyde compare --backend emul -o DIR`: DIR/*/);
#        BENCH_OPTS: option sets separated by ';' (default: the README's
#        options, then the same with -B burst=yes, then with -B
#        share_jitter=2 too, then the run's own set-up, 1 ms for a run
#        with no flow under 100 KB, with -B join_drains=57, then with
#        -B extra_full=0.13 too); a set with
#        a *_jitter option is replayed BENCH_DRAWS times (default 9,
#        jitter_seed 1..BENCH_DRAWS) and joined by the median of the
#        draws (hyde fidelity with several SIM_RUNs: the model's median
#        where TCP's share is a draw)
set -u
here=$(cd "$(dirname "$0")" && pwd)
HYDE=${HYDE:-$here/../hyde}
OPTS=${BENCH_OPTS:-"-B setup=1ms -B payload=0.956; -B setup=1ms -B payload=0.956 -B burst=yes; -B setup=1ms -B payload=0.956 -B burst=yes -B share_jitter=2; -B setup=1ms -B measured_setup=yes -B payload=0.956 -B burst=yes -B share_jitter=2 -B join_drains=57; -B setup=1ms -B measured_setup=yes -B payload=0.956 -B burst=yes -B share_jitter=2 -B join_drains=57 -B extra_full=0.13"}
DRAWS=${BENCH_DRAWS:-9}
case $DRAWS in '' | *[!0-9]* | 0) echo "bench/fidelity.sh: BENCH_DRAWS: expected a count of 1 or more, got '$DRAWS'" >&2; exit 2 ;; esac
[ $# -gt 0 ] || { echo "usage: bench/fidelity.sh EMUL_RUN... (emulated run directories, analysed)" >&2; exit 2; }
for r in "$@"; do
	[ -f "$r/flows.csv" ] && [ -f "$r/events.log" ] ||
		{ echo "bench/fidelity.sh: $r: not an analysed run (no flows.csv or events.log)" >&2; exit 2; }
done
tmp=$(mktemp -d /tmp/hydefid.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# hyde fidelity's output: the two rows, the flows and coflows not ended in
# the model (SIM_RUN's "not ended" on the FCT and CCT lines)
figures() {
	awk '
		/^FCT:/ { sub(/.* in EMUL_RUN, /, ""); strd = $1 }
		/^CCT:/ { sub(/.* in EMUL_RUN, /, ""); cstrd = $1 }
		/^  between hosts / { n = $3; med = $4; p90 = $5; e = $6 }
		/^  hosts, >=100KB / { nb = $3; medb = $4; p90b = $5; eb = $6 }
		END { printf "%4s %3s  %6s %6s %7s  |  %4s %6s %6s %7s  |  %s\n",
			n, strd, med, p90, e, nb, medb, p90b, eb, cstrd }' "$1"
}

printf '%-22s %-124s %4s %3s  %6s %6s %7s  |  %4s %6s %6s %7s  |  %s\n' run options flows strd \
	med p90 "|e|med" ">=100K" med p90 "|e|med" "cf strd"
i=0
for r in "$@"; do
	# the run's directory, and its scheduler where that is not its name
	# (bench-repeat's kept runs are r1, r2...)
	name=$(basename "$r")
	sched=$(sed -n 's/.*"scheduler": *"\([^"]*\)".*/\1/p' "$r/summary.json" 2>/dev/null | head -1)
	[ -n "$sched" ] && [ "$sched" != "$name" ] && name="$sched/$name"
	old_ifs=$IFS
	IFS=';'
	set -f
	k=0
	for o in $OPTS; do
		IFS=$old_ifs
		i=$((i + 1))
		k=$((k + 1))
		# the sets' legend, for the pooled figures (once)
		# shellcheck disable=SC2086,SC2116
		[ "$r" = "$1" ] && printf 'set %d: %s\n' "$k" "$(echo $o)" >>"$tmp/sets"
		# a set that draws what the model leaves out: DRAWS replays, joined
		# by their median (hyde fidelity with several SIM_RUNs)
		# (echo: the set's words with single spaces, as printed; set -f is on)
		# shellcheck disable=SC2086,SC2116
		case $o in *_jitter=*) n=$DRAWS label="$(echo $o) (median of $DRAWS)" ;; *) n=1 label=$(echo $o) ;; esac
		j=1
		ds=""
		failed=""
		while [ $j -le "$n" ] && [ -z "$failed" ]; do
			seed=""
			[ "$n" -gt 1 ] && seed="-B jitter_seed=$j"
			# shellcheck disable=SC2086
			"$HYDE" sim --replay "$r" -q -o "$tmp/$i-$j" $o $seed >"$tmp/$i.out" 2>&1 || failed=1
			ds="$ds $tmp/$i-$j"
			j=$((j + 1))
		done
		if [ -n "$failed" ]; then
			printf '%-22s %-124s replay failed: %s\n' "$name" "$label" "$(tail -1 "$tmp/$i.out")"
			continue
		fi
		# shellcheck disable=SC2086
		if ! "$HYDE" fidelity "$r" $ds >"$tmp/$i.fid" 2>&1; then
			printf '%-22s %-124s fidelity failed: %s\n' "$name" "$label" "$(tail -1 "$tmp/$i.fid")"
			continue
		fi
		printf '%-22s %-124s %s\n' "$name" "$label" "$(figures "$tmp/$i.fid")"
		# (hyde fidelity writes fidelity.csv into the first SIM_RUN)
		printf '%s %s %s\n' "$k" "${sched:-$name}" "$tmp/$i-1/fidelity.csv" >>"$tmp/pool"
		IFS=';'
	done
	IFS=$old_ifs
	set +f
done
echo "(flows: between two hosts, ended on both; strd: flows ended in emulation, not in the model;"
echo " med, p90: FCT emulated / simulated, nearest rank; |e|med: median |sim - emul| / emul; cf strd: coflows never ended in the model)"

# Per scheduler and option set, the flows between hosts of all its runs
# pooled: a run on tiny has 2-10 of them, too few for a median of its own.
# FILE...: fidelity.csv; prints runs, flows, ratio median and p90
pooled() {
	n=$#
	awk -F, 'FNR > 1 && $1 == "flow" && $4 != "host" && $6 > 0 && $7 > 0 { print $8 }' "$@" | sort -g |
		awk -v runs="$n" '{ v[NR] = $1 }
			function rank(q,   r) { r = int(q * NR); if (r < q * NR) r++; return v[r < 1 ? 1 : r] }
			END {
				if (!NR) { printf "%4d %5d %7s %7s  -\n", runs, 0, "-", "-"; exit }
				m = rank(0.5); p = rank(0.9)
				printf "%4d %5d %7.3f %7.3f  %s\n", runs, NR, m, p, (m >= 0.9 && m <= 1.1 && p < 1.5) ? "met" : "NOT met"
			}'
}
if [ -s "$tmp/pool" ]; then
	printf '\nPooled per scheduler (the flows between hosts of all its runs; goal: median 0.9-1.1, p90 under 1.5)\n'
	printf '%-4s %-16s %4s %5s %7s %7s  %s\n' set scheduler runs flows med p90 goal
	for k in $(cut -d' ' -f1 "$tmp/pool" | sort -un); do
		for s in $(awk -v k="$k" '$1 == k { print $2 }' "$tmp/pool" | sort -u); do
			# shellcheck disable=SC2046
			printf '%-4s %-16s %s\n' "$k" "$s" "$(pooled $(awk -v k="$k" -v s="$s" '$1 == k && $2 == s { print $3 }' "$tmp/pool"))"
		done
	done
	cat "$tmp/sets"
fi
