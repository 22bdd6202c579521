#!/bin/sh
# NAS's CA-RTS reduce number (eq. 4) counts each rack's finished maps'
# output and its running maps' predicted output. reduce_cands reads the
# running maps from the first that may still run to the last running one
# (a job with no map pending has none that starts again); under
# HYDE_SIM_VERIFY every such sum is checked, to the bit, against the loop
# over all the job's maps, and a difference ends the run. Three jobs of
# three users on nine hosts of two containers, slowstart 0: each job's
# reduces start while some of its maps still run (checked in events.log).
. "${HYDE_SRCDIR}/tests/lib.sh"

printf 'racks 3\nhosts 3\ncontainers 2\nhost_rate 1Gbit\nuplink_rate 1Gbit\nocs no\n' >"$tmpdir/c.topo"
cat >"$tmpdir/c.wl" <<'WL'
job id=a user=u0 arrival=0s input=400MB shuffle=200MB output=0B maps=40 reduces=6 map_time=2s reduce_time=1s
job id=b user=u1 arrival=1s input=300MB shuffle=300MB output=0B maps=30 reduces=4 map_time=3s reduce_time=1s
job id=c user=u2 arrival=2s input=200MB shuffle=20MB output=0B maps=20 reduces=3 map_time=1s reduce_time=1s
WL
HYDE_SIM_VERIFY=1
export HYDE_SIM_VERIFY
expect_status 0 "$HYDE" sim -t "$tmpdir/c.topo" -w "$tmpdir/c.wl" -s nas -S slowstart=0 \
	-o "$tmpdir/run" -q
unset HYDE_SIM_VERIFY
# every job's first reduce started before its last map ended
early=$(awk '$2 == "task_start" && $4 == "reduce" && !($3 in first) { first[$3] = $1 }
	$2 == "task_done" && $4 == "map" { last[$3] = $1 }
	END { for (j in first) n += first[j] < last[j]; print n + 0 }' "$tmpdir/run/events.log")
[ "$early" = 3 ] || fail "$early of 3 jobs had a reduce start while a map ran"
# and the run is the same without the check
"$HYDE" sim -t "$tmpdir/c.topo" -w "$tmpdir/c.wl" -s nas -S slowstart=0 -o "$tmpdir/plain" -q ||
	fail "the run without HYDE_SIM_VERIFY failed"
for f in jobs.csv flows.csv events.log; do
	cmp -s "$tmpdir/run/$f" "$tmpdir/plain/$f" || fail "HYDE_SIM_VERIFY changed $f"
done
finish
