# hyde gen dag seed=1 dags=2 depth=5 width=2 fan_in=2 input_min=8MB input_max=32MB span=1min block=16MB per_reduce=32MB users=2
job id=d0l0j0 user=u0 arrival=42.175s input=16.459781MB shuffle=16.459781MB output=8.229891MB maps=2 reduces=1 map_time=2.823s reduce_time=3.646s app=d0
job id=d0l0j1 user=u0 arrival=42.175s input=17.731116MB shuffle=17.731116MB output=8.865558MB maps=2 reduces=1 map_time=2.887s reduce_time=3.773s app=d0
job id=d0l1j0 user=u0 arrival=42.175s input=parents shuffle=8.229891MB output=4.114946MB maps=1 reduces=1 map_time=2.823s reduce_time=2.823s app=d0 parents=d0l0j0
job id=d0l1j1 user=u0 arrival=42.175s input=parents shuffle=8.865558MB output=4.432779MB maps=1 reduces=1 map_time=2.887s reduce_time=2.887s app=d0 parents=d0l0j1
job id=d0l2j0 user=u0 arrival=42.175s input=parents shuffle=4.114946MB output=2.057473MB maps=1 reduces=1 map_time=2.411s reduce_time=2.411s app=d0 parents=d0l1j0
job id=d0l2j1 user=u0 arrival=42.175s input=parents shuffle=8.547725MB output=4.273863MB maps=1 reduces=1 map_time=2.855s reduce_time=2.855s app=d0 parents=d0l1j0,d0l1j1
job id=d0l3j0 user=u0 arrival=42.175s input=parents shuffle=6.331336MB output=3.165668MB maps=1 reduces=1 map_time=2.633s reduce_time=2.633s app=d0 parents=d0l2j0,d0l2j1
job id=d0l3j1 user=u0 arrival=42.175s input=parents shuffle=6.331336MB output=3.165668MB maps=1 reduces=1 map_time=2.633s reduce_time=2.633s app=d0 parents=d0l2j0,d0l2j1
job id=d0l4j0 user=u0 arrival=42.175s input=parents shuffle=6.331336MB output=3.165668MB maps=1 reduces=1 map_time=2.633s reduce_time=2.633s app=d0 parents=d0l3j1,d0l3j0
job id=d0l4j1 user=u0 arrival=42.175s input=parents shuffle=3.165668MB output=1.582834MB maps=1 reduces=1 map_time=2.317s reduce_time=2.317s app=d0 parents=d0l3j1
job id=d1l0j0 user=u1 arrival=3.826s input=15.204857MB shuffle=15.204857MB output=7.602429MB maps=1 reduces=1 map_time=3.52s reduce_time=3.52s app=d1
job id=d1l0j1 user=u1 arrival=3.826s input=15.921977MB shuffle=15.921977MB output=7.960989MB maps=1 reduces=1 map_time=3.592s reduce_time=3.592s app=d1
job id=d1l1j0 user=u1 arrival=3.826s input=parents shuffle=15.563418MB output=7.781709MB maps=1 reduces=1 map_time=3.556s reduce_time=3.556s app=d1 parents=d1l0j1,d1l0j0
job id=d1l1j1 user=u1 arrival=3.826s input=parents shuffle=7.960989MB output=3.980495MB maps=1 reduces=1 map_time=2.796s reduce_time=2.796s app=d1 parents=d1l0j1
job id=d1l2j0 user=u1 arrival=3.826s input=parents shuffle=7.781709MB output=3.890855MB maps=1 reduces=1 map_time=2.778s reduce_time=2.778s app=d1 parents=d1l1j0
job id=d1l2j1 user=u1 arrival=3.826s input=parents shuffle=11.762204MB output=5.881102MB maps=1 reduces=1 map_time=3.176s reduce_time=3.176s app=d1 parents=d1l1j0,d1l1j1
job id=d1l3j0 user=u1 arrival=3.826s input=parents shuffle=3.890855MB output=1.945428MB maps=1 reduces=1 map_time=2.389s reduce_time=2.389s app=d1 parents=d1l2j0
job id=d1l3j1 user=u1 arrival=3.826s input=parents shuffle=5.881102MB output=2.940551MB maps=1 reduces=1 map_time=2.588s reduce_time=2.588s app=d1 parents=d1l2j1
job id=d1l4j0 user=u1 arrival=3.826s input=parents shuffle=4.885979MB output=2.44299MB maps=1 reduces=1 map_time=2.489s reduce_time=2.489s app=d1 parents=d1l3j1,d1l3j0
job id=d1l4j1 user=u1 arrival=3.826s input=parents shuffle=1.945428MB output=972.714KB maps=1 reduces=1 map_time=2.195s reduce_time=2.195s app=d1 parents=d1l3j0
