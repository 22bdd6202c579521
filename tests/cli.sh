#!/bin/sh
# The command line: exit codes, messages, unbuilt parts saying so.
. "${HYDE_SRCDIR}/tests/lib.sh"

T="$HYDE_SRCDIR/topologies"

# No command, unknown command, unknown option: usage on stderr, status 2.
expect_status 2 "$HYDE" && contains "$err" "usage: hyde"
expect_status 2 "$HYDE" frobnicate && contains "$err" "unknown command 'frobnicate'"
expect_status 2 "$HYDE" --bogus && contains "$err" "unknown option '--bogus'"
expect_status 0 "$HYDE" --help && contains "$out" "validate"

# --help works on every subcommand, built or not.
for c in run compare sim sweep analyze topo ocs clean validate gen import version; do
	expect_status 0 "$HYDE" "$c" --help && contains "$out" "usage: hyde $c"
done

# What is not built says so and exits 2: never pretends.
for c in $("$HYDE" version | awk '/not built yet/ {print $1}'); do
	expect_status 2 "$HYDE" "$c" && contains "$err" "hyde $c: not built yet: needs"
done

# validate prints what was understood.
expect_status 0 "$HYDE" validate -t "$T/rack8.topo" &&
	contains "$out" "8" &&
	contains "$out" "4 per rack, 32 in all (r0h0 .. r7h3)" &&
	contains "$out" "40Mbit per ToR (oversubscription 10:1)" &&
	contains "$out" "400Mbit per port, delta 10ms, T_e 4.5MB (T_e / bw_o = 90ms)" &&
	contains "$out" "r0h0         EPS 10.0.0.1, OCS 10.16.0.1, gateway 10.0.0.254"
expect_status 0 "$HYDE" validate -t "$T/nas30.topo" && contains "$out" "oversubscription 5:1" &&
	contains "$out" "OCS          none"
# a job's class: by its shuffle, unless the workload says class= (and then
# the count says how many did)
printf 'job id=a arrival=0s input=1MB shuffle=200KB output=0B maps=1 reduces=1 map_time=1s reduce_time=1s class=heavy\njob id=b arrival=0s input=1MB shuffle=200KB output=0B maps=1 reduces=1 map_time=1s reduce_time=1s\n' >"$tmpdir/cls.wl"
expect_status 0 "$HYDE" validate -t "$T/tiny.topo" -w "$tmpdir/cls.wl" &&
	contains "$out" "jobs         2: light 1, medium 0, heavy 1 (shuffle < 1MB, 1MB-100MB, > 100MB; 1 by their class=, kept from the trace through scaling)"

# Bad input: one message with file and line, exit 2, nothing written.
printf 'racks 2\nhosts two\n' >"$tmpdir/bad.topo"
expect_status 2 "$HYDE" validate -t "$tmpdir/bad.topo" &&
	contains "$err" "$tmpdir/bad.topo:2: hosts: expected a whole number from 1 to 1000, got 'two'"
[ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "more than one line of error: $err"
expect_status 2 "$HYDE" validate -t "$tmpdir/none.topo" && contains "$err" "No such file"
expect_status 2 "$HYDE" validate && contains "$err" "expected -t TOPOLOGY"
expect_status 2 "$HYDE" validate -t "$T/tiny.topo" extra && contains "$err" "unexpected argument 'extra'"

printf 'job id=a arrival=0s input=1MB shuffle=1MB output=0B maps=1 reduces=1 map_time=1s reduce_time=1s map_racks=5\n' >"$tmpdir/pin.wl"
expect_status 2 "$HYDE" validate -t "$T/tiny.topo" -w "$tmpdir/pin.wl" &&
	contains "$err" "pin.wl:1: job 'a': map rack 5 does not exist in topology 'tiny'"

# gen: same seed, same bytes; -o writes atomically; bad options exit 2.
expect_status 0 "$HYDE" gen fb seed=5 jobs=50 -o "$tmpdir/a.wl"
expect_status 0 "$HYDE" gen fb seed=5 jobs=50 -o "$tmpdir/b.wl"
cmp -s "$tmpdir/a.wl" "$tmpdir/b.wl" || fail "gen fb seed=5 differs between two runs"
"$HYDE" gen fb seed=5 jobs=50 >"$tmpdir/c.wl" || fail "gen to stdout"
cmp -s "$tmpdir/a.wl" "$tmpdir/c.wl" || fail "gen -o and stdout differ"
expect_status 0 "$HYDE" gen fb seed=6 jobs=50 -o "$tmpdir/d.wl"
cmp -s "$tmpdir/a.wl" "$tmpdir/d.wl" && fail "seeds 5 and 6 give the same file"
expect_status 0 "$HYDE" validate -w "$tmpdir/a.wl" && contains "$out" "jobs         50"
expect_status 2 "$HYDE" gen fb jobs=abc -o "$tmpdir/e.wl" && contains "$err" "jobs: expected a number"
[ -e "$tmpdir/e.wl" ] && fail "a failed gen left a file"
expect_status 2 "$HYDE" gen bogus && contains "$err" "unknown generator 'bogus'"
expect_status 0 "$HYDE" gen dag dags=2 depth=4 -o "$tmpdir/dag.wl"
expect_status 0 "$HYDE" validate -w "$tmpdir/dag.wl" && contains "$out" "DAG depth    4"
ls "$tmpdir" | grep -q tmp && fail "temporary files left behind: $(ls "$tmpdir")"

# sim: every scheduler, its options in --help, a bad option value named.
for s in fair delay corral coscheduler; do
	expect_status 0 "$HYDE" sim -t "$T/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" -s $s &&
		contains "$out" "jobs             2 of 2 done"
done
expect_status 0 "$HYDE" sim --help && contains "$out" "coscheduler:" && contains "$out" "node_wait"
expect_status 2 "$HYDE" sim -t "$T/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" -s coscheduler -S mts=maybe &&
	contains "$err" "scheduler coscheduler: mts: expected yes or no, got 'maybe'"
expect_status 2 "$HYDE" sim -t "$T/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" -s corral -S objective=fast &&
	contains "$err" "scheduler corral: objective: expected jct or makespan, got 'fast'"

# import: the traces convert and validate.
expect_status 0 "$HYDE" import coflow "$HYDE_SRCDIR/workloads/traces/FB2010-1Hr-150-0.txt" count=5 -o "$tmpdir/cf.wl"
expect_status 0 "$HYDE" validate -w "$tmpdir/cf.wl" && contains "$out" "jobs         5:" && contains "$out" "pinned       5"
expect_status 0 "$HYDE" validate -w "coflow:$HYDE_SRCDIR/workloads/traces/FB2010-1Hr-150-0.txt" && contains "$out" "jobs         526:"
expect_status 0 "$HYDE" validate -w "$HYDE_SRCDIR/workloads/traces/FB-2009_samples_24_times_1hr_0.tsv" && contains "$out" "jobs         5894:"
expect_status 2 "$HYDE" import swim /nonexistent.tsv && contains "$err" "/nonexistent.tsv: No such file"

# sim: rate models by name; the summary has events/s and peak memory;
# flows.csv (streamed as flows end) has a line per shuffle flow of the
# summary.
expect_status 2 "$HYDE" sim -t "$T/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" --rates bogus &&
	contains "$err" "--rates: expected maxmin, fcfs, srpt or las"
expect_status 2 "$HYDE" sim -t "$T/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" --rate-quantum soon &&
	contains "$err" "--rate-quantum: expected"
for m in maxmin fcfs srpt las; do
	expect_status 0 "$HYDE" sim -t "$T/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" --rates $m \
		-o "$tmpdir/sim-$m" && contains "$out" "events " && contains "$out" "peak memory"
	flows=$(echo "$out" | awk '/^  shuffle/ { for (i = 1; i <= NF; i++) if ($i == "flows:") print $(i - 1) }')
	lines=$(awk -F, 'NR > 1 && $13 == "shuffle"' "$tmpdir/sim-$m/flows.csv" | wc -l)
	[ "$flows" = "$lines" ] || fail "sim --rates $m: $flows flows in the summary, $lines shuffle flows in flows.csv"
done
# the backends' own options (-B KEY=VALUE): --rates and --rate-quantum
# are the simulator's rates= and rate_quantum=, the same runs; a key the
# backend does not have, or a value it cannot take, is refused up front,
# in hyde compare too, before anything runs
for a in "--rates srpt|-B rates=srpt" "--rate-quantum 300ms|-B rate_quantum=300ms"; do
	"$HYDE" sim -t "$T/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" ${a%%|*} -o "$tmpdir/alias" -q &&
		"$HYDE" sim -t "$T/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" ${a##*|} -o "$tmpdir/bopt" -q ||
		fail "sim ${a%%|*} or ${a##*|} failed"
	cmp -s "$tmpdir/alias/flows.csv" "$tmpdir/bopt/flows.csv" || fail "sim ${a%%|*} and ${a##*|} differ"
	cmp -s "$tmpdir/alias/flows.csv" "$tmpdir/sim-maxmin/flows.csv" && fail "sim ${a##*|} changed nothing"
	rm -rf "$tmpdir/alias" "$tmpdir/bopt"
done
expect_status 2 "$HYDE" sim -t "$T/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" -B bogus=1 &&
	contains "$err" "backend sim: unknown option 'bogus' (expected one of: rates, rate_quantum"
expect_status 2 "$HYDE" sim -t "$T/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" -B rates=bogus &&
	contains "$err" "backend sim: rates: expected maxmin, fcfs, srpt or las, got 'bogus'"
expect_status 2 "$HYDE" compare --backend sim -t "$T/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" \
	-B prefix=hydex -o "$tmpdir/cmpb" && contains "$err" "backend sim: unknown option 'prefix'"
[ -e "$tmpdir/cmpb" ] && fail "a refused compare left $tmpdir/cmpb"
# a bad prefix is refused with the options: no run directory, no fabric
expect_status 2 "$HYDE" run -t "$T/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" --prefix hydeX \
	-o "$tmpdir/badpfx" -q && contains "$err" "backend emul: prefix 'hydeX': expected 'hyde' followed by"
[ -e "$tmpdir/badpfx" ] && fail "a refused prefix left $tmpdir/badpfx"
# and so is a VOQ bound that is not a size
expect_status 2 "$HYDE" run -t "$T/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" -B voq=lots \
	-o "$tmpdir/badvoq" -q && contains "$err" "backend emul: voq: expected a size such as"
[ -e "$tmpdir/badvoq" ] && fail "a refused VOQ bound left $tmpdir/badvoq"
expect_status 0 "$HYDE" compare --backend sim -t "$T/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" \
	-s fair -B rates=srpt -o "$tmpdir/cmpb" -q
cmp -s "$tmpdir/cmpb/fair/flows.csv" "$tmpdir/sim-srpt/flows.csv" ||
	fail "compare -B rates=srpt: the run's flows are not srpt's"
# circuit schedulers' options (-C NAME:KEY=VALUE): greedy's period
# reaches it (matchings held half as long: more reconfigurations), and a
# key it does not have is refused, in hyde compare before anything runs
for p in default 100ms 50ms; do
	spec=greedy:period=$p
	[ $p = default ] && spec=greedy
	expect_status 0 "$HYDE" sim -t "$T/rack8.topo" -w "$HYDE_SRCDIR/workloads/fb-small.wl" \
		-C $spec -o "$tmpdir/greedy-$p" -q
done
cmp -s "$tmpdir/greedy-default/flows.csv" "$tmpdir/greedy-100ms/flows.csv" ||
	fail "-C greedy:period=100ms is not greedy's default"
reconf() { sed -n 's/^  "reconfigurations": \([0-9]*\),$/\1/p' "$tmpdir/greedy-$1/summary.json"; }
[ "$(reconf 50ms)" -gt "$(reconf 100ms)" ] 2>/dev/null ||
	fail "-C greedy:period=50ms: $(reconf 50ms) reconfigurations, 100ms: $(reconf 100ms)"
grep -q '"circuit_scheduler": "greedy"' "$tmpdir/greedy-50ms/summary.json" ||
	fail "greedy:period=50ms: $(grep circuit_scheduler "$tmpdir/greedy-50ms/summary.json")"
expect_status 2 "$HYDE" sim -t "$T/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" -C greedy:bogus=1 &&
	contains "$err" "circuit scheduler greedy: unknown option 'bogus' (expected one of: period)"
expect_status 2 "$HYDE" sim -t "$T/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" -C sunflow:period=1s &&
	contains "$err" "circuit scheduler sunflow: unknown option 'period' (it has none)"
expect_status 2 "$HYDE" sim -t "$T/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" -C nosuch &&
	contains "$err" "unknown circuit scheduler 'nosuch' (expected sunflow, greedy or none)"
expect_status 2 "$HYDE" compare --backend sim -t "$T/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" \
	-C greedy:period=0 -o "$tmpdir/cmpc" && contains "$err" "period: expected"
[ -e "$tmpdir/cmpc" ] && fail "a refused compare left $tmpdir/cmpc"
expect_status 0 "$HYDE" sim -t "$T/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" --progress -q &&
	contains "$err" "jobs " && contains "$err" "ETA"

finish
