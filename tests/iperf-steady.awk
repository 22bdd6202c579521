# Goodput the iperf3 server measured (receive side, its own clock) over
# its 1-second intervals within [from, to]: steady state, free of slow
# start and of the queue draining at the end. Needs iperf3 -s -J and the
# client's --get-server-output -J. Prints bit/s, nothing if none.
/"server_output_json"/ { srv = 1 }
srv && /"sum":/ { insum = 1; s = ""; e = "" }
srv && insum && /"start":/ { v = $2; gsub(/[^0-9.]/, "", v); s = v }
srv && insum && /"end":/ { v = $2; gsub(/[^0-9.]/, "", v); e = v }
srv && insum && /"bytes":/ {
	v = $2; gsub(/[^0-9]/, "", v)
	if (s != "" && e != "" && s + 0 >= from - 0.05 && e + 0 <= to + 0.05 && e > s) {
		bytes += v; secs += e - s
	}
	insum = 0
}
END { if (secs > 0) printf "%.0f\n", bytes * 8 / secs }
