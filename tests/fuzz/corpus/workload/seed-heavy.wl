job id=heavy arrival=0s input=40MB shuffle=20MB output=0B maps=2 reduces=2 map_time=500ms reduce_time=100ms map_racks=0,0 reduce_racks=1,1
