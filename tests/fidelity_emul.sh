#!/bin/sh
# Fidelity on a real fabric (root): the same decisions make the same flows
# with the same names on both backends (an emulated run and a simulated
# one of the same inputs and seed: each job placed alike on both),
# input reads, shuffle fetches and output hops alike; hyde sim --replay of the emulated run replays exactly
# its flows, each starting when the emulated one entered the network (its
# first SYN, from the run's start); hyde fidelity joins every flow; hyde
# compare --backend both runs both and reports their fidelity.
. "${HYDE_SRCDIR}/tests/lib.sh"
require_root
command -v tcpdump >/dev/null || { echo "SKIP: no tcpdump" >&2; exit 77; }

P=$(test_prefix tfid)
D="$HYDE_SRCDIR/tests/data"
E="$tmpdir/emul"
S="$tmpdir/sim"
R="$tmpdir/replay"
cleanup() {
	"$HYDE" clean --prefix $P >/dev/null 2>&1
	rm -rf "$tmpdir"
}
trap cleanup EXIT

expect_status 0 "$HYDE" run -t "$D/run2x2io.topo" -w "$D/io.wl" --seed 5 -o "$E" --prefix $P -q
expect_status 0 "$HYDE" sim -t "$D/run2x2io.topo" -w "$D/io.wl" --seed 5 -o "$S" -q
# both say how they were made (run_options), alike, and hyde fidelity
# names nothing made otherwise
ro() { sed -n 's/^[0-9]* run_options //p' "$1/events.log"; }
[ -n "$(ro "$E")" ] && [ "$(ro "$E")" = "$(ro "$S")" ] ||
	fail "run_options: emulation '$(ro "$E")', simulation '$(ro "$S")'"
expect_status 0 "$HYDE" fidelity "$E" "$S" -o "$S"
echo "$out" | grep -q '^Options:' && fail "runs made alike, an options line: $(echo "$out" | grep '^Options:')"

# The decisions: where each job's tasks ran. The workload pins every
# task's rack, but a host in the rack, and the DAG child's reduce, can go
# another way when the timing differs (two busy cores): a job placed alike
# on both backends must have exactly the same flows (names, kinds, hosts,
# paths, bytes); at least one job must be placed alike.
awk '$2 == "task_start" { print $3, $4, $5, $6 }' "$E/events.log" | sort >"$tmpdir/te"
awk '$2 == "task_start" { print $3, $4, $5, $6 }' "$S/events.log" | sort >"$tmpdir/ts"
[ -s "$tmpdir/te" ] || fail "no task_start in $E/events.log"
cut -d, -f3,4,5,13,14,15,16 "$E/flows.csv" | sort >"$tmpdir/fe"
cut -d, -f3,4,5,13,14,15,16 "$S/flows.csv" | sort >"$tmpdir/fs"
same=""
for j in $(cut -d' ' -f1 "$tmpdir/te" | sort -u); do
	grep "^$j " "$tmpdir/te" >"$tmpdir/tje"
	grep "^$j " "$tmpdir/ts" >"$tmpdir/tjs"
	cmp -s "$tmpdir/tje" "$tmpdir/tjs" || continue
	same="$same $j"
	grep "^$j," "$tmpdir/fe" >"$tmpdir/fje"
	grep "^$j," "$tmpdir/fs" >"$tmpdir/fjs"
	[ -s "$tmpdir/fje" ] || fail "job $j: no flows"
	cmp -s "$tmpdir/fje" "$tmpdir/fjs" ||
		fail "job $j, placed alike, has other flows on the two backends: $(diff "$tmpdir/fje" "$tmpdir/fjs")"
done
[ -n "$same" ] || fail "no job placed alike on the two backends: $(diff "$tmpdir/te" "$tmpdir/ts")"
for k in input shuffle output; do
	grep -q ",$k,r[0-9]h[0-9],r[0-9]h[0-9],[^,]*/$k/" "$E/flows.csv" || fail "no $k flow named in $E/flows.csv"
done
tail -n +2 "$E/manifest.csv" | awk -F, '$17 == "" || $17 == "-" { print }' | grep -q . &&
	fail "manifest lines without a name: $(head -3 "$E/manifest.csv")"

