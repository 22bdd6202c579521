#!/bin/sh
# hyde sweep: a spec expanded into a grid of hyde sim runs, run here, read
# back by hyde compare --from; the Slurm job array checked with bash -n and
# a fake sbatch that records its arguments and runs two array tasks; bad
# specs refused with one message, nothing created.
. "${HYDE_SRCDIR}/tests/lib.sh"

T="$HYDE_SRCDIR/topologies"
W="$HYDE_SRCDIR/workloads"

cat >"$tmpdir/a.spec" <<EOF
# 3 schedulers x 2 slowstart values x 2 seeds, shuffle alone
topology  $T/rack8.topo
workload  $W/fb-small.wl
scheduler fair coscheduler delay:node_wait=1s
set       slowstart 0.05 0.5
option    no-io yes
seed      1..2
EOF

# --dry-run: the files, nothing run
expect_status 0 "$HYDE" sweep "$tmpdir/a.spec" -o "$tmpdir/dry" -n &&
	contains "$out" "12 runs in $tmpdir/dry"
[ "$(wc -l <"$tmpdir/dry/commands.txt")" = 12 ] || fail "commands.txt: $(wc -l <"$tmpdir/dry/commands.txt") lines, expected 12"
[ "$(wc -l <"$tmpdir/dry/sweep.csv")" = 13 ] || fail "sweep.csv: expected a header and 12 lines"
head -1 "$tmpdir/dry/sweep.csv" | grep -qx 'id,dir,group,label,topology,workload,scheduler,slowstart,no-io,seed' ||
	fail "sweep.csv header: $(head -1 "$tmpdir/dry/sweep.csv")"
# every combination once, the seed varying fastest
cut -d, -f7,8,10 "$tmpdir/dry/sweep.csv" | tail -n +2 | sort -u | wc -l | grep -qx 12 || fail "not 12 distinct runs"
sed -n 2p "$tmpdir/dry/sweep.csv" | grep -q ',fair,0.05,yes,1$' || fail "run 0: $(sed -n 2p "$tmpdir/dry/sweep.csv")"
sed -n 3p "$tmpdir/dry/sweep.csv" | grep -q ',fair,0.05,yes,2$' || fail "run 1: $(sed -n 3p "$tmpdir/dry/sweep.csv")"
grep -q -- "-s delay -S node_wait=1s -S slowstart=0.5 --no-io --seed 2 -o $tmpdir/dry/runs/0011_" "$tmpdir/dry/commands.txt" ||
	fail "run 11's command: $(sed -n 12p "$tmpdir/dry/commands.txt")"
[ -z "$(ls "$tmpdir/dry/runs")" ] || fail "a dry run ran something"
bash -n "$tmpdir/dry/slurm.sh" || fail "slurm.sh: bash -n"
grep -qx '#SBATCH --array=0-11' "$tmpdir/dry/slurm.sh" || fail "slurm.sh: no --array=0-11"

# values of one dimension whose short names would be the same (two gen:
# specs, two topologies of one name in two directories) still name their
# runs and groups apart: hyde compare --from groups runs by group
mkdir -p "$tmpdir/other"
cp "$T/rack8.topo" "$tmpdir/other/rack8.topo"
cat >"$tmpdir/same.spec" <<EOF
topology  $T/rack8.topo $tmpdir/other/rack8.topo
workload  gen:fb,jobs=4,scale=0.01 gen:fb,jobs=4,scale=0.1
scheduler fair
EOF
expect_status 0 "$HYDE" sweep "$tmpdir/same.spec" -o "$tmpdir/same" -n &&
	contains "$out" "4 runs in $tmpdir/same"
groups() { # the group column (CSV: a field may be quoted, commas in it)
	awk -f "$HYDE_SRCDIR/repro/sweep_tsv.awk" "$1" | cut -f 3
}
n=$(groups "$tmpdir/same/sweep.csv" | sort -u | wc -l)
[ "$n" = 4 ] || fail "4 runs of 4 kinds in $n groups: $(groups "$tmpdir/same/sweep.csv" | tr '\n' '|')"
groups "$tmpdir/same/sweep.csv" | grep -qx "rack8#2 gen:fb,jobs=4,scale=0.1 fair" ||
	fail "no group 'rack8#2 gen:fb,jobs=4,scale=0.1 fair': $(groups "$tmpdir/same/sweep.csv" | tr '\n' '|')"
n=$(tail -n +2 "$tmpdir/same/sweep.csv" | cut -d, -f2 | sed 's,.*/[0-9]*_,,' | sort -u | wc -l)
[ "$n" = 4 ] || fail "4 runs, $n distinct directory names"

