# maps that work long enough to be killed while they run
job id=slow arrival=0s input=4MB shuffle=1MB output=0B maps=2 reduces=1 map_time=20s reduce_time=1s