# A scheduler's tick decides from the tick's own time (hyde_now), not from
# the clock a few ms past it: drs asks for its first executor once tasks
# have waited 1 s, from one tick to the next; with the clock, the next
# tick, less late, missed that deadline by microseconds and the request
# came a heartbeat after the simulator's. The heartbeat is the decision.
# (the heartbeat nearest the request: ticks are at whole seconds from the
# run's t0, which run_start's stamp follows by the first network sample,
# tens of ms on a loaded box, so a request at tick 2 can be logged 1.98 s
# after run_start; CI once read that as heartbeat 1 when seconds were
# truncated)
first_request() {
	awk '$2 == "run_start" { t0 = $1 } $2 == "container_request" { printf "%d\n", ($1 - t0) / 1e9 + 0.5; exit }' "$1/events.log"
}
# the request's time after run_start, for a message
request_at() {
	awk '$2 == "run_start" { t0 = $1 } $2 == "container_request" { printf "%.3fs\n", ($1 - t0) / 1e9; exit }' "$1/events.log"
}
expect_status 0 "$HYDE" run -t "$HYDE_SRCDIR/topologies/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" -s drs \
	-o "$tmpdir/drs-e" --prefix $P -q
expect_status 0 "$HYDE" sim -t "$HYDE_SRCDIR/topologies/tiny.topo" -w "$HYDE_SRCDIR/workloads/small.wl" -s drs \
	-o "$tmpdir/drs-s" -q
fe=$(first_request "$tmpdir/drs-e")
fs=$(first_request "$tmpdir/drs-s")
[ -n "$fs" ] || fail "drs: no container_request in the simulation"
[ "$fe" = "$fs" ] || fail "drs asked for its first executor in heartbeat $fe of the emulation ($(request_at "$tmpdir/drs-e") after run_start), $fs of the simulation ($(request_at "$tmpdir/drs-s"))"

# the replay: exactly the emulated flows, each from its first SYN
expect_status 0 "$HYDE" sim --replay "$E" -o "$R"
n=$(($(wc -l <"$E/flows.csv") - 1))
contains "$out" "$n of $n done"
t0=$(awk '$2 == "run_start" { print $1; exit }' "$E/events.log")
# (in the shell's 64-bit arithmetic: awk's doubles round epoch ns)
tail -n +2 "$E/flows.csv" | while IFS=, read -r _ _ _ path bytes start _ _ _ _ _ _ _ _ _ name; do
	echo "$name $((start - t0)) $bytes $path"
done | sort >"$tmpdir/se"
awk -F, 'NR > 1 { print $16, $6, $5, $4 }' "$R/flows.csv" | sort >"$tmpdir/sr"
cmp -s "$tmpdir/se" "$tmpdir/sr" || fail "the replay's flows or starts differ: $(diff "$tmpdir/se" "$tmpdir/sr" | head -5)"
expect_status 0 "$HYDE" fidelity "$E" "$R" -o "$tmpdir"
contains "$out" "FCT: $n flows joined; 0 only in EMUL_RUN, 0 only in SIM_RUN"
[ -f "$tmpdir/fidelity.csv" ] || fail "no fidelity.csv"

# hyde compare --backend both: the compare in each backend, then each
# emulated run against its simulation
C="$tmpdir/both"
# (-B sim:: an option of the simulation only, here in a cluster of short
# options, which each backend gets as parsed)
# (--draws 3: the simulation three more times, each drawing task delays
# and link shares by its jitter_seed, and the emulated run among them)
expect_status 0 "$HYDE" compare --backend both -t "$D/run2x2io.topo" -w "$D/io.wl" -s fair --seed 5 \
	-o "$C" --prefix $P -qBsim:payload=0.956 --draws 3
both_out=$out
for j in 1 2 3; do
	grep -qx "0 backend_options payload=0.956 task_jitter=10ms share_jitter=2 jitter_seed=$j" \
		"$C/draws/$j/fair/events.log" ||
		fail "--draws: draw $j ran with $(grep backend_options "$C/draws/$j/fair/events.log" 2>&1)"
done
for m in JCT CCT; do
	echo "$out" | grep -Eq "^(fair)? +5 +$m +[0-9.]+ +[0-9.]+ \| +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-3] of 3\$" ||
		fail "--draws: no $m line of 3 draws for fair: $out"
done
# draws.csv: the emulated run's figures as compare.csv has them, the
# draws' min <= median <= max, and how many lie below it
awk -F, 'NR > 1 { n++; if ($6 != 3 || $7 > $8 || $8 > $9 || $10 > 3) bad = 1 } END { exit !(n == 2 && !bad) }' \
	"$C/fidelity/draws.csv" || fail "--draws: draws.csv: $(cat "$C/fidelity/draws.csv")"
# and its figures are the runs' own as hyde compare reads them: the
# emulated run's average (emul/compare.csv), and the three draws' (each
# draw's compare.csv) sorted, with those below it
fig() { # COMPARE.CSV COLUMN: fair's figure
	awk -F, -v k="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == k) c = i } $1 == "fair" { print $c }' "$1"
}
for m in avg_jct_s avg_cct_s; do
	e=$(fig "$C/emul/compare.csv" $m)
	want=$(for j in 1 2 3; do fig "$C/draws/$j/compare.csv" $m; done | sort -g | tr '\n' ' ')
	awk -F, -v m=$m -v e="$e" -v w="$want" '
		function off(a, b) { return a - b > 1e-5 || b - a > 1e-5 }
		$3 == m { split(w, v, " "); n = 0; for (i = 1; i <= 3; i++) n += v[i] < e
			  ok = !off($4, e) && !off($7, v[1]) && !off($8, v[2]) && !off($9, v[3]) && $10 == n }
		END { exit !ok }' "$C/fidelity/draws.csv" ||
		fail "--draws: $m in draws.csv, $(grep ",$m," "$C/fidelity/draws.csv"), is not the runs' (emulated $e, draws $want)"
