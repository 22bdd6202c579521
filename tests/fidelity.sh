#!/bin/sh
# Fidelity without root: every flow of a run has a name, unique, that says
# what it is (JOB/KIND/TASK/WHAT@SRC, docs/definitions.md); hyde sim
# --replay of a simulated run gives back exactly its flows (the same names,
# every FCT and CCT to the nanosecond: the same model, the same starts and
# circuits); hyde fidelity's join and statistics on hand-made run
# directories with known answers; and the bad inputs of both: one message,
# exit 2, nothing written.
. "${HYDE_SRCDIR}/tests/lib.sh"

T="$HYDE_SRCDIR/topologies/rack8.topo"
W="$HYDE_SRCDIR/workloads/fb-small.wl"
A="$tmpdir/a"
B="$tmpdir/b"

# ---- names ----
expect_status 0 "$HYDE" sim -q -t "$T" -w "$W" -s coscheduler --seed 3 -o "$A"
head -1 "$A/flows.csv" | grep -q ',src,dst,name$' || fail "flows.csv: no name column at the end: $(head -1 "$A/flows.csv")"
# every name: the line's job and kind, a task, the map (shuffle), read
# (input) or hop (output), and the line's source host
bad=$(awk -F, 'NR > 1 {
	n = split($16, p, "/")
	if (n != 4 || p[1] != $3 || p[2] != $13) { print NR ": " $0; next }
	if ($13 == "input" && p[3] !~ /^m[0-9]+$/) { print NR ": " $0; next }
	if ($13 != "input" && p[3] !~ /^r[0-9]+$/) { print NR ": " $0; next }
	if ($13 == "shuffle" && p[4] !~ /^m[0-9]+@/) { print NR ": " $0; next }
	if ($13 != "shuffle" && p[4] !~ /^[0-9]+@/) { print NR ": " $0; next }
	sub(/^[^@]*@/, "", p[4]); if (p[4] != $14) print NR ": " $0 }' "$A/flows.csv")
[ -z "$bad" ] || fail "flows named not by what they are: $bad"
dup=$(tail -n +2 "$A/flows.csv" | cut -d, -f16 | sort | uniq -d | head -3)
[ -z "$dup" ] || fail "flow names not unique: $dup"
n_flows=$(($(wc -l <"$A/flows.csv") - 1))
[ "$n_flows" -gt 100 ] || fail "only $n_flows flows"
grep -q ',ocs,' "$A/flows.csv" || fail "no OCS flow to replay circuits with"

# ---- replay of a simulated run: exactly its flows back ----
expect_status 0 "$HYDE" sim --replay "$A" -o "$B"
contains "$out" "$n_flows of $n_flows done"
for f in flows.csv coflows.csv events.log inputs/topology.topo; do
	[ -f "$B/$f" ] || fail "replay: no $f"
done
[ -e "$B/jobs.csv" ] && fail "replay: a jobs.csv (the jobs are the replayed run's)"
# its circuits' windows logged as the replayed run's: each circuit_up when
# it carries, each circuit_down when it is asked to go (hyde fidelity's
# windows, the timeline)
grep ' circuit_' "$A/events.log" | sort >"$tmpdir/cva"
grep ' circuit_' "$B/events.log" | sort >"$tmpdir/cvb"
grep -q ' circuit_down ' "$tmpdir/cva" || fail "no circuit went down in $A"
cmp -s "$tmpdir/cva" "$tmpdir/cvb" || fail "replay: circuits logged otherwise: $(diff "$tmpdir/cva" "$tmpdir/cvb" | head -5)"
# a circuit asked to another rack with no circuit_down first goes down
# as it is asked (delta, 10 ms, before the new one carries): racks 1 and 2,
# which no flow of A crosses by circuit, 1 -> 2 at 10 s, then 1 -> 0 at 20
# s, down at 30 s
A3="$tmpdir/a3"
cp -r "$A" "$A3"
printf '%s\n' '10000000000 circuit_up 1 2' '20000000000 circuit_up 1 0' '30000000000 circuit_down 1 0' >>"$A3/events.log"
expect_status 0 "$HYDE" sim --replay "$A3" -q -o "$tmpdir/b3"
grep -qx '19990000000 circuit_down 1 2' "$tmpdir/b3/events.log" ||
	fail "replay: a circuit re-aimed did not go down: $(grep ' circuit_[a-z]* 1 ' "$tmpdir/b3/events.log")"
grep -qx '30000000000 circuit_down 1 0' "$tmpdir/b3/events.log" ||
	fail "replay: no circuit_down 1 0: $(grep ' circuit_[a-z]* 1 ' "$tmpdir/b3/events.log")"
# flow, name, path, bytes, start, end, FCT: all equal
cut -d, -f1,4,5,6,7,8,16 "$A/flows.csv" | sort >"$tmpdir/fa"
cut -d, -f1,4,5,6,7,8,16 "$B/flows.csv" | sort >"$tmpdir/fb"
cmp -s "$tmpdir/fa" "$tmpdir/fb" || fail "replay of a simulation differs: $(diff "$tmpdir/fa" "$tmpdir/fb" | head -5)"
# coflows: all but T(C) (a replay plans no circuits)
cut -d, -f1-7,9- "$A/coflows.csv" >"$tmpdir/ca"
cut -d, -f1-7,9- "$B/coflows.csv" >"$tmpdir/cb"
cmp -s "$tmpdir/ca" "$tmpdir/cb" || fail "replay: coflows differ: $(diff "$tmpdir/ca" "$tmpdir/cb" | head -5)"
# and hyde fidelity says so: every ratio 1, no error
expect_status 0 "$HYDE" fidelity "$A" "$B"
contains "$out" "FCT: $n_flows flows joined; 0 only in EMUL_RUN, 0 only in SIM_RUN"
echo "$out" | grep -E '^  all ' | grep -vq '1.000     1.000       0.0%       0.0%       0.0%' &&
	fail "a run against its own replay is not exact: $out"
contains "$out" "JCT: not compared: $B has no jobs.csv"
[ -f "$B/fidelity.csv" ] || fail "no fidelity.csv"
[ "$(grep -c '^flow,' "$B/fidelity.csv")" = "$n_flows" ] || fail "fidelity.csv: not one line per flow"

# -B measured_setup=yes: a replay's set-up is the replayed run's own
# (hyde analyze's first byte, summary.json), here 2 ms put into a copy of A
A2="$tmpdir/a2"
cp -r "$A" "$A2"
sed -i '1s|^{$|{\n  "analysis": { "first_byte": {\n      "under_100kb": { "n": 3, "median_ns": 2000000 } } },|' "$A2/summary.json"
expect_status 0 "$HYDE" sim -q --replay "$A2" -B measured_setup=yes -o "$tmpdir/ms"
expect_status 0 "$HYDE" sim -q --replay "$A2" -B setup=2ms -o "$tmpdir/ms2"
cmp -s "$tmpdir/ms/flows.csv" "$tmpdir/ms2/flows.csv" ||
	fail "measured_setup: not setup=2ms: $(diff "$tmpdir/ms/flows.csv" "$tmpdir/ms2/flows.csv" | head -3)"
cmp -s "$tmpdir/ms/flows.csv" "$B/flows.csv" && fail "measured_setup: no set-up at all"
expect_status 0 "$HYDE" fidelity "$A2" "$tmpdir/ms" -o "$tmpdir/ms"
contains "$out" "Set-up: the emulated flows under 100 KB had their first data byte a median 2ms after their SYN (3 flows, hyde analyze); the model's -B setup: 2ms, the run's own (measured_setup)"
grep -qx '0 backend_derived setup=2000000ns' "$tmpdir/ms/events.log" ||
	fail "measured_setup: the set-up taken not logged: $(grep backend_ "$tmpdir/ms/events.log")"
# measured_setup=no: the setup given, and said so
expect_status 0 "$HYDE" sim -q --replay "$A2" -B setup=5ms -B measured_setup=no -o "$tmpdir/ms7"
expect_status 0 "$HYDE" fidelity "$A2" "$tmpdir/ms7" -o "$tmpdir/ms7"
echo "$out" | grep -qx "Set-up: .*(3 flows, hyde analyze); the model's -B setup: 5ms" ||
	fail "measured_setup=no: $(echo "$out" | grep Set-up)"
grep -q backend_derived "$tmpdir/ms7/events.log" && fail "measured_setup=no: a backend_derived line"
# in place of a setup given (hyde compare gives the simulation's to its
# replays as well)
expect_status 0 "$HYDE" sim -q --replay "$A2" -B setup=5ms -B measured_setup=yes -o "$tmpdir/ms4"
cmp -s "$tmpdir/ms/flows.csv" "$tmpdir/ms4/flows.csv" ||
	fail "measured_setup: not in place of setup=5ms: $(diff "$tmpdir/ms/flows.csv" "$tmpdir/ms4/flows.csv" | head -3)"
# a run that measured none (no flow under 100 KB): the setup given
# stands, said once on stderr, and no backend_derived line
expect_status 0 "$HYDE" sim -q --replay "$A" -B measured_setup=yes -B setup=3ms -o "$tmpdir/ms8"
[ "$err" = "hyde sim: measured_setup: $A measured no set-up (no flow under 100 KB): -B setup=3ms stands" ] ||
	fail "measured_setup without one, setup given: stderr: $err"
expect_status 0 "$HYDE" sim -q --replay "$A" -B setup=3ms -o "$tmpdir/ms9"
cmp -s "$tmpdir/ms8/flows.csv" "$tmpdir/ms9/flows.csv" ||
	fail "measured_setup without one: not setup=3ms: $(diff "$tmpdir/ms8/flows.csv" "$tmpdir/ms9/flows.csv" | head -3)"
