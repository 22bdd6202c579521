#!/bin/sh
# hyde ocs without a crossbar: usage errors exit 2 with one clear line, an
# unreachable crossbar exits 1. Needs no root.
. "${HYDE_SRCDIR}/tests/lib.sh"

expect_status 0 "$HYDE" ocs --help && contains "$out" "usage: hyde ocs serve" &&
	contains "$out" "I-J is a circuit both ways"
expect_status 2 "$HYDE" ocs && contains "$err" "usage: hyde ocs"
expect_status 2 "$HYDE" ocs bogus && contains "$err" "unknown subcommand 'bogus'"
expect_status 2 "$HYDE" ocs serve --rate 400Mbit --delta 10ms && contains "$err" "expected --ports R"
expect_status 2 "$HYDE" ocs serve --ports 4 --delta 10ms && contains "$err" "expected --rate RATE"
expect_status 2 "$HYDE" ocs serve --ports 4 --rate 400Mbit && contains "$err" "expected --delta TIME"
expect_status 2 "$HYDE" ocs serve --ports 1 --rate 400Mbit --delta 10ms &&
	contains "$err" "--ports: expected a whole number from 2 to 256, got '1'"
expect_status 2 "$HYDE" ocs serve --ports 4 --rate fast --delta 10ms && contains "$err" "--rate: expected a rate"
expect_status 2 "$HYDE" ocs serve --ports 4 --rate 400Mbit --delta 11s && contains "$err" "--delta: expected a time from 0 to 10s"
expect_status 2 "$HYDE" ocs serve --ports 4 --rate 400Mbit --delta 10ms --voq 0B && contains "$err" "--voq"
expect_status 2 "$HYDE" ocs serve --ports 4 --rate 400Mbit --delta 10ms extra && contains "$err" "unexpected argument 'extra'"
expect_status 2 "$HYDE" ocs serve --ports && contains "$err" "option '--ports' needs a value"
expect_status 2 "$HYDE" ocs show --frob && contains "$err" "unknown option '--frob'"
expect_status 2 "$HYDE" ocs set --socket "$tmpdir/s" && contains "$err" "set: expected circuits"
expect_status 2 "$HYDE" ocs show extra --socket "$tmpdir/s" && contains "$err" "show: unexpected argument 'extra'"
expect_status 2 "$HYDE" ocs set 0-1 --ports 4 && contains "$err" "are for 'serve'"
expect_status 2 "$HYDE" ocs serve --ports 4 --rate 400Mbit --delta 10ms --request-timeout 0s &&
	contains "$err" "--request-timeout: expected a time"
expect_status 2 "$HYDE" ocs show --request-timeout 1s && contains "$err" "are for 'serve'"
# the shuffle service's limits
expect_status 2 "$HYDE" shuffled --reg "$tmpdir/r.sock" --request-timeout soon &&
	contains "$err" "--request-timeout: expected a time"
expect_status 2 "$HYDE" shuffled --reg "$tmpdir/r.sock" --send-timeout 0s &&
	contains "$err" "--send-timeout: expected a time"
expect_status 2 "$HYDE" shuffled --reg "$tmpdir/r.sock" --max-conns 0 &&
	contains "$err" "--max-conns: expected 1 to 1000000"
expect_status 2 "$HYDE" ocs show --count 3 && contains "$err" "--count is for 'watch'"
expect_status 2 "$HYDE" ocs show --prefix a/b && contains "$err" "not a namespace prefix"
# nothing listens there: the run failed, status 1, and it says where it looked
expect_status 1 "$HYDE" ocs set 0-1 --socket "$tmpdir/none.sock" &&
	contains "$err" "cannot reach the crossbar at $tmpdir/none.sock"
expect_status 1 "$HYDE" ocs show --prefix hydenone && contains "$err" "/run/hyde/hydenone/ocs.sock"
finish
