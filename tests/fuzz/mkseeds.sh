#!/bin/sh
# mkseeds.sh SRCDIR BUILDDIR: (re)write the seed corpora of the fuzz
# targets, tests/fuzz/corpus/TARGET/seed-*, from the project's own files:
# the shipped topologies and workloads, slices of the traces, the
# analyzer's golden run directory (BUILDDIR/tests/mkfixture), a capture
# of a real run (kept in the corpus: it needs root to make again) and
# hand-written protocol sessions. Inputs `make fuzz` found and kept sit
# beside them (no seed- prefix) and are not touched.
set -eu
src=$1 build=$2
C="$src/tests/fuzz/corpus"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in topo workload swim coflow pcap analyze ocs shuffle; do
	mkdir -p "$C/$t"
	rm -f "$C/$t"/seed-*
done

for f in "$src"/topologies/*.topo "$src"/tests/data/*.topo; do
	cp "$f" "$C/topo/seed-$(basename "$f")"
done
for f in "$src"/workloads/*.wl "$src"/tests/data/*.wl; do
	cp "$f" "$C/workload/seed-$(basename "$f")"
done
head -n 40 "$src/workloads/traces/FB-2009_samples_24_times_1hr_0.tsv" >"$C/swim/seed-fb2009-40"
head -n 40 "$src/workloads/traces/FB-2010_samples_24_times_1hr_0.tsv" >"$C/swim/seed-fb2010-40"
sed -n '1000,1020p' "$src/workloads/traces/FB-2010_samples_24_times_1hr_0.tsv" >"$C/swim/seed-fb2010-mid"
head -n 12 "$src/workloads/traces/FB2010-1Hr-150-0.txt" >"$C/coflow/seed-fb2010-12"
cp "$src/tests/data/coflow3.txt" "$C/coflow/seed-coflow3"

# the golden run directory: its captures for the reader, and each file
# it reads, with the target's selector byte first (fuzz_analyze.c: the
# file's index, plus 11 for an interrupted run)
for v in good truncated corrupt linktype; do
	"$build/tests/mkfixture" "$v" "$tmp/$v"
done
for f in tor0-h0 tor0-up tor0-ocs tor1-h1; do
	cp "$tmp/good/pcap/$f.pcap" "$C/pcap/seed-good-$f.pcap"
done
cp "$tmp/truncated/pcap/tor0-h0.pcap" "$C/pcap/seed-truncated.pcap"
cp "$tmp/linktype/pcap/tor1-up.pcap" "$C/pcap/seed-linktype.pcap"
if command -v editcap >/dev/null; then
	editcap -F pcapng "$tmp/good/pcap/tor0-h0.pcap" "$C/pcap/seed-good-tor0-h0.pcapng"
fi
k=0
for f in pcap/tor0-h0.pcap pcap/tor0-up.pcap pcap/tor0-ocs.pcap pcap/tor1-h0.pcap \
	manifest.csv app/fetches.csv app/jobs.csv app/coflows.csv events.log \
	inputs/workload.wl inputs/topology.topo; do
	if [ -f "$tmp/good/$f" ]; then
		for i in 0 1; do
			{ printf "\\$(printf %o $((k + 11 * i)))"; cat "$tmp/good/$f"; } \
				>"$C/analyze/seed-$k-$i-$(basename "$f")"
		done
	fi
	k=$((k + 1))
done

# the crossbar's protocol: first byte (ports - 2), then the client's bytes
printf '\003set 0-1 2-3\nshow\nset 0-1 2-4\nstats\nevents 2\n' >"$C/ocs/seed-sets"
printf '\006set 0>1 1>2 2>3 3>0\r\nset none\nwatch\nunwatch\ndelta 20ms\ndelta\ntime\nhelp\nquit\nshow\n' \
	>"$C/ocs/seed-all"
printf '\001set 0-1 1-2\nset 0-0\nset 5-6\nbogus\n\nevents x\ndelta 11s\nset 0-\n' >"$C/ocs/seed-bad"
# the shuffle service: byte 0 even: a fetch; odd: registrations
printf '\000GET 7 2 2 2:1000000 3:500000\n' >"$C/shuffle/seed-get"
printf '\000GET 1 0 3 0:1 1:2 2:3\nignored\n' >"$C/shuffle/seed-get3"
printf '\000GET 7 2 4000000000 2:10\n' >"$C/shuffle/seed-count"
printf '\001reg 7 2\nreg 7 3\nreg 7 x\nreg 7' >"$C/shuffle/seed-reg"
echo "seeds written under $C"