grep -q backend_derived "$tmpdir/ms8/events.log" && fail "measured_setup without one: a backend_derived line"
# refused, nothing made: a run that measured none with no setup given,
# and without --replay
expect_status 2 "$HYDE" sim -q --replay "$A" -B measured_setup=yes -o "$tmpdir/ms3"
contains "$err" "measured_setup: $A has no measured set-up"
contains "$err" "give -B setup too, for the runs without one"
expect_status 2 "$HYDE" sim -q -t "$T" -w "$W" -B measured_setup=yes -o "$tmpdir/ms5"
contains "$err" "measured_setup: only with --replay"
for d in ms3 ms5; do
	[ -e "$tmpdir/$d" ] && fail "a refused measured_setup made $d: $(ls "$tmpdir/$d")"
done
# hyde compare gives it to --backend both's replays alone (-B sim:, with
# --draws: tests/fidelity_emul.sh); anywhere else it is refused before
# anything runs
for a in "--backend sim -B measured_setup=yes" "--backend both -B measured_setup=yes --draws 2" \
	"--backend both -B emul:measured_setup=yes --draws 2" "--backend both -B sim:measured_setup=yes"; do
	# shellcheck disable=SC2086
	expect_status 2 "$HYDE" compare -t "$T" -w "$W" -s fair -o "$tmpdir/ms6" -q $a
	contains "$err" "measured_setup=yes: an option of"
	[ -e "$tmpdir/ms6" ] && fail "compare $a: a refused compare made $tmpdir/ms6"
done

# a run from before names (flows.csv without its name column) still reads
# in hyde compare --from
expect_status 0 "$HYDE" compare --backend sim -t "$HYDE_SRCDIR/topologies/tiny.topo" \
	-w "$HYDE_SRCDIR/workloads/small.wl" -s fair -o "$tmpdir/cmp" -q
sed -i '1s|,name$||; 2,$s|,[^,]*$||' "$tmpdir/cmp/fair/flows.csv"
head -1 "$tmpdir/cmp/fair/flows.csv" | grep -q ',dst$' || fail "flows.csv's name not stripped"
expect_status 0 "$HYDE" compare --from "$tmpdir/cmp" -o "$tmpdir/cmp2" -q
contains "$out" "fair"

# a flow the captures did not time (start_ns -1) starts when the
# controller started it (events.log's flow_start): here the same instant
U="$tmpdir/untimed"
cp -r "$A" "$U"
awk -F, 'BEGIN { OFS = "," } NR == 5 || NR == 50 { $6 = -1 } { print }' "$A/flows.csv" >"$U/flows.csv"
expect_status 0 "$HYDE" sim --replay "$U" -o "$tmpdir/ru" -q
cut -d, -f1,4,5,6,7,8,16 "$tmpdir/ru/flows.csv" | sort >"$tmpdir/fu"
cmp -s "$tmpdir/fa" "$tmpdir/fu" || fail "untimed flows replayed at another start: $(diff "$tmpdir/fa" "$tmpdir/fu" | head -4)"
# OCS flows with more bytes than their circuits carried: stranded, said
# with what they had left
S="$tmpdir/stranded"
cp -r "$A" "$S"
awk -F, 'BEGIN { OFS = "," } NR > 1 && $4 == "ocs" { $5 += 3000000 } { print }' "$A/flows.csv" >"$S/flows.csv"
expect_status 0 "$HYDE" sim --replay "$S" -o "$tmpdir/rs"
n_str=$(awk -F, 'NR > 1 && $7 == -1' "$tmpdir/rs/flows.csv" | wc -l)
[ "$n_str" -gt 0 ] || fail "no flow stranded with 3 MB more on every OCS flow"
contains "$out" "stranded         $n_str: OCS flows with bytes left"
echo "$out" | grep -Eq '^ +[0-9.]+[KMG]?B left in all, [0-9.]+[KMG]?B at most in one$' ||
	fail "the replay does not say what the stranded flows had left: $out"
grep -v ' flow_start ' "$A/events.log" >"$U/events.log"
expect_status 2 "$HYDE" sim --replay "$U" -o "$tmpdir/ru2" -q
contains "$err" "untimed/flows.csv:5: start_ns: expected a start (or a flow_start in events.log)"

# the simulator's fidelity options, on one flow replayed alone: payload=0.5
# halves what every link carries (the FCT doubles), setup=1ms holds its
# bytes 1 ms (the FCT grows by exactly that)
O1="$tmpdir/one"
cp -r "$A" "$O1"
{ head -1 "$A/flows.csv"; grep -m1 ',eps,[0-9]*,[0-9]*,[0-9]*,[0-9]*,0,[0-9]*,0,' "$A/flows.csv"; } >"$O1/flows.csv"
[ "$(wc -l <"$O1/flows.csv")" = 2 ] || fail "no EPS flow to replay alone"
fct_of() { tail -1 "$1/flows.csv" | cut -d, -f8; }
expect_status 0 "$HYDE" sim --replay "$O1" -o "$tmpdir/o0" -q
expect_status 0 "$HYDE" sim --replay "$O1" -B payload=0.5 -o "$tmpdir/o1" -q
expect_status 0 "$HYDE" sim --replay "$O1" -B setup=1ms -o "$tmpdir/o2" -q
f0=$(fct_of "$tmpdir/o0")
f1=$(fct_of "$tmpdir/o1")
f2=$(fct_of "$tmpdir/o2")
[ "$f0" -gt 0 ] || fail "the lone flow took $f0 ns"
d=$((f1 - 2 * f0))
[ "${d#-}" -le 2 ] || fail "payload=0.5: FCT $f1 ns, expected twice $f0 ns"
[ "$f2" = $((f0 + 1000000)) ] || fail "setup=1ms: FCT $f2 ns, expected $f0 + 1 ms"
expect_status 2 "$HYDE" sim --replay "$O1" -B payload=2 -o "$tmpdir/o3" -q
contains "$err" "payload"
# hyde fidelity puts the emulated run's measured set-up (hyde analyze's
# first byte of the flows under 100 KB, here written into the summary of a
# simulated run taken for an emulated one) beside the model's -B setup;
# nothing when the first run has none
E1="$tmpdir/o1e"
cp -r "$O1" "$E1"
sed 's/^}$/, "analysis": { "first_byte": {\n    "all": { "n": 3, "median_ns": 1, "p99_ns": 1, "max_ns": 1, "mean_ns": 1 },\n    "under_100kb": { "n": 2, "median_ns": 1010000, "p99_ns": 1, "max_ns": 1, "mean_ns": 1 }\n  } }\n}/' \
	"$O1/summary.json" >"$E1/summary.json"
expect_status 0 "$HYDE" fidelity "$E1" "$tmpdir/o2" -o "$tmpdir"
contains "$out" "Set-up: the emulated flows under 100 KB had their first data byte a median 1.01ms after their SYN (2 flows, hyde analyze); the model's -B setup: 1ms"
expect_status 0 "$HYDE" fidelity "$E1" "$tmpdir/o0" -o "$tmpdir"
contains "$out" "the model's -B setup: none"
expect_status 0 "$HYDE" fidelity "$O1" "$tmpdir/o2" -o "$tmpdir"
echo "$out" | grep -q "Set-up:" && fail "a set-up line for a run without first bytes: $out"

# task_overhead: a map of exactly one heartbeat, started on its node's
# heartbeat, ends on the next one: without the overhead its container is
# offered again at that very heartbeat (the next map starts as it ends);
# with it (as an emulated task process, tests/fidelity_emul.sh), only at
# the heartbeat after, 1 s later, and each task ends 3 ms later
beat_starts() { # DIR: map 0's start and end, map 1's start (ns from run_start)
	awk '$2 == "run_start" { t0 = $1 } $2 ~ /^task_/ && $4 == "map" { v[$2 $5] = $1 - t0 }
		END { printf "%.0f %.0f %.0f\n", v["task_start0"], v["task_done0"], v["task_start1"] }' "$1/events.log"
}
expect_status 0 "$HYDE" sim -t "$HYDE_SRCDIR/tests/data/one.topo" -w "$HYDE_SRCDIR/tests/data/beat.wl" \
	--no-io -o "$tmpdir/beat0" -q
expect_status 0 "$HYDE" sim -t "$HYDE_SRCDIR/tests/data/one.topo" -w "$HYDE_SRCDIR/tests/data/beat.wl" \
	--no-io -B task_overhead=3ms -o "$tmpdir/beat3" -q
