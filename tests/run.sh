#!/bin/sh
# hyde run end to end on a real fabric (root): every byte verified, the
# heavy shuffle on the OCS ports' captures and the light one on the
# uplinks', the heavy coflow's CCT against T(C), HDFS input reads, output
# pipelines and a DAG child's reads of its parent's output seen in the
# captures, a killed task failing the run by name, SIGINT tearing
# everything down, a run outliving the removal of its binary.
. "${HYDE_SRCDIR}/tests/lib.sh"
require_root
command -v tcpdump >/dev/null || { echo "SKIP: no tcpdump" >&2; exit 77; }

P=$(test_prefix trun)
D="$HYDE_SRCDIR/tests/data"
cleanup() {
	"$HYDE" clean --prefix $P >/dev/null 2>&1
	rm -rf "$tmpdir"
}
trap cleanup EXIT
"$HYDE" clean --prefix $P >/dev/null 2>&1

left_behind() {
	n=$(ip netns list | grep -c "^$P-")
	[ "$n" = 0 ] || fail "$n namespace(s) $P-* left after the run"
	[ -e /run/hyde/$P ] && fail "/run/hyde/$P left after the run"
	pgrep -f "hyde (task|shuffled|capture|ocs serve).*$P" >/dev/null &&
		fail "processes of the run left: $(pgrep -af "hyde (task|shuffled|capture).*$P")"
	return 0
}

# breakdown_ok DIR: where each finished job's time went (jobs.csv), as
# measured: no part missing or negative, and they add up to its JCT
breakdown_ok() {
	awk -F, 'NR > 1 && $6 >= 0 { s = 0; for (k = 12; k <= 17; k++) { if ($k < 0) bad = bad " " $1; s += $k }
		if (s != $6) bad = bad " " $1 "(" s "!=" $6 ")" } END { if (bad != "") { print bad; exit 1 } }' \
		"$1/jobs.csv" >"$tmpdir/bd.txt" || fail "$1: jobs without their breakdown:$(cat "$tmpdir/bd.txt")"
}

# 1. two jobs: verified, and each on its path
R="$tmpdir/two"
expect_status 0 "$HYDE" run -t "$D/run2x2.topo" -w "$D/run.wl" -S slowstart=1 --seed 28 -o "$R" --prefix $P -q
left_behind
[ -f "$R/summary.json" ] || fail "no summary.json"
# every flow verified (input reads too), and the shuffle's bytes add up to
# the workload's
awk -F, 'NR == FNR { if (FNR > 1) kind[$2] = $15; next }
	 FNR > 1 { if ($8 != 1) bad++; if (kind[$1] == "shuffle") { n++; b += $7 } }
	 END { exit !(n >= 3 && b == 20200000 && !bad) }' "$R/manifest.csv" "$R/app/fetches.csv" ||
	fail "fetches: $(cat "$R/app/fetches.csv")"
# the heavy fetches' data on tor0's OCS port, the light one's on tor1's uplink
for line in $(awk -F, 'NR > 1 && $15 == "shuffle" { print $13 ":" $9 ":" $10 }' "$R/manifest.csv"); do
	path=${line%%:*}
	port=$(echo "$line" | cut -d: -f2)
	case $path in
	ocs) pcap="$R/pcap/tor0-ocs.pcap"; other="$R/pcap/tor0-up.pcap" ;;
	eps) pcap="$R/pcap/tor1-up.pcap"; other="$R/pcap/tor1-ocs.pcap" ;;
	*) fail "unexpected path $path in the manifest"; continue ;;
	esac
	n=$(tcpdump -nr "$pcap" "tcp src port 13562 and dst port $port and greater 200" 2>/dev/null | wc -l)
	[ "$n" -gt 0 ] || fail "$path fetch to port $port: $n data packets in $pcap"
	n=$(tcpdump -nr "$other" "tcp src port 13562 and dst port $port and greater 200" 2>/dev/null | wc -l)
	[ "$n" = 0 ] || fail "$path fetch to port $port: $n data packets in $other"
