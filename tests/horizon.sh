#!/bin/sh
# --horizon in the simulator (no root): four DAGs of six jobs arriving
# over 40 s on tiny, run once to its end and once stopped at H, the middle
# of the full run's longest shuffle flow (so that the horizon cuts a flow
# in flight). The stopped run is a successful one (exit 0, run_end
# horizon); the run up to H does not depend on what comes after, so
# - a job is done in it iff it ended by H in the full run, its jobs.csv
#   line the full run's; the others say end -1;
# - the flow cut has end -1, and the coflows open at H have no CCT;
# - summary.json: jobs_done < jobs, horizon_s, avg JCT and CCT over the
#   finished ones only; dags_done and avg_wct_s over the DAGs whose end_s
#   is at most H in the full run (what Dawn counts as throughput).
# A horizon beyond the end changes no file but summary.json's two keys;
# hyde compare passes it on; bad values are refused (exit 2).
. "${HYDE_SRCDIR}/tests/lib.sh"

TOPO="$HYDE_SRCDIR/topologies/tiny.topo"
WL="gen:dag,dags=4,depth=3,width=2,input_min=2MB,input_max=8MB,span=40s,block=4MB,per_reduce=8MB"

# key FILE KEY: the first number after "KEY": in FILE
key() {
	tr -d '\n' <"$1" | sed -n "s/.*\"$2\": \\([-0-9.a-z]*\\).*/\\1/p" | head -1
}
# the first occurrence, not the last (paper_metrics repeats jobs_done)
key1() {
	grep -o "\"$2\": [-0-9.a-z]*" "$1" | head -1 | sed 's/.*: //'
}

expect_status 0 "$HYDE" sim -t "$TOPO" -w "$WL" -s dawn -o "$tmpdir/full" -q ||
	{ finish; }

# H: the middle of the longest shuffle flow
H=$(awk -F, 'NR > 1 && $13 == "shuffle" && $8 > best { best = $8; h = int(($6 + $7) / 2) } END { printf "%.0f\n", h }' \
	"$tmpdir/full/flows.csv")
[ "$H" -gt 0 ] || fail "no flow in the full run"

expect_status 0 "$HYDE" sim -t "$TOPO" -w "$WL" -s dawn -o "$tmpdir/h" -q --horizon "${H}ns"
grep ' run_end ' "$tmpdir/h/events.log" | grep -q ' run_end horizon$' ||
	fail "events.log's run_end is not horizon: $(grep ' run_end ' "$tmpdir/h/events.log")"
grep -q " horizon " "$tmpdir/h/events.log" || fail "no horizon line in events.log"
# no event after H
awk -v h="$H" '$1 + 0 > h { bad = $0 } END { if (bad) { print bad; exit 1 } }' \
	"$tmpdir/h/events.log" >"$tmpdir/late" || fail "an event after the horizon: $(cat "$tmpdir/late")"

jobs=$(key1 "$tmpdir/h/summary.json" jobs)
done_h=$(key1 "$tmpdir/h/summary.json" jobs_done)
[ "$(key "$tmpdir/h/summary.json" stopped_at_horizon)" = true ] || fail "stopped_at_horizon is not true"
hs=$(key "$tmpdir/h/summary.json" horizon_s)
awk -v a="$hs" -v h="$H" 'BEGIN { d = a * 1e9 - h; exit !(d < 1 && d > -1) }' ||
	fail "horizon_s $hs, expected ${H}ns"
[ "$done_h" -gt 0 ] && [ "$done_h" -lt "$jobs" ] ||
	fail "jobs_done $done_h of $jobs: the horizon should leave some done and some not"

# the jobs done by H in the full run are exactly those done, line for line
awk -F, -v h="$H" 'NR > 1 && $5 >= 0 && $5 <= h' "$tmpdir/full/jobs.csv" | sort >"$tmpdir/want"
awk -F, 'NR > 1 && $5 >= 0' "$tmpdir/h/jobs.csv" | sort >"$tmpdir/got"
cmp -s "$tmpdir/want" "$tmpdir/got" ||
	fail "finished jobs' lines differ from the full run's: $(diff "$tmpdir/want" "$tmpdir/got")"
[ "$(wc -l <"$tmpdir/got")" = "$done_h" ] || fail "jobs.csv has $(wc -l <"$tmpdir/got") jobs done, summary.json $done_h"
n_not=$(awk -F, 'NR > 1 && $5 == -1 && $6 == -1' "$tmpdir/h/jobs.csv" | wc -l)
[ "$n_not" = $((jobs - done_h)) ] || fail "$n_not jobs with end -1, expected $((jobs - done_h))"

# the flow cut: no end; the flows that ended are the full run's first lines
awk -F, 'NR > 1 && $7 == -1 && $6 >= 0 && $6 <= h' h="$H" "$tmpdir/h/flows.csv" | grep -q . ||
	fail "no flow in flight at the horizon has end -1"
awk -F, 'NR > 1 && $7 > h' h="$H" "$tmpdir/h/flows.csv" | grep -q . &&
	fail "a flow ends after the horizon"
awk -F, 'NR == 1 || $7 >= 0' "$tmpdir/h/flows.csv" >"$tmpdir/fh"
head -n "$(wc -l <"$tmpdir/fh")" "$tmpdir/full/flows.csv" | cmp -s - "$tmpdir/fh" ||
	fail "the flows done by the horizon differ from the full run's"

