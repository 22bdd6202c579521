#!/bin/sh
# COBRA's surface on the command line, in the simulator: the generators
# (byte-identical for a seed, Table III's mix, the stand-in's shapes), the
# new topology and workload keys and their errors (one message, exit 2),
# what hyde validate says, and the run directory of a container-holding
# scheduler (app/apps.csv, app/containers.csv, the events).
. "${HYDE_SRCDIR}/tests/lib.sh"

T28="$HYDE_SRCDIR/topologies/cobra28.topo"

# ---- generators ----
expect_status 0 "$HYDE" gen spark seed=3 apps=40 -o "$tmpdir/a.wl"
expect_status 0 "$HYDE" gen spark seed=3 apps=40 -o "$tmpdir/b.wl"
cmp -s "$tmpdir/a.wl" "$tmpdir/b.wl" || fail "gen spark: the same seed gave two files"
head -1 "$tmpdir/a.wl" | grep -qx '# hyde gen spark seed=3 apps=40' ||
	fail "gen spark: first line $(head -1 "$tmpdir/a.wl")"
# every app's jobs share its app=, arrive together; Table III: no large
# Wordcount, ML or PageRank, no small TPC-H
awk '/^job/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	if (v["app"] == "") { print "no app= on " v["id"]; bad = 1 }
	if (v["app"] in at && at[v["app"]] != v["arrival"]) { print "arrivals differ in " v["app"]; bad = 1 }
	at[v["app"]] = v["arrival"]; delete v }
	END { exit bad }' "$tmpdir/a.wl" || fail "gen spark: apps not as expected"
grep -E '^job id=(wordcount|ml|pagerank)[0-9]+\.s0 .* input=10GB' "$tmpdir/a.wl" &&
	fail "gen spark: a large Wordcount, ML or PageRank (N/A in Table III)"
grep -qE '^job id=tpch[0-9]+\.s0 .* input=7GB' "$tmpdir/a.wl" ||
	fail "gen spark seed=3: no large TPC-H (14% of 40 apps expected)"
expect_status 0 "$HYDE" validate -t "$T28" -w "$tmpdir/a.wl" &&
	contains "$out" "apps         40 (jobs sharing app=)" &&
	contains "$out" "resources    2 cores, 4GB per host; a default container 1 cores, 2GB"
expect_status 0 "$HYDE" gen gtrace seed=2 apps=50 -o "$tmpdir/g.wl"
expect_status 0 "$HYDE" gen gtrace seed=2 apps=50 -o "$tmpdir/g2.wl"
cmp -s "$tmpdir/g.wl" "$tmpdir/g2.wl" || fail "gen gtrace: the same seed gave two files"
n=$(awk '/^job/ { for (i = 2; i <= NF; i++) if ($i ~ /^app=/) a[$i] = 1 } END { print length(a) }' "$tmpdir/g.wl")
[ "$n" = 50 ] || fail "gen gtrace apps=50 made $n apps"
expect_status 0 "$HYDE" gen gtrace apps=2 mean_gap=0s tasks_min=2000 tasks_max=2000 two_stage=0 three_stage=0 -o "$tmpdir/big.wl" &&
	[ "$(grep -c 'maps=2000 ' "$tmpdir/big.wl")" = 2 ] || fail "gen gtrace: tasks_min/tasks_max not kept"
expect_status 2 "$HYDE" gen spark only=sort -o "$tmpdir/no.wl" && contains "$err" "only: expected wordcount, tpch, ml or pagerank"
expect_status 2 "$HYDE" gen gtrace tasks_min=9 tasks_max=3 -o "$tmpdir/no.wl" && contains "$err" "tasks_min"
[ -e "$tmpdir/no.wl" ] && fail "a refused generator wrote its file"

# ---- bad input: one message naming file and line, exit 2 ----
base="replicas 1
racks 1
hosts 2
containers 2
host_rate 1Gbit
oversub 1
ocs no"
for bad in "cores 0" "cores lots" "memory 10" "container_delay soon" "container_delay table1:0" \
	"cpu_scale 2" "mem_scale 1/0"; do
	printf '%s\n%s\n' "$base" "$bad" >"$tmpdir/bad.topo"
	expect_status 2 "$HYDE" validate -t "$tmpdir/bad.topo" &&
		contains "$err" "bad.topo:8: ${bad%% *}:"