done
# and each emulated run against its replays (--draws): the plain model's
# and the median of three with drawn shares, the simulation's -B too;
# replay.csv's figures are hyde fidelity's of those directories
R="$C/fidelity/fair"
grep -qx '0 backend_options payload=0.956' "$R/replay/events.log" ||
	fail "replay: ran with $(grep backend_options "$R/replay/events.log" 2>&1)"
for j in 1 2 3; do
	grep -qx "0 backend_options payload=0.956 share_jitter=2 jitter_seed=$j" "$R/replay-draws/$j/events.log" ||
		fail "replay draw $j: ran with $(grep backend_options "$R/replay-draws/$j/events.log" 2>&1)"
done
echo "$both_out" | grep -Eq "^fair +5 +[0-9]+ +[0-9.]+/[0-9.]+ +[0-9]+ +[0-9.]+/[0-9.]+ +[0-9]+ +[0-9]+\.[0-9]{3}\$" ||
	fail "replay: no table line for fair: $both_out"
between() { echo "$1" | awk '/^  between hosts / { printf "%d %s %s", $3, $4, $5 }'; }
expect_status 0 "$HYDE" fidelity "$C/emul/fair" "$R/replay" -o "$tmpdir"
bp=$(between "$out")
expect_status 0 "$HYDE" fidelity "$C/emul/fair" "$R/replay-draws/1" "$R/replay-draws/2" "$R/replay-draws/3" -o "$tmpdir"
bd=$(between "$out")
# the model's own spread (each draw against the median of the other two):
# replay.csv's draws_own_p90 is the line's median
own=$(echo "$out" | sed -n "s/^Model's own spread: .*(median \([0-9.]*\)); EMUL_RUN's p90 .*/\1/p")
[ -n "$own" ] || fail "replay draws: no model's own spread in $out"
# replay.csv keeps six decimals and hyde fidelity prints three: a figure
# on a half (9.6685) rounds either way, so they agree within 0.001
agree() { # "FIGURES" "FIGURES": as many, each within 0.001 of the other's
	echo "$1|$2" | awk -F'|' '{
		n = split($1, a, " "); m = split($2, b, " ")
		if (n != m || n == 0) exit 1
		for (i = 1; i <= n; i++) { d = a[i] - b[i]; if (d > 0.0011 || d < -0.0011) exit 1 }
	}'
}
got_own=$(awk -F, 'NR == 2 { printf "%.6f", $11 }' "$C/fidelity/replay.csv")
agree "$got_own" "$own" || fail "replay.csv: draws_own_p90 '$got_own', hyde fidelity's '$own'"
[ -n "$bp" ] && [ -n "$bd" ] || fail "replay: hyde fidelity of the replays gave no figures"
got=$(awk -F, 'NR == 2 && $1 == "fair" && $2 == 5 && $7 == 3 { printf "%.6f %.6f %d %.6f %.6f", $4, $5, $3, $8, $9 }' \
	"$C/fidelity/replay.csv")
agree "$got" "${bp#* } $bd" ||
	fail "replay.csv: '$got', hyde fidelity: plain '$bp', median of the draws '$bd' ($(cat "$C/fidelity/replay.csv"))"