# averages over the finished only: JCT from jobs.csv, CCT from coflows.csv
awk -F, -v s="$(key1 "$tmpdir/h/summary.json" avg_jct_s)" \
	'NR > 1 && $6 >= 0 { t += $6; n++ } END { d = t / n / 1e9 - s; exit !(n && d < 1e-6 && d > -1e-6) }' \
	"$tmpdir/h/jobs.csv" || fail "avg_jct_s is not the mean JCT of the finished jobs"
awk -F, -v s="$(key1 "$tmpdir/h/summary.json" avg_cct_s)" \
	'NR > 1 && $7 >= 0 { t += $7; n++ } END { d = t / n / 1e9 - s; exit !(n && d < 1e-6 && d > -1e-6) }' \
	"$tmpdir/h/coflows.csv" || fail "avg_cct_s is not the mean CCT of the complete coflows"
awk -F, 'NR > 1 && $7 == -1' "$tmpdir/h/coflows.csv" | grep -q . ||
	fail "no coflow open at the horizon (cct -1)"

# bytes of the flows done: cross_rack_bytes is ocs_bytes + eps_bytes, the
# cut flow's bytes in neither
o=$(key1 "$tmpdir/h/summary.json" ocs_bytes)
e=$(key1 "$tmpdir/h/summary.json" eps_bytes)
x=$(key1 "$tmpdir/h/summary.json" cross_rack_bytes)
[ "$x" = $((o + e)) ] || fail "cross_rack_bytes $x is not ocs_bytes + eps_bytes $((o + e))"

# Dawn's throughput: the DAGs done by H, as counted afterwards on the full run
grep -o '"id": "d[0-9]*", "submit_s": [0-9.]*, "done": [a-z]*, "end_s": [-0-9.]*, "wct_s": [-0-9.]*' \
	"$tmpdir/full/summary.json" |
	awk -v h="$H" '{ gsub(/,/, ""); if ($6 == "true" && $8 * 1e9 <= h) { n++; w += $10 } }
		END { printf "%d %.6f\n", n, n ? w / n : 0 }' >"$tmpdir/dags.want"
printf '%s %s\n' "$(key "$tmpdir/h/summary.json" dags_done)" \
	"$(key "$tmpdir/h/summary.json" avg_wct_s)" >"$tmpdir/dags.got"
# (the full run's wct_s have 6 decimals)
awk 'NR == FNR { n = $1; w = $2; next } { d = $2 - w; exit !($1 == n && d < 2e-6 && d > -2e-6) }' \
	"$tmpdir/dags.want" "$tmpdir/dags.got" ||
	fail "dags_done, avg_wct_s $(cat "$tmpdir/dags.got"); the full run's DAGs done by H: $(cat "$tmpdir/dags.want")"
read -r ndags _ <"$tmpdir/dags.want"
[ "$ndags" -lt 4 ] || fail "every DAG is done by the horizon: the test cuts none"

# a horizon beyond the end: the same run, byte for byte
expect_status 0 "$HYDE" sim -t "$TOPO" -w "$WL" -s dawn -o "$tmpdir/far" -q --horizon 1h
for f in flows.csv coflows.csv jobs.csv app/jobs.csv app/coflows.csv app/paper_metrics.json; do
	cmp -s "$tmpdir/full/$f" "$tmpdir/far/$f" || fail "--horizon 1h changed $f"
done
# events.log too, but the horizon it names among the run's options
sed 's/^\([0-9]* run_options .*\) horizon=3600s$/\1 horizon=0/' "$tmpdir/far/events.log" |
	cmp -s - "$tmpdir/full/events.log" ||
	fail "--horizon 1h changed events.log: $(diff "$tmpdir/full/events.log" "$tmpdir/far/events.log" | head -5)"
grep -v -e '"horizon_s": 3600.000000000,' -e '"stopped_at_horizon": false,' \
	"$tmpdir/far/summary.json" | cmp -s - "$tmpdir/full/summary.json" ||
	fail "--horizon 1h changed summary.json beyond horizon_s: $(diff "$tmpdir/full/summary.json" "$tmpdir/far/summary.json")"

# hyde compare passes it on to every run
expect_status 0 "$HYDE" compare --backend sim -t "$TOPO" -w "$WL" -s fair,dawn -q \
	--horizon "${H}ns" -o "$tmpdir/cmp"
awk -F, -v n="$jobs" 'NR > 1 { k++; if ($4 != 1 || $6 >= n || $6 < 1) bad = 1 }
	END { exit !(k == 2 && !bad) }' "$tmpdir/cmp/compare.csv" ||
	fail "compare --horizon: expected two ok runs with some jobs not done: $(cat "$tmpdir/cmp/compare.csv")"
grep -q ' run_end horizon$' "$tmpdir/cmp/dawn/events.log" ||
	fail "compare --horizon: the dawn run did not stop at the horizon"

# bad values: one message, exit 2, nothing run
for v in 0 0s -5s 10parsecs '' 1x; do
	for c in sim run; do
		expect_status 2 "$HYDE" $c -t "$TOPO" -w "$WL" -o "$tmpdir/bad" --horizon "$v" &&
			contains "$err" "--horizon: expected" &&
			{ [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "$c --horizon '$v': more than one line: $err"; }
	done
	expect_status 2 "$HYDE" compare --backend sim -t "$TOPO" -w "$WL" -o "$tmpdir/bad" --horizon "$v" &&
		contains "$err" "--horizon: expected"
done
[ -e "$tmpdir/bad" ] && fail "a refused --horizon left $tmpdir/bad"

finish
