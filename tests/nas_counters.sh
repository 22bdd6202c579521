#!/bin/sh
# nas -S counters: whose turn and skip counter a map takes in MTS. The
# paper's D_i are per user (counters=user, the default): a user whose
# other job has a node-local map launches that one and its counter starts
# again, so its job first in fair order, with no local map, waits for its
# block's host. Delay scheduling's are per job (counters=job): that job
# is skipped dm times, then launches where it is offered. Two hosts of two
# containers: hold fills r0h1 (small's block) for 60 s; user u1's small
# comes first in fair order, and its big has every block on r0h0.
. "${HYDE_SRCDIR}/tests/lib.sh"

printf 'racks 1\nhosts 2\ncontainers 2\nreplicas 1\nhost_rate 1Gbit\nuplink_rate 1Gbit\nocs no\n' \
	>"$tmpdir/c.topo"
cat >"$tmpdir/c.wl" <<'WL'
job id=hold user=u0 arrival=0s input=2MB shuffle=0B output=0B maps=2 reduces=0 map_time=60s input_hosts=r0h1
job id=long user=u1 arrival=0s input=1MB shuffle=0B output=0B maps=1 reduces=0 map_time=60s input_hosts=r0h0
job id=small user=u1 arrival=3s input=1MB shuffle=0B output=0B maps=1 reduces=0 map_time=1s input_hosts=r0h1
job id=big user=u1 arrival=3200ms input=20MB shuffle=0B output=0B maps=20 reduces=0 map_time=5s input_hosts=r0h0
WL
start_s() { # RUN JOB: the job's first task, in s of run time
	awk -F, -v j="$2" '$1 == j { printf "%d\n", $4 / 1e9 }' "$1/jobs.csv"
}
for c in user job; do
	expect_status 0 "$HYDE" sim -t "$tmpdir/c.topo" -w "$tmpdir/c.wl" -s nas -S tt=no -S dm=1 \
		-S counters=$c -o "$tmpdir/$c" -q
done
s=$(start_s "$tmpdir/user" small)
[ "$s" -ge 60 ] || fail "counters=user: small started at ${s}s, expected once r0h1 frees (60s)"
s=$(start_s "$tmpdir/job" small)
[ "$s" -ge 3 ] && [ "$s" -lt 10 ] || fail "counters=job: small started at ${s}s, expected at big's first map's end (8s)"
grep -q "^0 sched_options .*counters=job" "$tmpdir/job/events.log" || fail "counters=job not in sched_options"
# the default is the paper's: the same run as counters=user
"$HYDE" sim -t "$tmpdir/c.topo" -w "$tmpdir/c.wl" -s nas -S tt=no -S dm=1 -o "$tmpdir/default" -q ||
	fail "the default run failed"
cmp -s "$tmpdir/default/jobs.csv" "$tmpdir/user/jobs.csv" || fail "the default is not counters=user"
expect_status 2 "$HYDE" sim -t "$tmpdir/c.topo" -w "$tmpdir/c.wl" -s nas -S counters=pool -o "$tmpdir/bad" -q &&
	contains "$err" "counters: expected user or job, got 'pool'"
finish
