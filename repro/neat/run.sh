#!/bin/sh
# make reproduce-neat: NEAT (Munir et al., CoNEXT'16) in hyde, the paper's
# setting, repeated runs, PNG figures and a markdown report with the
# paper's values beside ours.
#
#   repro/neat/run.sh [OUTDIR]      (default runs/reproduce-neat)
#
# Environment: HYDE (the binary), HYDE_SRCDIR (the source tree),
# NEAT_SEEDS ("1 2 3": one workload and one run per seed and scheme),
# NEAT_FLOWS (20000 flows a workload), NEAT_LOAD (0.8 of the host links),
# NEAT_EMUL (auto: the testbed in emulation when root, yes, no),
# NEAT_EMUL_FLOWS (1000), NEAT_EMUL_SEEDS ("1 2"), JOBS (simulations at
# a time, default the cores), NEAT_SWEEP_ONLY (yes: the simulations
# written out as hyde sweeps for GNU parallel or Slurm, nothing run).
# A run already in OUTDIR is not run again (delete it to redo it).
#
# Simulation (hyde sim, topologies/neat160.topo: 160 hosts, 1 Gbit/s edges,
# 10 Gbit/s above, 1:1), flow-level workloads (hyde gen flows): the
# web-search CDF (DCTCP) and the data-mining CDF (VL2) standing in for the
# paper's Hadoop one (workloads/README.md), Poisson at NEAT_LOAD. Every
# scheme of a figure runs on the same workload. Emulation (hyde run,
# topologies/neat10.topo: 10 hosts in one rack at 100 Mbit/s, the testbed
# scaled by 0.1 with the sizes), the policies enforced by the fabric's
# priority bands and the senders' marking (emul/prio.h).
set -eu

HYDE=${HYDE:-./hyde}
SRC=${HYDE_SRCDIR:-.}
OUT=${1:-runs/reproduce-neat}
SEEDS=${NEAT_SEEDS:-"1 2 3"}
FLOWS=${NEAT_FLOWS:-20000}
LOAD=${NEAT_LOAD:-0.8}
EMUL=${NEAT_EMUL:-auto}
EFLOWS=${NEAT_EMUL_FLOWS:-1000}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 1)}
ESEEDS=${NEAT_EMUL_SEEDS:-"1 2"}
R=$SRC/repro/neat
T160=$SRC/topologies/neat160.topo
T10=$SRC/topologies/neat10.topo

mkdir -p "$OUT/wl" "$OUT/sim" "$OUT/emul" "$OUT/tab" "$OUT/fig"
log() { printf '%s\n' "$*" >&2; }

# ---- workloads ----
gen() { # NAME TOPO KEY=VALUE...
	_n=$1
	_t=$2
	shift 2
	[ -s "$OUT/wl/$_n.wl" ] || "$HYDE" gen flows "topo=$_t" "$@" -o "$OUT/wl/$_n.wl"
}

# ---- simulation: sim RUN WORKLOAD SCHED [hyde sim options...] ----
# A run is queued (repro/simqueue.sh); the queue then runs as hyde sweeps,
# one per scheduler and options (its workloads the grid), JOBS at a time,
# each run linked as OUT/sim/RUN. NEAT_SWEEP_ONLY=yes writes the sweeps
# out (commands.txt for GNU parallel, slurm.sh for a Slurm array) and
# stops; run this again once they are done.
. "$SRC/repro/simqueue.sh"
simq_init "$OUT" "$SRC"
sim() {
	_run=$1
	_wl=$2
	_s=$3
	shift 3
	simq_add "$OUT/sim/$_run" "$T160" "$OUT/wl/$_wl.wl" "$_s" --heartbeat 0 "$@" || exit 2
}
run_sims() {
	SWEEP_ONLY=${NEAT_SWEEP_ONLY:-no}
	_rc=0
	simq_run || _rc=$?
	[ "${NEAT_SWEEP_ONLY:-no}" = yes ] && exit 0
	[ $_rc = 0 ] || { log "simulations failed"; exit 1; }
}

