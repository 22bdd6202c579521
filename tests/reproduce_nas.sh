#!/bin/sh
# make reproduce-nas, in a tiny setting (QUICK, 20 jobs, 2 runs): the
# report has every table with the paper's values beside hyde's, hyde's
# change of NAS against Fair is the one the runs' summary.json give (paired
# by seed) and NAS ran with its class thresholds scaled as the jobs (x
# 0.1), Fig. 3(h) has NAS over Fair with 25 and 200 users, Fig. 4's
# setting (the real cluster, compressed) is simulated with the jobs' drawn
# classes and the compressed waits, the figures are PNGs, a bad count is
# refused, and a finished reproduction is kept when run again.
. "${HYDE_SRCDIR}/tests/lib.sh"

O="$tmpdir/repro"
RS="$HYDE_SRCDIR/repro/nas/reproduce.sh"
expect_status 2 env RUNS=x QUICK=1 HYDE="$HYDE" sh "$RS" "$O" && contains "$err" "RUNS"
expect_status 2 env JOBS_N=0 QUICK=1 HYDE="$HYDE" sh "$RS" "$O" && contains "$err" "JOBS_N"
expect_status 2 env F4_K=ten QUICK=1 HYDE="$HYDE" sh "$RS" "$O" && contains "$err" "F4_K"
expect_status 2 env USERS_H="25 x" QUICK=1 HYDE="$HYDE" sh "$RS" "$O" && contains "$err" "USERS_H"
expect_status 2 env FETCH_ORDER=rand QUICK=1 HYDE="$HYDE" sh "$RS" "$O" && contains "$err" "FETCH_ORDER"
# FETCH_ORDER=random: every simulation written out with Hadoop's order
expect_status 0 env FETCH_ORDER=random SWEEP_ONLY=1 QUICK=1 HYDE="$HYDE" sh "$RS" "$tmpdir/fo"
for p in sim fig4-sim; do
	[ -s "$tmpdir/fo/sweep/$p/commands.txt" ] &&
		! grep -v -- ' --fetch-order random ' "$tmpdir/fo/sweep/$p/commands.txt" | grep -q . ||
		fail "FETCH_ORDER=random: $p's runs not all with --fetch-order random"
done
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
tps=$(for k in 1 2; do
	echo "$(tp "$O/sim/nas-light=100000B-heavy=10000000B-small_input=1000000B/seed-$k/summary.json") $(tp "$O/sim/fair/seed-$k/summary.json")"
done)
want=$(echo "$tps" | awk '{ s += ($1 / $2 - 1) * 100; n++ } END { printf "%+.1f%%", s / n }')
contains "$row" "| $want ±"
# Fig. 3(h): NAS's throughput over Fair's with 200 users, with 25 users
# (their own runs) and 200 (Fig. 3's, where it is 1 + the change above)
grep -q "^## Fig. 3(h)" "$R" || fail "report.md has no Fig. 3(h) section"
grep -q "^| 25 | 0.8 | [0-9]" "$R" || fail "report.md: no Fig. 3(h) row for 25 users"
[ -f "$O/users-25/nas-light=100000B-heavy=10000000B-small_input=1000000B/seed-2/summary.json" ] ||
	fail "Fig. 3(h): no NAS run with 25 users"
r200=$(echo "$tps" | awk '{ s += $1 / $2; n++ } END { printf "%.3f", s / n }')
contains "$(grep '^| 200 | ' "$R")" "| $r200 ±"
contains "$(cat "$R")" "NAS gains with fewer users"
# Fig. 4 in simulation: a row per scheduler, NAS beside the paper's
grep -q "^## Fig. 4: the real cluster" "$R" || fail "report.md has no Fig. 4 section"
for s in "Fair" "Delay (wait)" "NAS (wait)"; do
	grep -q "^| $s | sim | 2 | [0-9]" "$R" || fail "report.md: no Fig. 4 row of 2 simulated runs for $s"
	grep -q "^| $s | sim, all tasks | 2 | [0-9]" "$R" || fail "report.md: no Fig. 4 row with every task for $s"
