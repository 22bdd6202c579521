#!/bin/sh
# hyde analyze on the golden run directories: outputs, plots, exit codes,
# nothing half-written. The exact rows are asserted by check_analyze.c.
. "${HYDE_SRCDIR}/tests/lib.sh"

MK="$HYDE_BUILDDIR/tests/mkfixture"

"$MK" good "$tmpdir/good" || fail "mkfixture good"
expect_status 0 "$HYDE" analyze "$tmpdir/good" &&
	contains "$out" "flows      10: 7 measured, 1 unfinished, 0 without SYN, 1 not captured, 1 on one host (app timestamps)" &&
	contains "$out" "|FCT err|  median 50us, p99 2.02ms" &&
	contains "$out" "1st byte   median 300us, p99 300us, max 300us (6 flows under 100 KB, first SYN to first data byte)" &&
	contains "$out" "unknown    1 connection(s) in no manifest line" &&
	contains "$err" "1 flow(s) never finished"
for f in flows.csv coflows.csv jobs.csv summary.json; do
	[ -s "$tmpdir/good/$f" ] || fail "no $f"
done
if command -v gnuplot >/dev/null 2>&1; then
	for f in fct_cdf.png cct_cdf.png path_bytes.png; do
		head -c 8 "$tmpdir/good/$f" 2>/dev/null | od -An -c | grep -q 'P   N   G' ||
			fail "$f is not a PNG"
	done
	contains "$out" "and 3 plot(s)"
fi
ls -A "$tmpdir/good" | grep -q -e '\.tmp' -e '\.gp' && fail "temporaries left: $(ls -A "$tmpdir/good")"
# summary.json is valid JSON when python3 is there to say so
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"] == 1 and d["analysis"]["accuracy"]["fct_abs_diff"]["median_ns"] == 50000' \
		"$tmpdir/good/summary.json" || fail "summary.json does not parse or lacks the accuracy figure"
	# every measured flow's first data byte is 300us after its SYN (an
	# output write's request, 90us before, is not data)
	python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["analysis"]["first_byte"]; assert (f["all"]["n"], f["all"]["mean_ns"], f["under_100kb"]["n"], f["under_100kb"]["max_ns"]) == (7, 300000, 6, 300000), f' \
		"$tmpdir/good/summary.json" || fail "summary.json: first_byte is not 300us for the 7 measured flows"
fi

# the captures' own counts (pcap/NODE.capstats, as hyde capture writes
# them): without a drop the run stays complete and the rings are summed;
# one frame dropped (or lost on the way to the file) on one port makes it
# incomplete, in the report and in summary.json
cp -r "$tmpdir/good" "$tmpdir/counted"
for k in 0 1; do
	printf 'iface rate_bps ring_bytes received dropped ifdropped lost\n' >"$tmpdir/counted/pcap/tor$k.capstats"
	for i in h0 h1 up ocs; do
		printf '%s 100000000 1048576 50 0 0 0\n' $i >>"$tmpdir/counted/pcap/tor$k.capstats"
	done
done
expect_status 0 "$HYDE" analyze --no-plots "$tmpdir/counted" &&
	contains "$out" "rings 8.39MB, 0 frames dropped"
case $out in *INCOMPLETE*) fail "a run whose captures dropped nothing is marked incomplete: $out" ;; esac
grep -q '"complete": true' "$tmpdir/counted/summary.json" || fail "counted: not complete"
for lost in "3 0 0" "0 0 2"; do
	sed -i "s/^up 100000000 1048576 50 .*/up 100000000 1048576 50 $lost/" "$tmpdir/counted/pcap/tor1.capstats"
	expect_status 0 "$HYDE" analyze --no-plots "$tmpdir/counted" &&
		contains "$out" "INCOMPLETE the captures dropped" && contains "$err" "tor1-up.pcap: the capture dropped"
	grep -q '"complete": false' "$tmpdir/counted/summary.json" &&
		grep -q '"drop_ports": 1' "$tmpdir/counted/summary.json" ||
		fail "drops '$lost' on tor1-up: summary.json not marked incomplete"
done

# --no-plots removes the earlier plots: they would describe another analysis
expect_status 0 "$HYDE" analyze --no-plots -q "$tmpdir/good" && [ -z "$out" ] || fail "-q printed: $out"
[ -e "$tmpdir/good/fct_cdf.png" ] && fail "stale plot kept with --no-plots"

# without gnuplot: a warning, not an error
PATH=/nonexistent "$HYDE" analyze -q "$tmpdir/good" 2>"$tmpdir/nognuplot" ||
	fail "analyze without gnuplot failed"
contains "$(cat "$tmpdir/nognuplot")" "gnuplot not found: no plots"

# bad input: exit 2, one message naming the file, nothing written
for v in truncated corrupt linktype manifest-topo manifest-run manifest-header fetch-conn; do
	"$MK" "$v" "$tmpdir/$v" || fail "mkfixture $v"
	expect_status 2 "$HYDE" analyze "$tmpdir/$v"
	[ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "$v: more than one line of error: $err"
	for f in flows.csv coflows.csv jobs.csv summary.json fct_cdf.png; do
		[ -e "$tmpdir/$v/$f" ] && fail "$v: $f written"
	done
	ls -A "$tmpdir/$v" | grep -q -e '\.tmp' -e '\.gp' && fail "$v: temporaries left"
done
expect_status 2 "$HYDE" analyze "$tmpdir/none" && contains "$err" "No such file or directory"
expect_status 2 "$HYDE" analyze && contains "$err" "expected RUN_DIR"
expect_status 0 "$HYDE" analyze --help && contains "$out" "usage: hyde analyze"

finish
