# Web-search flow sizes: the distribution measured in the DCTCP paper
# (Alizadeh et al., SIGCOMM 2010, Fig. 4), as public datacenter traffic
# generators tabulate it (HKUST-SING/TrafficGenerator, conf/DCTCP_CDF.txt).
# NEAT (CoNEXT 2016) calls it "web-search [16]". Columns: flow size in
# bytes, cumulative probability; piecewise linear between points.
0 0
10000 0.15
20000 0.2
30000 0.3
50000 0.4
80000 0.53
200000 0.6
1000000 0.7
2000000 0.8
5000000 0.9
10000000 0.97
30000000 1
