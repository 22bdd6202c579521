#!/bin/sh
# Speed of hyde pcap (a run's captures merged into one annotated pcapng)
# against mergecap (the same merge, no annotation), on the same captures.
# usage: make bench-pcap [BENCH_ARGS="FLOWS BYTES"]   (default 700 x 1 MB)
#    or: make bench-pcap BENCH_ARGS=RUN_DIR           (a real run's captures)
# Prints figures; never passes or fails on time (the box is shared).
set -eu
: "${HYDE:?run through make bench-pcap}"
: "${GEN:?run through make bench-pcap}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hyde-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

now() { date +%s%N; }
best_of() { # N CMD...: the smallest wall time of N runs, in ns
	n=$1
	shift
	best=
	while [ "$n" -gt 0 ]; do
		t0=$(now)
		"$@" >/dev/null 2>&1
		t=$(($(now) - t0))
		if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
		n=$((n - 1))
	done
	echo "$best"
}

if [ $# -ge 1 ] && [ -d "$1" ]; then
	run=$1
	echo "the captures of $run"
else
	flows=${1:-700}
	bytes=${2:-1000000}
	echo "generating $flows fetches of $bytes bytes on rack8 ..."
	run="$tmp/run"
	"$GEN" "$run" "$flows" "$bytes"
fi
files=$(ls "$run/pcap/"*.pcap | wc -l)
bytes_in=$(du -cb "$run/pcap/"*.pcap | tail -1 | cut -f1)
cat "$run/pcap/"*.pcap >/dev/null # warm: both read from the page cache
"$HYDE" pcap -o "$tmp/out.pcapng" "$run" >"$tmp/report"
packets=$(sed -n 's/.*wrote .*: \([0-9]*\) packets.*/\1/p' "$tmp/report")
bytes_out=$(stat -c %s "$tmp/out.pcapng")
t_hyde=$(best_of 3 "$HYDE" pcap -q -o "$tmp/out.pcapng" "$run")
rss=$( { /usr/bin/time -f %M "$HYDE" pcap -q -o "$tmp/out.pcapng" "$run" >/dev/null; } 2>&1 | tail -1)
if command -v mergecap >/dev/null; then
	t_merge=$(best_of 3 mergecap -F pcapng -w "$tmp/merged.pcapng" "$run/pcap/"*.pcap)
	bytes_merge=$(stat -c %s "$tmp/merged.pcapng")
else
	t_merge=0 bytes_merge=0
fi
awk -v p="$packets" -v f="$files" -v bi="$bytes_in" -v bo="$bytes_out" -v th="$t_hyde" \
    -v tm="$t_merge" -v bm="$bytes_merge" -v rss="$rss" 'BEGIN {
	printf "captures     %d files, %d packets, %.1f MB\n", f, p, bi / 1e6
	printf "hyde pcap    %.3f s, %.2f M packets/s, %.1f MB out (%.2fx the captures: the comments), peak %.1f MB\n",
		th / 1e9, p / (th / 1e9) / 1e6, bo / 1e6, bo / bi, rss / 1024
	if (tm > 0)
		printf "mergecap     %.3f s, %.2f M packets/s, %.1f MB out (the merge alone: no comments); hyde pcap / mergecap = %.2f\n",
			tm / 1e9, p / (tm / 1e9) / 1e6, bm / 1e6, th / tm
}'