done
grep -q '"jobs"' "$R/summary.json" || fail "summary.json without jobs"
breakdown_ok "$R"
# every captured port left its counts, its ring sized from its rate, and
# nothing dropped on a run this small (issue 23: rings that follow the port)
for k in 0 1; do
	st="$R/pcap/tor$k.capstats"
	[ -f "$st" ] || { fail "no $st"; continue; }
	[ "$(awk 'NR > 1' "$st" | wc -l)" = 4 ] || fail "$st: expected 4 ports: $(cat "$st")"
	# each port with its rate from run2x2.topo, its ring sized from it
	# (2 x 1.5 frames per MTU x 224 bytes x 250 ms: 14 MB at 1 Gbit/s,
	# 1.4 MB at 100 Mbit/s, 5.5 MB at 400 Mbit/s), not the fixed 32 MB
	awk 'NR > 1 { want = $1 ~ /^h/ ? 1e9 : $1 == "up" ? 1e8 : 4e8
		      ring = want * 3 / (8 * 1514) * 224 / 4
		      if ($2 != want || $3 < ring || $3 > ring + 8192 || $3 % 4096) bad = bad " " $1 }
	     END { exit bad != "" }' "$st" ||
		fail "$st: a port without its rate or its ring sized from it: $(cat "$st")"
done
grep -q '"dropped": 0, "drop_ports": 0, "ports_without_counts": 0' "$R/summary.json" ||
	fail "summary.json: captures without their counts, or with drops: $(grep -o '"captures": {[^[]*' "$R/summary.json")"
grep -q '"complete": true' "$R/summary.json" || fail "summary.json: the run is not complete"

# the same inputs in the simulator: the same scheduler decisions (which
# task on which host), as the controller cannot tell the backends apart.
# Placements happen at heartbeats: an event that frees or enables a task
# just before a host's heartbeat in the simulator may come just after it
# in emulation, whose times are a few ms later. So the seed (28) is one
# whose heartbeat phases leave every such event (a job's arrival, its
# last map's end) at least 100 ms before the next heartbeat of any host;
# checked here on the simulator's run, not assumed.
"$HYDE" sim -t "$D/run2x2.topo" -w "$D/run.wl" -S slowstart=1 --seed 28 -o "$tmpdir/two-sim" -q ||
	fail "the simulator failed on the same inputs"
margin=$(awk '$2 == "node_phase" { ph[$3] = $4 }
	      $2 == "job_arrive" { ev[++n] = $1 }
	      $2 == "task_done" && $4 == "map" { last[$3] = $1 }
	      END { for (j in last) ev[++n] = last[j]; min = 1e18
		    for (i = 1; i <= n; i++) for (h in ph) {
			m = (ph[h] - ev[i]) % 1e9; if (m < 0) m += 1e9; if (m < min) min = m }
		    print min }' "$tmpdir/two-sim/events.log")
[ "${margin%.*}" -ge 100000000 ] 2>/dev/null ||
	fail "seed 28 leaves an event ${margin} ns before a heartbeat: pick a seed with a margin of 100 ms for this test"
decisions() { awk '$2 == "task_start" { print $3, $4, $5, $6 }' "$1/events.log" | sort; }
decisions "$R" >"$tmpdir/emul.dec"
decisions "$tmpdir/two-sim" >"$tmpdir/sim.dec"
[ -s "$tmpdir/emul.dec" ] || fail "no task_start in the emulation's events.log"
cmp -s "$tmpdir/emul.dec" "$tmpdir/sim.dec" ||
	fail "emulation and simulation placed tasks differently: $(diff "$tmpdir/emul.dec" "$tmpdir/sim.dec")"
# one summary.json for both backends (docs/summary-json.md): the same
# keys, schema 1, the run's figures as the controller counted them (what
# hyde run printed), and in emulation the analyzer's beside them
keys() { sed -n 's/^  "\([a-z_]*\)": .*/\1/p' "$1/summary.json" | sort; }
keys "$R" | grep -vx analysis >"$tmpdir/emul.keys"
keys "$tmpdir/two-sim" >"$tmpdir/sim.keys"
grep -qx schema "$tmpdir/sim.keys" || fail "no schema in the simulator's summary.json"
cmp -s "$tmpdir/emul.keys" "$tmpdir/sim.keys" ||
	fail "summary.json's keys differ between the backends: $(diff "$tmpdir/emul.keys" "$tmpdir/sim.keys")"
for f in "$R" "$tmpdir/two-sim"; do
	grep -qx '  "schema": 1,' "$f/summary.json" || fail "$f/summary.json: not schema 1"
	grep -qx '  "jobs_done": 2,' "$f/summary.json" || fail "$f/summary.json: not 2 jobs done"
done
grep -q '^  "analysis": {' "$R/summary.json" || fail "emulation: no analysis in summary.json"
grep -q '^    "accuracy": {' "$R/summary.json" || fail "emulation: the analyzer's accuracy is not in analysis"
grep -q '"analysis"' "$tmpdir/two-sim/summary.json" && fail "simulation: an analysis in summary.json"
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"] == 1 and d["jobs_done"] == 2 and d["analysis"]["jobs"]["finished"] == 2' \
		"$R/summary.json" || fail "emulation: summary.json does not parse as schema 1"
fi

# 2. the heavy shuffle alone: T(C) <= CCT <= 1.5 T(C) (tasks placed at
# once, not at heartbeats: the circuits' part of the CCT alone)
R="$tmpdir/heavy"
expect_status 0 "$HYDE" run -t "$D/run2x2.topo" -w "$D/heavy.wl" -o "$R" --prefix $P -q --heartbeat 0
left_behind
# The upper bound is a timing figure of hyde as built for use: under
# AddressSanitizer every task and the crossbar run several times slower
# (CI saw 1.58 T(C) once there, 1.02-1.05 here under load in both
# builds), so a sanitizer build checks the lower bound only and says so.
hi=1.5
[ "${HYDE_SANITIZERS:-no}" = yes ] && hi=0
awk -F, -v hi=$hi 'NR > 1 { lb = $8; cct = $7 } END {
	printf "heavy alone: CCT %.1f ms, T(C) %.1f ms, ratio %.3f\n", cct / 1e6, lb / 1e6, cct / lb
	if (hi == 0)
		print "note: a sanitizer build: the CCT is not compared with 1.5 T(C)"
	exit !(lb > 0 && cct >= lb && (hi == 0 || cct <= hi * lb)) }' "$R/coflows.csv" ||
	fail "heavy CCT not within [T(C), 1.5 T(C)]: $(cat "$R/coflows.csv")
