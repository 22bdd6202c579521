# For the live view (tests/live.sh) on tiny.topo: a shuffle over a circuit
# first (10MB rack 0 -> rack 1, above T_e), then two shuffles of 4MB each
# (below T_e: over the EPS) that share rack 1's 20Mbit uplink for about 3s.
job id=ocs arrival=0s input=2MB shuffle=10MB output=0B maps=2 reduces=1 map_time=200ms reduce_time=100ms map_racks=0,0 reduce_racks=1
job id=eps1 arrival=1s input=1MB shuffle=4MB output=0B maps=1 reduces=1 map_time=200ms reduce_time=100ms map_racks=1 reduce_racks=0
job id=eps2 arrival=1s input=1MB shuffle=4MB output=0B maps=1 reduces=1 map_time=200ms reduce_time=100ms map_racks=1 reduce_racks=0
