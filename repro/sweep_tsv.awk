# hyde sweep's sweep.csv as tab-separated lines, its header dropped: a
# field may be quoted there (a workload such as gen:fb,scale=0.1 holds
# commas), none holds a tab. Columns: id, dir, group, label, topology,
# workload, scheduler, then each option the sweep varies, then seed.
# Used by the reproduce scripts and tests/sweep.sh.
NR > 1 {
	n = 0
	f = ""
	q = 0
	for (i = 1; i <= length($0); i++) {
		c = substr($0, i, 1)
		if (c == "\"") {
			q = !q
			continue
		}
		if (c == "," && !q) {
			col[++n] = f
			f = ""
			continue
		}
		f = f c
	}
	col[++n] = f
	out = col[1]
	for (k = 2; k <= n; k++)
		out = out "\t" col[k]
	print out
}
