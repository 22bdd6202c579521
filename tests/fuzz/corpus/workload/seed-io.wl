# HDFS traffic: far's input sits on rack 0 (input_racks) and its maps run
# on rack 1, so all 8MB of it crosses the racks; its reduces (rack 1) write
# their 1.5MB parts through 3-replica pipelines; kid reads far's output
# (input=parents) where it was written.
job id=far arrival=0s input=8MB shuffle=4MB output=3MB maps=4 reduces=2 map_time=500ms reduce_time=200ms map_racks=1,1,1,1 input_racks=0 reduce_racks=1,1
job id=kid arrival=0s input=parents shuffle=1MB output=0B maps=2 reduces=1 map_time=200ms reduce_time=200ms parents=far map_racks=0,0
