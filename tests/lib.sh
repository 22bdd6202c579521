# Helpers for the shell tests. Sourced; $HYDE, $HYDE_SRCDIR come from make.
set -u
: "${HYDE:?run through make check}"
: "${HYDE_SRCDIR:?run through make check}"

failures=0
fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

# expect_status WANT CMD...: run CMD, capture stdout/stderr in $out/$err
expect_status() {
	want=$1
	shift
	out=$("$@" 2>"$tmpdir/stderr")
	got=$?
	err=$(cat "$tmpdir/stderr")
	if [ "$got" != "$want" ]; then
		fail "'$*' exited $got, expected $want; stderr: $err"
		return 1
	fi
	return 0
}

contains() {
	case "$1" in
	*"$2"*) return 0 ;;
	esac
	fail "expected '$2' in: $1"
	return 1
}

# Tests that need root and namespaces skip (77) without them.
require_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP: needs root" >&2
		exit 77
	fi
	if ! ip netns list >/dev/null 2>&1; then
		echo "SKIP: no network namespaces" >&2
		exit 77
	fi
}

# A namespace prefix of this test's own: hyde<NAME> and 6 random hex
# digits, so that suites (two checkouts, a distcheck beside a check) can
# run side by side without touching each other's fabrics.
test_prefix() { # NAME
	printf 'hyde%s%s\n' "$1" "$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')"
}

tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/hyde-test.XXXXXX")
trap 'rm -rf "$tmpdir"' EXIT

# verified_main_job NAME [hyde sim OPTIONS...]: fair on the main job
# (rack8 x fb-small) with the options, every rate checked against
# water-filling from scratch (HYDE_SIM_VERIFY), makes the default run's
# flows, each with its bytes and ended. The runs: $tmpdir/main-default,
# $tmpdir/main-NAME.
verified_main_job() {
	mname=$1
	shift
	mt="$HYDE_SRCDIR/topologies/rack8.topo"
	mw="$HYDE_SRCDIR/workloads/fb-small.wl"
	[ -d "$tmpdir/main-default" ] ||
		expect_status 0 "$HYDE" sim -q -t "$mt" -w "$mw" -s fair -o "$tmpdir/main-default" || return 1
	HYDE_SIM_VERIFY=1
	export HYDE_SIM_VERIFY
	expect_status 0 "$HYDE" sim -q -t "$mt" -w "$mw" -s fair -o "$tmpdir/main-$mname" "$@"
	unset HYDE_SIM_VERIFY
	for d in default "$mname"; do
		awk -F, 'NR > 1 { print $16, $5, ($7 >= 0) }' "$tmpdir/main-$d/flows.csv" | sort >"$tmpdir/main-$d.fb"
	done
	cmp -s "$tmpdir/main-default.fb" "$tmpdir/main-$mname.fb" ||
		fail "$mname: flows or their bytes differ from the default run's: $(diff "$tmpdir/main-default.fb" "$tmpdir/main-$mname.fb" | head -5)"
}

# small_ocs_topo FILE HOSTS CONTAINERS: two racks of HOSTS hosts with
# CONTAINERS containers each, 100 Mbit/s host links, 10 Mbit/s uplinks, a
# 400 Mbit/s OCS with a 10 ms delta, and a 100 KB elephant threshold (a
# shuffle between the racks takes the circuit)
small_ocs_topo() {
	printf 'racks 2\nhosts %s\ncontainers %s\nreplicas 1\nhost_rate 100Mbit\nuplink_rate 10Mbit\nocs yes\nocs_rate 400Mbit\ndelta 10ms\nt_e 100KB\n' \
		"$2" "$3" >"$1"
}

# view_is_flows NAME [hyde sim OPTIONS...]: the simulator's network view
# (tests/plugin_netlog.c: tor0's uplink and r0h0's link at every tick),
# summed over a run of workloads/small.wl on two racks of two hosts (or of
# $view_topo and $view_wl when set), is what the flows that cross those
# links carried, byte for byte. The run: $tmpdir/view-NAME.
view_is_flows() {
	vname=$1
	shift
	if [ ! -f "$tmpdir/netlog.so" ]; then
		cc -std=c11 -Wall -Werror -shared -fPIC -I"$HYDE_SRCDIR/include" -o "$tmpdir/netlog.so" \
			"$HYDE_SRCDIR/tests/plugin_netlog.c" || { fail "cannot build the plugin"; return 1; }
		printf 'racks 2\nhosts 2\ncontainers 2\nreplicas 1\nhost_rate 1Gbit\nuplink_rate 100Mbit\nocs no\n' \
			>"$tmpdir/four.topo"
	fi
	vdir="$tmpdir/view-$vname"
	expect_status 0 "$HYDE" sim -q -t "${view_topo:-$tmpdir/four.topo}" \
		-w "${view_wl:-$HYDE_SRCDIR/workloads/small.wl}" -s "$tmpdir/netlog.so" -o "$vdir" "$@" ||
		return 1
	v_up=$(grep ' sched netlog: view ' "$vdir/events.log" | awk '{ s += $7 } END { print s + 0 }')
	v_host=$(grep ' sched netlog: view ' "$vdir/events.log" | awk '{ s += $10 } END { print s + 0 }')
	f_up=$(awk -F, 'NR > 1 && $4 == "eps" && $14 ~ /^r0h/ { s += $5 } END { print s + 0 }' "$vdir/flows.csv")
	f_host=$(awk -F, 'NR > 1 && $4 != "host" && $14 == "r0h0" { s += $5 } END { print s + 0 }' "$vdir/flows.csv")
	[ "$f_up" -gt 0 ] && [ "$f_host" -gt 0 ] || fail "$vname: no flow on the links looked at"
	[ "$v_up" = "$f_up" ] || fail "$vname: tor0's uplink carried $v_up bytes in the view, its flows $f_up"
	[ "$v_host" = "$f_host" ] || fail "$vname: r0h0's link carried $v_host bytes in the view, its flows $f_host"
}

finish() {
	if [ "$failures" -gt 0 ]; then
		echo "$failures failure(s)" >&2
		exit 1
	fi
	exit 0
}