for s in $SEEDS; do
	gen "ws-$s" "$T160" cdf=websearch "load=$LOAD" "flows=$FLOWS" "seed=$s"
	gen "dm-$s" "$T160" cdf=datamining "load=$LOAD" "flows=$FLOWS" "seed=$s"
	gen "cf-$s" "$T160" cdf=datamining "load=$LOAD" "flows=$FLOWS" width=4 "seed=$s"
	for l in 0.3 0.5; do
		gen "ws$l-$s" "$T160" cdf=websearch "load=$l" "flows=$FLOWS" "seed=$s"
		gen "dm$l-$s" "$T160" cdf=datamining "load=$l" "flows=$FLOWS" "seed=$s"
	done
done

for s in $SEEDS; do
	for x in neat minload mindist; do
		# Fig. 5: flows under Fair; Fig. 6: under LAS and SRPT; Fig. 3
		sim "fair-ws-$x-$s" "ws-$s" $x --net fair
		sim "fair-dm-$x-$s" "dm-$s" $x --net fair
		sim "las-dm-$x-$s" "dm-$s" $x --net las
		sim "srpt-dm-$x-$s" "dm-$s" $x --net srpt
		# Fig. 7: coflows under Varys and SCF
		sim "varys-cf-$x-$s" "cf-$s" $x --coflow varys
		sim "scf-cf-$x-$s" "cf-$s" $x --coflow scf
		# loads
		for l in 0.3 0.5; do
			sim "fair-ws$l-$x-$s" "ws$l-$s" $x --net fair
			sim "fair-dm$l-$x-$s" "dm$l-$s" $x --net fair
		done
	done
	# Fig. 8: the SRPT predictor against the Fair one, under SRPT
	sim "srpt-dm-neatsrpt-$s" "dm-$s" neat --net srpt -S predictor=net
	# Fig. 9: minFCT (no preferred hosts)
	sim "srpt-dm-minfct-$s" "dm-$s" minfct --net srpt
	sim "fair-dm-minfct-$s" "dm-$s" minfct --net fair
	# ablations: the whole path predicted; the compressed state; Alg. 1's
	# "1-hop" fallback; minLoad as the paper words it (utilisation over
	# the last 10 ms: heartbeats every 10 ms, NEAT beside it the same)
	sim "fair-dm-neatpath-$s" "dm-$s" neat --net fair -S mode=path
	sim "fair-dm-neatbins-$s" "dm-$s" neat --net fair -S bins=8
	sim "fair-dm-neatrack-$s" "dm-$s" neat --net fair -S fallback=rack
	sim "fair-dm-neathb-$s" "dm-$s" neat --net fair --heartbeat 10ms
	sim "fair-dm-minloadutil-$s" "dm-$s" minload --net fair --heartbeat 10ms -S load=util
done

run_sims

# ---- tables: gap per bin, mean (min-max) over the seeds ----
runs() { # PATTERN (with @ for the seed): the flows.csv of every seed
	for s in $SEEDS; do
		printf '%s/sim/%s/flows.csv ' "$OUT" "$(printf '%s' "$1" | sed "s/@/$s/")"
	done
}
fgap() { # TABLE PATTERN [awk -v ...]: flow gaps of one scheme
	_t=$1
	_p=$2
	shift 2
	# shellcheck disable=SC2046 # one file per seed
	awk -v rate=1e9 "$@" -f "$R/fctgap.awk" $(runs "$_p") >"$OUT/tab/$_t"
}
cgap() {
	# shellcheck disable=SC2046
	awk -v rate=1e9 -f "$R/cctgap.awk" $(runs "$2") >"$OUT/tab/$1"
}
for x in neat minload mindist; do
	fgap "fair-ws-$x" "fair-ws-$x-@"
	fgap "fair-dm-$x" "fair-dm-$x-@"
	fgap "las-dm-$x" "las-dm-$x-@"
	fgap "srpt-dm-$x" "srpt-dm-$x-@"
	cgap "varys-cf-$x" "varys-cf-$x-@"
	cgap "scf-cf-$x" "scf-cf-$x-@"
	for l in 0.3 0.5; do
		fgap "fair-ws$l-$x" "fair-ws$l-$x-@"
		fgap "fair-dm$l-$x" "fair-dm$l-$x-@"
	done
