#!/bin/sh
# hyde run end to end on a real fabric (root): every byte verified, the
# heavy shuffle on the OCS ports' captures and the light one on the
# uplinks', the heavy coflow's CCT against T(C), a killed task failing the
# run by name, SIGINT tearing everything down.
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

# 1. two jobs: verified, and each on its path
R="$tmpdir/two"
expect_status 0 "$HYDE" run -t "$D/run2x2.topo" -w "$D/run.wl" -S slowstart=1 -o "$R" --prefix $P -q
left_behind
[ -f "$R/summary.json" ] || fail "no summary.json"
# every fetch verified, and the bytes add up to the workload's shuffle
awk -F, 'NR > 1 { n++; b += $7; if ($8 != 1) bad++ } END { exit !(n == 3 && b == 20200000 && !bad) }' \
	"$R/app/fetches.csv" || fail "fetches: $(cat "$R/app/fetches.csv")"
# the heavy fetches' data on tor0's OCS port, the light one's on tor1's uplink
for line in $(awk -F, 'NR > 1 { print $13 ":" $9 ":" $10 }' "$R/manifest.csv"); do
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

# the same inputs in the simulator: the same scheduler decisions (which
# task on which host), as the controller cannot tell the backends apart
# (reduces after all maps, and the jobs' maps end 1s apart, so that no
# decision hangs on which of two nearly simultaneous events came first)
"$HYDE" sim -t "$D/run2x2.topo" -w "$D/run.wl" -S slowstart=1 -o "$tmpdir/two-sim" -q ||
	fail "the simulator failed on the same inputs"
decisions() { awk '$2 == "task_start" { print $3, $4, $5, $6 }' "$1/events.log" | sort; }
decisions "$R" >"$tmpdir/emul.dec"
decisions "$tmpdir/two-sim" >"$tmpdir/sim.dec"
[ -s "$tmpdir/emul.dec" ] || fail "no task_start in the emulation's events.log"
cmp -s "$tmpdir/emul.dec" "$tmpdir/sim.dec" ||
	fail "emulation and simulation placed tasks differently: $(diff "$tmpdir/emul.dec" "$tmpdir/sim.dec")"

# 2. the heavy shuffle alone: T(C) <= CCT <= 1.5 T(C)
R="$tmpdir/heavy"
expect_status 0 "$HYDE" run -t "$D/run2x2.topo" -w "$D/heavy.wl" -o "$R" --prefix $P -q
left_behind
awk -F, 'NR > 1 { lb = $8; cct = $7 } END {
	printf "heavy alone: CCT %.1f ms, T(C) %.1f ms, ratio %.3f\n", cct / 1e6, lb / 1e6, cct / lb
	exit !(lb > 0 && cct >= lb && cct <= 1.5 * lb) }' "$R/coflows.csv" ||
	fail "heavy CCT not within [T(C), 1.5 T(C)]: $(cat "$R/coflows.csv")"

# 3. a task killed mid-run: the run fails naming it; nothing is left
R="$tmpdir/kill"
"$HYDE" run -t "$D/run2x2.topo" -w "$D/slow.wl" -o "$R" --prefix $P -q 2>"$tmpdir/kill.err" &
pid=$!
victim=""
for i in $(seq 100); do
	victim=$(pgrep -f "hyde task map --reg /run/hyde/$P/" | head -n 1)
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

# 4. SIGINT: clean teardown
R="$tmpdir/int"
"$HYDE" run -t "$D/run2x2.topo" -w "$D/slow.wl" -o "$R" --prefix $P -q 2>"$tmpdir/int.err" &
pid=$!
for i in $(seq 100); do
	pgrep -f "hyde task map --reg /run/hyde/$P/" >/dev/null && break
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

finish