set -- $(beat_starts "$tmpdir/beat0")
[ $# = 3 ] && [ "$2" = $(($1 + 1000000000)) ] && [ "$3" = "$2" ] ||
	fail "no task_overhead: map 0 $1-$2, map 1 at $3 (expected map 1 as map 0 ends, 1 s after it began)"
set -- $(beat_starts "$tmpdir/beat3")
[ $# = 3 ] && [ "$2" = $(($1 + 1003000000)) ] && [ "$3" = $(($1 + 2000000000)) ] ||
	fail "task_overhead=3ms: map 0 $1-$2, map 1 at $3 (expected map 0 to end 1.003 s after it began, map 1 at the heartbeat after)"

# task_jitter: each task's work ends a further draw in [0, task_jitter)
# later, the same draw for the same task and jitter_seed, others for
# another seed (eight 1 s maps, nothing read: a map lasts its work)
printf 'job id=a arrival=0s input=8MB shuffle=0B output=0B maps=8 reduces=0 map_time=1s reduce_time=0ns\n' >"$tmpdir/jit.wl"
map_durs() { # DIR: "index duration_ns" per map
	awk '$2 == "task_start" && $4 == "map" { s[$5] = $1 }
		$2 == "task_done" && $4 == "map" { printf "%d %.0f\n", $5, $1 - s[$5] }' "$1/events.log" | sort -n
}
for j in 0s,0,0 50ms,1,1 50ms,1,1b 50ms,2,2; do
	jt=${j%%,*} js=${j#*,} jd=${j##*,}
	expect_status 0 "$HYDE" sim -t "$HYDE_SRCDIR/tests/data/two.topo" -w "$tmpdir/jit.wl" --no-io \
		-B task_overhead=3ms -B task_jitter=$jt -B jitter_seed=${js%,*} -o "$tmpdir/jit$jd" -q
done
expect_status 2 "$HYDE" sim -t "$HYDE_SRCDIR/tests/data/two.topo" -w "$tmpdir/jit.wl" -B jitter_seed=x -o "$tmpdir/jitx"
contains "$err" "jitter_seed"
[ -e "$tmpdir/jitx" ] && fail "a refused jitter_seed left $tmpdir/jitx"
d0=$(map_durs "$tmpdir/jit0")
[ "$(echo "$d0" | awk '$2 == 1003000000' | wc -l)" = 8 ] || fail "task_jitter=0: expected eight maps of 1.003 s, got: $d0"
d1=$(map_durs "$tmpdir/jit1")
[ "$(echo "$d1" | awk '$2 >= 1003000000 && $2 < 1053000000' | wc -l)" = 8 ] ||
	fail "task_jitter=50ms: expected eight maps of 1.003 to 1.053 s, got: $d1"
[ "$(echo "$d1" | awk '{ print $2 }' | sort -u | wc -l)" -ge 4 ] || fail "task_jitter=50ms: the draws hardly differ: $d1"
[ "$(map_durs "$tmpdir/jit1b")" = "$d1" ] || fail "task_jitter: the same jitter_seed drew otherwise"
[ "$(map_durs "$tmpdir/jit2")" != "$d1" ] || fail "task_jitter: jitter_seed 2 drew as jitter_seed 1"

# share_jitter: two 1 MB flows from two racks into a third's 80 Mbit/s
# link. Even (0): both end at 200 ms. Weighted by w1, w2 drawn from [1, 2)
# (share_jitter=1): the heavier one gets w1 / (w1 + w2) < 2/3 of the link
# and ends in [150, 200) ms, the other when the link has carried both, at
# 200 ms (a ns of rounding); other seeds draw other weights.
printf 'name e3\nracks 3\nhosts 1\ncontainers 1\nhost_rate 80Mbit\nuplink_rate 80Mbit\nocs no\n' >"$tmpdir/e3.topo"
printf '150 1\n7 0 2 0 1 1 2:2.0\n' >"$tmpdir/two.txt"
ends() { # DIR: the two flows' ends, ns, in order
	awk -F, 'NR > 1 { print $7 }' "$1/flows.csv" | sort -n | tr '\n' ' '
}
near() { # NS TARGET: within 2 ns
	[ "$1" -ge $(($2 - 2)) ] && [ "$1" -le $(($2 + 2)) ]
}
# two_ends OPTION VALUE WORKLOAD LEAST: two flows of 1 MB each, on their
# own on 80 Mbit/s links, with OPTION=0 (both end at 200 ms) and with
# OPTION=VALUE under jitter_seed 1 to 4: the last at 200 ms, the first in
# [LEAST, 200) ms, and some seeds draw other weights than others
two_ends() {
	te_firsts=
	for te_seed in 0 1 2 3 4; do
		te_v=$2
		[ "$te_seed" = 0 ] && te_v=0
		expect_status 0 "$HYDE" sim -t "$tmpdir/e3.topo" --coflow-only -C none -w "coflow:$3,min_flow=1MB" \
			-B "$1=$te_v" -B jitter_seed=$te_seed -o "$tmpdir/$1-$te_v-$te_seed" -q
		te_ends=$(ends "$tmpdir/$1-$te_v-$te_seed")
		if [ "$te_v" = 0 ]; then
			[ "$te_ends" = "200000000 200000000 " ] || fail "$1=0: flows ended at $te_ends, expected both at 200 ms"
			continue
		fi
		# shellcheck disable=SC2086
		set -- "$@" $te_ends
		[ $# = 6 ] && [ "$5" -ge "$4" ] && [ "$5" -lt 200000000 ] && near "$6" 200000000 ||
			fail "$1=$2, jitter_seed $te_seed: flows ended at $te_ends, expected one in [$4, 200000000) ns, the other at 200 ms"
		set -- "$1" "$2" "$3" "$4"
		te_firsts="$te_firsts ${te_ends%% *}"
	done
	[ "$(echo $te_firsts | tr ' ' '\n' | sort -u | wc -l)" -ge 3 ] || fail "$1: four seeds drew hardly any other weights: $te_firsts"
}
# share_jitter=1: two classes' weights in [1, 2), the first ends in [150, 200) ms
two_ends share_jitter 1 "$tmpdir/two.txt" 150000000
# share_period: the weights drawn anew every period. A period longer than
# the flows changes nothing (the first period's draw is share_jitter's).
# Two 10 MB flows (2 s together on the link): weights drawn once leave one
# ahead all along; drawn anew every 10 ms, 200 times before either ends,
# each gets about half, so the first ends near 2 s (within 5%: one draw's
# share is 1/2 +- 1/6, its mean over 200 within +-0.02), and the second
# at 2 s, as ever (the link is never idle).
for j in 1 2 3 4; do
	expect_status 0 "$HYDE" sim -t "$tmpdir/e3.topo" --coflow-only -C none -w "coflow:$tmpdir/two.txt,min_flow=1MB" \
		-B share_jitter=1 -B share_period=1s -B jitter_seed=$j -o "$tmpdir/sp$j" -q
	[ "$(ends "$tmpdir/sp$j")" = "$(ends "$tmpdir/share_jitter-1-$j")" ] ||
		fail "share_period=1s, jitter_seed $j: flows ended at $(ends "$tmpdir/sp$j"), not as with one draw: $(ends "$tmpdir/share_jitter-1-$j")"
done
printf '150 1\n7 0 2 0 1 1 2:20.0\n' >"$tmpdir/two10.txt"
fixed_lo=0
for j in 1 2 3 4; do
	for p in 0s 10ms; do
		expect_status 0 "$HYDE" sim -t "$tmpdir/e3.topo" --coflow-only -C none -w "coflow:$tmpdir/two10.txt,min_flow=1MB" \
			-B share_jitter=1 -B share_period=$p -B jitter_seed=$j -o "$tmpdir/sp10-$p-$j" -q
	done
	set -- $(ends "$tmpdir/sp10-10ms-$j")
	[ $# = 2 ] && [ "$1" -ge 1900000000 ] && [ "$1" -le 2000000001 ] && [ "$2" -ge 1999999999 ] && [ "$2" -le 2000000001 ] ||
		fail "share_period=10ms, jitter_seed $j: flows ended at $*, expected one in [1.9, 2] s, the other at 2 s"
	set -- $(ends "$tmpdir/sp10-0s-$j")
	[ "$1" -lt 1900000000 ] && fixed_lo=$((fixed_lo + 1))
done
[ "$fixed_lo" -ge 2 ] || fail "share_jitter=1 drawn once: expected most seeds' first flow before 1.9 s (the test's contrast), $fixed_lo of 4"
# a replay ends when its flows do, not at the next draw (3 s) after them
expect_status 0 "$HYDE" sim -q --replay "$tmpdir/sp10-10ms-1" -B share_jitter=1 -B share_period=3s -B jitter_seed=1 \
	-o "$tmpdir/spr"
last=$(awk '$2 == "flow_done" { t = $1 } END { print t }' "$tmpdir/spr/events.log")
end=$(awk '$2 == "run_end" { print $1 }' "$tmpdir/spr/events.log")
[ -n "$last" ] && [ "$end" = "$last" ] || fail "share_period=3s: the replay ended at $end ns, its last flow at $last ns"
HYDE_SIM_VERIFY=1 expect_status 0 "$HYDE" sim -t "$HYDE_SRCDIR/topologies/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" \
	-B share_jitter=3 -B share_period=50ms -B jitter_seed=5 -o "$tmpdir/spv" -q
expect_status 2 "$HYDE" sim -t "$tmpdir/e3.topo" --coflow-only -C none -w "coflow:$tmpdir/two.txt" \
	-B share_period=1s -o "$tmpdir/spx"
contains "$err" "share_period: only with share_jitter"
[ -e "$tmpdir/spx" ] && fail "a refused share_period left $tmpdir/spx"
# the incremental solver still agrees with water-filling from scratch
HYDE_SIM_VERIFY=1 expect_status 0 "$HYDE" sim -t "$HYDE_SRCDIR/topologies/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" \
	-B share_jitter=3 -B jitter_seed=5 -B task_jitter=20ms -o "$tmpdir/sjv" -q
# refused OPTION=VALUE RATES: refused under --rates RATES and beside
# src_queue, each with its message, leaving nothing
refused() {
	expect_status 2 "$HYDE" sim -t "$tmpdir/e3.topo" --coflow-only -C none -w "coflow:$tmpdir/two.txt" \
		--rates "$2" -B "$1" -o "$tmpdir/refused"
	contains "$err" "${1%%=*}: only with max-min rates (not '$2')"
	expect_status 2 "$HYDE" sim -t "$tmpdir/e3.topo" --coflow-only -C none -w "coflow:$tmpdir/two.txt" \
		-B "$1" -B src_queue=64KB -o "$tmpdir/refused"
	contains "$err" "${1%%=*}: not with src_queue"
	[ -e "$tmpdir/refused" ] && fail "a refused ${1%%=*} left $tmpdir/refused"
}
refused share_jitter=1 fcfs

# join_drains: a host pair's flows across racks weigh join_weight of a flow
# for join_drains drains of their path's slowest link's queue after they
# start (here 256 KiB at 80 Mbit/s, 26.2144 ms: 15.2587890625 of them are
# 400 ms, 3.814697265625 100 ms, 38.14697265625 1 s). A 10 MB flow alone into rack 2's 80 Mbit/s link from 0,
# a 1 MB one joining at 500 ms (5 MB left of the first; two containers
# there, so that it need not wait). Even: 40 Mbit/s each, the newcomer ends
# at 700 ms, the first at 1.1 s (the link carried both). join_drains for 400
# ms, join_weight=0.125: the newcomer gets 1/9 of the link until 900 ms, then
# half, and ends at 1011.1 ms; 100 ms: 1/9 until 600 ms, it ends
# at 777.8 ms. 1 s: the first is still joining too when the
# newcomer comes, and they weigh alike: as even.
printf 'name e3c\nracks 3\nhosts 1\ncontainers 2\nhost_rate 80Mbit\nuplink_rate 80Mbit\nocs no\n' >"$tmpdir/e3c.topo"
printf '150 2\n1 0 1 0 1 2:10.0\n2 500 1 1 1 2:1.0\n' >"$tmpdir/join.txt"
join_ends() { # DIR: the first flow's end and the newcomer's, ns
	awk -F, 'NR > 1 { e[$2] = $7 } END { print e[0], e[1] }' "$1/flows.csv"
}
for jt in 0:0 15.2587890625:0.125 3.814697265625:0.125 38.14697265625:0.125 15.2587890625:0 15.2587890625:0.2; do
	jo="-B join_drains=${jt%:*}"
	[ "${jt#*:}" = 0 ] || jo="$jo -B join_weight=${jt#*:}"
	# shellcheck disable=SC2086
	expect_status 0 "$HYDE" sim -t "$tmpdir/e3c.topo" --coflow-only -C none -w "coflow:$tmpdir/join.txt,min_flow=1MB" \
		$jo -o "$tmpdir/join$jt" -q
done
set -- $(join_ends "$tmpdir/join0:0")
near "$1" 1100000000 && near "$2" 700000000 || fail "join_drains=0: flows ended at $*, expected 1.1 s and 700 ms"
set -- $(join_ends "$tmpdir/join15.2587890625:0.125")
near "$1" 1100000000 && near "$2" 1011111111 || fail "join_drains (400 ms): flows ended at $*, expected 1.1 s and 1011.1 ms"
set -- $(join_ends "$tmpdir/join3.814697265625:0.125")
near "$1" 1100000000 && near "$2" 777777778 || fail "join_drains (100 ms): flows ended at $*, expected 1.1 s and 777.8 ms"
set -- $(join_ends "$tmpdir/join38.14697265625:0.125")
near "$1" 1100000000 && near "$2" 700000000 || fail "join_drains (1 s): flows ended at $*, expected 1.1 s and 700 ms (both joining)"
# the slowest link's queue: the same transfer over a 40 Mbit/s uplink (its
# 256 KiB drains in 52.4288 ms), the newcomer at 1 s: the same drains join
# twice as long, 800 ms, and every time doubles (the newcomer at 2022.2
# ms, the first at 2.2 s)
printf 'name e3s\nracks 3\nhosts 1\ncontainers 2\nhost_rate 80Mbit\nuplink_rate 40Mbit\nocs no\n' >"$tmpdir/e3s.topo"
printf '150 2\n1 0 1 0 1 2:10.0\n2 1000 1 1 1 2:1.0\n' >"$tmpdir/joins.txt"
expect_status 0 "$HYDE" sim -t "$tmpdir/e3s.topo" --coflow-only -C none -w "coflow:$tmpdir/joins.txt,min_flow=1MB" \
	-B join_drains=15.2587890625 -B join_weight=0.125 -o "$tmpdir/joins" -q
set -- $(join_ends "$tmpdir/joins")
near "$1" 2200000000 && near "$2" 2022222222 || fail "join_drains on a 40 Mbit/s uplink: flows ended at $*, expected 2.2 s and 2022.2 ms"
# both joining, then the first's time ends before the newcomer's: a 20 MB
# flow from 0 and a 4 MB one at 500 ms, joining for 1 s: alike until 1 s,
# 1/9 of the link for the newcomer until 1.5 s, then half: it ends at
# 1688.9 ms, the first at 2.4 s
printf '150 2\n1 0 1 0 1 2:20.0\n2 500 1 1 1 2:4.0\n' >"$tmpdir/join2.txt"
expect_status 0 "$HYDE" sim -t "$tmpdir/e3c.topo" --coflow-only -C none -w "coflow:$tmpdir/join2.txt,min_flow=1MB" \
	-B join_drains=38.14697265625 -B join_weight=0.125 -o "$tmpdir/join2" -q
set -- $(join_ends "$tmpdir/join2")
near "$1" 2400000000 && near "$2" 1688888889 || fail "join_drains (1 s), two joining: flows ended at $*, expected 2.4 s and 1688.9 ms"
# a replay ends when its flows do, not when the last class's joining does
# (120 drains, 3.15 s, after flows that end at 2 s)
expect_status 0 "$HYDE" sim -q --replay "$tmpdir/sp10-10ms-1" -B join_drains=120 -o "$tmpdir/jr"
last=$(awk '$2 == "flow_done" { t = $1 } END { print t }' "$tmpdir/jr/events.log")
end=$(awk '$2 == "run_end" { print $1 }' "$tmpdir/jr/events.log")
[ -n "$last" ] && [ "$end" = "$last" ] || fail "join_drains=120: the replay ended at $end ns, its last flow at $last ns"
[ "$(join_ends "$tmpdir/join15.2587890625:0")" = "$(join_ends "$tmpdir/join15.2587890625:0.2")" ] ||
	fail "join_weight: 0 is not its default 0.2: $(join_ends "$tmpdir/join15.2587890625:0") against $(join_ends "$tmpdir/join15.2587890625:0.2")"
# flows that start together weigh alike: as without it
expect_status 0 "$HYDE" sim -t "$tmpdir/e3.topo" --coflow-only -C none -w "coflow:$tmpdir/two.txt,min_flow=1MB" \
	-B join_drains=40 -o "$tmpdir/jtog" -q
[ "$(ends "$tmpdir/jtog")" = "200000000 200000000 " ] || fail "join_drains: two flows that start together ended at $(ends "$tmpdir/jtog"), expected both at 200 ms"
HYDE_SIM_VERIFY=1 expect_status 0 "$HYDE" sim -t "$HYDE_SRCDIR/topologies/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" \
	-B share_jitter=3 -B share_period=50ms -B join_drains=20 -B jitter_seed=5 -o "$tmpdir/jv" -q
expect_status 2 "$HYDE" sim -t "$tmpdir/e3.topo" --coflow-only -C none -w "coflow:$tmpdir/two.txt" \
	-B join_weight=0.2 -o "$tmpdir/jx"
contains "$err" "join_weight: only with join_drains"
[ -e "$tmpdir/jx" ] && fail "a refused join_weight left $tmpdir/jx"
refused join_drains=57 srpt
# without an EPS it would hold nothing back: refused, not a silent no-op
expect_status 2 "$HYDE" sim -t "$HYDE_SRCDIR/topologies/coflow150.topo" --coflow-only -w "coflow:$tmpdir/join.txt,min_flow=1MB" \
	-B join_drains=57 -o "$tmpdir/jxe"
contains "$err" "join_drains: only with an EPS"
[ -e "$tmpdir/jxe" ] && fail "a join_drains refused for want of an EPS left $tmpdir/jxe"
# a coflow model is the controller's: refused as the simulator starts, after
# the run directory was set up, which goes again (a directory that held
# something already stays, with it)
expect_status 2 "$HYDE" sim -t "$tmpdir/e3c.topo" --coflow-only -C none -w "coflow:$tmpdir/join.txt,min_flow=1MB" \
	--coflow varys -B join_drains=57 -o "$tmpdir/jxc"
contains "$err" "join_drains: only with max-min rates (not 'varys')"
[ -e "$tmpdir/jxc" ] && fail "a join_drains refused under --coflow varys left $tmpdir/jxc: $(ls -R "$tmpdir/jxc")"
mkdir "$tmpdir/jxk" && echo kept >"$tmpdir/jxk/mine"
expect_status 2 "$HYDE" sim -t "$tmpdir/e3c.topo" --coflow-only -C none -w "coflow:$tmpdir/join.txt,min_flow=1MB" \
	--coflow varys -B share_jitter=1 -o "$tmpdir/jxk"
[ "$(ls -A "$tmpdir/jxk")" = mine ] || fail "a refused run took or left more than it made in $tmpdir/jxk: $(ls -A "$tmpdir/jxk")"

# extra_full: a class's weight is multiplied by extra_full for each full
# link on its path beyond the first. Four racks of one host, host links 80
# Mbit/s: r0->r1, r0->r2 and r3->r1, 10 MB each, from 0. Evenly, 40
# Mbit/s each, all end at 2 s. With 800 Mbit/s uplinks r0->r1 alone has
# two full links (r0's and r1's host links): at 0.5 it gets a third of
# each (the others end at 1.5 s, it at 2 s, alone by then); at 0.25 a
# fifth (1.25 s). With 80 Mbit/s uplinks r0->r1 has four (0.5^3 = 0.125)
# and the others two (0.5): it gets a fifth again, the others end at 1.25 s.
printf 'name e4\nracks 4\nhosts 1\ncontainers 2\nhost_rate 80Mbit\nuplink_rate 800Mbit\nocs no\n' >"$tmpdir/e4.topo"
sed 's/800Mbit/80Mbit/' "$tmpdir/e4.topo" >"$tmpdir/e4u.topo"
printf '150 2\n1 0 1 0 2 1:10.0 2:10.0\n2 0 1 3 1 1:10.0\n' >"$tmpdir/ef.txt"
ef_ends() { # DIR: "src>dst:end" of each flow, sorted
	awk -F, 'NR > 1 { print $14 ">" $15 ":" $7 }' "$1/flows.csv" | sort | tr '\n' ' '
}
for et in e4:0 e4:0.5 e4:0.25 e4u:0.5; do
	expect_status 0 "$HYDE" sim -t "$tmpdir/${et%:*}.topo" --coflow-only -C none -w "coflow:$tmpdir/ef.txt,min_flow=1MB" \
		-B extra_full=${et#*:} -o "$tmpdir/ef$et" -q
done
[ "$(ef_ends "$tmpdir/efe4:0")" = "r0h0>r1h0:2000000000 r0h0>r2h0:2000000000 r3h0>r1h0:2000000000 " ] ||
	fail "extra_full=0: flows ended at $(ef_ends "$tmpdir/efe4:0"), expected all at 2 s"
set -- $(ef_ends "$tmpdir/efe4:0.5" | tr ':>' '  ')
near "$3" 2000000000 && near "$6" 1500000000 && near "$9" 1500000000 ||
	fail "extra_full=0.5, two full links: flows ended at $(ef_ends "$tmpdir/efe4:0.5"), expected r0>r1 at 2 s, the others at 1.5 s"
set -- $(ef_ends "$tmpdir/efe4:0.25" | tr ':>' '  ')
near "$3" 2000000000 && near "$6" 1250000000 && near "$9" 1250000000 ||
	fail "extra_full=0.25, two full links: flows ended at $(ef_ends "$tmpdir/efe4:0.25"), expected r0>r1 at 2 s, the others at 1.25 s"
set -- $(ef_ends "$tmpdir/efe4u:0.5" | tr ':>' '  ')
near "$3" 2000000000 && near "$6" 1250000000 && near "$9" 1250000000 ||
	fail "extra_full=0.5, four full links against two: flows ended at $(ef_ends "$tmpdir/efe4u:0.5"), expected r0>r1 at 2 s, the others at 1.25 s"
# a class that joins two links already full counts them: r0->r2 and
# r3->r1 alone from 0 (80 Mbit/s each), r0->r1 from 500 ms gets a third of
# each at 0.5, so the others end at 1.25 s (at 1.5 s if it were counted
# as even), it at 2 s
printf '150 3\n1 0 1 0 1 2:10.0\n2 0 1 3 1 1:10.0\n3 500 1 0 1 1:10.0\n' >"$tmpdir/efj.txt"
HYDE_SIM_VERIFY=1 expect_status 0 "$HYDE" sim -t "$tmpdir/e4.topo" --coflow-only -C none -w "coflow:$tmpdir/efj.txt,min_flow=1MB" \
	-B extra_full=0.5 -o "$tmpdir/efj" -q
set -- $(ef_ends "$tmpdir/efj" | tr ':>' '  ')
near "$3" 2000000000 && near "$6" 1250000000 && near "$9" 1250000000 ||
	fail "extra_full=0.5, a class joining two full links: flows ended at $(ef_ends "$tmpdir/efj"), expected r0>r1 at 2 s, the others at 1.25 s"
# the classes weighed down are those with two full links at the rates
# water-filling from scratch gives without the option (HYDE_SIM_VERIFY
# checks every computation; looking at the weighed rates instead flaps on
# both of these runs)
HYDE_SIM_VERIFY=1 expect_status 0 "$HYDE" sim -t "$HYDE_SRCDIR/topologies/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" \
	-B extra_full=0.5 -B share_jitter=2 -B join_drains=20 -B jitter_seed=3 -o "$tmpdir/efv" -q
HYDE_SIM_VERIFY=1 expect_status 0 "$HYDE" sim -t "$HYDE_SRCDIR/topologies/rack8.topo" -w "$HYDE_SRCDIR/workloads/fb-small.wl" \
	-B extra_full=0.13 -B burst=yes -o "$tmpdir/efv8" -q
refused extra_full=0.5 srpt

# flow_jitter: the flows of one host pair (one class) share its rate by
# weights drawn per flow from [1, 4). Two 1 MB flows from r0h0 to r2h0
# alone on 80 Mbit/s links: evenly both end at 200 ms; drawn, the last
# still at 200 ms (the class has the link) and the first in [125, 200) ms.
printf '150 1\n1 0 2 0 0 1 2:2.0\n' >"$tmpdir/pair.txt"
printf '150 1\n1 0 3 0 0 1 1 2:3.0\n' >"$tmpdir/pair3.txt"
two_ends flow_jitter 3 "$tmpdir/pair.txt" 125000000
# a class weighs its flows' weights: with a third 1 MB flow from r1h0 into
# r2h0, that flow's share of r2h0's link is under 4/5 all along (the
# pair's flows weigh at least 1 each), so it ends after 125 ms, the last
# at 300 ms; a class weighed as one flow would leave it nearly the whole
# link (about 100 ms)
expect_status 0 "$HYDE" sim -t "$tmpdir/e3.topo" --coflow-only -C none -w "coflow:$tmpdir/pair3.txt,min_flow=1MB" \
	-B flow_jitter=3 -B jitter_seed=2 -o "$tmpdir/fj3" -q
set -- $(ef_ends "$tmpdir/fj3" | tr ':>' '  ')
[ $# = 9 ] && [ "$7" = r1h0 ] && [ "$9" -gt 125000000 ] && near "$(printf '%s\n' "$3" "$6" "$9" | sort -n | tail -1)" 300000000 ||
	fail "flow_jitter=3, a pair beside a single flow: flows ended at $(ef_ends "$tmpdir/fj3"), expected r1h0's after 125 ms, the last at 300 ms"
# weights of one flow each (a span of 1/1024: every draw 1) are even, and
# what the links carried (which the token buckets of -B burst are drawn
# down by) is the same as without
for fj in 0 0.0009765625; do
	expect_status 0 "$HYDE" sim -t "$tmpdir/e3.topo" --coflow-only -C none -w "coflow:$tmpdir/pair3.txt,min_flow=1MB" \
		-B burst=yes -B flow_jitter=$fj -o "$tmpdir/fjb$fj" -q
done
set -- $(ends "$tmpdir/fjb0") $(ends "$tmpdir/fjb0.0009765625")
[ $# = 6 ] && near "$1" "$4" && near "$2" "$5" && near "$3" "$6" ||
	fail "flow_jitter of one flow each, with burst: flows ended at $(ends "$tmpdir/fjb0.0009765625"), expected those without it, $(ends "$tmpdir/fjb0")"
# and the bytes the links carried, which the schedulers' network view reads
# (NAS's congested intervals count the racks' links at 80% or more)
for fj in 0 0.0009765625; do
	expect_status 0 "$HYDE" sim -t "$HYDE_SRCDIR/topologies/rack8.topo" -w "$HYDE_SRCDIR/workloads/fb-small.wl" \
		-B flow_jitter=$fj -o "$tmpdir/fjn$fj" -q
done
cong() { sed -n 's/.*"rack_congestion_events": \([0-9]*\).*/\1/p' "$1/summary.json"; }
[ "$(cong "$tmpdir/fjn0")" -gt 0 ] && [ "$(cong "$tmpdir/fjn0")" = "$(cong "$tmpdir/fjn0.0009765625")" ] ||
	fail "flow_jitter of one flow each: $(cong "$tmpdir/fjn0.0009765625") congested rack intervals, expected those without it, $(cong "$tmpdir/fjn0") (and some)"
HYDE_SIM_VERIFY=1 expect_status 0 "$HYDE" sim -t "$HYDE_SRCDIR/topologies/rack8.topo" -w "$HYDE_SRCDIR/workloads/fb-small.wl" \
	-B flow_jitter=3 -B share_jitter=2 -B join_drains=57 -B extra_full=0.13 -B burst=yes -o "$tmpdir/fjv8" -q
refused flow_jitter=3 las

# ---- replay: bad input ----
expect_status 2 "$HYDE" sim --replay "$A" -s fair -o "$tmpdir/r1"
contains "$err" "--scheduler does not apply"
expect_status 2 "$HYDE" sim --replay "$A" -t "$T" -o "$tmpdir/r1"
contains "$err" "--topology does not apply"
expect_status 2 "$HYDE" sim --replay "$tmpdir/none" -o "$tmpdir/r1"
contains "$err" "not a run directory"
expect_status 2 "$HYDE" run --replay "$A" -o "$tmpdir/r1"
contains "$err" "--replay is hyde sim's"
cp -r "$A" "$tmpdir/badname"
sed -i '3s|,[^,]*$|,j0/shuffle/x/m0@r0h0|' "$tmpdir/badname/flows.csv"
expect_status 2 "$HYDE" sim --replay "$tmpdir/badname" -o "$tmpdir/r1"
contains "$err" "badname/flows.csv:3: name: expected a flow name"
cp -r "$A" "$tmpdir/badpath"
sed -i '2s|,eps,|,rack,|; 2s|,ocs,|,rack,|' "$tmpdir/badpath/flows.csv"
expect_status 2 "$HYDE" sim --replay "$tmpdir/badpath" -o "$tmpdir/r1"
contains "$err" "badpath/flows.csv:2: path: expected eps or ocs between two racks"
[ -e "$tmpdir/r1" ] && fail "a refused replay left $tmpdir/r1"

# ---- hyde fidelity on hand-made runs with known answers ----
FH="flow,coflow,job,path,bytes,start_ns,end_ns,fct_ns,ocs_bytes,eps_bytes,retrans_bytes,app_fct_ns,kind,src,dst,name"
CH="coflow,job,flows,bytes,start_ns,end_ns,cct_ns,lower_bound_ns,ocs_bytes,eps_bytes,app_cct_ns"
JH="job,user,arrival_ns,start_ns,end_ns,jct_ns,maps,reduces,shuffle_bytes,cross_rack_bytes,class,parents_ns,queue_ns,map_ns,wait_ns,shuffle_ns,reduce_ns"
E="$tmpdir/e"
S="$tmpdir/s"
mkdir -p "$E" "$S"
# FCTs, emulated / simulated: 100/100, 200/100, 300/600, 400/400 ms:
# ratios 1, 2, 0.5, 1 (median 1, p90 2), errors 0, 50%, 100%, 0 (median
# 0, p90 and worst 100%); one flow only in each; one never ended in sim;
# and a same-host fetch, 5 ms / 1 ms (ratio 5, error 80%), in "all" but
# not among the flows between hosts
cat >"$E/flows.csv" <<EOF
$FH
1,0,a,eps,2000000,0,100000000,100000000,0,2000000,0,-1,shuffle,r1h0,r0h0,a/shuffle/r0/m0@r1h0
2,0,a,ocs,2000000,0,200000000,200000000,2000000,0,0,-1,shuffle,r1h1,r0h0,a/shuffle/r0/m1@r1h1
3,0,a,rack,50000,0,300000000,300000000,0,0,0,-1,input,r0h1,r0h0,a/input/m2/0@r0h1
4,1,b,eps,20000000,0,400000000,400000000,0,20000000,0,-1,shuffle,r0h0,r1h0,b/shuffle/r0/m0@r0h0
5,1,b,eps,1000,0,1000000,1000000,0,1000,0,-1,shuffle,r0h0,r1h1,b/shuffle/r0/m1@r0h0
6,1,b,eps,1000,0,1000000,1000000,0,1000,0,-1,shuffle,r0h1,r1h1,b/shuffle/r0/m2@r0h1
7,1,b,host,5000,0,5000000,5000000,0,0,0,-1,shuffle,r0h0,r0h0,b/shuffle/r0/m3@r0h0
EOF
cat >"$S/flows.csv" <<EOF
$FH
11,0,a,eps,2000000,0,100000000,100000000,0,2000000,0,-1,shuffle,r1h0,r0h0,a/shuffle/r0/m0@r1h0
10,0,a,ocs,2000000,0,100000000,100000000,2000000,0,0,-1,shuffle,r1h1,r0h0,a/shuffle/r0/m1@r1h1
13,0,a,rack,50000,0,600000000,600000000,0,0,0,-1,input,r0h1,r0h0,a/input/m2/0@r0h1
12,1,b,eps,20000000,0,400000000,400000000,0,20000000,0,-1,shuffle,r0h0,r1h0,b/shuffle/r0/m0@r0h0
14,1,b,eps,1000,0,-1,-1,0,1000,0,-1,shuffle,r0h1,r1h1,b/shuffle/r0/m2@r0h1
15,1,b,eps,1000,0,1000000,1000000,0,1000,0,-1,shuffle,r0h1,r1h1,b/shuffle/r0/m9@r0h1
16,1,b,host,5000,0,1000000,1000000,0,0,0,-1,shuffle,r0h0,r0h0,b/shuffle/r0/m3@r0h0
EOF
# CCTs 1 s / 0.8 s and 2 s / 4 s: ratios 1.25, 0.5
printf '%s\n0,a,2,4000000,0,1000000000,1000000000,-1,0,0,-1\n1,b,3,20002000,0,2000000000,2000000000,-1,0,0,-1\n' "$CH" >"$E/coflows.csv"
printf '%s\n0,a,2,4000000,0,800000000,800000000,-1,0,0,-1\n1,b,3,20002000,0,4000000000,4000000000,-1,0,0,-1\n' "$CH" >"$S/coflows.csv"
# JCTs 10 s / 5 s (heavy), 3 s / 3 s (light)
printf '%s\na,u,0,0,1,10000000000,1,1,1,1,heavy,0,0,0,0,0,0\nb,u,0,0,1,3000000000,1,1,1,1,light,0,0,0,0,0,0\n' "$JH" >"$E/jobs.csv"
printf '%s\na,u,0,0,1,5000000000,1,1,1,1,heavy,0,0,0,0,0,0\nb,u,0,0,1,3000000000,1,1,1,1,light,0,0,0,0,0,0\n' "$JH" >"$S/jobs.csv"
# task starts (the decisions): a's three tasks on the same hosts (S
# starts its reduce again elsewhere, later: the first start counts), b's
# reduce on another host, its maps 0 and 3 on the same, and its map 1 in E
# only: 6 in both, 5 alike, 1 in one run only; a placed alike, b otherwise.
# Task ends: maps that ran on the same host in both and read nothing over
# the network, E's time less S's: a map 0 +10 ms, b map 0 +30 ms, b map 3
# -20 ms (S's task_done before its start is not its end); not a map 2
# (its input crossed the rack) nor b map 1 (in E only) nor a reduce
cat >"$E/events.log" <<EOF
0 run_start emul fair sunflow
1 task_start a map 0 r1h0
2 task_start a reduce 0 r0h0
3 task_start b map 0 r0h0
4 task_start b map 1 r0h1
5 task_start b reduce 0 r1h0
6 task_start b map 3 r0h1
7 task_start a map 2 r0h0
9 task_done b map 1
1030000003 task_done b map 0
2010000001 task_done a map 0
2980000006 task_done b map 3
5000000007 task_done a map 2
EOF
cat >"$S/events.log" <<EOF
0 run_start sim fair sunflow
0 backend_options task_overhead=3ms
1 task_start a map 0 r1h0
2 task_start a reduce 0 r0h0
3 task_start b map 0 r0h0
5 task_start b reduce 0 r1h1
6 task_start a reduce 0 r1h1
5 task_done b map 3
6 task_start b map 3 r0h1
7 task_start a map 2 r0h0
1000000003 task_done b map 0
1000000007 task_done a map 2
2000000001 task_done a map 0
3000000006 task_done b map 3
EOF
# the circuit r1 -> r0 of the OCS fetch a/m1 (E 0-200 ms, S 0-100 ms):
# E up 0-150, 180-190, 195-200, and from 200 (at its end: not met), three
# windows met; S up 0-50 and 60-150, two; so one flow in "ocs windows +"
printf '%s\n' '0 circuit_up 1 0' '150000000 circuit_down 1 0' '180000000 circuit_up 1 0' \
	'190000000 circuit_down 1 0' '195000000 circuit_up 1 0' '200000000 circuit_down 1 0' \
	'200000000 circuit_up 1 0' '0 circuit_up 2 0' >>"$E/events.log"
printf '%s\n' '0 circuit_up 1 0' '50000000 circuit_down 1 0' '60000000 circuit_up 1 0' \
	'150000000 circuit_down 1 0' '0 circuit_up 1 1' >>"$S/events.log"
expect_status 0 "$HYDE" fidelity "$E" "$S" -o "$tmpdir"
line() { echo "$out" | grep -E "^  $1 " | tr -s ' '; }
contains "$out" "Decisions: 6 task starts in both runs, 5 on the same host (83.3%), 1 in one run only; 1 of 2 jobs placed alike (every task on the same host)"
contains "$out" "Tasks: 3 maps ran on the same host in both runs and read nothing over the network; each took a median 10ms longer in EMUL_RUN than in SIM_RUN (p10 -20ms, p90 30ms, most 30ms; 1 shorter); the model's -B task_overhead: 3ms, task_jitter: none"
# CCT: a (1.25) alike, b (0.5) otherwise; JCT: a (2.0) alike, b (1.0) otherwise
[ "$(line 'placed otherwise' | sed -n 1p)" = " placed otherwise 1 0.500 0.500 100.0% 100.0% 100.0%" ] ||
	fail "CCT placed otherwise: $(line 'placed otherwise' | sed -n 1p)"
[ "$(line 'placed alike' | sed -n 1p)" = " placed alike 1 1.250 1.250 20.0% 20.0% 20.0%" ] ||
	fail "CCT placed alike: $(line 'placed alike' | sed -n 1p)"
[ "$(line 'placed otherwise' | sed -n 2p)" = " placed otherwise 1 1.000 1.000 0.0% 0.0% 0.0%" ] ||
	fail "JCT placed otherwise: $(line 'placed otherwise' | sed -n 2p)"
[ "$(line 'placed alike' | sed -n 2p)" = " placed alike 1 2.000 2.000 50.0% 50.0% 50.0%" ] ||
	fail "JCT placed alike: $(line 'placed alike' | sed -n 2p)"
contains "$out" "FCT: 6 flows joined; 1 only in EMUL_RUN, 1 only in SIM_RUN; not ended: 0 in EMUL_RUN, 1 in SIM_RUN; no time (0): 0, 0"
[ "$(echo "$out" | grep -E '^  all ' | head -1 | tr -s ' ')" = " all 5 1.000 5.000 50.0% 100.0% 100.0%" ] ||
	fail "FCT all: $(echo "$out" | grep -E '^  all ' | head -1)"
[ "$(line 'between hosts')" = " between hosts 4 1.000 2.000 0.0% 100.0% 100.0%" ] ||
	fail "between hosts: $(line 'between hosts')"
[ "$(line 'hosts, >=100KB')" = " hosts, >=100KB 3 1.000 2.000 0.0% 50.0% 50.0%" ] ||
	fail "hosts, >=100KB: $(line 'hosts, >=100KB')"
[ "$(line 'path host')" = " path host 1 5.000 5.000 80.0% 80.0% 80.0%" ] || fail "path host: $(line 'path host')"
[ "$(line 'path eps')" = " path eps 2 1.000 1.000 0.0% 0.0% 0.0%" ] || fail "path eps: $(line 'path eps')"
[ "$(line 'path ocs')" = " path ocs 1 2.000 2.000 50.0% 50.0% 50.0%" ] || fail "path ocs: $(line 'path ocs')"
[ "$(line 'path rack')" = " path rack 1 0.500 0.500 100.0% 100.0% 100.0%" ] || fail "path rack: $(line 'path rack')"
[ "$(line 'size 1MB-10MB')" = " size 1MB-10MB 2 1.000 2.000 0.0% 50.0% 50.0%" ] || fail "size 1MB-10MB: $(line 'size 1MB-10MB')"
[ "$(line 'size >=10MB')" = " size >=10MB 1 1.000 1.000 0.0% 0.0% 0.0%" ] || fail "size >=10MB: $(line 'size >=10MB')"
[ "$(line 'kind input')" = " kind input 1 0.500 0.500 100.0% 100.0% 100.0%" ] || fail "kind input: $(line 'kind input')"
[ "$(line 'ocs windows \+')" = " ocs windows + 1 2.000 2.000 50.0% 50.0% 50.0%" ] ||
	fail "ocs windows +: $(line 'ocs windows \+')"
[ -z "$(line 'ocs windows =')$(line 'ocs windows -')" ] || fail "ocs windows, other rows: $out"
contains "$out" "(ocs windows +, =, -: the flows over a circuit that met more, as many or fewer of its windows in EMUL_RUN than in SIM_RUN)"
contains "$out" "CCT: 2 coflows joined"
[ "$(echo "$out" | grep -E '^  all ' | sed -n 2p | tr -s ' ')" = " all 2 0.500 1.250 20.0% 100.0% 100.0%" ] ||
	fail "CCT all: $(echo "$out" | grep -E '^  all ' | sed -n 2p)"
# by the coflow's bytes: a (4 MB, 1.25), b (20 MB, 0.5), no row for none
[ "$(line 'bytes 1MB-10MB')" = " bytes 1MB-10MB 1 1.250 1.250 20.0% 20.0% 20.0%" ] ||
	fail "CCT bytes 1MB-10MB: $(line 'bytes 1MB-10MB')"
[ "$(line 'bytes 10MB-100MB')" = " bytes 10MB-100MB 1 0.500 0.500 100.0% 100.0% 100.0%" ] ||
	fail "CCT bytes 10MB-100MB: $(line 'bytes 10MB-100MB')"
[ -z "$(line 'bytes <1MB')$(line 'bytes >=100MB')" ] || fail "CCT rows for classes without a coflow: $out"
[ "$(line 'class heavy')" = " class heavy 1 2.000 2.000 50.0% 50.0% 50.0%" ] || fail "class heavy: $(line 'class heavy')"
grep -qx 'flow,a/shuffle/r0/m1@r1h1,shuffle,ocs,2000000,200000000,100000000,2.000000' "$tmpdir/fidelity.csv" ||
	fail "fidelity.csv: $(cat "$tmpdir/fidelity.csv")"
grep -qx 'flow,b/shuffle/r0/m2@r0h1,shuffle,eps,1000,1000000,-1,-1' "$tmpdir/fidelity.csv" ||
	fail "fidelity.csv: the flow not timed in SIM_RUN: $(cat "$tmpdir/fidelity.csv")"
grep -qx 'job,a,heavy,-,1,10000000000,5000000000,2.000000' "$tmpdir/fidelity.csv" ||
	fail "fidelity.csv: job a: $(grep '^job' "$tmpdir/fidelity.csv")"
[ "$(wc -l <"$tmpdir/fidelity.csv")" = 11 ] || fail "fidelity.csv: $(wc -l <"$tmpdir/fidelity.csv") lines, expected 1 + 6 + 2 + 2"

# ---- hyde fidelity against several SIM_RUNs (draws of the model): each
# simulated time its median over them, nearest rank, a run in which it did
# not end counting as longer than any; a name not in every one left out ----
S2="$tmpdir/s2"
S3="$tmpdir/s3"
cp -r "$S" "$S2"
cp -r "$S" "$S3"
# a/m0: 100, 300, 200 ms: median 200 (ratio 0.5); a/m1 (OCS): 100 ms,
# not ended twice: not ended; b/m2: not ended, 1 ms, 3 ms: 3 ms (ratio
# 1/3); b/m9 not in S2 and b/m8 in S3 only: left out; the rest as in S
sed -i -e 's|^11,\(.*\),0,100000000,100000000,|11,\1,0,300000000,300000000,|' \
	-e 's|^10,\(.*\),0,100000000,100000000,|10,\1,0,-1,-1,|' \
	-e 's|^14,\(.*\),0,-1,-1,|14,\1,0,1000000,1000000,|' -e '/^15,/d' "$S2/flows.csv"
sed -i -e 's|^11,\(.*\),0,100000000,100000000,|11,\1,0,200000000,200000000,|' \
	-e 's|^10,\(.*\),0,100000000,100000000,|10,\1,0,-1,-1,|' \
	-e 's|^14,\(.*\),0,-1,-1,|14,\1,0,3000000,3000000,|' "$S3/flows.csv"
echo "17,1,b,eps,1000,0,1000000,1000000,0,1000,0,-1,shuffle,r0h1,r1h1,b/shuffle/r0/m8@r0h1" >>"$S3/flows.csv"
# coflow a: 0.8, 1.0, 2.0 s: 1.0 s (ratio 1)
sed -i 's|^0,a,2,4000000,0,800000000,800000000,|0,a,2,4000000,0,1000000000,1000000000,|' "$S2/coflows.csv"
sed -i 's|^0,a,2,4000000,0,800000000,800000000,|0,a,2,4000000,0,2000000000,2000000000,|' "$S3/coflows.csv"
M="$tmpdir/m"
mkdir "$M"
expect_status 0 "$HYDE" fidelity "$E" "$S2" "$S" "$S3" -o "$M"
contains "$out" "against the median of 3 simulated runs: $S2 $S $S3"
contains "$out" "left out, not in every one of them: 2 flows, 0 coflows, 0 jobs"
contains "$out" "FCT: 6 flows joined; 1 only in EMUL_RUN, 0 only in SIM_RUN; not ended: 0 in EMUL_RUN, 1 in SIM_RUN"
for l in 'flow,a/shuffle/r0/m0@r1h0,shuffle,eps,2000000,100000000,200000000,0.500000' \
	'flow,a/shuffle/r0/m1@r1h1,shuffle,ocs,2000000,200000000,-1,-1' \
	'flow,b/shuffle/r0/m2@r0h1,shuffle,eps,1000,1000000,3000000,0.333333' \
	'flow,b/shuffle/r0/m0@r0h0,shuffle,eps,20000000,400000000,400000000,1.000000' \
	'coflow,a,-,-,4000000,1000000000,1000000000,1.000000' \
	'job,a,heavy,-,1,10000000000,5000000000,2.000000'; do
	grep -qx "$l" "$M/fidelity.csv" || fail "median of 3: no line $l in $(cat "$M/fidelity.csv")"
done
grep -q 'm[89]@' "$M/fidelity.csv" && fail "median of 3: a flow not in every SIM_RUN joined: $(cat "$M/fidelity.csv")"
# the model's own spread: each SIM_RUN against the median of the others,
# flows between hosts. S2 against S, S3: a/m0 300 / 100 ms, b/m2 1 / 3 ms,
# the input and b/m0 1 (a/m1 not ended in S2): ratios 1/3, 1, 1, 3, p90 3;
# S against S2, S3: a/m0 100 / 200 and 1, 1, p90 1 (a/m1 and b/m2 not
# ended in S); S3 against S2, S: a/m0 200 / 100, b/m2 3 / 1, 1, 1, p90 3.
# E's: 0.5, 0.5, 1 and 1/3, p90 1: within 1-3
contains "$out" "Model's own spread: each of the 3 SIM_RUNs against the median of the other 2, flows between hosts: ratio median 1.000-1.000, p90 1.000-3.000 (median 3.000); EMUL_RUN's p90 1.000 is within the draws'"
# draws that agree (S three times: every ratio 1) and E's p90 2 above them
expect_status 0 "$HYDE" fidelity "$E" "$S" "$S" "$S" -o "$M" -q
[ -z "$out" ] || fail "-q: printed $out"
expect_status 0 "$HYDE" fidelity "$E" "$S" "$S" "$S" -o "$M"
contains "$out" "p90 1.000-1.000 (median 1.000); EMUL_RUN's p90 2.000 is above every draw's"
# at the most of them is within: S, S and S with a/m0 200 ms (its p90 2
# against S, S; the others' 1); E's median run S: p90 2
S6="$tmpdir/s6"
cp -r "$S" "$S6"
sed -i 's|^11,\(.*\),0,100000000,100000000,|11,\1,0,200000000,200000000,|' "$S6/flows.csv"
expect_status 0 "$HYDE" fidelity "$E" "$S" "$S" "$S6" -o "$M"
contains "$out" "p90 1.000-2.000 (median 1.000); EMUL_RUN's p90 2.000 is within the draws'"
# of two, the lower (nearest rank): a/m0 100 ms of 100 and 300
expect_status 0 "$HYDE" fidelity "$E" "$S" "$S2" -o "$M"
grep -qx 'flow,a/shuffle/r0/m0@r1h0,shuffle,eps,2000000,100000000,100000000,1.000000' "$M/fidelity.csv" ||
	fail "median of 2: $(grep m0@r1h0 "$M/fidelity.csv")"
# (and no spread of two draws: each would be held against the other alone)
case $out in *"Model's own spread"*) fail "a spread of 2 SIM_RUNs: $out" ;; esac
# circuit windows against several SIM_RUNs: those of the run whose time
# is the median. Eb: up 0-150 and from 200, its flow's end: one window
# met, against S's two ("ocs windows -"); a/m1 in S4 300 ms, three windows
# (up 0-50, 60-150, from 250), in S5 200 ms, one (up from 0): the median
# 200 ms, S5's, one window, as many as Eb's (the median of the windows
# alone would be two)
Eb="$tmpdir/eb"
S4="$tmpdir/s4"
S5="$tmpdir/s5"
cp -r "$E" "$Eb"
cp -r "$S" "$S4"
cp -r "$S" "$S5"
sed -i '/circuit_/d' "$Eb/events.log" "$S4/events.log" "$S5/events.log"
printf '%s\n' '0 circuit_up 1 0' '150000000 circuit_down 1 0' '200000000 circuit_up 1 0' >>"$Eb/events.log"
printf '%s\n' '0 circuit_up 1 0' '50000000 circuit_down 1 0' '60000000 circuit_up 1 0' \
	'150000000 circuit_down 1 0' '250000000 circuit_up 1 0' >>"$S4/events.log"
echo '0 circuit_up 1 0' >>"$S5/events.log"
sed -i 's|^10,\(.*\),0,100000000,100000000,|10,\1,0,300000000,300000000,|' "$S4/flows.csv"
sed -i 's|^10,\(.*\),0,100000000,100000000,|10,\1,0,200000000,200000000,|' "$S5/flows.csv"
expect_status 0 "$HYDE" fidelity "$Eb" "$S" -o "$M"
[ "$(line 'ocs windows -')" = " ocs windows - 1 2.000 2.000 50.0% 50.0% 50.0%" ] ||
	fail "ocs windows -: $(line 'ocs windows -'), $(line 'ocs windows =')"
expect_status 0 "$HYDE" fidelity "$Eb" "$S" "$S4" "$S5" -o "$M"
[ "$(line 'ocs windows =')" = " ocs windows = 1 1.000 1.000 0.0% 0.0% 0.0%" ] ||
	fail "ocs windows of 3: $(line 'ocs windows =')$(line 'ocs windows -')$(line 'ocs windows \+')"
# replays of one run with drawn shares: their median is one of theirs
for j in 1 2 3; do
	expect_status 0 "$HYDE" sim -q --replay "$A" -B share_jitter=2 -B jitter_seed=$j -o "$tmpdir/d$j"
done
expect_status 0 "$HYDE" fidelity "$A" "$tmpdir/d1" "$tmpdir/d2" "$tmpdir/d3" -o "$M" -q
bad=$(awk -F, 'FNR == 1 { f++; next }
	f <= 3 { t[$16] = t[$16] " " $8; next }
	$1 == "flow" { n = split(t[$2], v, " "); if (n != 3) { print "not in 3: " $2; next }
		for (i = 1; i <= 3; i++) { if (v[i] < 0) v[i] = 1e30 }
		# the middle of three: one that is neither below both nor above both
		m = (v[1] - v[2]) * (v[1] - v[3]) <= 0 ? v[1] : (v[2] - v[1]) * (v[2] - v[3]) <= 0 ? v[2] : v[3]
		if (m >= 1e30) m = -1
		if ($7 != m) print $2 ": " $7 " not the median of" t[$2]; c++ }
	END { if (c < 100) print "only " c " flows" }' "$tmpdir/d1/flows.csv" "$tmpdir/d2/flows.csv" \
	"$tmpdir/d3/flows.csv" "$M/fidelity.csv")
[ -z "$bad" ] || fail "fidelity of 3 replays: $(echo "$bad" | head -5)"
# and they differ: the draws are draws
cmp -s "$tmpdir/d1/flows.csv" "$tmpdir/d2/flows.csv" && fail "replays with other jitter_seeds: the same flows.csv"
# runs of other kinds: one with jobs.csv, one without
cp -r "$S" "$tmpdir/nojobs"
rm "$tmpdir/nojobs/jobs.csv"
O2="$tmpdir/out2"
mkdir "$O2"
expect_status 2 "$HYDE" fidelity "$E" "$S" "$tmpdir/nojobs" -o "$O2"
contains "$err" "$S has jobs.csv and $tmpdir/nojobs has none"
[ -z "$(ls "$O2")" ] || fail "a refused fidelity of 3 wrote: $(ls "$O2")"

# ---- run_options: a run directory says how it was made, and hyde
# fidelity names what two runs were made with otherwise ----
grep -qx "0 run_options topology=$T workload=$W seed=3 copies=5 heartbeat=1s net=fair coflow=none io=hdfs ocs_fetch=circuit fetch_order=fifo coflow_only=no horizon=0" "$A/events.log" ||
	fail "run_options of a run with the defaults: $(grep run_options "$A/events.log")"
# the same workload from another directory (its name has a space: %20)
mkdir "$tmpdir/w d"
cp "$W" "$tmpdir/w d/"
R="$tmpdir/ro"
expect_status 0 "$HYDE" sim -q -t "$T" -w "$tmpdir/w d/fb-small.wl" -s coscheduler --seed 3 --copies 3 \
	--heartbeat 500ms --no-io --fetch-order random --net srpt --horizon 1h -o "$R"
grep -qx "0 run_options topology=$T workload=$tmpdir/w%20d/fb-small.wl seed=3 copies=3 heartbeat=500ms net=srpt coflow=none io=none ocs_fetch=circuit fetch_order=random coflow_only=no horizon=3600s" "$R/events.log" ||
	fail "run_options: $(grep run_options "$R/events.log")"
expect_status 0 "$HYDE" fidelity "$A" "$R" -o "$R"
contains "$out" "Options: the two runs were made otherwise: copies=5 against 3; heartbeat=1s against 500ms; net=fair against srpt; io=hdfs against none; fetch_order=fifo against random; horizon=0 against 3600s (run_options in events.log)"
# the simulator's own rate model is the net the run had
expect_status 0 "$HYDE" sim -q -t "$T" -w "$W" -s coscheduler --seed 3 --rates fcfs --horizon 10s -o "$tmpdir/rf"
grep -q " run_options .* net=fcfs " "$tmpdir/rf/events.log" ||
	fail "--rates fcfs: $(grep run_options "$tmpdir/rf/events.log")"
# a replay has none (its decisions are its run's): no line
expect_status 0 "$HYDE" fidelity "$A" "$B" -o "$R"
echo "$out" | grep -q "^Options:" && fail "an options line against a replay: $out"

# ---- hyde fidelity: bad input, one message, exit 2, nothing written ----
O="$tmpdir/out"
mkdir "$O"
expect_status 2 "$HYDE" fidelity "$E" -o "$O"
contains "$err" "expected two run directories"
expect_status 2 "$HYDE" fidelity "$E" "$tmpdir/none" -o "$O"
contains "$err" "$tmpdir/none: not a run directory"
expect_status 2 "$HYDE" fidelity "$E" "$S" -o "$tmpdir/none"
contains "$err" "-o $tmpdir/none: not a directory"
cp -r "$S" "$tmpdir/old"
sed -i '1s|,name$||; 2,$s|,[^,]*$||' "$tmpdir/old/flows.csv"
expect_status 2 "$HYDE" fidelity "$E" "$tmpdir/old" -o "$O"
contains "$err" "old/flows.csv: its flows have no names"
cp -r "$S" "$tmpdir/dup"
sed -n 2p "$S/flows.csv" >>"$tmpdir/dup/flows.csv"
expect_status 2 "$HYDE" fidelity "$E" "$tmpdir/dup" -o "$O"
contains "$err" "dup/flows.csv:9: flow 'a/shuffle/r0/m0@r1h0' already on line 2"
cp -r "$S" "$tmpdir/badt"
sed -i '3s|,100000000,100000000,|,100000000,soon,|' "$tmpdir/badt/flows.csv"
expect_status 2 "$HYDE" fidelity "$E" "$tmpdir/badt" -o "$O"
contains "$err" "badt/flows.csv:3: fct_ns"
expect_status 2 "$HYDE" fidelity "$E" "$A" -o "$O"
contains "$err" "no flow in common"
[ -z "$(ls "$O")" ] || fail "a refused fidelity wrote: $(ls "$O")"

finish
