# small: two hand-written jobs for tests and first runs on tiny.topo.
# Job "heavy" shuffles 20MB from 4 maps to 2 reduces: with maps on one rack
# and reduces on the other, each rack-to-rack flow (10MB) is above T_e =
# 4.5MB, so it may use the OCS. Job "light" shuffles 100KB: EPS only.
job id=heavy user=alice arrival=0s input=40MB shuffle=20MB output=2MB maps=4 reduces=2 map_time=1s reduce_time=1s
job id=light user=bob arrival=0s input=4MB shuffle=100KB output=10KB maps=2 reduces=1 map_time=1s reduce_time=500ms
