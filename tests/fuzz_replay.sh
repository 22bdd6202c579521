#!/bin/sh
# Every fuzz target (tests/fuzz/fuzz.h) on its seed corpus and on every
# input that ever crashed it (tests/fuzz/regress/TARGET/: a crash found by
# `make fuzz` is kept there and stays a test). No root needed.
. "${HYDE_SRCDIR}/tests/lib.sh"

R="$HYDE_BUILDDIR/tests/fuzz/replay"
F="$HYDE_SRCDIR/tests/fuzz"
for t in topo workload swim coflow pcap analyze ocs shuffle; do
	[ -d "$F/corpus/$t" ] || { fail "no seed corpus for $t"; continue; }
	set -- "$F/corpus/$t"
	[ -d "$F/regress/$t" ] && set -- "$@" "$F/regress/$t"
	TMPDIR="$tmpdir" "$R" "$t" "$@" >"$tmpdir/$t.out" 2>&1 ||
		fail "fuzz target $t: $(tail -n 20 "$tmpdir/$t.out")"
	tail -n 1 "$tmpdir/$t.out"
done
finish