done
for x in neatsrpt minfct; do fgap "srpt-dm-$x" "srpt-dm-$x-@"; done
for x in minfct neatpath neatbins neatrack neathb minloadutil; do fgap "fair-dm-$x" "fair-dm-$x-@"; done
# Fig. 10: prediction errors
perr() { # TABLE PATTERN
	_f=
	for s in $SEEDS; do
		_d=$OUT/sim/$(printf '%s' "$2" | sed "s/@/$s/")
		_f="$_f $_d/events.log $_d/flows.csv"
	done
	# shellcheck disable=SC2086
	awk -f "$R/prederr.awk" $_f | sort -k1,1n -k2,2g | awk -f "$R/errstat.awk" >"$OUT/tab/$1"
}
perr err-srpt-fairpred "srpt-dm-neat-@"
perr err-srpt-srptpred "srpt-dm-neatsrpt-@"
perr err-fair-edge "fair-dm-neat-@"
perr err-fair-path "fair-dm-neatpath-@"

# ---- emulation: the testbed (Fig. 11) ----
emul_ok=no
if [ "$EMUL" = yes ] || { [ "$EMUL" = auto ] && [ "$(id -u)" = 0 ]; }; then
	emul_ok=yes
	# times of flows alone on this fabric: sizes on a log grid, one at a
	# time, each starting half a second after the last one's end
	if [ ! -s "$OUT/emul/calib.txt" ]; then
		awk 'BEGIN {
			n = 0; t = 1
			for (e = 2; e <= 8.01; e += 0.5) for (r = 0; r < 3; r++) {
				b = int(10 ^ e)
				printf "job id=c%d user=default arrival=%.3fs input=%dB shuffle=0B output=0B maps=1 reduces=0 map_time=0s reduce_time=0s input_hosts=r0h%d remote=yes\n", n, t, b, n % 10
				t += b * 8 / 9e7 + 0.5
				n++
			}
		}' >"$OUT/wl/calib.wl"
		log "emulation: calibration (flows alone)"
		rm -rf "$OUT/emul/calib"
		"$HYDE" run -t "$T10" -w "$OUT/wl/calib.wl" --heartbeat 0 -s minload \
			-o "$OUT/emul/calib" --prefix hydeneatr -q >/dev/null 2>&1 ||
			log "emulation: calibration failed"
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["fct_ns"] > 0 { print $c["bytes"], $c["fct_ns"] / 1e9 }' \
			"$OUT/emul/calib/flows.csv" | sort -n -k1,1 -k2,2n |
			awk '{ v[$1] = v[$1] " " $2; n[$1]++ }
			END { for (b in v) { split(v[b], a, " "); print b, a[int((n[b] + 1) / 2)] } }' |
			sort -n >"$OUT/emul/calib.txt"
	fi
	for s in $ESEEDS; do
		gen "tb-$s" "$T10" cdf=datamining scale=0.1 load=0.5 "flows=$EFLOWS" "seed=$s"
		for net in fair las; do
			for x in neat minload; do
				d=$OUT/emul/$net-$x-$s
				[ -s "$d/flows.csv" ] && continue
				log "emulation $net-$x-$s"
				rm -rf "$d"
				"$HYDE" run -t "$T10" -w "$OUT/wl/tb-$s.wl" --heartbeat 0 -s $x \
					--net $net -o "$d" --prefix hydeneatr -q >"$d.log" 2>&1 ||
					log "emulation $net-$x-$s failed (see $d.log)"
			done
		done
	done
	for net in fair las; do
		for x in neat minload; do
			_f=
			for s in $ESEEDS; do _f="$_f $OUT/emul/$net-$x-$s/flows.csv"; done
			# shellcheck disable=SC2086
			awk -v calib="$OUT/emul/calib.txt" -f "$R/fctgap.awk" $_f >"$OUT/tab/tb-$net-$x"
		done
	done
fi

# ---- figures ----
. "$R/report.sh"
