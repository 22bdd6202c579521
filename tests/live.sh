#!/bin/sh
# The live view (root): hyde run's status lines, on a file (plain lines)
# and on a terminal (one line refreshed in place, through script(1)); what
# they say against what the run did (its jobs, a circuit, two shuffles
# sharing a 20Mbit uplink for seconds: that uplink the busiest link, near
# full); hyde top on the running fabric (the run's own line) and on a bare
# fabric (its circuits from the crossbar, its busiest link from the
# counters while iperf3 fills an uplink), until the fabric goes away;
# hyde compare's line on a terminal; and the timeline hyde analyze drew.
. "${HYDE_SRCDIR}/tests/lib.sh"
require_root
for p in script iperf3; do
	command -v $p >/dev/null || { echo "SKIP: no $p" >&2; exit 77; }
done

P=$(test_prefix tlive)
Q=$(test_prefix tlivb)
D="$HYDE_SRCDIR/tests/data"
T="$HYDE_SRCDIR/topologies/tiny.topo"
cleanup() {
	[ -n "${runpid:-}" ] && kill "$runpid" 2>/dev/null
	[ -n "${toppid:-}" ] && kill "$toppid" 2>/dev/null
	"$HYDE" clean --prefix $P >/dev/null 2>&1
	"$HYDE" clean --prefix $Q >/dev/null 2>&1
	rm -rf "$tmpdir"
}
trap cleanup EXIT
"$HYDE" clean --prefix $P >/dev/null 2>&1
"$HYDE" clean --prefix $Q >/dev/null 2>&1

# ---- 1. hyde run's lines, not on a terminal; hyde top meanwhile ----
R="$tmpdir/run"
"$HYDE" run -t "$T" -w "$D/live.wl" --no-io --heartbeat 0 -S slowstart=1 --progress=1s -o "$R" --prefix $P \
	>"$tmpdir/out" 2>"$tmpdir/err" &
runpid=$!
# hyde top once the run has written its status
i=0
while [ ! -e /run/hyde/$P/live ] && [ $i -lt 300 ] && kill -0 $runpid 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
"$HYDE" top --count 2 $P >"$tmpdir/top" 2>&1 || fail "hyde top $P: exit $?: $(cat "$tmpdir/top")"
wait $runpid || fail "the run failed: $(tail -3 "$tmpdir/err")"
runpid=
grep -a '^emul ' "$tmpdir/err" >"$tmpdir/lines"
n=$(wc -l <"$tmpdir/lines")
[ "$n" -ge 3 ] || fail "$n live lines on stderr: $(cat "$tmpdir/err")"
tr -d '\n' <"$tmpdir/err" | grep -q "$(printf '[\r\033]')" && fail "terminal controls in a file's live lines"
head -1 "$tmpdir/lines" | grep -q 'jobs 0/3 ' || fail "first line: $(head -1 "$tmpdir/lines")"
tail -1 "$tmpdir/lines" | grep -q 'jobs 3/3 ETA 0s ' || fail "last line: $(tail -1 "$tmpdir/lines")"
# jobs done never go down
awk '{ split($5, a, "/"); if (a[1] + 0 < prev) bad++; prev = a[1] + 0 } END { exit bad > 0 }' \
	"$tmpdir/lines" || fail "jobs done went down: $(cat "$tmpdir/lines")"
# the two EPS shuffles move for seconds over rack 1's uplink (20Mbit):
# seen moving, and that uplink the busiest link, near full
grep -q 'flows EPS 2 ' "$tmpdir/lines" || fail "no line with the 2 EPS shuffles moving: $(cat "$tmpdir/lines")"
grep -Eq 'busiest (tor1->core|core->tor0) (8[0-9]|9[0-9]|1[0-9][0-9])% of 20Mbit' "$tmpdir/lines" ||
	fail "no line with tor1->core busiest and near full: $(cat "$tmpdir/lines")"
