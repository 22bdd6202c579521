#!/bin/sh
# limit.sh TEST [ARGS...]: run a shell test with a time limit (make
# check's SH_LOG_COMPILER). A test that hangs would otherwise hold the
# whole suite until CI's own limit, and say nothing of why. Past
# HYDE_TEST_LIMIT seconds (default 1200: ten times the slowest test here,
# under the sanitizers), this prints every process the test started, with
# what each waits for in the kernel and what it has open, and ends them
# (SIGTERM, by PID): the test itself is left to see its commands fail,
# report and clean up after itself. A test still there a minute later is
# killed with what is left of it. The test then fails (exit 1), whatever
# it said.
limit=${HYDE_TEST_LIMIT:-1200}
stamp="${TMPDIR:-/tmp}/hyde-limit.$$"

# the processes under PID, deepest first
descendants() { # PID
	ps -e -o pid= -o ppid= | awk -v root="$1" '
		{ parent[$1] = $2 }
		END {
			for (p in parent) {
				d = 0
				for (q = p; q in parent && q != root && q > 1; q = parent[q])
					d++
				if (q == root && p != root)
					print d, p
			}
		}' | sort -rn | awk '{ print $2 }'
}

report() { # PID
	echo "limit.sh: $1 has run for more than ${limit}s: its processes, then ended"
	for p in $1 $(descendants "$1"); do
		[ -d "/proc/$p" ] || continue
		echo "== $(ps -o pid=,ppid=,stat=,etime=,args= -p "$p" | cut -c1-400)"
		echo "   waits in: $(cat "/proc/$p/wchan" 2>/dev/null); netns: $(ip netns identify "$p" 2>/dev/null)"
		[ -r "/proc/$p/stack" ] && sed 's/^/   stack: /' "/proc/$p/stack" | head -12
		ls -l "/proc/$p/fd" 2>/dev/null | awk 'NR > 1 { printf "   fd %s -> %s\n", $(NF - 2), $NF }' | head -20
	done
	# the last events of a run (a command with -o DIR, DIR/events.log):
	# where it stood
	for p in $(descendants "$1"); do
		tr '\0' '\n' <"/proc/$p/cmdline" 2>/dev/null | awk '
			prev == "-o" || prev == "--out" { print; exit } { prev = $0 }'
	done | sort -u | while read -r dir; do
		[ -f "$dir/events.log" ] || continue
		echo "== the last events of $dir:"
		tail -n 30 "$dir/events.log" | sed 's/^/   /'
	done
}

"${HYDE_TEST_SHELL:-/bin/sh}" "$@" &
test_pid=$!
(
	sleep "$limit" &
	wait $!
	report "$test_pid" >&2
	touch "$stamp"
	for p in $(descendants "$test_pid"); do
		kill "$p" 2>/dev/null
	done
	sleep 60 &
	wait $!
	for p in $(descendants "$test_pid") "$test_pid"; do
		kill -9 "$p" 2>/dev/null
	done
) &
watch_pid=$!
wait "$test_pid"
rc=$?
# the watcher first (its sleep ending would wake it), then its sleep
sleeper=$(descendants "$watch_pid")
kill "$watch_pid" 2>/dev/null
wait "$watch_pid" 2>/dev/null
for p in $sleeper; do
	kill "$p" 2>/dev/null
done
if [ -e "$stamp" ]; then
	rm -f "$stamp"
	echo "FAIL: $1 did not end within ${limit}s (HYDE_TEST_LIMIT)" >&2
	exit 1
fi
exit $rc
