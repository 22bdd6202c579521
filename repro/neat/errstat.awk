# Input: "bin error" lines sorted by bin, then error. Output per bin:
# "bin n mean p10 median p90 share_within_5pct share_within_20pct".
function flush() {
	if (!n)
		return
	i90 = int(n * 0.9)
	if (i90 < 1)
		i90 = 1
	printf "%d %d %.4f %.4f %.4f %.4f %.4f %.4f\n", bin, n, sum / n, v[int(n * 0.1) + 1],
		v[int((n + 1) / 2)], v[i90], w5 / n, w20 / n
}
$1 != bin || NR == 1 { flush(); bin = $1; n = 0; sum = 0; w5 = 0; w20 = 0 }
{
	v[++n] = $2; sum += $2
	a = $2 < 0 ? -$2 : $2
	w5 += a <= 0.05; w20 += a <= 0.2
}
END { flush() }
