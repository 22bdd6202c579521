#!/bin/sh
# Containers in emulation are cgroups (root): each a cgroup with the CPU
# quota and memory limit its size gives (scaled by the topology's
# cpu_scale and mem_scale, plus the headroom for the processes' own work),
# its tasks' processes in it, which burn their declared cores and hold
# their declared memory; the controller reads the cgroup's counters each
# heartbeat period (what it read is in events.log beside what the tasks
# declare); every cgroup is gone after the run, and hyde clean removes
# those a crash left.
. "${HYDE_SRCDIR}/tests/lib.sh"
require_root
P=$(test_prefix cg)
trap '"$HYDE" clean --prefix $P >/dev/null 2>&1; rm -rf "$tmpdir"' EXIT

cat >"$tmpdir/c.topo" <<'EOT'
racks 1
hosts 2
containers 2
cores 2
memory 4GB
replicas 1
container_delay 200ms
host_rate 100Mbit
oversub 1
ocs no
cpu_scale 0.05
mem_scale 1/64
EOT
# two maps of half a container each: cobra packs both in its one container
cat >"$tmpdir/c.wl" <<'EOT'
job id=a app=a arrival=0s input=2MB shuffle=0B output=0B maps=2 reduces=0 map_time=8s map_cpu=0.5 map_mem=1GB
EOT
"$HYDE" run -t "$tmpdir/c.topo" -w "$tmpdir/c.wl" -s cobra -S tau=0 --heartbeat 1s \
	--prefix "$P" --no-analyze -q -o "$tmpdir/run" >"$tmpdir/run.out" 2>&1 &
pid=$!

# while it runs: the container's cgroup and its settings
ev="$tmpdir/run/events.log"
layout=""
i=0
while [ $i -lt 300 ] && kill -0 $pid 2>/dev/null; do
	layout=$(sed -n 's/^[0-9]* containers //p' "$ev" 2>/dev/null)
	[ -n "$layout" ] && break
	sleep 0.1
	i=$((i + 1))
done
[ -n "$layout" ] || fail "no 'containers' line in events.log (which cgroup layout)"
case "$layout" in
"cgroup v1:"*)
	cpu=$(echo "$layout" | sed 's/.*cpu at \([^,]*\),.*/\1/')
	mem=$(echo "$layout" | sed 's/.*memory at \([^,]*\)$/\1/')
	qfile="$cpu/hyde/$P/c0/cpu.cfs_quota_us"
	pfile="$cpu/hyde/$P/c0/cpu.cfs_period_us"
	lfile="$mem/hyde/$P/c0/memory.limit_in_bytes"
	procs="$cpu/hyde/$P/c0/cgroup.procs"
	quota() { cat "$qfile"; }
	period() { cat "$pfile"; }
	limit() { cat "$lfile"; }
	;;
"cgroup v2"*)
	root=$(echo "$layout" | sed 's/cgroup v2 at \([^ ]*\).*/\1/')
	qfile="$root/hyde/$P/c0/cpu.max"
	procs="$root/hyde/$P/c0/cgroup.procs"
	quota() { cut -d' ' -f1 "$qfile"; }
	period() { cut -d' ' -f2 "$qfile"; }
	limit() { cat "$root/hyde/$P/c0/memory.max"; }
	;;
*) fail "unknown layout: $layout" ;;
esac
if [ -n "${qfile:-}" ]; then
	i=0
	while [ $i -lt 100 ] && [ ! -f "$qfile" ]; do sleep 0.1; i=$((i + 1)); done
	# 1 core x 0.05 + 0.25 headroom over 100ms; 2GB / 64 + 32MiB
	[ "$(period)" = 100000 ] || fail "CPU period $(period), expected 100000us"
	[ "$(quota)" = 30000 ] || fail "CPU quota $(quota)us, expected 30000us (1 core x 0.05 + 0.25)"
	# (the kernel keeps whole pages)
	want=$(((31250000 + 33554432) / $(getconf PAGESIZE) * $(getconf PAGESIZE)))
	[ "$(limit)" = "$want" ] || fail "memory limit $(limit), expected $want (64804432 in pages)"
	i=0
	while [ $i -lt 100 ] && [ "$(wc -l <"$procs" 2>/dev/null || echo 0)" -lt 2 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(wc -l <"$procs")" = 2 ] || fail "$(wc -l <"$procs") processes in the container's cgroup, expected its 2 tasks"
fi
wait $pid || fail "hyde run failed: $(cat "$tmpdir/run.out")"

# what the cgroup counted while both tasks worked (declared: the whole
# container's CPU, and its memory), within 30% on average: the use the
# scheduler reads ($4: the work at its scale, the rest as it is) and the
# cgroup's whole count at the tasks' scale ("counted": burn() did burn)
awk '$2 == "container_usage" && $3 == 0 && $6 == "declared" && $7 == "1.0000" && $9 == "counted" {
		c += $4; m += $5; k += $10; n++ }
	END { if (n < 3) { print "only " n " samples with both tasks working"; exit 1 }
		c /= n; m /= n; k /= n
		if (c < 0.7 || c > 1.3) { print "CPU " c " of the container, declared 1"; exit 1 }
		if (k < 0.7 || k > 1.3) { print "CPU counted " k " of the container, declared 1"; exit 1 }
		if (m < 0.7 || m > 1.3) { print "memory " m " of the container, declared 1"; exit 1 } }' "$ev" >"$tmpdir/usage" ||
	fail "measured use: $(cat "$tmpdir/usage")"
[ -n "${VERBOSE:-}" ] && awk '$2 == "container_usage"' "$ev"
grep -q '^0,a,r0h[01],1,2000000000,' "$tmpdir/run/app/containers.csv" ||
	fail "containers.csv: $(cat "$tmpdir/run/app/containers.csv")"
[ "$(grep -c ' task_container a map [01] 0$' "$ev")" = 2 ] || fail "both maps not in container 0"

# nothing left behind
for d in /sys/fs/cgroup/*/hyde/$P /sys/fs/cgroup/unified/hyde/$P; do
	[ -e "$d" ] && fail "cgroup $d left after the run"
done

# hyde clean removes what a crash left
case "$layout" in
"cgroup v1:"*) mkdir -p "$cpu/hyde/$P/c9" "$mem/hyde/$P/c9" ;;
*) mkdir -p "$root/hyde/$P/c9" ;;
esac
expect_status 0 "$HYDE" clean --prefix "$P"
for d in /sys/fs/cgroup/*/hyde/$P; do
	[ -e "$d" ] && fail "hyde clean left $d"
done
finish
