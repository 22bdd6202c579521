#!/bin/sh
# The fluid model against emulated runs, decisions held equal (issue:
# fidelity, replay): each emulated run given is replayed (`hyde sim
# --replay`) under each set of model options and joined flow by flow with
# `hyde fidelity`. Prints, per run and option set, over the flows between
# two hosts (same-host fetches are not in the network model): how many
# ended on both, how many the model left with bytes (stranded: an OCS flow
# whose circuit went down for the last time first), the FCT ratio
# emulated / simulated (median and p90, nearest rank, as hyde fidelity
# gives them) and the median |error|, for all of them and for those of
# 100 KB or more; and the coflows that never end in the model.
# A benchmark: prints figures, never fails on them.
# Usage: bench/fidelity.sh EMUL_RUN...
#        (e.g. the runs of `hyde compare --backend emul -o DIR`: DIR/*/);
#        BENCH_OPTS: option sets separated by ';' (default: the README's
#        options, then the same with -B burst=yes)
set -u
here=$(cd "$(dirname "$0")" && pwd)
HYDE=${HYDE:-$here/../hyde}
OPTS=${BENCH_OPTS:-"-B setup=300us -B payload=0.956; -B setup=300us -B payload=0.956 -B burst=yes"}
[ $# -gt 0 ] || { echo "usage: bench/fidelity.sh EMUL_RUN... (emulated run directories, analysed)" >&2; exit 2; }
for r in "$@"; do
	[ -f "$r/flows.csv" ] && [ -f "$r/events.log" ] ||
		{ echo "bench/fidelity.sh: $r: not an analysed run (no flows.csv or events.log)" >&2; exit 2; }
done
tmp=$(mktemp -d /tmp/hydefid.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# the figures of one fidelity.csv: flows (not host) ended on both, stranded
# (ended in emulation, not in the model), then ratio med/p90 and |err|
# median, for all and for >= 100 KB; then coflows never ended in the model
figures() {
	awk -F, '
		function pct(a, n, p,   i, j, t, k) {
			for (i = 2; i <= n; i++) {	# insertion sort (a few hundred)
				t = a[i]
				for (j = i - 1; j >= 1 && a[j] > t; j--)
					a[j + 1] = a[j]
				a[j + 1] = t
			}
			k = int(p * n + 0.999999)
			if (k < 1) k = 1
			return n ? a[k] : 0
		}
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["level"] == "coflow" && $c["emul_ns"] >= 0 && $c["sim_ns"] < 0 { cstr++ }
		$c["level"] != "flow" || $c["path"] == "host" { next }
		$c["emul_ns"] > 0 && $c["sim_ns"] < 0 { str++; next }
		$c["emul_ns"] > 0 && $c["sim_ns"] > 0 {
			r = $c["emul_ns"] / $c["sim_ns"]
			e = ($c["sim_ns"] - $c["emul_ns"]) / $c["emul_ns"]; if (e < 0) e = -e
			n++; ra[n] = r; ea[n] = e
			if ($c["bytes"] >= 100000) { nb++; rb[nb] = r; eb[nb] = e }
		}
		END {
			printf "%4d %3d  %6.3f %6.3f %6.1f%%  |  %4d %6.3f %6.3f %6.1f%%  |  %d\n",
				n, str, pct(ra, n, 0.5), pct(ra, n, 0.9), 100 * pct(ea, n, 0.5),
				nb, pct(rb, nb, 0.5), pct(rb, nb, 0.9), 100 * pct(eb, nb, 0.5), cstr
		}' "$1"
}

printf '%-22s %-48s %4s %3s  %6s %6s %7s  |  %4s %6s %6s %7s  |  %s\n' run options flows strd \
	med p90 "|e|med" ">=100K" med p90 "|e|med" "cf strd"
i=0
for r in "$@"; do
	name=$(basename "$r")
	old_ifs=$IFS
	IFS=';'
	set -f
	for o in $OPTS; do
		IFS=$old_ifs
		i=$((i + 1))
		# shellcheck disable=SC2086
		if ! "$HYDE" sim --replay "$r" -q -o "$tmp/$i" $o >"$tmp/$i.out" 2>&1; then
			printf '%-22s %-48s replay failed: %s\n' "$name" "$o" "$(tail -1 "$tmp/$i.out")"
			continue
		fi
		if ! "$HYDE" fidelity "$r" "$tmp/$i" >"$tmp/$i.fid" 2>&1; then
			printf '%-22s %-48s fidelity failed: %s\n' "$name" "$o" "$(tail -1 "$tmp/$i.fid")"
			continue
		fi
		printf '%-22s %-48s %s\n' "$name" "$(echo $o)" "$(figures "$tmp/$i/fidelity.csv")"
		IFS=';'
	done
	IFS=$old_ifs
	set +f
done
echo "(flows: between two hosts, ended on both; strd: ended in emulation, left with bytes in the model;"
echo " med, p90: FCT emulated / simulated, nearest rank; |e|med: median |sim - emul| / emul; cf strd: coflows never ended in the model)"
