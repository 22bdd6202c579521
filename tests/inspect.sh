#!/bin/sh
# hyde pcap and the Wireshark dissectors on a real run (root): a run with
# every kind of flow and a circuit, its captures whole (--snaplen 0);
# `hyde pcap` merges them into one pcapng that tshark reads: one interface
# per port with its node and rate, every packet of every capture once and
# in time order, each TCP segment commented with its own flow's line of
# manifest.csv, the OCS conversation and circuit events; filters; bad
# input refused. Then wireshark/hyde.lua decodes what the services and the
# crossbar really said (job, map, reduce, bytes asked, block uid, the
# circuits), also from headers-only frames (editcap -s 128, as hyde run
# captures by default).
. "${HYDE_SRCDIR}/tests/lib.sh"
require_root
for p in tshark editcap; do
	command -v $p >/dev/null || { echo "SKIP: no $p (Debian: tshark)" >&2; exit 77; }
done

P=$(test_prefix tinsp)
D="$HYDE_SRCDIR/tests/data"
LUA="$HYDE_SRCDIR/wireshark/hyde.lua"
cleanup() {
	"$HYDE" clean --prefix $P >/dev/null 2>&1
	rm -rf "$tmpdir"
}
trap cleanup EXIT
"$HYDE" clean --prefix $P >/dev/null 2>&1

ts() { tshark "$@" 2>/dev/null; }

R="$tmpdir/run"
expect_status 0 "$HYDE" run -t "$D/run2x2io.topo" -w "$D/inspect.wl" -S slowstart=1 --snaplen 0 \
	-B voq=3MB -o "$R" --prefix $P -q || { finish; }
M="$R/manifest.csv"

# ---- 0. the crossbar's last words: its counters, with the VOQ bound given ----
grep -q ' ctl > stats$' "$R/ocs-control.log" || fail "no final stats request in ocs-control.log"
grep -q ' ctl < ok ports=2 voq=3000000 ' "$R/ocs-control.log" ||
	fail "-B voq=3MB: the crossbar's bound is $(grep -o 'voq=[0-9]*' "$R/ocs-control.log" | tail -1)"
tx=$(awk '$3 == "<" && $4 == "port" { for (i = 6; i <= NF; i++) if ($i ~ /^tx_frames=/) { sub(/.*=/, "", $i); n += $i } } END { print n + 0 }' "$R/ocs-control.log")
[ "$tx" -gt 0 ] || fail "the final stats say no frame crossed the OCS"

# ---- 1. hyde pcap: the whole run in one file ----
F="$tmpdir/run.pcapng"
expect_status 0 "$HYDE" pcap "$R" -o "$F"
contains "$out" "8 captures on 9 interfaces"
[ "$(ts -r "$F" -T fields -e frame.interface_name | head -1)" != "" ] || fail "tshark reads no frame of $F"