# here, two at a time: every run done, each its own directory
expect_status 0 "$HYDE" sweep "$tmpdir/a.spec" -o "$tmpdir/local" -j 2 &&
	contains "$out" "12 of 12 runs done"
for d in "$tmpdir"/local/runs/*/; do
	tail -1 "$d/events.log" | grep -q ' run_end ok$' || fail "$d: not done"
	[ -s "$d/jobs.csv" ] || fail "$d: no jobs.csv"
done
[ "$(ls -d "$tmpdir"/local/runs/*/ | wc -l)" = 12 ] || fail "not 12 run directories"
grep -q ' sched_options slowstart=0.5$' "$tmpdir/local/runs/0003_fair_slowstart=0.5_seed=2/events.log" ||
	fail "run 3 did not get slowstart=0.5"
# the same run directory as hyde sim's own (deterministic)
"$HYDE" sim -t "$T/rack8.topo" -w "$W/fb-small.wl" -s coscheduler -S slowstart=0.5 --no-io --seed 2 \
	-o "$tmpdir/one" -q || fail "hyde sim"
for f in flows.csv jobs.csv coflows.csv; do
	cmp -s "$tmpdir/one/$f" "$tmpdir/local/runs/0007_coscheduler_slowstart=0.5_seed=2/$f" ||
		fail "run 7's $f differs from hyde sim's"
done
# run again: nothing left to do
expect_status 0 "$HYDE" sweep "$tmpdir/a.spec" -o "$tmpdir/local" -j 2 &&
	contains "$out" "12 of 12 runs already done"
# a run lost is run again, alone
rm -rf "$tmpdir/local/runs/0004_coscheduler_slowstart=0.05_seed=1"
expect_status 0 "$HYDE" sweep "$tmpdir/a.spec" -o "$tmpdir/local" &&
	contains "$out" "11 of 12 runs already done" && contains "$out" "[12/12] coscheduler slowstart=0.05 seed=1"

# a scheduler that logs its figures after the run's end (dawn) is done too
cat >"$tmpdir/d.spec" <<EOF
topology  $T/tiny.topo
workload  $W/dag-small.wl
scheduler dawn
seed      1
EOF
expect_status 0 "$HYDE" sweep "$tmpdir/d.spec" -o "$tmpdir/dawn" && contains "$out" "1 of 1 runs done"
tail -1 "$tmpdir"/dawn/runs/*/events.log | grep -q ' run_end ok$' &&
	fail "dawn's events.log ends with run_end: the case is not tested"
expect_status 0 "$HYDE" sweep "$tmpdir/d.spec" -o "$tmpdir/dawn" && contains "$out" "1 of 1 runs already done"

# hyde compare --from a sweep: a spec per group (the runs that differ only
# by their seed), its seeds as compare's repeated runs, paired by seed
expect_status 0 "$HYDE" compare --from "$tmpdir/local" -o "$tmpdir/cmp" &&
	contains "$out" "coscheduler slowstart=0.5 " &&
	contains "$out" "relative to fair slowstart=0.05, paired by seed"
[ "$(printf '%s\n' "$out" | grep -c ' 2/2 ')" = 6 ] || fail "expected 6 specs of 2/2 runs: $out"
[ "$(wc -l <"$tmpdir/cmp/compare.csv")" = 13 ] || fail "compare.csv: expected a line per run (12)"
[ -s "$tmpdir/cmp/summary.csv" ] && [ -s "$tmpdir/cmp/breakdown.csv" ] || fail "no summary.csv or breakdown.csv"
# a run's line: its spec, scheduler, backend, ok, seed, as the run says
awk -F, '$1 == "coscheduler slowstart=0.5" && $2 == "coscheduler" && $3 == "sim" && $4 == 1 { print $20 }' \
	"$tmpdir/cmp/compare.csv" | tr '\n' ' ' | grep -qx '1 2 ' || fail "coscheduler slowstart=0.5's runs: $(cat "$tmpdir/cmp/compare.csv")"
# its average JCT is the mean of its two runs'
mean=$(for d in "$tmpdir"/local/runs/000[01]_*/; do
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "jct_ns") c = i; next }
		$c >= 0 { n++; t += $c } END { printf "%.9f\n", t / n / 1e9 }' "$d/jobs.csv"
