# two maps of exactly one heartbeat (1 s) each, one after the other on
# tests/data/one.topo's single container
job id=a arrival=0s input=2MB shuffle=1MB output=0B maps=2 reduces=1 map_time=1s reduce_time=1s