$(cat "$R/flows.csv")
$(grep -e flow_ -e circuit_ "$R/events.log")"

# 3. HDFS traffic for real: input read across racks, output written
# through the data services' pipeline, a child reading its parent's output
R="$tmpdir/io"
expect_status 0 "$HYDE" run -t "$D/run2x2io.topo" -w "$D/io.wl" -o "$R" --prefix $P -q
left_behind
awk -F, 'NR > 1 && $8 != 1 { bad = 1 } END { exit bad }' "$R/app/fetches.csv" ||
	fail "io: a flow not verified: $(cat "$R/app/fetches.csv")"
# kid waited for far: its wait is its parents part, far has none
breakdown_ok "$R"
awk -F, '$1 == "kid" && $12 > 0 { k = 1 } $1 == "far" && $12 == 0 { f = 1 } END { exit !(k && f) }' \
	"$R/jobs.csv" || fail "io: the parents parts: $(cut -d, -f1,12-17 "$R/jobs.csv")"
# far's input: exactly its 8MB, every byte from rack 0 to rack 1, and as
# much payload seen arriving on tor1's uplink port (the captures; a byte
# TCP sent again is seen again, and counted as retransmitted)
awk -F, 'NR > 1 && $3 == "far" && $13 == "input" {
		n++; b += $5; eps += $10; re += $11
		if ($14 !~ /^r0/ || $15 !~ /^r1/) cross = 1 }
	 END { printf "io: far read %d bytes in %d flows, %d seen on the uplink (%d of them again)\n", b, n, eps, re
	       exit !(b == 8000000 && eps - re == 8000000 && !cross) }' "$R/flows.csv" ||
	fail "io: far's input reads: $(grep ',input,' "$R/flows.csv")"
# far's output: per reduce, the pipeline writer -> a host of rack 0 -> the
# other host of rack 0, 1.5MB on each hop
awk -F, 'NR > 1 && $3 == "far" && $13 == "output" {
		n++; if ($5 != 1500000) bad = 1
		if ($14 ~ /^r1/ && $15 ~ /^r0/) first++; else if ($14 ~ /^r0/ && $15 ~ /^r0/ && $14 != $15) second++ }
	 END { exit !(n == 4 && first == 2 && second == 2 && !bad) }' "$R/flows.csv" ||
	fail "io: far's output pipelines: $(grep ',output,' "$R/flows.csv")"
