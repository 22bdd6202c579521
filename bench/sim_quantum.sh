#!/bin/sh
# What hyde sim's speed-for-exactness trades, all off by default, cost in
# exactness and gain in time: --rate-quantum Q (rates recomputed at most
# once per Q), -B end_grid=G (flows end at the nearest multiple of G),
# -B fetch=rack (a reduce fetches per rack, not per host) and, with a
# quantum, -B join_share (join: a flow that starts between two
# computations runs at once at what its links have left); a trade joins
# several with '+' (rack+grid=10ms, 1s+join).
# Each workload run exactly and with each; per run the CPU time and,
# against the exact run, the error of the makespan, the average JCT and
# CCT, and of each job's JCT (median, p99, max, paired by job). Prints
# figures, never fails on them.
# Usage: bench/sim_quantum.sh [Q|grid=G|rack|join|A+B...]   (default 1ms 10ms; from the
# build tree, or HYDE=path/to/hyde); BENCH_BIG=1 adds paper60 at scale 0.1
# (several CPU-minutes exact); BENCH_SCHEDS="fair neat ..." the schedulers
# (default fair), BENCH_CASES="paper60-s0.1 ..." some of the workloads,
# BENCH_SIM_OPTS="--fetch-order random ..." options for every run, exact
# ones too.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
HYDE=${HYDE:-$here/../hyde}
[ $# -gt 0 ] || set -- 1ms 10ms
QUANTA="$*"
tmp=$(mktemp -d /tmp/hydequantum.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
command -v /usr/bin/time >/dev/null 2>&1 || { echo "bench/sim_quantum.sh: needs /usr/bin/time (GNU time)" >&2; exit 2; }

# sim DIR TOPO WL [OPTIONS...]: run; prints its CPU seconds
sim() {
	dir=$1 topo=$2 wl=$3
	shift 3
	# shellcheck disable=SC2086 # (options, split on purpose)
	/usr/bin/time -f '%U %S' -o "$tmp/time" "$HYDE" sim -t "$topo" -w "$wl" -o "$dir" -q ${BENCH_SIM_OPTS:-} "$@" ||
		{ echo "bench/sim_quantum.sh: hyde sim failed on $wl $*" >&2; exit 1; }
	awk '{ printf "%.2f", $1 + $2 }' "$tmp/time"
}

# figures DIR: makespan_s avg_jct_s avg_cct_s
figures() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ a = $c["arrival_ns"]; e = $c["end_ns"]; j = $c["jct_ns"];
		  if (first == "" || a < first) first = a; if (e > last) last = e; t += j; n++ }
		END { printf "%.6f %.6f", (last - first) / 1e9, t / n / 1e9 }' "$1/jobs.csv"
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["bytes"] > 0 && $c["cct_ns"] >= 0 { t += $c["cct_ns"]; n++ }
		END { printf " %.6f\n", n ? t / n / 1e9 : 0 }' "$1/coflows.csv"
}

# jct_err EXACT APPROX: median p99 max of |JCT error| / JCT, by job
jct_err() {
	for d in "$1" "$2"; do
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["job"], $c["jct_ns"] }' \
			"$d/jobs.csv" | sort >"$tmp/$(basename "$d").j"
	done
	join "$tmp/$(basename "$1").j" "$tmp/$(basename "$2").j" |
		awk '{ d = $3 - $2; if (d < 0) d = -d; print ($2 > 0 ? d / $2 : 0) }' | sort -g |
		awk '{ v[NR] = $1 } END { printf "%.2e %.2e %.2e", v[int((NR + 1) / 2)], v[int(NR * 0.99 + 0.999)], v[NR] }'
}

pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.3f%%", b ? 100 * (a / b - 1) : 0 }'; }

"$HYDE" gen fb jobs=1000 seed=1 scale=0.01 -o "$tmp/fb001.wl" >/dev/null ||
	{ echo "bench/sim_quantum.sh: hyde gen fb failed" >&2; exit 2; }
cases="rack8|$src/topologies/rack8.topo|$src/workloads/fb-small.wl
paper60-s0.01|$src/topologies/paper60.topo|$tmp/fb001.wl"
if [ "${BENCH_BIG:-0}" = 1 ]; then
	"$HYDE" gen fb jobs=1000 seed=1 scale=0.1 -o "$tmp/fb01.wl" >/dev/null ||
		{ echo "bench/sim_quantum.sh: hyde gen fb failed" >&2; exit 2; }
	cases="$cases
paper60-s0.1|$src/topologies/paper60.topo|$tmp/fb01.wl"
fi

SCHEDS=${BENCH_SCHEDS:-fair}
echo "hyde sim --rate-quantum Q, -B end_grid=G, -B fetch=rack, -B join_share: speed and error against the exact run${BENCH_SIM_OPTS:+ (every run: $BENCH_SIM_OPTS)}"
printf '%-16s %-14s %-10s %9s %8s %11s %11s %11s   %s\n' workload scheduler trade "cpu (s)" speedup makespan "avg JCT" "avg CCT" \
	"|JCT err| per job: median p99 max"
for sched in $SCHEDS; do
	printf '%s\n' "$cases" | while IFS='|' read -r name topo wl; do
		case " ${BENCH_CASES:-$name} " in *" $name "*) ;; *) continue ;; esac
		ce=$(sim "$tmp/$name-exact" "$topo" "$wl" -s "$sched") || exit 1
		set -- $(figures "$tmp/$name-exact")
		me=$1 je=$2 cce=$3
		printf '%-16s %-14s %-10s %9s %8s %11s %11s %11s\n' "$name" "$sched" exact "$ce" 1.0x "${me}s" "${je}s" "${cce}s"
		for q in $QUANTA; do
			opt=
			for part in $(echo "$q" | tr + ' '); do
				case $part in
				grid=*) opt="$opt -B end_grid=${part#grid=}" ;;
				rack) opt="$opt -B fetch=rack" ;;
				join) opt="$opt -B join_share=yes" ;;
				*) opt="$opt --rate-quantum $part" ;;
				esac
			done
			cq=$(sim "$tmp/$name-$q" "$topo" "$wl" -s "$sched" $opt) || exit 1
			set -- $(figures "$tmp/$name-$q")
			printf '%-16s %-14s %-10s %9s %8s %11s %11s %11s   %s\n' "" "" "$q" "$cq" \
				"$(awk -v a="$ce" -v b="$cq" 'BEGIN { printf "%.1fx", (b > 0 ? a / b : 0) }')" \
				"$(pct "$1" "$me")" "$(pct "$2" "$je")" "$(pct "$3" "$cce")" \
				"$(jct_err "$tmp/$name-exact" "$tmp/$name-$q")"
		done
	done
done
