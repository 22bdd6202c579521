#!/bin/sh
# Speed of hyde analyze against tshark on the same packets, in one run.
# usage: make bench-analyze [BENCH_ARGS="FLOWS BYTES"]   (default 700 x 1 MB)
# Prints figures; never passes or fails on time (the box is shared).
set -eu
: "${HYDE:?run through make bench-analyze}"
: "${GEN:?run through make bench-analyze}"
flows=${1:-700}
bytes=${2:-1000000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hyde-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

now() { date +%s%N; }
# best (smallest) wall time of N runs of a command, in ns
best_of() {
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

echo "generating $flows fetches of $bytes bytes on rack8 ..."
"$GEN" "$tmp/run" "$flows" "$bytes"
# tshark reads one file: the same packets, merged from every capture
mergecap -F pcap -w "$tmp/all.pcap" "$tmp/run/pcap/"*.pcap

"$HYDE" analyze --no-plots "$tmp/run" >"$tmp/report" 2>/dev/null
packets=$(sed -n 's/.*"packets": \([0-9]*\), "tcp_packets".*/\1/p' "$tmp/run/summary.json")
bytes_in=$(du -cb "$tmp/run/pcap/"*.pcap | tail -1 | cut -f1)
files=$(ls "$tmp/run/pcap" | wc -l)
peak=$(sed -n 's/.*"peak_connections": \([0-9]*\).*/\1/p' "$tmp/run/summary.json")

# warm: both read from the page cache
cat "$tmp/run/pcap/"*.pcap "$tmp/all.pcap" >/dev/null
t_hyde=$(best_of 3 "$HYDE" analyze --no-plots -q "$tmp/run")
rss=$( { /usr/bin/time -f %M "$HYDE" analyze --no-plots -q "$tmp/run" >/dev/null; } 2>&1 | tail -1)
# tshark is slow: once, keeping its table to count the conversations
t0=$(now)
tshark -q -z conv,tcp -r "$tmp/all.pcap" >"$tmp/conv" 2>/dev/null
t_tshark=$(($(now) - t0))
conv=$(grep -c '<->' "$tmp/conv" || true)
# tshark's own pace on one capture where no packet appears twice, its
# start-up (an empty capture) taken off
big=$(ls -S "$tmp/run/pcap/"*.pcap | head -1)
big_packets=$(capinfos -Mc "$big" | sed -n 's/.*packets: *//p')
editcap -r "$big" "$tmp/empty.pcap" 0 2>/dev/null
t_empty=$(best_of 2 tshark -q -z conv,tcp -r "$tmp/empty.pcap")
t_big=$(best_of 2 tshark -q -z conv,tcp -r "$big")

awk -v p="$packets" -v b="$bytes_in" -v th="$t_hyde" -v tt="$t_tshark" \
    -v f="$files" -v conv="$conv" -v flows="$flows" -v peak="$peak" \
    -v rss="$rss" -v bp="$big_packets" -v tb="$t_big" -v te="$t_empty" \
    -v bn="$(basename "$big")" 'BEGIN {
	printf "capture      %d packets, %.1f MB in %d files (tshark: the same, merged)\n", p, b / 1e6, f
	printf "hyde analyze %.3f s  %.2f M packets/s  %.0f MB/s  (best of 3; max RSS %.1f MB)\n", th / 1e9, p / th * 1e3, b / th * 1e3, rss / 1024
	printf "tshark conv  %.3f s  %.3f M packets/s  %.1f MB/s  (tshark -q -z conv,tcp)\n", tt / 1e9, p / tt * 1e3, b / tt * 1e3
	printf "ratio        hyde is %.1fx tshark (goal: at least 5x)\n", tt / th
	printf "tshark pace  %.3f M packets/s on %s alone (%d packets, none twice), start-up %.2f s excluded: %.1fx\n", bp / (tb - te) * 1e3, bn, bp, te / 1e9, (p / th) / (bp / (tb - te))
	printf "check        tshark sees %d TCP conversations; the manifest lists %d flows; hyde held at most %d connections at once\n", conv, flows, peak
}'
grep -E "flows|\|FCT err\||\|CCT err\||bytes " "$tmp/report" | sed 's/^  /hyde:        /'
