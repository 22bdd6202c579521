# The paper's setting (Co-scheduler §V-A) as hyde runs it; sourced by
# reproduce.sh. Why these values: repro/coscheduler/README.md.
#
# 600 servers in 60 racks of 10, 20 containers each, 10 Gbit/s hosts, EPS
# uplinks 10:1 oversubscribed, 100 Gbit/s ToR-OCS links, delta 10 ms,
# T_e 1.125 GB: topologies/paper60.topo, as the paper gives it.
PRESET_TOPOLOGY=topologies/paper60.topo
# 1000 FB-like jobs (SWIM FB-2010, sampled by the NAS paper's class mix),
# 20 users, arrivals uniform in [0, 90 min]. The paper replays jobs scaled
# for a single node and does not say how; `scale` is that unknown, chosen
# by the sweep's observables (README.md), never by the result.
PRESET_SCALE=0.1
PRESET_WORKLOAD="gen:fb,jobs=1000,users=20,span=90min,scale=$PRESET_SCALE"
# The sweep: the scales tried, and the runs per point.
SWEEP_SCALES="0.01 0.03 0.1 0.3 1"
SWEEP_RUNS=5
