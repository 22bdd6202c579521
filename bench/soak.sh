#!/bin/sh
# Soak: one long emulation, its descriptors and memory sampled every
# minute. The workload is FB-like (hyde gen fb, scale 0.005) with
# arrivals spread over MINUTES minutes (default 30) on TOPOLOGY (default
# rack8). Each minute it prints, for the controller (`hyde run`) and for
# the services it started (shuffle services, captures, crossbar: they live
# for the whole run) the open descriptors and resident memory, and how
# many task processes run. At the end: the run's result, and the growth
# of each figure from the second minute (the fabric is up, the services
# have started) to the last. A benchmark: it prints, never fails on time.
# Needs root. Usage: bench/soak.sh [MINUTES] [TOPOLOGY]
set -u
here=$(cd "$(dirname "$0")" && pwd)
HYDE=${HYDE:-$here/../hyde}
SRC=${HYDE_SRCDIR:-$here/..}
MIN=${1:-30}
TOPO=${2:-$SRC/topologies/rack8.topo}
P=hydesoak$$
[ "$(id -u)" = 0 ] || { echo "bench/soak.sh: needs root" >&2; exit 2; }
tmp=$(mktemp -d /tmp/hydesoak.XXXXXX)
run=
keep=
cleanup() {
	[ -n "$run" ] && kill "$run" 2>/dev/null && wait "$run" 2>/dev/null
	"$HYDE" clean --prefix $P >/dev/null 2>&1
	[ -n "$keep" ] || rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

jobs=$((MIN * 10))
# Shuffles capped at 1 GB: uncapped, seed 1 has a job of 18 GB (40 maps,
# 20 reduces) whose OCS fetches on 100 Mbit/s hosts outlast their circuit
# reservations; the controller gives the circuits to other pairs while
# they run, and after minutes without its circuit one fetch's connect
# timed out and failed the run (twice, at minute 21-22). That is the
# controller's to fix; a soak is about descriptors and memory.
"$HYDE" gen fb jobs=$jobs scale=0.005 span=$((MIN * 60 - 60))s seed=1 max_shuffle=1GB \
	-o "$tmp/soak.wl" >/dev/null || exit 1
echo "soak: $jobs FB-like jobs (scale 0.005, shuffle at most 1GB) arriving over $((MIN - 1)) minutes on $(basename "$TOPO"), sampled every minute"

fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
rss_kb() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status" 2>/dev/null; }
avail_mb() { echo $(($(sed -n 's/^MemAvailable:[[:space:]]*\([0-9]*\) kB/\1/p' /proc/meminfo) / 1024)); }

# one sample: controller fds, RSS (KB); services count, fds, RSS; tasks
sample() {
	cf=$(fds "$run")
	cr=$(rss_kb "$run")
	sn=0 sf=0 sr=0 tn=0
	for c in $(pgrep -P "$run"); do
		cmd=$( { tr '\0' ' ' <"/proc/$c/cmdline"; } 2>/dev/null)
		case $cmd in
		"") ;; # ended meanwhile
		*" task "*) tn=$((tn + 1)) ;;
		*)
			r=$(rss_kb "$c")
			sn=$((sn + 1))
			sf=$((sf + $(fds "$c")))
			sr=$((sr + ${r:-0}))
			;;
		esac
	done
	echo "${cf:-0} ${cr:-0} $sn $sf $sr $tn $(avail_mb)"
}

"$HYDE" run -t "$TOPO" -w "$tmp/soak.wl" -o "$tmp/run" --prefix $P >"$tmp/run.out" 2>"$tmp/run.err" &
run=$!
printf '%6s  %14s %14s  %9s %14s %14s  %6s  %12s\n' minute "ctl fds" "ctl RSS" services \
	"services fds" "services RSS" tasks "MemAvailable"
m=0
: >"$tmp/samples"
while kill -0 "$run" 2>/dev/null; do
	sleep 60
	kill -0 "$run" 2>/dev/null || break
	m=$((m + 1))
	s=$(sample)
	echo "$m $s" >>"$tmp/samples"
	set -- $s
	printf '%6s  %14s %11s MB  %9s %14s %11s MB  %6s  %9s MB\n' $m "$1" \
		"$(awk "BEGIN{printf \"%.1f\", $2 / 1024}")" "$3" "$4" \
		"$(awk "BEGIN{printf \"%.1f\", $5 / 1024}")" "$6" "$7"
done
wait "$run"
st=$?
run=
echo "run: exit status $st"
grep -E 'jobs |makespan|wall time|peak memory' "$tmp/run.out" | sed 's/^ */  /'
if [ $st != 0 ]; then
	grep -v '^hyde ocs' "$tmp/run.err" | tail -n 5
	keep=1
	echo "run directory kept: $tmp/run"
fi
# growth from minute 2 (everything started) to the last minute
awk 'NR == 2 { for (i = 2; i <= 8; i++) a[i] = $i }
     { for (i = 2; i <= 8; i++) { z[i] = $i; if ($i > mx[i] || NR == 2) mx[i] = $i } n = $1 }
     END {
	if (n < 3) { print "too short to compare"; exit }
	printf "minute 2 -> %d: controller fds %d -> %d (max %d), RSS %.1f -> %.1f MB (max %.1f)\n",
		n, a[2], z[2], mx[2], a[3] / 1024, z[3] / 1024, mx[3] / 1024
	printf "             services fds %d -> %d (max %d), RSS %.1f -> %.1f MB (max %.1f)\n",
		a[5], z[5], mx[5], a[6] / 1024, z[6] / 1024, mx[6] / 1024
     }' "$tmp/samples"
