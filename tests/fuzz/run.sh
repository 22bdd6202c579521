#!/bin/sh
# run.sh SRCDIR WORKDIR TARGET...: `make fuzz`. Builds every fuzz target
# (tests/fuzz/fuzz.h) with clang's libFuzzer, AddressSanitizer and UBSan
# (the library's sources again: coverage needs them instrumented), then
# runs each for FUZZ_TIME seconds on a working corpus in WORKDIR seeded
# from SRCDIR/tests/fuzz/corpus/TARGET and regress/TARGET, and prints
# the executions and coverage of each. A crash stops that target: its
# input is in WORKDIR/crashes/TARGET/; copy it to tests/fuzz/regress/
# TARGET/ (and fix the bug) so that `make check` replays it for good.
# From make: FUZZ_CC, FUZZ_TIME, FUZZ_CPPFLAGS, FUZZ_LIBS,
# FUZZ_LIB_SOURCES, FUZZ_COMMON_SOURCES. FUZZ_JOBS: targets run at once
# (default 1); FUZZ_NICE: nice level (default 19: the box is shared).
set -eu
src=$1 work=$2
shift 2
: "${FUZZ_CC:=clang}" "${FUZZ_TIME:=60}" "${FUZZ_JOBS:=1}" "${FUZZ_NICE:=19}"
command -v "$FUZZ_CC" >/dev/null || {
	echo "fuzz: $FUZZ_CC not found (Debian: apt-get install clang libclang-rt-dev)" >&2
	exit 2
}
flags="-g -O1 -fno-omit-frame-pointer -DHYDE_LIBFUZZER -DHYDE_PKGDATADIR=\"/nonexistent\" -DHYDE_SRCDIR=\"$src\""
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
mkdir -p "$work/obj" "$work/bin"

# the library and the shared helpers, instrumented for coverage; an
# object is rebuilt when its source or any header is newer
newest_h=$(find "$src/src" "$src/emul" "$src/tests" -name '*.h' -newer "$work/obj/.stamp" 2>/dev/null | head -n 1 || true)
[ -e "$work/obj/.stamp" ] || newest_h=all
objs=""
for f in $FUZZ_LIB_SOURCES $FUZZ_COMMON_SOURCES; do
	case $f in *.c) ;; *) continue ;; esac
	o="$work/obj/$(echo "$f" | tr / _ | sed 's/\.c$/.o/')"
	objs="$objs $o"
	if [ -n "$newest_h" ] || [ ! -e "$o" ] || [ "$src/$f" -nt "$o" ]; then
		echo "$FUZZ_CC -c $f"
		# shellcheck disable=SC2086 # word lists
		$FUZZ_CC $flags $san -fsanitize=fuzzer-no-link $FUZZ_CPPFLAGS -c "$src/$f" -o "$o"
	fi
done
touch "$work/obj/.stamp"
for t in "$@"; do
	# shellcheck disable=SC2086
	$FUZZ_CC $flags $san -fsanitize=fuzzer $FUZZ_CPPFLAGS "$src/tests/fuzz/fuzz_$t.c" $objs \
		$FUZZ_LIBS -o "$work/bin/fuzz_$t"
done
echo "built: $*"

run_one() { # TARGET
	t=$1
	mkdir -p "$work/corpus/$t" "$work/crashes/$t"
	set -- "$work/corpus/$t" "$src/tests/fuzz/corpus/$t"
	[ -d "$src/tests/fuzz/regress/$t" ] && set -- "$@" "$src/tests/fuzz/regress/$t"
	# -rss_limit_mb: one input may not make a target grow past 2 GB, nor
	# ask malloc for more than that at once (a size taken from the input)
	(cd "$work/crashes/$t" && TMPDIR="$work" nice -n "$FUZZ_NICE" "$work/bin/fuzz_$t" \
		-max_total_time="$FUZZ_TIME" -rss_limit_mb=2048 -malloc_limit_mb=2048 \
		-timeout=30 -print_final_stats=1 -artifact_prefix="$work/crashes/$t/" \
		"$@" >"$work/$t.log" 2>&1) || true
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t.log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$work/$t.log" | tail -n 1)
	corp=$(grep -o 'corp: [0-9]*/[0-9a-zA-Z]*' "$work/$t.log" | tail -n 1)
	crashes=$(find "$work/crashes/$t" -type f \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' -o -name 'leak-*' \) | wc -l)
	printf '%-9s %9s executions in %ss, %s, %s, %s finding(s)%s\n' "$t" "${runs:-?}" "$FUZZ_TIME" \
		"${cov:-cov: ?}" "${corp:-corp: ?}" "$crashes" \
		"$([ "$crashes" -gt 0 ] && echo " -> $work/crashes/$t/, log $work/$t.log")"
}

status=0
running=0
for t in "$@"; do
	run_one "$t" >"$work/$t.summary" &
	running=$((running + 1))
	if [ "$running" -ge "$FUZZ_JOBS" ]; then
		wait
		running=0
	fi
done
wait
for t in "$@"; do
	cat "$work/$t.summary"
	grep -q ' 0 finding(s)' "$work/$t.summary" || status=1
done
exit $status