# kid reads far's output where it was written: from far's reduce hosts or
# the hosts its pipelines wrote to
awk '$2 == "task_start" && $3 == "far" && $4 == "reduce" { print $6 }' "$R/events.log" >"$tmpdir/holders"
awk -F, 'NR > 1 && $3 == "far" && $13 == "output" { print $15 }' "$R/flows.csv" >>"$tmpdir/holders"
awk -F, 'NR == FNR { h[$1] = 1; next }
	 FNR > 1 && $3 == "kid" && $13 == "input" { n++; if (!($14 in h)) bad = $14 }
	 END { if (bad) print "kid read from " bad; exit bad != "" }' "$tmpdir/holders" "$R/flows.csv" ||
	fail "io: kid read from a host that holds no part of far's output ($(sort -u "$tmpdir/holders" | tr '\n' ' '))"

# 4. a task killed mid-run: the run fails naming it; nothing is left
R="$tmpdir/kill"
"$HYDE" run -t "$D/run2x2.topo" -w "$D/slow.wl" -o "$R" --prefix $P -q 2>"$tmpdir/kill.err" &
pid=$!
victim=""
for i in $(seq 100); do
	victim=$(pgrep -f "hyde task map --ctl /run/hyde/$P/" | head -n 1)
	[ -n "$victim" ] && break
	sleep 0.1
done
[ -n "$victim" ] || fail "no map task appeared"
[ -n "$victim" ] && kill -9 "$victim"
wait $pid
st=$?
[ "$st" = 1 ] || fail "killed task: exit $st, expected 1"
grep -q "map [0-9] of job slow on r[0-9]h[0-9] was killed by signal 9" "$tmpdir/kill.err" ||
	fail "the failure does not name the task: $(cat "$tmpdir/kill.err")"
left_behind

# 5. SIGINT: clean teardown
R="$tmpdir/int"
"$HYDE" run -t "$D/run2x2.topo" -w "$D/slow.wl" -o "$R" --prefix $P -q 2>"$tmpdir/int.err" &
pid=$!
for i in $(seq 100); do
	pgrep -f "hyde task map --ctl /run/hyde/$P/" >/dev/null && break
	sleep 0.1
done
kill -INT $pid
wait $pid
st=$?
[ "$st" = 1 ] || fail "SIGINT: exit $st, expected 1"
grep -q "interrupted" "$tmpdir/int.err" || fail "SIGINT: $(cat "$tmpdir/int.err")"
left_behind
out=$("$HYDE" clean --prefix $P 2>&1)
case "$out" in
*"nothing"* | *" 0 namespace"* | "") ;;
*) fail "hyde clean found leftovers after SIGINT: $out" ;;
esac

# 6. the binary removed while the run goes on (a rebuild replaces it): the
# tasks started after that run the run's own binary, not a missing file
mkdir "$tmpdir/bin" && cp "$HYDE" "$tmpdir/bin/hyde" || fail "cannot copy $HYDE"
R="$tmpdir/rebuilt"
"$tmpdir/bin/hyde" run -t "$D/run2x2.topo" -w "$D/run.wl" -S slowstart=1 --seed 28 -o "$R" --prefix $P -q \
	2>"$tmpdir/rebuilt.err" &
pid=$!
seen=""
for i in $(seq 200); do
	pgrep -f "hyde task map --ctl /run/hyde/$P/" >/dev/null && seen=1 && break
	sleep 0.05
done
rm -f "$tmpdir/bin/hyde"
# still running, so that its reduces (slowstart=1: after every map) start
# with the file gone: else this case would test nothing
kill -0 $pid 2>/dev/null && alive=1 || alive=""
wait $pid
st=$?
[ -n "$seen" ] || fail "no map task appeared before the binary went"
[ -n "$alive" ] || fail "the run had ended before its binary went: nothing tested"
[ "$st" = 0 ] || fail "a run whose binary was removed under it: exit $st: $(tail -3 "$tmpdir/rebuilt.err")"
left_behind

finish
