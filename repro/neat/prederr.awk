# NEAT's prediction error (§6.3, Fig. 10): (FCT - FCT_pred) / FCT_pred for
# each placed flow, FCT_pred what NEAT predicted for the host it chose
# (events.log: "sched neat: predict JOB map IDX HOST NS"; jobs of one
# flow: flows.csv names the job, not the map). Arguments: pairs
# of files, events.log then flows.csv, per run. Output: "bin error" per
# flow (errstat.awk sums them up).
BEGIN { FS = "," }
function binof(b) {
	return (b < 1e4) ? 0 : (b < 1e5) ? 1 : (b < 1e6) ? 2 : (b < 1e7) ? 3 : (b < 1e8) ? 4 : 5
}
FILENAME ~ /events\.log$/ {
	if (FNR == 1) run++
	if (index($0, ": predict ")) {
		split($0, w, " ")
		# TIME sched NAME: predict JOB map IDX HOST NS
		k = run SUBSEP w[5]
		if (k in pred)
			pred[k] = -1 # a coflow: flows.csv does not say which map
		else
			pred[k] = w[9] + 0
	}
	next
}
FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
$col["kind"] == "input" && $col["fct_ns"] >= 0 {
	key = run SUBSEP $col["job"]
	if (!(key in pred) || pred[key] <= 0)
		next
	e = ($col["fct_ns"] - pred[key]) / pred[key]
	printf "%d %.6f\n", binof($col["bytes"] + 0), e
}
END {}
