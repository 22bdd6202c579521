# heavy: 2 maps on rack 0, 2 reduces on rack 1: 20MB from rack 0 to rack 1,
# above T_e (4.5MB): over the OCS. light: rack 1 to rack 0, 200KB: EPS. The light map ends 1s after
# the heavy ones, so the decisions do not depend on near ties.
job id=heavy arrival=0s input=40MB shuffle=20MB output=0B maps=2 reduces=2 map_time=500ms reduce_time=100ms map_racks=0,0 reduce_racks=1,1
job id=light arrival=0s input=1MB shuffle=200KB output=0B maps=1 reduces=1 map_time=1500ms reduce_time=100ms map_racks=1 reduce_racks=0
