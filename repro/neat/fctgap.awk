# Gap from optimal per flow size bin (NEAT §6.1): (AFCT - AFCT_opt) /
# AFCT_opt over the input flows of each bin, AFCT_opt the flows' times
# alone in the network. Per file (a run), then the mean, min and max over
# the files given. Alone: bytes x 8 / rate (-v rate=BITS), or, with
# -v calib=FILE (lines "bytes seconds", sizes ascending), interpolated in
# log-log between measured times of flows alone (emulation: handshake,
# request and TCP's goodput included). Flows that never finished (fct -1)
# take the application's time (app_fct_ns) if it has one.
# Output: "bin n mean min max", bins 0..5 = <10KB, 10-100KB, 100KB-1MB,
# 1-10MB, 10-100MB, >=100MB, then "all".
BEGIN {
	FS = ","
	if (calib != "") {
		nc = 0
		while ((getline line < calib) > 0) {
			split(line, a, " ")
			cs[nc] = a[1] + 0; ct[nc] = a[2] + 0; nc++
		}
	}
}
function alone(b,   i, f) {
	if (calib == "")
		return b * 8 / rate
	if (b <= cs[0])
		return ct[0]
	for (i = 1; i < nc; i++)
		if (b <= cs[i]) {
			f = (log(b) - log(cs[i - 1])) / (log(cs[i]) - log(cs[i - 1]))
			return exp(log(ct[i - 1]) + f * (log(ct[i]) - log(ct[i - 1])))
		}
	# beyond the largest: its time plus the rest at the last segment's rate
	return ct[nc - 1] + (b - cs[nc - 1]) * (ct[nc - 1] - ct[nc - 2]) / (cs[nc - 1] - cs[nc - 2])
}
function binof(b) {
	return (b < 1e4) ? 0 : (b < 1e5) ? 1 : (b < 1e6) ? 2 : (b < 1e7) ? 3 : (b < 1e8) ? 4 : 5
}
FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; files[++nf] = FILENAME; next }
$col["kind"] == "input" {
	b = $col["bytes"] + 0
	t = $col["fct_ns"] / 1e9
	if (t < 0) {
		if ($col["app_fct_ns"] < 0)
			next
		t = $col["app_fct_ns"] / 1e9
	}
	k = binof(b)
	f[nf, k] += t; o[nf, k] += alone(b); n[nf, k]++
	f[nf, 6] += t; o[nf, 6] += alone(b); n[nf, 6]++
}
END {
	for (k = 0; k <= 6; k++) {
		s = 0; m = 0; lo = 1e300; hi = -1e300; cnt = 0
		for (x = 1; x <= nf; x++) {
			if (!n[x, k])
				continue
			g = f[x, k] / o[x, k] - 1
			s += g; m++; cnt += n[x, k]
			if (g < lo) lo = g
			if (g > hi) hi = g
		}
		if (m)
			printf "%s %d %.4f %.4f %.4f\n", (k == 6 ? "all" : k), cnt, s / m, lo, hi
	}
}
