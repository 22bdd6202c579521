# For hyde pcap and the dissectors (tests/inspect.sh): every kind of flow
# and a circuit. big's input sits on rack 1 (input_racks) and its maps run
# on rack 0, so its maps READ their blocks across the racks; its shuffle
# (6MB from rack 0 to rack 1, above run2x2io's T_e of 4.5MB) rides a
# circuit; its reduces WRITE their parts through 3-replica pipelines.
# small's shuffle (rack 1 to rack 0, 100KB) takes the EPS.
job id=big arrival=0s input=2MB shuffle=6MB output=1MB maps=2 reduces=2 map_time=300ms reduce_time=100ms map_racks=0,0 input_racks=1 reduce_racks=1,1
job id=small arrival=0s input=1MB shuffle=100KB output=0B maps=1 reduces=1 map_time=800ms reduce_time=100ms map_racks=1 reduce_racks=0
