# Every kind of path of run2x2io at once (tests/neigh.sh): far's input
# crosses the racks over the EPS, its output pipelines go from rack 1 to a
# host of rack 0 and on to the other host of rack 0 (inside a rack), and
# heavy's 20MB shuffle from rack 0 to rack 1 is above T_e: over the OCS.
job id=far arrival=0s input=8MB shuffle=4MB output=3MB maps=4 reduces=2 map_time=500ms reduce_time=200ms map_racks=1,1,1,1 input_racks=0 reduce_racks=1,1
job id=heavy arrival=0s input=40MB shuffle=20MB output=0B maps=2 reduces=2 map_time=500ms reduce_time=100ms map_racks=0,0 reduce_racks=1,1
