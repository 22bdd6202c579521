# A queue of hyde sim runs, run as hyde sweeps: sourced by the reproduce
# scripts whose runs are not one grid (each its own workload, scheduler and
# options). simq_add queues a run under the directory the script reads it
# from; simq_run groups the queued runs that differ only by their workload,
# runs each group as one hyde sweep in OUT/sweep/NAME (JOBS at a time, or,
# with SWEEP_ONLY=yes, only writes its commands.txt and slurm.sh), and
# links each run's directory where it was asked for. A sweep skips the runs
# it has done, so a reproduction resumes.
#
# Needs HYDE, JOBS and the queue's OUT; a run's directory must be
# OUT/<dir>/<name> (one level below OUT), its link is relative to OUT.

# simq_init OUT SRCDIR: an empty queue in OUT (SRCDIR: the source tree)
simq_init() {
	SIMQ_OUT=$1
	SIMQ_AWK=$2/repro/sweep_tsv.awk
	mkdir -p "$SIMQ_OUT/sweep" || return 1
	: >"$SIMQ_OUT/sim.queue"
}

# simq_add DIR TOPOLOGY WORKLOAD SCHEDULER [-S K=V] [--seed N] [--FLAG]
#   [--OPTION VALUE]...: flags and options as hyde sweep's (no-io,
#   coflow-only; heartbeat, net, coflow, rates, copies, ...)
simq_add() {
	sq_d=$1 sq_t=$2 sq_w=$3 sq_s=$4
	shift 4
	case ${sq_d#"$SIMQ_OUT"/} in
	"$sq_d" | */*/* | */ | /*) echo "simq_add: $sq_d: not $SIMQ_OUT/DIR/NAME" >&2 && return 2 ;;
	*/*) ;;
	*) echo "simq_add: $sq_d: not $SIMQ_OUT/DIR/NAME" >&2 && return 2 ;;
	esac
	sq_seed=1 sq_opts=
	while [ $# -gt 0 ]; do
		case $1 in
		-S) sq_s="$sq_s:$2" && shift ;;
		--seed) sq_seed=$2 && shift ;;
		--no-io | --coflow-only) sq_opts="$sq_opts;option ${1#--} yes" ;;
		--*) # a later value of an option replaces an earlier one
			sq_opts="$(printf '%s' "$sq_opts" | sed "s/;option ${1#--} [^;]*//");option ${1#--} $2"
			shift ;;
		*) echo "simq_add: $sq_d: option $1 not understood" >&2 && return 2 ;;
		esac
		shift
	done
	# the group (every spec line but the workload's), the workload, the dir
	printf '%s\t%s\t%s\n' "topology $sq_t;scheduler $sq_s;seed $sq_seed$sq_opts" "$sq_w" "$sq_d" \
		>>"$SIMQ_OUT/sim.queue"
}

# simq_run: run every group; 0, 1 if a run failed, 2 if the queue is bad.
# With SWEEP_ONLY=yes it writes them out, says so and returns 0: the
# caller stops there.
simq_run() {
	sq_failed=
	for sq_g in $(cut -f 1 "$SIMQ_OUT/sim.queue" | sort -u | tr ' ' '\001'); do
		sq_g=$(printf '%s' "$sq_g" | tr '\001' ' ')
		# named by the scheduler, and the group's checksum (stable: a
		# reproduction run again finds its sweep)
		sq_n=$(printf '%s' "$sq_g" | sed 's/.*;scheduler \([^;]*\);.*/\1/' | tr ':/' '+-')
		sq_n="${sq_n}_$(printf '%s' "$sq_g" | cksum | cut -d' ' -f1)"
		{
			printf '%s\n' "$sq_g" | tr ';' '\n'
			printf 'workload'
			awk -F '\t' -v g="$sq_g" '$1 == g && !seen[$2]++ { printf " %s", $2 }' "$SIMQ_OUT/sim.queue"
			echo
		} >"$SIMQ_OUT/sweep/$sq_n.spec"
		if [ "${SWEEP_ONLY:-no}" = yes ]; then
			"$HYDE" sweep "$SIMQ_OUT/sweep/$sq_n.spec" -o "$SIMQ_OUT/sweep/$sq_n" -n -q >/dev/null || return 2
			continue
		fi
		echo "simq: hyde sweep $SIMQ_OUT/sweep/$sq_n.spec ($(awk -F '\t' -v g="$sq_g" '$1 == g' "$SIMQ_OUT/sim.queue" | wc -l) runs), $JOBS at a time" >&2
		nice -n 10 "$HYDE" sweep "$SIMQ_OUT/sweep/$sq_n.spec" -o "$SIMQ_OUT/sweep/$sq_n" -j "$JOBS" -q \
			>"$SIMQ_OUT/sweep/$sq_n.out" 2>&1 ||
			{ echo "simq: a run of $SIMQ_OUT/sweep/$sq_n failed (its runs/*.log)" >&2 && sq_failed=yes; }
		awk -F '\t' -v g="$sq_g" '$1 == g { print $2 "\t" $3 }' "$SIMQ_OUT/sim.queue" |
			while IFS="$(printf '\t')" read -r sq_w sq_d; do
				sq_r=$(awk -f "$SIMQ_AWK" "$SIMQ_OUT/sweep/$sq_n/sweep.csv" |
					awk -F '\t' -v w="$sq_w" '$6 == w { print $2; exit }')
				[ -n "$sq_r" ] || { echo "simq_run: $sq_d: not in $SIMQ_OUT/sweep/$sq_n/sweep.csv" >&2 && exit 2; }
				rm -rf "$sq_d"
				mkdir -p "${sq_d%/*}" &&
					ln -s "../sweep/$sq_n/runs/${sq_r##*/}" "$sq_d" || exit 2
			done || return 2
	done
	if [ "${SWEEP_ONLY:-no}" = yes ]; then
		echo "simq: the simulations are written out: $SIMQ_OUT/sweep/*/commands.txt, slurm.sh; run this again once they are done" >&2
	fi
	[ -z "$sq_failed" ] || return 1
}
