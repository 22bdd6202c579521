#!/bin/sh
# --horizon on the emulated fabric (root): three jobs on two racks; b's
# shuffle, 80 MB from rack 0 to rack 1 over a 100 Mbit/s uplink (its maps
# and reduces pinned there: left to fair, a reduce placed in rack 0 under
# load halved the crossing, and b's coflow ended at 3.4 s), needs at least
# 6.4 s, so it cannot end by a 6 s horizon, and c arrives at 30 s.
# The run stops at the horizon as a successful one (exit 0, run_end
# horizon): the tasks are stopped and the fabric torn down (no namespace
# of its prefix left), the analyzer still runs on the captures, and what
# is not done is reported so: b and c have no end in jobs.csv, b's coflow
# no CCT, its flows cut by the horizon no end (none ends after it),
# summary.json says horizon_s and the jobs done, and its average JCT is
# over those.
. "${HYDE_SRCDIR}/tests/lib.sh"
require_root

P=$(test_prefix thor)
cleanup() {
	"$HYDE" clean --prefix "$P" >/dev/null 2>&1
	rm -rf "$tmpdir"
}
trap cleanup EXIT

cat >"$tmpdir/h.wl" <<'EOF'
job id=a user=u arrival=0s input=4MB shuffle=4MB output=1MB maps=2 reduces=1 map_time=500ms reduce_time=500ms
job id=b user=u arrival=1s input=8MB shuffle=80MB output=1MB maps=2 reduces=2 map_time=500ms reduce_time=500ms map_racks=0,0 reduce_racks=1,1
job id=c user=u arrival=30s input=4MB shuffle=4MB output=1MB maps=2 reduces=1 map_time=500ms reduce_time=500ms
EOF

R=$tmpdir/run
expect_status 0 "$HYDE" run -t "$HYDE_SRCDIR/tests/data/two.topo" -w "$tmpdir/h.wl" -o "$R" --prefix "$P" \
	--horizon 6s -q || finish

# the fabric is gone: the run tore it down
ip netns list | grep -q "^$P" && fail "namespaces of $P left after the run: $(ip netns list | grep "^$P")"

grep -q ' run_end horizon$' "$R/events.log" ||
	fail "events.log's run_end is not horizon: $(grep ' run_end ' "$R/events.log")"
# the run's start: a's arrival, at 0 s
t0=$(awk -F, '$1 == "a" { print $3 }' "$R/app/jobs.csv")
h=$(awk '$2 == "horizon" { print $1; exit }' "$R/events.log")
[ -n "$t0" ] && [ -n "$h" ] || fail "no job a in app/jobs.csv or no horizon line in events.log"
[ "$((h - t0))" = 6000000000 ] || fail "the horizon line is at $((h - t0)) ns from the start, expected 6s"

# b cannot finish, c never arrived: no end; jobs_done says as many as ended
for j in b c; do
	awk -F, -v j="$j" '$1 == j && $5 == -1 { ok = 1 } END { exit !ok }' "$R/jobs.csv" ||
		fail "job $j has an end in jobs.csv: $(grep "^$j," "$R/jobs.csv")"
done
n=$(awk -F, 'NR > 1 && $5 >= 0' "$R/jobs.csv" | wc -l)
tr -d '\n' <"$R/summary.json" | grep -q "\"jobs\": 3,  \"jobs_done\": $n," ||
	fail "summary.json's jobs_done is not the $n jobs jobs.csv says ended"
grep -q '"horizon_s": 6.000000000,' "$R/summary.json" || fail "summary.json has no horizon_s 6"
grep -q '"stopped_at_horizon": true,' "$R/summary.json" || fail "summary.json: stopped_at_horizon not true"
grep -q '"analysis": ' "$R/summary.json" || fail "the analyzer did not run: no analysis in summary.json"
if [ "$n" -gt 0 ]; then
	jct=$(grep -o '"avg_jct_s": [0-9.]*' "$R/summary.json" | head -1 | sed 's/.*: //')
	awk -F, -v s="$jct" 'NR > 1 && $7 >= 0 { t += $7 - $3; k++ }
		END { d = t / k / 1e9 - s; exit !(d < 1e-6 && d > -1e-6) }' "$R/app/jobs.csv" ||
		fail "avg_jct_s $jct is not the mean JCT of the jobs done"
fi

# b's shuffle: cut, no end, no CCT; no flow ends after the horizon
awk -F, '$3 == "b" && $13 == "shuffle" && $7 == -1 { k++ } END { exit !k }' "$R/flows.csv" ||
	fail "no flow of b's shuffle is unfinished in flows.csv"
awk -F, -v h="$h" 'NR > 1 && $7 > h' "$R/flows.csv" | grep -q . &&
	fail "a flow ends after the horizon: $(awk -F, -v h="$h" 'NR > 1 && $7 > h' "$R/flows.csv")"
awk -F, '$2 == "b" && $6 == -1 && $7 == -1 { ok = 1 } END { exit !ok }' "$R/coflows.csv" ||
	fail "b's coflow has an end or a CCT: $(grep ',b,' "$R/coflows.csv")"
# no task process of the run is left
pgrep -f "$P" >/dev/null && fail "processes of $P left: $(pgrep -af "$P")"

finish
