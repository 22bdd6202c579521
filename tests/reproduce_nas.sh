#!/bin/sh
# make reproduce-nas, in a tiny setting (QUICK, 20 jobs, 2 runs): the
# report has every table with the paper's values beside hyde's, hyde's
# change of NAS against Fair is the one the runs' summary.json give (paired
# by seed), the figures are PNGs, a bad count is refused, and a finished
# reproduction is kept when run again.
. "${HYDE_SRCDIR}/tests/lib.sh"

O="$tmpdir/repro"
RS="$HYDE_SRCDIR/repro/nas/reproduce.sh"
expect_status 2 env RUNS=x QUICK=1 HYDE="$HYDE" sh "$RS" "$O" && contains "$err" "RUNS"
expect_status 2 env JOBS_N=0 QUICK=1 HYDE="$HYDE" sh "$RS" "$O" && contains "$err" "JOBS_N"
expect_status 0 env QUICK=1 JOBS_N=20 RUNS=2 JOBS=2 HYDE="$HYDE" sh "$RS" "$O" ||
	{ cat "$tmpdir/stderr" >&2; finish; }
R="$O/report.md"
[ -f "$R" ] || { fail "no report.md"; finish; }
for h in "Every scheduler" "NAS against the baselines" "Fig. 3(g)" "Fig. 3(d)-(f), 5"; do
	grep -q "^## $h" "$R" || fail "report.md has no section $h"
done
for s in "Fair" "Delay (D=135)" "SW-delay" "MTS" "MTS+CA-RTS" "NAS" "NAS w/o TT" "NAS w/o both"; do
	grep -q "^| $s | [0-9]" "$R" || fail "report.md: no row of numbers for $s"
done
# the paper's values beside hyde's
row=$(grep '^| Fair | [-+]' "$R")
contains "$row" "+56.9%" && contains "$row" "-44.3%"
contains "$(grep '^| NAS w/o TT |' "$R" | tail -1)" "3901"
# NAS vs Fair, throughput: the mean over seeds of nas / fair - 1
tp() { grep -o '"throughput_jobs_per_hour": [0-9.]*' "$1" | head -1 | awk '{ print $2 }'; }
want=$(for k in 1 2; do
	echo "$(tp "$O/sim/nas/seed-$k/summary.json") $(tp "$O/sim/fair/seed-$k/summary.json")"
done | awk '{ s += ($1 / $2 - 1) * 100; n++ } END { printf "%+.1f%%", s / n }')
contains "$row" "| $want ±"
if command -v gnuplot >/dev/null 2>&1; then
	for f in fig3 fig3g; do
		head -c 4 "$O/$f.png" 2>/dev/null | od -An -c | grep -q 'P   N   G' || fail "$f.png is not a PNG"
	done
fi
expect_status 0 env QUICK=1 JOBS_N=20 RUNS=2 JOBS=2 HYDE="$HYDE" sh "$RS" "$O" &&
	contains "$out" "kept from an earlier reproduction"
finish
