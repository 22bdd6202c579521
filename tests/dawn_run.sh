#!/bin/sh
# Dawn on the emulated fabric (root): two chains of two jobs on two racks
# of two hosts, one replica, the first job of each chain with its input on
# one rack (a -> b on rack 0, c -> d on rack 1), each child reading its
# parent's output (input=parents). Under dawn each chain stays on its rack
# (max_map, max_reduce = dep_reduce, then the child's maps where that
# output is): the captured EPS ports carry no byte of any flow, and the
# controller counts no cross-rack byte of input, dependent data or shuffle
# per DAG. Under fair the same chains cross the racks (fair places a
# parent's reduces, and so its output, wherever a container is free).
. "${HYDE_SRCDIR}/tests/lib.sh"
require_root

P=$(test_prefix tdawn)
cleanup() {
	"$HYDE" clean --prefix "$P" >/dev/null 2>&1
	rm -rf "$tmpdir"
}
trap cleanup EXIT

cat >"$tmpdir/two.wl" <<'EOF'
job id=a user=u arrival=0s input=16MB shuffle=16MB output=16MB maps=4 reduces=2 map_time=1s reduce_time=1s app=x input_racks=0
job id=b user=u arrival=0s input=parents shuffle=8MB output=2MB maps=4 reduces=2 map_time=1s reduce_time=1s app=x parents=a
job id=c user=v arrival=0s input=16MB shuffle=16MB output=16MB maps=4 reduces=2 map_time=1s reduce_time=1s app=y input_racks=1
job id=d user=v arrival=0s input=parents shuffle=8MB output=2MB maps=4 reduces=2 map_time=1s reduce_time=1s app=y parents=c
EOF

# all_done RUN: the four jobs ended
all_done() {
	awk -F, 'NR > 1 { n++; if ($7 < 0) bad++ } END { exit !(n == 4 && !bad) }' \
		"$tmpdir/$1/app/jobs.csv" || fail "$1: not every job ended: $(cat "$tmpdir/$1/app/jobs.csv")"
}
# eps RUN KIND: payload bytes the captures saw on the EPS ports, flows of KIND
eps() {
	awk -F, -v k="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["kind"] == k { s += $c["eps_bytes"] } END { print s + 0 }' "$tmpdir/$1/flows.csv"
}
# per_dag RUN KEY: the controller's cross-rack bytes per DAG of that data
per_dag() {
	tr -d '\n' <"$tmpdir/$1/app/paper_metrics.json" |
		sed -n 's/.*"cross_rack_per_dag": {\([^}]*\)}.*/\1/p' | tr ',' '\n' |
		awk -F: -v k="\"$2\"" '{ gsub(/ /, "", $1) } $1 == k { print $2 + 0 }'
}

for s in dawn fair; do
	expect_status 0 "$HYDE" run -t "$HYDE_SRCDIR/tests/data/two.topo" -w "$tmpdir/two.wl" -s $s --seed 2 \
		-o "$tmpdir/$s" --prefix "$P" -q && all_done $s
done

for k in input shuffle output; do
	[ "$(eps dawn $k)" = 0 ] || fail "dawn: $(eps dawn $k) bytes of $k flows captured on the EPS ports"
done
for k in input dependent shuffle; do
	v=$(per_dag dawn $k)
	[ -n "$v" ] || fail "dawn: no cross_rack_per_dag.$k in app/paper_metrics.json"
	[ "$v" = 0 ] || fail "dawn: $v cross-rack bytes of $k per DAG"
done
f=$(( $(eps fair input) + $(eps fair shuffle) ))
[ "$f" -gt 0 ] || fail "fair: no input or shuffle byte crossed the racks (the contrast is lost)"
echo "captured on the EPS ports: dawn 0 bytes; fair $(eps fair input) input, $(eps fair shuffle) shuffle"
finish