done)
want=$(printf '%s\n' $mean | awk '{ t += $1 } END { printf "%.4f", t / NR }')
got=$(awk -F, '$1 == "fair slowstart=0.05" && $3 == "avg_jct_s" { printf "%.4f", $5 }' "$tmpdir/cmp/summary.csv")
[ -n "$got" ] && [ "$got" = "$want" ] || fail "avg JCT of fair slowstart=0.05: summary.csv '$got', mean of the runs $want"
# a sweep moved elsewhere, a run lost and one that did not finish (its
# events.log does not end with run_end ok): read where the sweep is now,
# those two not counted, exit 1
cp -r "$tmpdir/local" "$tmpdir/moved"
rm -rf "$tmpdir/moved/runs/0004_coscheduler_slowstart=0.05_seed=1"
sed -i '$d' "$tmpdir/moved/runs/0007_coscheduler_slowstart=0.5_seed=2/events.log"
expect_status 1 "$HYDE" compare --from "$tmpdir/moved" -o "$tmpdir/cmp2" -q
[ "$(printf '%s\n' "$out" | grep -c ' 2/2 ')" = 4 ] && [ "$(printf '%s\n' "$out" | grep -c ' 1/2 ')" = 2 ] ||
	fail "expected 4 specs of 2/2 runs and 2 of 1/2: $out"
awk -F, '$1 ~ /^coscheduler/ { print $4 $20 }' "$tmpdir/cmp2/compare.csv" |
	tr '\n' ' ' | grep -qx '01 12 11 02 ' || fail "not ok: other runs than the two: $(cat "$tmpdir/cmp2/compare.csv")"
# --baseline names a group
expect_status 0 "$HYDE" compare --from "$tmpdir/local" -o "$tmpdir/cmp3" --baseline "coscheduler slowstart=0.5" -q &&
	contains "$out" "relative to coscheduler slowstart=0.5"
expect_status 2 "$HYDE" compare --from "$tmpdir/nothing" -o "$tmpdir/cmp4" && contains "$err" "$tmpdir/nothing/compare.csv"
printf 'id,dir\n0,x\n' >"$tmpdir/badsweep.csv"
mkdir "$tmpdir/badsweep" && mv "$tmpdir/badsweep.csv" "$tmpdir/badsweep/sweep.csv"
expect_status 2 "$HYDE" compare --from "$tmpdir/badsweep" -o "$tmpdir/cmp5" &&
	contains "$err" "sweep.csv:1: expected a header with dir, group, scheduler and seed"

# Slurm: a fake sbatch records its arguments; then two array tasks run
# the script as Slurm would (SLURM_ARRAY_TASK_ID)
mkdir "$tmpdir/bin"
cat >"$tmpdir/bin/sbatch" <<EOF
#!/bin/sh
printf '%s\n' "\$@" >"$tmpdir/sbatch.args"
echo "Submitted batch job 4242"
EOF
chmod +x "$tmpdir/bin/sbatch"
expect_status 0 env PATH="$tmpdir/bin:$PATH" "$HYDE" sweep "$tmpdir/a.spec" -o "$tmpdir/slurm" --slurm &&
	contains "$out" "Submitted batch job 4242"
[ "$(cat "$tmpdir/sbatch.args" 2>/dev/null)" = "$tmpdir/slurm/slurm.sh" ] ||
	fail "sbatch got: $(cat "$tmpdir/sbatch.args" 2>/dev/null)"
[ -z "$(ls "$tmpdir/slurm/runs")" ] || fail "--slurm ran something here"
for task in 0 11; do
	SLURM_ARRAY_TASK_ID=$task bash "$tmpdir/slurm/slurm.sh" || fail "array task $task failed"
