#!/bin/sh
# make reproduce-coscheduler, in its small setting (QUICK: 40 jobs, 3 runs
# per point, 2 for the side points): every figure of the report has hyde's values next to the
# paper's, the figures are PNGs, the report's figures are the ones hyde
# compare's summary.csv gives, and a reproduction resumes where it was.
. "${HYDE_SRCDIR}/tests/lib.sh"

O="$tmpdir/repro"
RS="$HYDE_SRCDIR/repro/coscheduler/reproduce.sh"
expect_status 2 env RUNS=x QUICK=1 HYDE="$HYDE" sh "$RS" "$O"
contains "$err" "RUNS"
expect_status 2 env SIDE_RUNS=0 QUICK=1 HYDE="$HYDE" sh "$RS" "$O"
contains "$err" "SIDE_RUNS"
# the side points (Figure 6's ratios, the model's) run SIDE_RUNS times
expect_status 0 env QUICK=1 SIDE_RUNS=2 JOBS=2 HYDE="$HYDE" sh "$RS" "$O" || { cat "$tmpdir/stderr" >&2; finish; }
R="$O/report.md"
[ -f "$R" ] || fail "no report.md"
for h in "Figure 3(a)" "Figure 3(b)" "Figure 4" "Figure 5" "Figure 6" "Figure 7" "What hyde's Hadoop model" "The workload question"; do
	grep -q "^## $h" "$R" || fail "report.md has no section $h"
done
if command -v gnuplot >/dev/null 2>&1; then
	for f in fig3a fig3b fig4 fig5 fig6 fig7 sweep; do
		head -c 4 "$O/$f.png" 2>/dev/null | od -An -c | grep -q 'P   N   G' || fail "$f.png is not a PNG"
	done
fi

# Figure 3(a)'s row for the average JCT: the paper's -54.6% and hyde's
# change from the main point's summary.csv, as printed
row=$(grep '^| average JCT |' "$R" | head -1)
contains "$row" "-54.6%"
want=$(awk -F, '$1 == "coscheduler" && $3 == "avg_jct_s" { printf "%+.1f%% ±%.1f", 100 * $9, 100 * $10 }' "$O/main/summary.csv")
[ -n "$want" ] && contains "$row" "$want"
# Figure 3(b): the paper's shares and hyde's for every scheduler
for s in fair:2.2% corral:33.0% coscheduler:92.2%; do
	line=$(grep "^| ${s%%:*} | ${s#*:} |" "$R") || fail "report.md: no OCS share row for ${s%%:*}"
	want=$(awk -F, -v l="${s%%:*}" '$1 == l && $3 == "ocs_share" && $5 != "" { printf "%.1f%%", 100 * $5 }' "$O/main/summary.csv")
	[ -z "$want" ] || contains "$line" "$want"
done
# every point ran its runs: the main one, Figure 6's and the sweep's
for p in main os-3 os-5 os-15 os-20 model-noheartbeat model-copies sweep-0.003-80Mbit \
	sweep-0.01-80Mbit sweep-0.003-800Mbit sweep-0.01-800Mbit; do
	n=$(awk -F, '$1 == "fair" && $3 == "avg_jct_s" { print $4 }' "$O/$p/summary.csv" 2>/dev/null)
	want=3
	case $p in sweep-* | os-* | model-*) want=2 ;; esac
	[ "$n" = "$want" ] || fail "$p: fair ran $n times, expected $want"
done
# Figure 6's topologies oversubscribe the EPS as asked
grep -q '^oversub  *20$' "$O/topologies/paper60-os20.topo" || fail "no 20:1 topology"

# resumed: nothing runs again, the report is the same
cp "$R" "$tmpdir/first.md"
expect_status 0 env QUICK=1 SIDE_RUNS=2 JOBS=2 HYDE="$HYDE" sh "$RS" "$O"
[ "$(printf '%s\n' "$out" | grep -c 'kept from an earlier')" = 11 ] || fail "a resumed reproduction ran again: $out"
grep -v '^Generated\|^[0-9]\{4\}-' "$tmpdir/first.md" >"$tmpdir/a"
grep -v '^Generated\|^[0-9]\{4\}-' "$R" >"$tmpdir/b"
cmp -s "$tmpdir/a" "$tmpdir/b" || fail "the resumed report differs: $(diff "$tmpdir/a" "$tmpdir/b" | head -5)"
finish