done
printf '%s\ncores 4\nmemory 8GB\ncontainer_delay exp:500ms\n' "$base" >"$tmpdir/ok.topo"
expect_status 0 "$HYDE" validate -t "$tmpdir/ok.topo" &&
	contains "$out" "4 cores, 8GB per host; a default container 2 cores, 4GB" &&
	contains "$out" "container response exponential, mean 500ms"
j='job id=a arrival=0s input=1MB shuffle=0B output=0B maps=1 reduces=0 map_time=1s'
for bad in "map_cpu=0" "map_cpu=x" "reduce_cpu=-1" "map_mem=0B" "map_mem=big" "app=a/b"; do
	printf '%s %s\n' "$j" "$bad" >"$tmpdir/bad.wl"
	expect_status 2 "$HYDE" validate -w "$tmpdir/bad.wl" &&
		contains "$err" "bad.wl:1: ${bad%%=*}:"
done

# ---- a run: the app's and the containers' records ----
printf '%s\ncores 2\nmemory 4GB\ncontainer_delay 1s\n' "$base" >"$tmpdir/two.topo"
cat >"$tmpdir/w.wl" <<'EOF'
job id=x.s0 app=x arrival=0s input=4MB shuffle=1MB output=1MB maps=4 reduces=1 map_time=3s reduce_time=1s map_cpu=0.5 map_mem=1GB reduce_cpu=0.5 reduce_mem=1GB
job id=x.s1 app=x arrival=0s input=parents shuffle=0B output=0B maps=1 reduces=0 map_time=2s map_cpu=0.25 map_mem=500MB parents=x.s0
job id=y.s0 app=y arrival=2s input=2MB shuffle=0B output=0B maps=2 reduces=0 map_time=2s map_cpu=0.25 map_mem=500MB
EOF
for s in cobra default srs drs tetris; do
	expect_status 0 "$HYDE" sim -t "$tmpdir/two.topo" -w "$tmpdir/w.wl" -s $s -o "$tmpdir/$s" -q || continue
	head -1 "$tmpdir/$s/app/apps.csv" | grep -qx 'app,user,jobs,tasks,submit_ns,arrival_ns,end_ns,response_ns,containers,container_s' ||
		fail "$s: apps.csv header $(head -1 "$tmpdir/$s/app/apps.csv")"
	awk -F, 'NR > 1 && ($7 < 0 || $8 != $7 - $6) { bad = 1 } END { exit bad }' "$tmpdir/$s/app/apps.csv" ||
		fail "$s: an app not done, or its response not end - arrival"
	grep -q '^x,default,2,6,' "$tmpdir/$s/app/apps.csv" || fail "$s: app x is not 2 jobs of 6 tasks"
	# every task ran in a container of its app, granted 1s after asked,
	# released by the end, and ran at most what fits
	awk -F, 'NR > 1 { if ($7 - $6 != 1000000000 && $7 >= 0) { print "container " $1 " took " $7 - $6; bad = 1 }
		if ($8 < 0) { print "container " $1 " never released"; bad = 1 } }
		END { exit bad }' "$tmpdir/$s/app/containers.csv" || fail "$s: containers.csv: see above"
	starts=$(grep -c ' task_start ' "$tmpdir/$s/events.log")
	inc=$(grep -c ' task_container ' "$tmpdir/$s/events.log")
	[ "$starts" = 8 ] && [ "$inc" = 8 ] || fail "$s: $starts tasks started, $inc in containers"
done
# default: a container per task; cobra: fewer, reused
[ "$(awk 'END { print NR - 1 }' "$tmpdir/default/app/containers.csv")" = 8 ] ||
	fail "default: not one container per task"
[ "$(awk -F, 'NR > 1 && $9 > 1' "$tmpdir/cobra/app/containers.csv" | wc -l)" -ge 1 ] ||
	fail "cobra: no container ran more than one task"
grep -q ' sched cobra: app x period 1: ' "$tmpdir/cobra/events.log" || fail "cobra: no Af period logged"
# a scheduler that holds no containers writes apps.csv alone
expect_status 0 "$HYDE" sim -t "$tmpdir/two.topo" -w "$tmpdir/w.wl" -s fair -o "$tmpdir/fair" -q &&
	[ -f "$tmpdir/fair/app/apps.csv" ] && [ ! -e "$tmpdir/fair/app/containers.csv" ] ||
	fail "fair: apps.csv without containers.csv expected"
finish
