#!/bin/sh
# NAS and ShuffleWatcher on the emulated fabric (root): rack8 with the
# small workload, run by `hyde run -s nas` (all mechanisms, and MTS alone)
# and `-s shufflewatcher`. Asserts: every job done; NAS placed every map
# through MTS and every reduce through CA-RTS / CR-RTS (or, MTS alone, the
# plain reduce path), as its log line counts them; ShuffleWatcher logged
# its held reduce offers.
. "${HYDE_SRCDIR}/tests/lib.sh"
require_root

P=$(test_prefix tnas)
cleanup() {
	"$HYDE" clean --prefix "$P" >/dev/null 2>&1
	rm -rf "$tmpdir"
}
trap cleanup EXIT

T="$HYDE_SRCDIR/topologies/rack8.topo"
W="$HYDE_SRCDIR/workloads/small.wl"
maps=$(awk '/^job/ { for (i = 2; i <= NF; i++) if ($i ~ /^maps=/) { split($i, a, "="); n += a[2] } } END { print n }' "$W")
reduces=$(awk '/^job/ { for (i = 2; i <= NF; i++) if ($i ~ /^reduces=/) { split($i, a, "="); n += a[2] } } END { print n }' "$W")
jobs=$(grep -c '^job' "$W")

# done RUN: every job of the workload ended
all_done() {
	awk -F, -v want="$jobs" 'NR > 1 { n++; if ($7 < 0) bad++ } END { exit !(n == want && !bad) }' \
		"$tmpdir/$1/app/jobs.csv" || fail "$1: not every job ended: $(cat "$tmpdir/$1/app/jobs.csv")"
}

# counted RUN KEY: the number after KEY= in the scheduler's last log line
counted() {
	grep "sched nas: " "$tmpdir/$1/events.log" | tail -1 | tr ' ,' '\n\n' |
		awk -F= -v k="$2" '$1 == k { print $2 }'
}

expect_status 0 "$HYDE" run -t "$T" -w "$W" -s nas -o "$tmpdir/nas" --prefix "$P" -q &&
	all_done nas
m=$(( $(counted nas local) + $(counted nas category) + $(counted nas fallback) ))
[ "$m" = "$maps" ] || fail "nas: MTS placed $m maps, the workload has $maps"
r=$(( $(counted nas ca-rts) + $(counted nas cr-rts) ))
[ "$r" = "$reduces" ] || fail "nas: CA-RTS and CR-RTS placed $r reduces, the workload has $reduces"
[ "$(counted nas plain)" = 0 ] || fail "nas: reduces placed outside CA-RTS/CR-RTS"

expect_status 0 "$HYDE" run -t "$T" -w "$W" -s nas -S ca_rts=no -S cr_rts=no -o "$tmpdir/mts" \
	--prefix "$P" -q && all_done mts
[ "$(counted mts plain)" = "$reduces" ] || fail "nas MTS alone: $(counted mts plain) plain reduces, expected $reduces"
[ "$(( $(counted mts ca-rts) + $(counted mts cr-rts) ))" = 0 ] || fail "nas MTS alone: CA-RTS or CR-RTS ran"

expect_status 0 "$HYDE" run -t "$T" -w "$W" -s shufflewatcher -o "$tmpdir/sw" --prefix "$P" -q &&
	all_done sw
grep -q "sched shufflewatcher: reduce offers held while congested: [0-9]" "$tmpdir/sw/events.log" ||
	fail "shufflewatcher: no log line of held offers"
finish
