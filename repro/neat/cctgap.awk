# Gap from optimal per coflow size bin (NEAT §6.2, Fig. 7): a coflow is a
# job's input reads; its CCT runs from its first flow's start to its last
# flow's end; optimal, the coflow alone: the most bytes any of its edge
# links (a source's uplink, a destination's downlink) carries of it, at
# -v rate=BITS. Per file, then mean, min, max; bins by the coflow's bytes,
# as fctgap.awk.
BEGIN { FS = "," }
function binof(b) {
	return (b < 1e4) ? 0 : (b < 1e5) ? 1 : (b < 1e6) ? 2 : (b < 1e7) ? 3 : (b < 1e8) ? 4 : 5
}
FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; nf++; next }
$col["kind"] == "input" {
	j = nf SUBSEP $col["job"]
	b = $col["bytes"] + 0; s = $col["start_ns"] + 0; e = $col["end_ns"] + 0
	if (!(j in st) || s < st[j]) st[j] = s
	if (!(j in en) || e > en[j]) en[j] = e
	sz[j] += b
	up[j SUBSEP $col["src"]] += b
	dn[j SUBSEP $col["dst"]] += b
}
END {
	for (k in up) { split(k, a, SUBSEP); j = a[1] SUBSEP a[2]; if (up[k] > bn[j]) bn[j] = up[k] }
	for (k in dn) { split(k, a, SUBSEP); j = a[1] SUBSEP a[2]; if (dn[k] > bn[j]) bn[j] = dn[k] }
	for (j in sz) {
		split(j, a, SUBSEP); x = a[1]
		c = (en[j] - st[j]) / 1e9; opt = bn[j] * 8 / rate; k = binof(sz[j])
		f[x, k] += c; o[x, k] += opt; n[x, k]++
		f[x, 6] += c; o[x, 6] += opt; n[x, 6]++
	}
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