done
ls -d "$tmpdir"/slurm/runs/*/ 2>/dev/null | wc -l | grep -qx 2 || fail "array tasks 0 and 11: $(ls "$tmpdir/slurm/runs")"
tail -1 "$tmpdir/slurm/runs/0000_fair_slowstart=0.05_seed=1/events.log" | grep -q ' run_end ok$' ||
	fail "array task 0 did not run run 0"
tail -1 "$tmpdir/slurm/runs/0011_delay-node_wait=1s_slowstart=0.5_seed=2/events.log" | grep -q ' run_end ok$' ||
	fail "array task 11 did not run run 11"
for f in flows.csv jobs.csv; do
	cmp -s "$tmpdir/slurm/runs/0000_fair_slowstart=0.05_seed=1/$f" \
		"$tmpdir/local/runs/0000_fair_slowstart=0.05_seed=1/$f" || fail "array task 0's $f differs from the local run's"
done
SLURM_ARRAY_TASK_ID=12 bash "$tmpdir/slurm/slurm.sh" 2>"$tmpdir/e12" && fail "array task 12 (no such run) succeeded"
grep -q "no line 13" "$tmpdir/e12" || fail "array task 12: $(cat "$tmpdir/e12")"
expect_status 2 env PATH=/nonexistent "$HYDE" sweep "$tmpdir/a.spec" -o "$tmpdir/noslurm" --slurm &&
	contains "$err" "needs sbatch"

# the network's policies, the OCS fetch model and the fetch order are
# dimensions too
printf 'topology %s\nworkload %s\nscheduler neat\noption coflow varys none\noption net srpt\noption ocs-fetch copies\noption fetch-order random\n' \
	"$T/rack8.topo" "$W/fb-small.wl" >"$tmpdir/net.spec"
expect_status 0 "$HYDE" sweep "$tmpdir/net.spec" -o "$tmpdir/net" -n
grep -q -- "-s neat --coflow varys --net srpt --ocs-fetch copies --fetch-order random --seed 1 -o $tmpdir/net/runs/0000_neat_coflow=varys " "$tmpdir/net/commands.txt" &&
	grep -q -- "--coflow none --net srpt" "$tmpdir/net/commands.txt" ||
	fail "coflow, net, ocs-fetch, fetch-order: $(cat "$tmpdir/net/commands.txt")"

# the simulator's own options (-B) are dimensions too
printf 'topology %s\nworkload %s\nscheduler fair\nbackend fetch host rack\nbackend end_grid 10ms\n' \
	"$T/rack8.topo" "$W/fb-small.wl" >"$tmpdir/bo.spec"
expect_status 0 "$HYDE" sweep "$tmpdir/bo.spec" -o "$tmpdir/bo" -n
grep -q -- "-s fair -B fetch=host -B end_grid=10ms --seed 1 -o $tmpdir/bo/runs/0000_fair_fetch=host " "$tmpdir/bo/commands.txt" &&
	grep -q -- "-s fair -B fetch=rack -B end_grid=10ms --seed 1 -o $tmpdir/bo/runs/0001_fair_fetch=rack " "$tmpdir/bo/commands.txt" ||
	fail "backend options: $(cat "$tmpdir/bo/commands.txt")"

# a horizon is a dimension too: the runs stop there, and count as done
# (run_end horizon), so the sweep run again has nothing left to do
printf 'topology %s\nworkload %s\nscheduler fair\noption horizon 20s 40s\n' \
	"$T/rack8.topo" "$W/fb-small.wl" >"$tmpdir/hz.spec"
expect_status 0 "$HYDE" sweep "$tmpdir/hz.spec" -o "$tmpdir/hz" -q
for h in 20s 40s; do
	d=$(ls -d "$tmpdir"/hz/runs/*_fair_horizon=$h)
	tail -1 "$d/events.log" | grep -q ' run_end horizon$' || fail "horizon $h: $(tail -1 "$d/events.log")"
	grep -q '"horizon_s": '"${h%s}" "$d/summary.json" || fail "horizon $h: not in summary.json"
done
expect_status 0 "$HYDE" sweep "$tmpdir/hz.spec" -o "$tmpdir/hz" &&
	contains "$out" "2 of 2 runs already done"

# repro/simqueue.sh (the reproduce scripts' queue of runs): three runs
# queued, two differing only by their workload (one sweep of two), the
# third's later --heartbeat replacing its earlier one (a sweep of its own);
# each run linked where it was asked, the same files as hyde sim's own
Q="$tmpdir/q"
mkdir -p "$Q/w"
"$HYDE" gen fb jobs=4 seed=1 scale=0.01 -o "$Q/w/a.wl" >/dev/null && "$HYDE" gen fb jobs=4 seed=2 scale=0.01 -o "$Q/w/b.wl" >/dev/null ||
	fail "hyde gen"
(
	. "$HYDE_SRCDIR/repro/simqueue.sh"
	JOBS=2
	simq_init "$Q" "$HYDE_SRCDIR"
	simq_add "$Q/sim/one" "$T/rack8.topo" "$Q/w/a.wl" fair --heartbeat 0 --no-io &&
		simq_add "$Q/sim/two" "$T/rack8.topo" "$Q/w/b.wl" fair --heartbeat 0 --no-io &&
		simq_add "$Q/sim/three" "$T/rack8.topo" "$Q/w/a.wl" delay -S node_wait=1s --heartbeat 0 --heartbeat 500ms &&
		simq_run
) 2>"$tmpdir/simq.err" || fail "simqueue: $(cat "$tmpdir/simq.err")"
[ "$(ls "$Q"/sweep/*.spec | wc -l)" = 2 ] || fail "simqueue: $(ls "$Q"/sweep/*.spec | wc -l) sweeps, expected 2"
grep -qx 'option heartbeat 500ms' "$Q"/sweep/delay*.spec && [ "$(grep -c heartbeat "$Q"/sweep/delay*.spec)" = 1 ] ||
	fail "simqueue: the later --heartbeat does not replace the earlier: $(cat "$Q"/sweep/delay*.spec)"
grep -qx 'scheduler delay:node_wait=1s' "$Q"/sweep/delay*.spec || fail "simqueue: -S not in the scheduler: $(cat "$Q"/sweep/delay*.spec)"
for r in "one a fair --heartbeat 0 --no-io" "two b fair --heartbeat 0 --no-io" "three a delay -S node_wait=1s --heartbeat 500ms"; do
	set -- $r
	n=$1 w=$2
	shift 2
	[ -L "$Q/sim/$n" ] && tail -1 "$Q/sim/$n/events.log" | grep -q ' run_end ok$' || fail "simqueue: $n not linked to a finished run"
	"$HYDE" sim -t "$T/rack8.topo" -w "$Q/w/$w.wl" -s "$@" -o "$tmpdir/own-$n" -q || fail "hyde sim $n"
	cmp -s "$tmpdir/own-$n/flows.csv" "$Q/sim/$n/flows.csv" || fail "simqueue: $n's flows differ from hyde sim's"
done
# a run one level too deep is refused
( . "$HYDE_SRCDIR/repro/simqueue.sh"; simq_init "$Q" "$HYDE_SRCDIR"; simq_add "$Q/a/b/c" "$T/rack8.topo" "$Q/w/a.wl" fair ) 2>/dev/null &&
	fail "simqueue: a run at OUT/a/b/c was queued"

# bad specs: one message (file:line: what was expected), exit 2, no output
bad() { # LINE-TO-ADD MESSAGE
	{
		echo "topology $T/rack8.topo"
		echo "workload $W/fb-small.wl"
		echo "scheduler fair"
		printf '%s\n' "$1"
	} >"$tmpdir/bad.spec"
	expect_status 2 "$HYDE" sweep "$tmpdir/bad.spec" -o "$tmpdir/badout" &&
		contains "$err" "$2"
	[ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "more than one line: $err"
	[ ! -e "$tmpdir/badout" ] || fail "'$1': $tmpdir/badout was created"
}
bad "frobnicate 1" "bad.spec:4: unknown key 'frobnicate'"
bad "backend fetch pod" "bad.spec:4: backend sim: fetch: expected host or rack, got 'pod'"
bad "backend nosuch 1" "bad.spec:4: backend sim: unknown option 'nosuch'"
bad "backend fetch=rack" "bad.spec:4: backend: expected a simulator option's name, then its values"
bad "backend measured_setup yes" "bad.spec:4: measured_setup: only for hyde sim --replay (a sweep's runs replay no run)"
bad "seed 5..2" "bad.spec:4: seed: expected A..B with A <= B, got '5..2'"
bad "seed one" "bad.spec:4: seed: expected a number or A..B, got 'one'"
bad "seed 1 2 1" "bad.spec:4: seed: '1' is listed twice"
bad "set slowstart 2" "line 4: scheduler fair: slowstart"
bad "set bogus 1" "unknown option 'bogus'"
bad "option heartbeat soon" "bad.spec:4: option heartbeat: expected a time (0: none), got 'soon'"
bad "option horizon 0" "bad.spec:4: option horizon: expected a time over 0, got '0'"
bad "option no-io maybe" "bad.spec:4: option no-io: expected yes or no, got 'maybe'"
bad "option frob 1" "bad.spec:4: option: expected one of circuits"
bad "option coflow sebf" "bad.spec:4: option coflow: expected varys, scf, fcfs, fair or none, got 'sebf'"
bad "option net maxmin" "bad.spec:4: option net: expected fair, fcfs, srpt or las, got 'maxmin'"
bad "option ocs-fetch later" "bad.spec:4: option ocs-fetch: expected circuit or copies, got 'later'"
bad "option fetch-order map" "bad.spec:4: option fetch-order: expected fifo or random, got 'map'"
bad "scheduler delay" "bad.spec:4: scheduler is given twice"
bad "workload $tmpdir/none.wl" "bad.spec:4: workload"
printf 'topology %s\nscheduler fair\n' "$T/rack8.topo" >"$tmpdir/bad.spec"
expect_status 2 "$HYDE" sweep "$tmpdir/bad.spec" -o "$tmpdir/badout" && contains "$err" "no 'workload' line"
expect_status 2 "$HYDE" sweep && contains "$err" "expected a spec file"
expect_status 2 "$HYDE" sweep "$tmpdir/a.spec" --dry-run --slurm && contains "$err" "exclude each other"

finish