# interfaces: every capture's port by name, its node and rate described
for c in "$R"/pcap/*.pcap; do
	name=$(basename "$c" .pcap)
	want=$(ts -r "$c" | wc -l)
	got=$(ts -r "$F" -Y "frame.interface_name == \"$name\"" | wc -l)
	[ "$want" -gt 0 ] || [ "$name" = tor1-ocs ] || [ "$name" = tor0-ocs ] || fail "$c: no packet"
	[ "$got" = "$want" ] || fail "$name: $got packets in the pcapng, $want in $c"
	sum=$((${sum:-0} + want))
done
descr=$(ts -r "$F" -Y 'frame.interface_name == "tor0-up"' -T fields -e frame.interface_description | head -1)
contains "$descr" "node tor0"
contains "$descr" "100Mbit"
descr=$(ts -r "$F" -Y 'frame.interface_name == "tor1-h0"' -T fields -e frame.interface_description | head -1)
contains "$descr" "host r1h0"
contains "$descr" "1Gbit"
# every captured packet once, plus one record per OCS line
ocs_lines=$(($(wc -l <"$R/ocs-control.log") + $(wc -l <"$R/ocs-events.log")))
[ "$ocs_lines" -ge 5 ] || fail "only $ocs_lines lines in the OCS logs: no circuit set?"
total=$(ts -r "$F" | wc -l)
[ "$total" = $((sum + ocs_lines)) ] || fail "$total frames in the pcapng, expected $sum captured + $ocs_lines OCS records"
n=$(ts -r "$F" -Y 'frame.interface_name == "ocs-control"' | wc -l)
[ "$n" = "$ocs_lines" ] || fail "$n OCS records, $ocs_lines lines in the logs"
# in time order
ts -r "$F" -T fields -e frame.time_epoch |
	awk '$1 < prev { bad++ } { prev = $1 } END { exit bad > 0 }' || fail "frames out of time order"

# comments: every TCP segment names the flow whose 4-tuple it carries,
# with that flow's coflow, job, kind and path from the manifest
n=$(ts -r "$F" -Y 'tcp && !frame.comment' | wc -l)
[ "$n" = 0 ] || fail "$n TCP segments without a comment"
ts -r "$F" -Y tcp -T fields -E separator=' ' -e ip.src -e tcp.srcport -e ip.dst -e tcp.dstport -e frame.comment |
awk -v M="$M" '
	BEGIN { FS = ","; while ((getline l < M) > 0) { if (++n == 1) continue; split(l, f, ",")
		want[f[8] " " f[9] " " f[11] " " f[12]] = "flow=" f[2] " coflow=" f[3] " job=" f[4] " kind=" f[15] " path=" f[13]
		want[f[11] " " f[12] " " f[8] " " f[9]] = want[f[8] " " f[9] " " f[11] " " f[12]]; seen[f[2]] = 0 }
		FS = " " }
	{ k = $1 " " $2 " " $3 " " $4; c = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ [^ ]+ /, "", c)
	  if (!(k in want)) { print "a segment of " k " in no manifest line: " c; bad++; next }
	  if (index(c, "hyde " want[k] " ") != 1) { print k ": comment \"" c "\", expected \"hyde " want[k] " ...\""; bad++ }
	  split(want[k], w, "[= ]"); seen[w[2]]++ }
	END { for (id in seen) if (!seen[id]) { print "flow " id ": no commented segment"; bad++ }
	      exit bad > 0 }' >"$tmpdir/comments" || fail "comments: $(head -5 "$tmpdir/comments")"
# the circuit event, commented, at the crossbar's time on the captures' clock
up=$(ts -r "$F" -Y 'frame.interface_name == "ocs-control" && frame.comment contains "up"' -T fields -e frame.time_epoch -e frame.comment | grep 'circuit 0>1 up')
[ -n "$up" ] || fail "no commented 'circuit 0>1 up' record"
mono=$(awk '$1 == "up" && $2 == 0 && $3 == 1 { print $4; exit }' "$R/ocs-events.log")
off=$(awk '$2 == "ctl" && $3 == "<" && $4 == "ok" && $5 ~ /^mono=/ { split($5, a, "="); split($6, b, "="); printf "%.0f\n", b[2] - a[2]; exit }' "$R/ocs-control.log")
echo "$up" | awk -v m="$mono" -v o="$off" '{ d = $1 * 1e9 - (m + o); exit !(d > -1e4 && d < 1e4) }' ||
	fail "circuit up at $(echo "$up" | cut -f1), the crossbar says $mono + $off"

# ---- 2. filters ----
G="$tmpdir/small.pcapng"
expect_status 0 "$HYDE" pcap "$R" -o "$G" --job small --no-ocs -q
want=$(ts -r "$F" -Y 'frame.comment contains "job=small "' | wc -l)
got=$(ts -r "$G" | wc -l)
n=$(ts -r "$G" -Y '!(frame.comment contains "job=small ")' | wc -l)
[ "$want" -gt 0 ] && [ "$got" = "$want" ] && [ "$n" = 0 ] ||
	fail "--job small: $got frames ($n of another job), $want in the whole file"
flow=$(awk -F, '$15 == "output" && $13 == "rack" { print $2; exit }' "$M")
expect_status 0 "$HYDE" pcap "$R" -o "$G" --flow "$flow" --port tor0-h0,tor0-h1 -q
n=$(ts -r "$G" -Y "!(frame.comment contains \"flow=$flow \") || !(frame.interface_name matches \"^tor0-h[01]\$\")" | wc -l)
got=$(ts -r "$G" | wc -l)
want=$(ts -r "$F" -Y "frame.comment contains \"flow=$flow \" && frame.interface_name matches \"^tor0-h[01]\$\"" | wc -l)
[ "$n" = 0 ] && [ "$got" = "$want" ] && [ "$want" -gt 0 ] ||
	fail "--flow $flow --port tor0-h0,tor0-h1: $got frames ($n others), expected $want"
t0=$(awk '$2 == "run_start" { print $1; exit }' "$R/events.log")
# a 500 ms window from the whole file's median frame (when the traffic
# comes depends on the box's load: the window follows it), in ms of run time
ts -r "$F" -T fields -e frame.time_epoch | awk -v a="$t0" '{ print int(($1 * 1e9 - a) / 1e6) }' |
	sort -n >"$tmpdir/ms"
wa=$(awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }' "$tmpdir/ms")
wb=$((wa + 500))
expect_status 0 "$HYDE" pcap "$R" -o "$G" --window ${wa}ms-${wb}ms -q
# every frame inside it (10 us for the clocks' rounding), and all those of
# the whole file strictly inside it, give or take the two edges
ts -r "$F" -T fields -e frame.time_epoch | awk -v a="$t0" -v lo="$wa" -v hi="$wb" '
	{ t = $1 * 1e9 - a; if (t > lo * 1e6 + 1e4 && t < hi * 1e6 - 1e4) n++; if (t >= lo * 1e6 - 1e4 && t <= hi * 1e6 + 1e4) m++ }
	END { print n + 0, m + 0 }' >"$tmpdir/want"
read -r wmin wmax <"$tmpdir/want"
ts -r "$G" -T fields -e frame.time_epoch | awk -v a="$t0" -v lo="$wa" -v hi="$wb" -v wmin="$wmin" -v wmax="$wmax" '
	{ t = $1 * 1e9 - a; if (t < lo * 1e6 - 1e4 || t > hi * 1e6 + 1e4) bad++ }
	END { exit !(NR > 0 && !bad && NR >= wmin && NR <= wmax) }' ||
	fail "--window ${wa}ms-${wb}ms: $(ts -r "$G" | wc -l) frames, some outside it or not the $wmin-$wmax of the whole file"

# bad input: one message, exit 2, nothing written
rm -f "$G"
expect_status 2 "$HYDE" pcap "$R" -o "$G" --job nosuch && contains "$err" "nosuch"
expect_status 2 "$HYDE" pcap "$R" -o "$G" --port tor9-up && contains "$err" "tor9-up"
expect_status 2 "$HYDE" pcap "$R" -o "$G" --window 2s-1s && contains "$err" "--window"
expect_status 2 "$HYDE" pcap "$R" -o "$G" --flow x1
[ -e "$G" ] && fail "a refused hyde pcap wrote $G"
"$HYDE" sim -t "$D/run2x2io.topo" -w "$D/inspect.wl" -o "$tmpdir/sim" -q >/dev/null 2>&1
expect_status 2 "$HYDE" pcap "$tmpdir/sim" -o "$G" && contains "$err" "pcap"

# ---- 3. the dissectors on what the run really said ----
# (each request is decoded once, on the first port that saw it: the
# copies on the other ports are TCP retransmissions to Wireshark)
dis() { ts -X lua_script:"$LUA" "$@"; }
jobidx() { awk -v j="$1" '$1 == "job" { for (i = 2; i <= NF; i++) if ($i == "id=" j) print n + 0; n++ }' "$D/inspect.wl"; }
check_requests() { # FILE
	dis -r "$1" -Y 'hyde_shuffle.request' -T fields -E separator=, -e tcp.srcport \
		-e hyde_shuffle.job -e hyde_shuffle.reduce -e hyde_shuffle.n_parts -e hyde_shuffle.bytes_asked |
		sort -u >"$tmpdir/get"
	dis -r "$1" -Y 'hyde_dn.op' -T fields -E separator=, -e tcp.srcport -e hyde_dn.op \
		-e hyde_dn.kind -e hyde_dn.job -e hyde_dn.index -e hyde_dn.len -e hyde_dn.uid |
		sort -u >"$tmpdir/dn"
	n=0
	while IFS=, read -r conn flow cf job maps red cn cip cport sn sip sport path bytes kind req; do
		[ "$conn" = conn ] && continue
		[ "$path" = host ] && continue
		j=$(jobidx "$job")
		# a block's uid: kind << 62 | job << 32 | index (emul/datanode.h);
		# 2 << 62 wraps in the shell's signed arithmetic: printf %u
		case $kind in
		shuffle) want="$cport,$j,$red,$maps,$bytes"; file=get ;;
		input) uid=$(printf %u $(((1 << 62) + (j << 32) + red)))
		       want="$cport,READ,input,$j,$red,$bytes,$uid"; file=dn ;;
		output) uid=$(printf %u $(((2 << 62) + (j << 32) + red)))
			want="$cport,WRITE,output,$j,$red,$bytes,$uid"; file=dn ;;
		esac
		grep -qx "$want" "$tmpdir/$file" ||
			fail "$1: flow $flow ($kind): expected '$want' decoded, got: $(grep "^$cport," "$tmpdir/$file")"
		n=$((n + 1))
	done <"$M"
	[ "$n" -ge 8 ] || fail "only $n flows checked"
}
check_requests "$F"
# the data service's replies: OK with the hops further down the pipeline
dis -r "$F" -Y 'hyde_dn.status == "OK"' -T fields -e hyde_dn.hops | sort -u | tr '\n' ' ' >"$tmpdir/ok"
[ "$(cat "$tmpdir/ok")" = "0 1 " ] || fail "OK replies with hops '$(cat "$tmpdir/ok")', expected 0 (last hop) and 1"
# data segments placed in their partition: the shuffle's data, map by map
n=$(dis -r "$F" -Y 'hyde_shuffle.data_map' | wc -l)
[ "$n" -gt 10 ] || fail "$n shuffle data segments placed in a partition"
# the crossbar: the circuits asked for, and the event of each coming up
got=$(dis -r "$F" -Y 'hyde_ocs.request == "set"' -T fields -e hyde_ocs.circuit -e hyde_ocs.src -e hyde_ocs.dst | head -1)
want=$(awk '$3 == ">" && $4 == "set" { c = $5; split(c, a, ">"); print c "\t" a[1] "\t" a[2]; exit }' "$R/ocs-control.log")
[ -n "$want" ] && [ "$got" = "$want" ] || fail "OCS set decoded as '$got', the log says '$want'"
got=$(dis -r "$F" -Y 'hyde_ocs.event == "up"' -T fields -e hyde_ocs.src -e hyde_ocs.dst -e hyde_ocs.time | head -1)
want=$(awk '$1 == "up" { print $2 "\t" $3 "\t" $4; exit }' "$R/ocs-events.log")
[ "$got" = "$want" ] || fail "OCS up event decoded as '$got', the log says '$want'"
# headers only (hyde run's default snaplen, 128): the request lines are
# still whole there
editcap -s 128 "$F" "$tmpdir/cut.pcapng" >/dev/null 2>&1 || fail "editcap failed"
check_requests "$tmpdir/cut.pcapng"

finish
