#!/bin/sh
# hyde run killed outright: SIGKILL at a random moment (during the build
# of the fabric, the start of its services, the shuffle, the teardown or
# the analysis), 10 times. After each kill: every process started in the
# fabric dies with the run (none is left, before any cleanup); the run
# directory is analysable (an interrupted run's result marked incomplete);
# after `hyde clean`, no namespace, process or state of the prefix is
# left and the root namespace is as it was. Twice, instead of `hyde
# clean`, a new `hyde run` on the prefix removes the stale fabric itself.
# Random moments, so no outcome may depend on when the kill lands.
. "${HYDE_SRCDIR}/tests/lib.sh"
require_root

P=$(test_prefix tkill)
D="$HYDE_SRCDIR/tests/data"
cleanup() {
	"$HYDE" clean --prefix "$P" >/dev/null 2>&1
	rm -rf "$tmpdir"
}
trap cleanup EXIT

# What a fabric could change in the root namespace. (Only hyde's own
# prefix is ever touched; other fabrics may come and go meanwhile, in
# their own namespaces, and are not looked at.)
root_state() {
	ip -o link show
	ip -o addr show
	ip route show table all
	ip -6 route show table all | sed 's/ expires [0-9]*sec//'
	ip rule show
	ip -6 rule show
	tc qdisc show
	for s in ipv4/ip_forward ipv4/conf/all/forwarding ipv4/conf/all/rp_filter \
		ipv4/conf/default/rp_filter ipv6/conf/all/disable_ipv6 ipv6/conf/all/forwarding; do
		echo "$s $(cat /proc/sys/net/$s)"
	done
	command -v iptables-save >/dev/null && iptables-save 2>/dev/null | grep -v '^#'
	return 0
}

# Processes of the prefix: in one of its namespaces, or named in its
# state directory (the crossbar, shuffle services, captures and tasks all
# run with /run/hyde/$P/ or $P- in their arguments).
fabric_pids() {
	for ns in $(ip netns list | sed -n "s/^\($P-[a-z0-9]*\).*/\1/p"); do
		ip netns pids "$ns" 2>/dev/null
	done
	pgrep -f "hyde (task|shuffled|capture|ocs serve).*($P-|/run/hyde/$P/)"
	return 0
}

# Wait for the processes of the fabric to die: those killed by SIGKILL
# are gone at once, the captures and the crossbar (sent SIGTERM, to flush
# and remove their socket) within their own stop. Only a process that
# never dies fails (after a minute, long past any stop).
wait_no_pids() { # WHAT
	i=0
	while [ -n "$(fabric_pids)" ]; do
		i=$((i + 1))
		if [ $i -gt 600 ]; then
			fail "$1: processes of the run left: $(fabric_pids | tr '\n' ' ') ($(ps -o pid=,args= -p "$(fabric_pids | head -n 1)"))"
			return 1
		fi
		sleep 0.1
	done
	return 0
}

nothing_left() { # WHAT
	n=$(ip netns list | grep -c "^$P-")
	[ "$n" = 0 ] || fail "$1: $n namespace(s) $P-* left"
	[ -e "/run/hyde/$P" ] && fail "$1: /run/hyde/$P left"
	[ -z "$(fabric_pids)" ] || fail "$1: processes left: $(fabric_pids | tr '\n' ' ')"
	root_state >"$tmpdir/root.after"
	cmp -s "$tmpdir/root.before" "$tmpdir/root.after" ||
		fail "$1: the root namespace changed: $(diff "$tmpdir/root.before" "$tmpdir/root.after")"
	return 0
}

rand() { # N: a random whole number in [0, N)
	echo $(($(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % $1))
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# start a run on the prefix; returns once it has written its inputs (it
# builds the fabric next)
start_run() { # DIR
	"$HYDE" run -t "$D/run2x2.topo" -w "$D/run.wl" -o "$1" --prefix "$P" -q \
		>"$1.out" 2>&1 &
	pid=$!
	i=0
	while [ ! -s "$1/inputs/workload.wl" ] && kill -0 $pid 2>/dev/null && [ $i -lt 6000 ]; do
		i=$((i + 1))
		sleep 0.01
	done
}

"$HYDE" clean --prefix "$P" >/dev/null 2>&1
root_state >"$tmpdir/root.before"
# How long a whole run takes on this box now (it varies with the load):
# the kills land uniformly over that span, and a little past it.
start_run "$tmpdir/whole"
t0=$(now_ms)
wait $pid || fail "a whole run failed: $(cat "$tmpdir/whole.out")"
span=$(($(now_ms) - t0))
echo "a whole run takes ${span} ms after its inputs"
incomplete=0 complete=0 reruns=0
for k in 1 2 3 4 5 6 7 8 9 10; do
	R="$tmpdir/run$k"
	start_run "$R"
	ms=$(rand $((span * 11 / 10 + 1)))
	sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
	kill -9 $pid 2>/dev/null
	wait $pid
	st=$?
	echo "kill $k: ${ms} ms after the inputs, exit status $st"

	# 1. the fabric's processes died with the run, by themselves
	wait_no_pids "kill $k (${ms} ms)"

	# 2. what was captured can be analysed: an interrupted run is marked
	# incomplete; one killed only once it had ended is complete
	if expect_status 0 "$HYDE" analyze --no-plots "$R"; then
		if [ -e "$R/app/jobs.csv" ]; then
			complete=$((complete + 1))
			grep -q '"complete": true' "$R/summary.json" ||
				fail "kill $k: a finished run's summary is not marked complete"
		else
			incomplete=$((incomplete + 1))
			contains "$out" "INCOMPLETE the run was interrupted"
			grep -q '"complete": false' "$R/summary.json" ||
				fail "kill $k: the interrupted run's summary.json is not marked incomplete"
		fi
		# every flow the manifest lists was measured or is accounted for
		[ -s "$R/flows.csv" ] || fail "kill $k: no flows.csv"
	fi

	# 3. cleanup: by the next run on the prefix (the first two times the
	# kill left a fabric), else by hand
	if [ -d "/run/hyde/$P" ] && [ $reruns -lt 2 ]; then
		reruns=$((reruns + 1))
		expect_status 0 "$HYDE" run -t "$D/run2x2.topo" -w "$D/run.wl" -o "$tmpdir/again$k" \
			--prefix "$P" -q --no-analyze &&
			contains "$err" "removing the fabric of a run that is gone"
		wait_no_pids "the run after kill $k"
	else
		expect_status 0 "$HYDE" clean --prefix "$P"
	fi
	nothing_left "kill $k (${ms} ms)"
done
echo "$incomplete interrupted run(s) analysed as incomplete, $complete killed after their end"
[ "$incomplete" -gt 0 ] || fail "no kill landed before the end of its run: the moments are wrong"
[ "$reruns" -gt 0 ] || fail "no kill left a fabric for the next run to remove"
finish
