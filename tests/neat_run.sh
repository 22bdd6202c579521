#!/bin/sh
# NEAT on the emulated fabric (root): a flow-level workload (hyde gen
# flows) run by `hyde run -s neat` under --net srpt and --net fair, and by
# the baselines. Asserts: every flow done and verified, each read from its
# block's holder by another host (remote=yes), NEAT's prediction logged
# for every placement; under srpt the data packets in the captures carry
# the senders' marks (more than one band), under fair none; minload and
# mindist run under las; the emulator refuses --coflow.
. "${HYDE_SRCDIR}/tests/lib.sh"
require_root
command -v tcpdump >/dev/null || { echo "SKIP: no tcpdump" >&2; exit 77; }

P=$(test_prefix tneat)
cleanup() {
	"$HYDE" clean --prefix "$P" >/dev/null 2>&1
	rm -rf "$tmpdir"
}
trap cleanup EXIT

cat >"$tmpdir/n4.topo" <<EOF
racks 1
hosts 4
containers 100
host_rate 100Mbit
uplink_rate 400Mbit
ocs no
EOF
# 30 flows of data-mining sizes x 0.05 (up to 50 MB), load 0.5
expect_status 0 "$HYDE" gen flows topo="$tmpdir/n4.topo" cdf=datamining scale=0.05 flows=30 \
	load=0.5 seed=4 -o "$tmpdir/f.wl" || finish

# the simulator runs it too (a baseline for the checks below)
expect_status 0 "$HYDE" sim -t "$tmpdir/n4.topo" -w "$tmpdir/f.wl" --heartbeat 0 -s neat \
	--net srpt -o "$tmpdir/sim" -q

# tos PCAPDIR: the TOS bytes of the data services' data packets, counted
tos() {
	for f in "$1"/pcap/tor0-h*.pcap; do
		tcpdump -nr "$f" -v 'tcp src port 9866 and greater 1000' 2>/dev/null
	done | grep -o 'tos 0x[0-9a-f]*' | sort | uniq -c
}

# check RUN NET: what every run must show
check() {
	R=$tmpdir/$1
	[ "$(awk -F, 'NR > 1' "$R/app/jobs.csv" | wc -l)" = 30 ] || fail "$1: not 30 jobs"
	awk -F, 'NR > 1 && $7 < 0 { bad++ } END { exit bad > 0 }' "$R/app/jobs.csv" ||
		fail "$1: a job did not end"
	awk -F, 'NR > 1 { n++; if ($8 != 1) bad++ } END { exit !(n == 30 && !bad) }' \
		"$R/app/fetches.csv" || fail "$1: reads not all verified: $(cat "$R/app/fetches.csv")"
	# each flow from its block's holder to another host
	awk -F, 'NR == FNR { for (i = 1; i <= NF; i++) if ($i ~ /^input_hosts=/) { split($i, a, "="); src[$2] = a[2] }; next }
		FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ n++; if ($c["src"] == $c["dst"] || src["id=" $c["job"]] != $c["src"]) bad++ }
		END { exit !(n == 30 && !bad) }' FS=' ' "$tmpdir/f.wl" FS=, "$R/flows.csv" ||
		fail "$1: flows not from their block's holder to another host"
}

expect_status 0 "$HYDE" run -t "$tmpdir/n4.topo" -w "$tmpdir/f.wl" --heartbeat 0 -s neat \
	--net srpt -o "$tmpdir/srpt" --prefix "$P" -q
check srpt
[ "$(grep -c 'sched neat: predict f' "$tmpdir/srpt/events.log")" = 30 ] ||
	fail "srpt: not a prediction per placement in events.log"
t=$(tos "$tmpdir/srpt")
n=$(printf '%s\n' "$t" | grep -vc 'tos 0x0$')
[ "$n" -ge 2 ] || fail "srpt: data packets in fewer than two marked bands: $t"

expect_status 0 "$HYDE" run -t "$tmpdir/n4.topo" -w "$tmpdir/f.wl" --heartbeat 0 -s neat \
	-o "$tmpdir/fair" --prefix "$P" -q
check fair
t=$(tos "$tmpdir/fair")
[ "$(printf '%s\n' "$t" | grep -vc 'tos 0x0$')" = 0 ] || fail "fair: marked packets: $t"

for s in minload mindist; do
	expect_status 0 "$HYDE" run -t "$tmpdir/n4.topo" -w "$tmpdir/f.wl" --heartbeat 0 -s $s \
		--net las -o "$tmpdir/$s" --prefix "$P" -q
	check $s
done

# coflow policies are the simulator's
expect_status 2 "$HYDE" run -t "$tmpdir/n4.topo" -w "$tmpdir/f.wl" --coflow varys \
	-o "$tmpdir/cf" --prefix "$P" -q
contains "$err" "only the simulator schedules coflows"
finish