# the median's join (replay-draws/fidelity.csv): each flow's simulated
# time the median of its three draws' (the draws differ: shares drawn)
cmp -s "$R/replay-draws/1/flows.csv" "$R/replay-draws/2/flows.csv" && fail "replay draws 1 and 2: the same flows.csv"
bad=$(awk -F, 'FNR == 1 { f++; next }
	f <= 3 { t[$16] = t[$16] " " $8; next }
	$1 == "flow" { n = split(t[$2], v, " "); if (n != 3) { print "not in 3: " $2; next }
		for (i = 1; i <= 3; i++) if (v[i] < 0) v[i] = 1e30
		m = (v[1] - v[2]) * (v[1] - v[3]) <= 0 ? v[1] : (v[2] - v[1]) * (v[2] - v[3]) <= 0 ? v[2] : v[3]
		if (m >= 1e30) m = -1
		if ($7 != m) print $2 ": " $7 " not the median of" t[$2]; c++ }
	END { if (!c) print "no flow joined" }' "$R/replay-draws/1/flows.csv" "$R/replay-draws/2/flows.csv" \
	"$R/replay-draws/3/flows.csv" "$R/replay-draws/fidelity.csv")
[ -z "$bad" ] || fail "replay-draws/fidelity.csv: $(echo "$bad" | head -3)"
for f in emul/compare.csv sim/compare.csv emul/fair/flows.csv sim/fair/flows.csv \
	fidelity/fair/fidelity.csv; do
	[ -f "$C/$f" ] || fail "compare --backend both: no $f"
done
grep -qx '0 backend_options payload=0.956' "$C/sim/fair/events.log" ||
	fail "compare --backend both: the simulation ran with $(grep backend_options "$C/sim/fair/events.log")"
grep -q " backend_options prefix=$P\$" "$C/emul/fair/events.log" ||
	fail "compare --backend both: the emulation ran with $(grep backend_options "$C/emul/fair/events.log")"
ne=$(($(wc -l <"$C/emul/fair/flows.csv") - 1))
echo "$both_out" | grep -Eq "^fair +5 +[0-9]+ of $ne " || fail "compare --backend both: no fidelity line for fair: $both_out"
# the last column: the jobs placed alike, of the workload's (each ran
# tasks on both backends); how many are alike is the run's to say
nj=$(grep -c '^job' "$D/io.wl")
echo "$both_out" | grep -Eq "^fair +5 .* [0-9]+ of $nj\$" || fail "compare --backend both: no 'K of $nj' jobs alike: $both_out"
[ "$(grep -c '^flow,' "$C/fidelity/fair/fidelity.csv")" -ge 1 ] || fail "compare --backend both: no flow joined"
expect_status 2 "$HYDE" compare --backend both -t "$D/run2x2io.topo" -w "$D/io.wl" -s nosuch -o "$tmpdir/b2" -q
contains "$err" "unknown scheduler 'nosuch'"
[ -e "$tmpdir/b2" ] && fail "a refused compare --backend both left $tmpdir/b2"

# -B sim:measured_setup=yes: the emulated run's own set-up, for its
# replays alone (the simulation and its draws have no run to take it
# from, and keep the setup given); on small.wl, which has flows under
# 100 KB to measure it by
C3="$tmpdir/both3"
expect_status 0 "$HYDE" compare --backend both -t "$HYDE_SRCDIR/topologies/tiny.topo" \
	-w "$HYDE_SRCDIR/workloads/small.wl" -s fair --seed 1 -o "$C3" --prefix $P -q \
	-B sim:setup=1ms -B sim:measured_setup=yes --draws 2
grep -qx '0 backend_options setup=1ms' "$C3/sim/fair/events.log" ||
	fail "measured_setup: the simulation ran with $(grep backend_options "$C3/sim/fair/events.log")"
grep -qx '0 backend_options setup=1ms task_jitter=10ms share_jitter=2 jitter_seed=1' "$C3/draws/1/fair/events.log" ||
	fail "measured_setup: draw 1 ran with $(grep backend_options "$C3/draws/1/fair/events.log")"
grep -qx '0 backend_options setup=1ms measured_setup=yes' "$C3/fidelity/fair/replay/events.log" ||
	fail "measured_setup: the replay ran with $(grep backend_options "$C3/fidelity/fair/replay/events.log" 2>&1)"
grep -qx '0 backend_options setup=1ms measured_setup=yes share_jitter=2 jitter_seed=2' "$C3/fidelity/fair/replay-draws/2/events.log" ||
	fail "measured_setup: replay draw 2 ran with $(grep backend_options "$C3/fidelity/fair/replay-draws/2/events.log" 2>&1)"
# (two draws: no spread of their own, its replay.csv field empty)
awk -F, 'NR == 2 { exit !(NF == 11 && $11 == "") }' "$C3/fidelity/replay.csv" ||
	fail "replay.csv with 2 draws: draws_own_p90 not empty: $(cat "$C3/fidelity/replay.csv")"
expect_status 0 "$HYDE" fidelity "$C3/emul/fair" "$C3/fidelity/fair/replay" -o "$tmpdir"
contains "$out" ", the run's own (measured_setup)"
# a run that measured none (io.wl: no flow under 100 KB): said, no replay
expect_status 1 "$HYDE" compare --backend both -t "$D/run2x2io.topo" -w "$D/io.wl" -s fair --seed 5 \
	-o "$tmpdir/both5" --prefix $P -q -B sim:measured_setup=yes --draws 2
contains "$err" "the replay of $tmpdir/both5/emul/fair ($tmpdir/both5/fidelity/fair/replay) failed: hyde sim: --replay: measured_setup: $tmpdir/both5/emul/fair has no measured set-up"
[ -e "$tmpdir/both5/fidelity/fair/replay/events.log" ] && fail "a replay of a run that measured no set-up"

finish