# the circuit the ocs job's shuffle took stays up to the end
grep -q "^up 0 1 " "$R/ocs-events.log" || fail "no circuit 0>1 in the run"
tail -1 "$tmpdir/lines" | grep -q 'circuits 1/1 up' || fail "last line: $(tail -1 "$tmpdir/lines")"
# hyde top showed the run's own line
n=$(grep -c '^emul .* jobs [0-3]/3 ETA .* flows EPS [0-9]* OCS [0-9]*  circuits [01]/[01] up' "$tmpdir/top")
[ "$n" = 2 ] || fail "hyde top during the run: $(cat "$tmpdir/top")"
# hyde analyze drew the timeline (a PNG)
[ "$(od -An -c -N4 "$R/timeline.png" | tr -d ' ')" = "211PNG" ] || fail "no timeline.png"
expect_status 2 "$HYDE" analyze --window 1h- "$R" && contains "$err" "window"
[ -e "$R/timeline.png" ] || fail "a refused --window removed timeline.png"
expect_status 0 "$HYDE" analyze -q --window 1s-3s "$R"

# ---- 2. on a terminal: one line refreshed in place ----
script -qfec "'$HYDE' run -t '$T' -w '$D/live.wl' --no-io --heartbeat 0 -S slowstart=1 -o '$tmpdir/tty' --prefix $P --no-analyze" \
	/dev/null >"$tmpdir/tty.out" 2>&1 || fail "hyde run on a terminal failed: $(tail -3 "$tmpdir/tty.out")"
n=$(tr '\r' '\n' <"$tmpdir/tty.out" | grep -ac '^emul .*jobs [0-3]/3')
[ "$n" -ge 3 ] || fail "$n live lines on the terminal: $(tr '\r' '\n' <"$tmpdir/tty.out" | head)"
grep -aq "$(printf '\033\\[K')" "$tmpdir/tty.out" || fail "the terminal's line is not refreshed in place"

# ---- 3. hyde top on a bare fabric ----
expect_status 0 "$HYDE" topo up -t "$T" --prefix $Q
"$HYDE" ocs serve --prefix $Q --ports 2 --rate 400Mbit --delta 10ms --no-rt >"$tmpdir/ocs.log" 2>&1 &
i=0
while [ ! -S /run/hyde/$Q/ocs.sock ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
expect_status 0 "$HYDE" ocs set 0-1 --prefix $Q
"$HYDE" topo exec --prefix $Q r1h0 -- iperf3 -s -1 >/dev/null 2>&1 &
sleep 0.5
"$HYDE" topo exec --prefix $Q r0h0 -- iperf3 -c 10.0.1.1 -t 5 >/dev/null 2>&1 &
iperf=$!
sleep 1.5
expect_status 0 "$HYDE" top --count 2 $Q
contains "$out" "fabric $Q (no run)  circuits 2/2 up"
echo "$out" | tail -1 | grep -Eq 'busiest (tor0->core|core->tor1) (8[0-9]|9[0-9]|1[0-9][0-9])% of 20Mbit' ||
	fail "hyde top while iperf3 fills tor0's uplink: $out"
wait $iperf
# until the fabric goes away
"$HYDE" top --interval 200ms $Q >"$tmpdir/top2" 2>&1 &
toppid=$!
sleep 1
expect_status 0 "$HYDE" topo down --prefix $Q
i=0
while kill -0 $toppid 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 $toppid 2>/dev/null && fail "hyde top still runs after its fabric went away"
wait $toppid || fail "hyde top exited $? when its fabric went away"
toppid=
grep -q "fabric $Q is gone" "$tmpdir/top2" || fail "hyde top: $(cat "$tmpdir/top2")"
expect_status 2 "$HYDE" top $Q && contains "$err" "$Q"
expect_status 2 "$HYDE" top --interval 1ms $P

# ---- 4. hyde compare on a terminal shows the run's line ----
script -qfec "'$HYDE' compare -t '$T' -w '$D/live.wl' -s fair -S slowstart=1 --heartbeat 0 --no-io -o '$tmpdir/cmp' --prefix $P" \
	/dev/null >"$tmpdir/cmp.out" 2>&1 || fail "hyde compare failed: $(tail -5 "$tmpdir/cmp.out")"
tr '\r' '\n' <"$tmpdir/cmp.out" | grep -aq '^  \[1/1\] fair  *emul .*jobs [0-3]/3' ||
	fail "no live line in hyde compare's: $(tr '\r' '\n' <"$tmpdir/cmp.out" | head -5)"
tr '\r' '\n' <"$tmpdir/cmp.out" | grep -aq '^  \[1/1\] fair  *running (log .*) \.\.\..* done: 3/3 jobs' ||
	fail "hyde compare's line after the run: $(tr '\r' '\n' <"$tmpdir/cmp.out" | grep -a fair)"

finish