done
# coarsened (the emulated fabric's workload): the same jobs and bytes as
# with every task, a tenth of the maps or fewer
maps() { awk '/^job/ { for (i = 2; i <= NF; i++) if ($i ~ /^maps=/) { split($i, a, "="); n += a[2] } } END { print n }' "$1"; }
bytes() { "$HYDE" validate -t "$HYDE_SRCDIR/topologies/nas40e.topo" -w "$1" | grep '^  bytes'; }
C="$O/fig4-sim/fair/seed-1/inputs/workload.wl" A="$O/fig4-fine/fair/seed-1/inputs/workload.wl"
[ "$(bytes "$C")" = "$(bytes "$A")" ] && [ "$(grep -c '^job' "$C")" = "$(grep -c '^job' "$A")" ] ||
	fail "Fig. 4: the coarse and the fine workloads differ in their jobs"
[ "$(cmp -s "$C" "$A"; echo $?)" = 1 ] && [ "$(maps "$C")" -lt "$(maps "$A")" ] ||
	fail "Fig. 4: $(maps "$C") maps coarsened, $(maps "$A") with every task"
contains "$(grep '^| Fair | sim | [-+]' "$R")" "+62.5%"
# compressed 10 times: the waits and heartbeat / 10; the thresholds x 1/1000
# (the hundredth of the rates, then 10)
F="$O/fig4-sim/nas-wait=500000us-light=1000B-heavy=100000B-small_input=10000B/seed-1"
[ -d "$F" ] || fail "no run directory $F"
contains "$(grep ' sched_options ' "$F/events.log")" "wait=500000us light=1000B heavy=100000B small_input=10000B"
awk '$2 == "node_phase" { n++; if ($4 >= 100000000) bad++ } END { exit !(n == 40 && !bad) }' "$F/events.log" ||
	fail "Fig. 4: the nodes' heartbeat phases are not those of a 100 ms heartbeat"
# the jobs keep their drawn class at 1/1000 of their sizes
grep -q " class=heavy" "$F/inputs/workload.wl" || fail "Fig. 4: no job keeps its drawn class (class=)"
if command -v gnuplot >/dev/null 2>&1; then
	for f in fig3 fig3g fig3h fig4; do
		head -c 4 "$O/$f.png" 2>/dev/null | od -An -c | grep -q 'P   N   G' || fail "$f.png is not a PNG"
	done
fi
expect_status 0 env QUICK=1 JOBS_N=20 RUNS=2 JOBS=2 HYDE="$HYDE" sh "$RS" "$O" &&
	contains "$out" "kept from an earlier reproduction"

# DAY=only: Fig. 3 on the FB-2010 trace itself (here its first 40 jobs),
# each scheduler once with the coarser model, beside the paper
D="$tmpdir/day"
expect_status 0 env DAY=only DAY_COUNT=40 JOBS=2 HYDE="$HYDE" sh "$RS" "$D" ||
	{ cat "$tmpdir/stderr" >&2; finish; }
R="$D/report.md"
grep -q "^## Fig. 3 on the whole FB-2010 day" "$R" || fail "DAY: no day section: $(cat "$R")"
contains "$(cat "$R")" "FIRST 40 JOBS"
for s in "Fair" "Delay (D=135)" "SW-delay" "NAS" "NAS w/o TT" "NAS w/o both"; do
	grep -q "^| $s | [0-9]" "$R" || fail "DAY: no row of numbers for $s"
done
contains "$(grep '^| Fair | [-+]' "$R")" "+56.9%"
for r in "$D"/day/*/seed-1; do
	grep -q ' backend_options fetch=rack end_grid=10ms$' "$r/events.log" ||
		fail "DAY: $r ran with $(grep backend_options "$r/events.log")"
	grep -q '"jobs_done": 40,' "$r/summary.json" || fail "DAY: $r did not finish its 40 jobs"
done
if command -v gnuplot >/dev/null 2>&1; then
	head -c 4 "$D/fig3day.png" 2>/dev/null | od -An -c | grep -q 'P   N   G' || fail "fig3day.png is not a PNG"
fi
finish
