#!/bin/sh
# tests/limit.sh, the suite's time limit: a test that hangs (here a shell
# waiting on a pipe that never closes, under it a sleep) is reported with
# its processes, what each waits in and its run's last events, ended by
# PID within the limit and a little, and fails; its own clean-up still
# runs. A test that ends in
# time keeps its own exit status (0, 1 and 77, the skip).
. "${HYDE_SRCDIR}/tests/lib.sh"
L="$HYDE_SRCDIR/tests/limit.sh"

cat >"$tmpdir/hang.sh" <<'EOS'
trap 'echo cleaned >"$(dirname "$0")/cleaned"' EXIT
d=$(dirname "$0")/run
mkdir -p "$d" && printf '0 run_start\n5 the last event\n' >"$d/events.log"
sh -c 'sleep 3600' run -o "$d" | cat
echo "the pipe ended" >&2
exit 0
EOS
start=$(date +%s)
HYDE_TEST_LIMIT=2 sh "$L" "$tmpdir/hang.sh" >"$tmpdir/out" 2>&1
rc=$?
took=$(($(date +%s) - start))
[ "$rc" = 1 ] || fail "a hung test exited $rc under the limit, expected 1: $(cat "$tmpdir/out")"
grep -q "did not end within 2s" "$tmpdir/out" || fail "no verdict: $(cat "$tmpdir/out")"
grep -q "^== .*sleep 3600" "$tmpdir/out" || fail "the hung sleep is not listed: $(cat "$tmpdir/out")"
grep -q "waits in: " "$tmpdir/out" || fail "no wait channel: $(cat "$tmpdir/out")"
grep -q "^   5 the last event" "$tmpdir/out" || fail "the run's last events are not shown: $(cat "$tmpdir/out")"
[ -e "$tmpdir/cleaned" ] || fail "the hung test's own clean-up did not run"
# the sleep was ended, not left behind (no other test of the suite runs
# a sleep of an hour)
[ "$took" -lt 60 ] || fail "the hung test took ${took}s to end under a 2s limit"
n=0
while pgrep -f "^sleep 3600$" >/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
pgrep -f "^sleep 3600$" >/dev/null && fail "the hung test's sleep is still running"

for want in 0 1 77; do
	printf 'exit %s\n' "$want" >"$tmpdir/quick.sh"
	HYDE_TEST_LIMIT=30 sh "$L" "$tmpdir/quick.sh" >"$tmpdir/out" 2>&1
	rc=$?
	[ "$rc" = "$want" ] || fail "a test that exits $want exited $rc under the limit"
	[ -s "$tmpdir/out" ] && fail "a test that ended in time: limit.sh said $(cat "$tmpdir/out")"
done
finish
