#!/bin/sh
# Bad peers (root): the shuffle service and the OCS crossbar's control
# socket, each in a namespace of this test's own, against malformed,
# oversized, truncated and idle (slow) requests and more connections than
# they take (tests/badpeer.c), while a client that behaves is served.
# Each must survive, keep serving, and log what it refused; the control
# socket is root's only.
. "${HYDE_SRCDIR}/tests/lib.sh"
require_root

BP="$HYDE_BUILDDIR/tests/badpeer"
NS="$(test_prefix tbp)-ns"
spid= opid=
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null
	[ -n "$opid" ] && kill "$opid" 2>/dev/null
	[ -n "$spid" ] && wait "$spid" 2>/dev/null
	[ -n "$opid" ] && wait "$opid" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -rf "$tmpdir"
}
trap cleanup EXIT INT TERM

ip netns add "$NS" || { fail "cannot create namespace $NS"; finish; }
ip -n "$NS" link set lo up
for p in p0 p1; do
	ip -n "$NS" link add "$p" type veth peer name "q$p" && ip -n "$NS" link set "$p" up &&
		ip -n "$NS" link set "q$p" up
done

wait_sock() { # PATH PID
	i=0
	until [ -S "$1" ]; do
		kill -0 "$2" 2>/dev/null || return 1
		i=$((i + 1))
		[ $i -lt 1000 ] || return 1
		sleep 0.01
	done
}

# 1. the shuffle service (3 s for a request, 3 s without progress for a
# reader, at most 6 connections)
ip netns exec "$NS" "$HYDE" shuffled --reg "$tmpdir/reg.sock" --seed 5 --port 13562 \
	--request-timeout 3s --send-timeout 3s --max-conns 6 2>"$tmpdir/shuffled.err" &
spid=$!
if wait_sock "$tmpdir/reg.sock" "$spid"; then
	ip netns exec "$NS" "$BP" shuffle 13562 "$tmpdir/reg.sock" 5 >"$tmpdir/shuffle.out" 2>&1 ||
		fail "bad peers of the shuffle service: $(grep -v '^ok' "$tmpdir/shuffle.out")"
	cat "$tmpdir/shuffle.out"
	kill -0 "$spid" 2>/dev/null || fail "the shuffle service died: $(cat "$tmpdir/shuffled.err")"
	[ "$(stat -c %a "$tmpdir/reg.sock")" = 600 ] || fail "registration socket not 0600"
	for what in "malformed registration" "request longer than 1048576 bytes" \
		"malformed request" "4000000000 partition(s) announced" "is not on this host" \
		"truncated request" "no whole request after 3.0s" "took nothing for 3.0s" \
		"connections open: refused one more" "left with 6 bytes of an unfinished line"; do
		grep -q "$what" "$tmpdir/shuffled.err" || fail "the shuffle service did not log '$what'"
	done
	kill "$spid"
	wait "$spid"
	spid=
else
	fail "the shuffle service did not start: $(cat "$tmpdir/shuffled.err")"
fi

# 2. the crossbar's control socket (3 s for a request line)
"$HYDE" ocs serve --netns "$NS" --socket "$tmpdir/ocs.sock" --ports 2 --rate 100Mbit \
	--delta 1ms --no-rt --request-timeout 3s 2>"$tmpdir/ocs.err" &
opid=$!
if wait_sock "$tmpdir/ocs.sock" "$opid"; then
	"$BP" ocs "$tmpdir/ocs.sock" >"$tmpdir/ocs.out" 2>&1 ||
		fail "bad peers of the crossbar: $(grep -v '^ok' "$tmpdir/ocs.out")"
	cat "$tmpdir/ocs.out"
	[ "$(stat -c %a "$tmpdir/ocs.sock")" = 600 ] || fail "control socket not 0600"
	for what in "refused a request" "a request with a NUL byte" "a request longer than 4096 bytes" \
		"left in the middle of a request" "refused: 64 clients connected" \
		"no end of line 3.0s after a request began"; do
		grep -q "$what" "$tmpdir/ocs.err" || fail "the crossbar did not log '$what'"
	done
	kill -TERM "$opid"
	wait "$opid"
	st=$?
	opid=
	[ "$st" = 0 ] || fail "the crossbar exited $st on SIGTERM after the bad peers: $(cat "$tmpdir/ocs.err")"
	[ -e "$tmpdir/ocs.sock" ] && fail "the crossbar left its socket"
else
	fail "the crossbar did not start: $(cat "$tmpdir/ocs.err")"
fi
finish
