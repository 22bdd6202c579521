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

finish() {
	if [ "$failures" -gt 0 ]; then
		echo "$failures failure(s)" >&2
		exit 1
	fi
	exit 0
}
