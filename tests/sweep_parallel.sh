#!/bin/sh
# hyde sweep --parallel: the commands run by GNU parallel (Debian's
# parallel package, which ./quickstart installs), on this machine and
# through --sshloginfile (':' is this machine in its notation, as a
# cluster's file lists ssh logins); the run directories are the same as
# hyde sweep's own runs give, and a sweep run again resumes.
. "${HYDE_SRCDIR}/tests/lib.sh"

if ! command -v parallel >/dev/null 2>&1 || ! parallel --version 2>/dev/null | grep -q 'GNU parallel'; then
	echo "SKIP: needs GNU parallel (apt-get install parallel)" >&2
	exit 77
fi

T="$HYDE_SRCDIR/topologies"
W="$HYDE_SRCDIR/workloads"
cat >"$tmpdir/p.spec" <<EOF
topology  $T/rack8.topo
workload  $W/fb-small.wl
scheduler fair coscheduler
option    heartbeat 1s 0
seed      3
EOF

expect_status 0 "$HYDE" sweep "$tmpdir/p.spec" -o "$tmpdir/local" -j 2 -q
expect_status 0 "$HYDE" sweep "$tmpdir/p.spec" -o "$tmpdir/par" --parallel -j 2 &&
	contains "$out" "through GNU parallel" && contains "$out" "4 of 4 runs done"
# GNU parallel's own record: 4 jobs, every one exit 0
[ "$(tail -n +2 "$tmpdir/par/parallel.log" | awk -F'\t' '$7 == 0' | wc -l)" = 4 ] ||
	fail "parallel.log: $(cat "$tmpdir/par/parallel.log")"
for d in "$tmpdir"/local/runs/*/; do
	n=$(basename "$d")
	for f in flows.csv jobs.csv coflows.csv; do
		cmp -s "$d/$f" "$tmpdir/par/runs/$n/$f" || fail "$n/$f: GNU parallel's run differs from the local one"
	done
done
# again: GNU parallel's --resume runs nothing more (its log as it was)
cp "$tmpdir/par/parallel.log" "$tmpdir/joblog.before"
expect_status 0 "$HYDE" sweep "$tmpdir/p.spec" -o "$tmpdir/par" --parallel -j 2
cmp -s "$tmpdir/par/parallel.log" "$tmpdir/joblog.before" ||
	fail "the sweep run again ran jobs again: $(cat "$tmpdir/par/parallel.log")"

# through an ssh login file
printf '2/:\n' >"$tmpdir/logins"
expect_status 0 "$HYDE" sweep "$tmpdir/p.spec" -o "$tmpdir/ssh" --parallel --sshloginfile "$tmpdir/logins" &&
	contains "$out" "4 of 4 runs done"
cmp -s "$tmpdir/local/runs/0003_coscheduler_heartbeat=0/jobs.csv" "$tmpdir/ssh/runs/0003_coscheduler_heartbeat=0/jobs.csv" ||
	fail "--sshloginfile run 3 differs"
expect_status 0 "$HYDE" compare --from "$tmpdir/ssh" -o "$tmpdir/ssh-cmp" -q && contains "$out" "coscheduler heartbeat=0"
expect_status 2 "$HYDE" sweep "$tmpdir/p.spec" -o "$tmpdir/x" --sshloginfile "$tmpdir/logins" &&
	contains "$err" "--sshloginfile goes with --parallel"
expect_status 2 "$HYDE" sweep "$tmpdir/p.spec" -o "$tmpdir/x" --parallel --sshloginfile "$tmpdir/none" &&
	contains "$err" "$tmpdir/none"

finish
