# Data-mining flow sizes: the distribution measured in the VL2 paper
# (Greenberg et al., SIGCOMM 2009, Fig. 2), as public datacenter traffic
# generators tabulate it (HKUST-SING/TrafficGenerator, conf/VL2_CDF.txt).
# hyde uses it for NEAT's "Hadoop" workload, whose CDF the paper does not give
# (workloads/README.md says why). Columns: flow size in bytes, cumulative
# probability; piecewise linear between points.
0 0
180 0.1
216 0.2
560 0.3
900 0.4
1100 0.5
1870 0.6
3160 0.7
10000 0.8
400000 0.9
3160000 0.95
100000000 0.98
1000000000 1
