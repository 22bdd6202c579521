#!/bin/sh
# Network scheduling policies on real TCP (emul/prio.h): a fabric of two
# racks with priority bands (hyde topo up --bands), data services on three
# hosts of rack 0 marking their READs by the policy (--net), one reader in
# rack 1 pulling blocks of known sizes from them at once. The readers'
# link (tor1 -> r1h0, 100 Mbit/s) is the bottleneck; the flows cross tor0,
# the core and tor1, which route them (ip_forward), so the test also
# checks that the marks arrive on that link as the senders set them.
#   fair  (unmarked): 4, 16 and 64 MB share (the short read takes at
#         least 1.5x its time alone; the link's total is 84 MB's time);
#   srpt  the shortest first: 4, 20 and 84 MB's time (within 10%);
#   las   a 4 MB read 1 s after a 64 MB one goes first: 4 MB's time;
#   fcfs  the same 4 MB read waits for the 64 MB one.
# Times are the link's: bytes over its TCP goodput (100 Mbit/s x
# 1448/1514), from the readers' own timestamps (connect to last byte).
. "${HYDE_SRCDIR}/tests/lib.sh"
require_root
for t in tcpdump timeout; do
	command -v $t >/dev/null 2>&1 || { echo "SKIP: needs $t" >&2; exit 77; }
done

DC="$HYDE_BUILDDIR/tests/dnclient"
P=$(test_prefix np)
SEED=3
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	"$HYDE" topo down --prefix "$P" >/dev/null 2>&1
	rm -rf "$tmpdir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

on() {
	_n=$1
	shift
	ip netns exec "$P-$_n" "$@"
}

cat >"$tmpdir/np.topo" <<EOF
racks 2
hosts 4
containers 1
host_rate 100Mbit
uplink_rate 400Mbit
ocs no
EOF
expect_status 0 "$HYDE" topo up -t "$tmpdir/np.topo" --prefix "$P" --bands || finish
# the bands are there, by priority, on the bottleneck
classes=$(on tor1 tc class show dev h0)
contains "$classes" "class htb 1:21 parent 1:20 leaf 21: prio 0"
contains "$classes" "class htb 1:28 parent 1:20 leaf 28: prio 7"
# and none on a host's own end, its NIC: one FIFO, so that a flow moved
# to a better band does not overtake its own packets there (prio.h)
classes=$(on r0h1 tc class show dev eth0)
case $classes in *"1:2"[1-8]*) fail "bands on r0h1's NIC: $classes" ;; esac
contains "$classes" "class htb 1:20"

# start_services POLICY: a data service on r0h1, r0h2, r0h3
dn_pids=
start_services() {
	for p in $dn_pids; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	dn_pids=
	for h in 1 2 3; do
		# not through on(): in the background, $! would be a subshell's
		ip netns exec "$P-r0h$h" "$HYDE" datanode --seed $SEED --net "$1" \
			--fcfs-table "$tmpdir/fcfs.table" 2>>"$tmpdir/dn.err" &
		dn_pids="$dn_pids $!"
	done
	pids="$pids $dn_pids"
	for h in 2 3 4; do
		on r1h0 timeout 60 "$DC" wait 10.0.0.$h 9866 || fail "no data service on 10.0.0.$h"
	done
}

BUID=$("$DC" uid input 1 0)

# read HOST BYTES OUT: one READ by r1h0 in the background
read_bg() {
	on r1h0 timeout 120 "$DC" read "10.0.0.$1" 9866 $SEED "$BUID" 0 "$2" >"$3" &
	rpids="$rpids $!"
}

# fct FILE: connect to last byte, seconds; end FILE: the last byte's time
fct() { awk '{ printf "%.4f", ($9 - $6) / 1e9 }' "$1"; }
last_ns() { awk '{ print $9 }' "$1"; }
first_ns() { awk '{ print $6 }' "$1"; }

# near WHAT GOT WANT: within 10%. A miss is remembered (see phase).
near() {
	awk -v g="$2" -v w="$3" 'BEGIN { exit !(g >= 0.9 * w && g <= 1.1 * w) }' ||
		miss="$miss; $1: $2 s, expected $3 s (within 10%)"
}

# phase NAME: run phase_NAME; its times and the order the reads end in
# must hold in one of three tries (a loss that TCP recovers by a
# retransmission timeout, 200 ms or more, costs the short read more than
# half its time whatever the policy, and a sender the loaded box does not
# run for tens of ms leaves its band idle, to the next band: that is the
# kernel, not the bands); what it asserts with fail() (every read whole,
# the marks on the wire) must hold in every try.
phase() {
	_try=1
	miss=
	"phase_$1"
	while [ -n "$miss" ] && [ $_try -lt 3 ]; do
		echo "$1: again after a miss$miss" >&2
		miss=
		_try=$((_try + 1))
		"phase_$1"
	done
	[ -z "$miss" ] || fail "$1$miss"
}

# link time of MB megabytes (10^6 bytes) at TCP's goodput
mb() { awk -v m="$1" 'BEGIN { printf "%.4f", m * 8e6 / (100e6 * 1448 / 1514) }'; }

three_at_once() { # POLICY
	start_services "$1"
	rpids=
	read_bg 2 4000000 "$tmpdir/$1-4"
	read_bg 3 16000000 "$tmpdir/$1-16"
	read_bg 4 64000000 "$tmpdir/$1-64"
	for p in $rpids; do wait "$p" || fail "$1: a read failed"; done
	for s in 4 16 64; do
		grep -q "^OK .* $((s * 1000000))\$" "$tmpdir/$1-$s" || fail "$1: $s MB read: $(cat "$tmpdir/$1-$s")"
	done
}

# ---- fair: unmarked, TCP shares (as it shares a FIFO: not exactly
# max-min, so only the link's total is asserted here) ----
phase_fair() {
	three_at_once fair
	near "fair, 64 MB" "$(fct "$tmpdir/fair-64")" "$(mb 84)"
	# the short read shared the link: half again its time alone at least
	# (a third of the link would take it three times as long; a sender the
	# loaded box starts late leaves it more, so this is retried)
	awk -v f="$(fct "$tmpdir/fair-4")" -v a="$(mb 4)" 'BEGIN { exit !(f > 1.5 * a) }' ||
		miss="$miss; fair: 4 MB in $(fct "$tmpdir/fair-4") s, not slower than alone ($(mb 4) s)"
}

# ---- srpt: the bands serve the shortest first; the marks seen after
# three routers on the bottleneck ----
phase_srpt() {
	# the whole phase (not its first packets: the 64 MB read, starved by
	# the others, may send its first ones after hundreds of theirs)
	ip netns exec "$P-tor1" timeout 60 tcpdump -i h0 -n -v \
		'tcp src port 9866 and greater 1000' >"$tmpdir/tos.txt" 2>/dev/null &
	tpid=$!
	pids="$pids $tpid"
	sleep 1
	three_at_once srpt
	sleep 0.2
	kill "$tpid" 2>/dev/null
	wait "$tpid"
	near "srpt, 4 MB" "$(fct "$tmpdir/srpt-4")" "$(mb 4)"
	near "srpt, 16 MB" "$(fct "$tmpdir/srpt-16")" "$(mb 20)"
	near "srpt, 64 MB" "$(fct "$tmpdir/srpt-64")" "$(mb 84)"
	# what the bands changed: the short read shared the link under fair
	# (phase_fair), and takes its own time here (the first near above)
	[ "$(last_ns "$tmpdir/srpt-4")" -lt "$(last_ns "$tmpdir/srpt-16")" ] &&
		[ "$(last_ns "$tmpdir/srpt-16")" -lt "$(last_ns "$tmpdir/srpt-64")" ] ||
		miss="$miss; srpt: the reads did not end shortest first"
	# 4 MB starts in band 3 (1.6-6.4 MB left: TOS 0x80), 64 MB in band
	# 5 (0x40)
	tos=$(grep -o 'tos 0x[0-9a-f]*' "$tmpdir/tos.txt" | sort | uniq -c)
	contains "$tos" "tos 0x80"
	contains "$tos" "tos 0x40"
}

# ---- las: a new read goes ahead of one that has sent more (1 s ahead,
# the long read is past 6.4 MB, band 4, when the short one starts: the
# short one's 4 MB never leave bands 0-3) ----
phase_las() {
	start_services las
	rpids=
	read_bg 4 64000000 "$tmpdir/las-64"
	sleep 1
	read_bg 2 4000000 "$tmpdir/las-4"
	for p in $rpids; do wait "$p" || fail "las: a read failed"; done
	near "las, 4 MB after 1 s" "$(fct "$tmpdir/las-4")" "$(mb 4)"
	near "las, 64 MB" "$(fct "$tmpdir/las-64")" "$(mb 68)"
	[ "$(last_ns "$tmpdir/las-4")" -lt "$(last_ns "$tmpdir/las-64")" ] ||
		miss="$miss; las: the new read did not end first"
}

# ---- fcfs: the new read waits for the older one ----
phase_fcfs() {
	start_services fcfs
	rpids=
	read_bg 4 64000000 "$tmpdir/fcfs-64"
	sleep 1
	read_bg 2 4000000 "$tmpdir/fcfs-4"
	for p in $rpids; do wait "$p" || fail "fcfs: a read failed"; done
	near "fcfs, 64 MB" "$(fct "$tmpdir/fcfs-64")" "$(mb 64)"
	# the 4 MB read ends its own time after the 64 MB one
	wait2=$(awk -v a="$(last_ns "$tmpdir/fcfs-64")" -v s="$(first_ns "$tmpdir/fcfs-4")" \
		'BEGIN { printf "%.4f", (a - s) / 1e9 }')
	near "fcfs, 4 MB behind 64 MB" "$(fct "$tmpdir/fcfs-4")" \
		"$(awk -v w="$wait2" -v t="$(mb 4)" 'BEGIN { printf "%.4f", w + t }')"
	[ "$(last_ns "$tmpdir/fcfs-64")" -lt "$(last_ns "$tmpdir/fcfs-4")" ] ||
		miss="$miss; fcfs: the later read ended first"
}

phase fair
phase srpt
phase las
phase fcfs
[ -s "$tmpdir/dn.err" ] && fail "the data services complained: $(cat "$tmpdir/dn.err")"
finish
