# hyde gen fb seed=1 jobs=30 span=3min scale=0.004 max_input=400MB max_shuffle=200MB block=16MB per_reduce=32MB max_maps=16 max_reduces=8 users=4
job id=j0 user=u1 arrival=8.248s input=58B shuffle=32B output=275B maps=1 reduces=1 map_time=2s reduce_time=2s
job id=j1 user=u0 arrival=11.479s input=58B shuffle=32B output=224B maps=1 reduces=1 map_time=2s reduce_time=2s
job id=j2 user=u1 arrival=12.788s input=4B shuffle=2B output=13.958649MB maps=1 reduces=1 map_time=2s reduce_time=2s
job id=j3 user=u0 arrival=14.482s input=877B shuffle=0B output=431B maps=1 reduces=0 map_time=2s reduce_time=0ns
job id=j4 user=u1 arrival=25.843s input=399.403KB shuffle=0B output=270.69KB maps=1 reduces=0 map_time=2.04s reduce_time=0ns
job id=j5 user=u2 arrival=38.149s input=4B shuffle=4B output=2B maps=1 reduces=1 map_time=2s reduce_time=2s
job id=j6 user=u0 arrival=62.958s input=400MB shuffle=200MB output=717.133719MB maps=16 reduces=8 map_time=4.5s reduce_time=4.5s
job id=j7 user=u3 arrival=68.613s input=3.162358MB shuffle=0B output=5.957429MB maps=1 reduces=0 map_time=2.316s reduce_time=0ns
job id=j8 user=u2 arrival=69.749s input=400MB shuffle=200MB output=252.053821MB maps=16 reduces=8 map_time=4.5s reduce_time=4.5s
job id=j9 user=u3 arrival=70.439s input=1B shuffle=0B output=130B maps=1 reduces=0 map_time=2s reduce_time=0ns
job id=j10 user=u1 arrival=72.799s input=5B shuffle=0B output=27B maps=1 reduces=0 map_time=2s reduce_time=0ns
job id=j11 user=u3 arrival=83.381s input=310.74KB shuffle=723.898KB output=185B maps=1 reduces=1 map_time=2.031s reduce_time=2.072s class=heavy
job id=j12 user=u2 arrival=88.445s input=400MB shuffle=0B output=93.184KB maps=16 reduces=0 map_time=4.5s reduce_time=0ns
job id=j13 user=u2 arrival=89.365s input=13.320304MB shuffle=988.082KB output=464.689KB maps=1 reduces=1 map_time=3.332s reduce_time=2.099s class=heavy
job id=j14 user=u0 arrival=93.679s input=38B shuffle=1B output=2B maps=1 reduces=1 map_time=2s reduce_time=2s
job id=j15 user=u3 arrival=99.308s input=382.039KB shuffle=788.064KB output=109B maps=1 reduces=1 map_time=2.038s reduce_time=2.079s class=heavy
job id=j16 user=u1 arrival=103.339s input=11.184683MB shuffle=768.487KB output=432.69KB maps=1 reduces=1 map_time=3.118s reduce_time=2.077s class=heavy
job id=j17 user=u3 arrival=107.988s input=400MB shuffle=93.530616MB output=74.611KB maps=16 reduces=3 map_time=4.5s reduce_time=5.118s class=heavy
job id=j18 user=u1 arrival=109.943s input=1B shuffle=0B output=130B maps=1 reduces=0 map_time=2s reduce_time=0ns
job id=j19 user=u2 arrival=120.437s input=157.342159MB shuffle=0B output=43.750272MB maps=10 reduces=0 map_time=3.573s reduce_time=0ns
job id=j20 user=u2 arrival=125.492s input=16.933KB shuffle=0B output=1B maps=1 reduces=0 map_time=2.002s reduce_time=0ns
job id=j21 user=u3 arrival=126.526s input=43.254126MB shuffle=54.049518MB output=664.669KB maps=3 reduces=2 map_time=3.442s reduce_time=4.702s class=heavy
job id=j22 user=u2 arrival=135.206s input=1B shuffle=0B output=1B maps=1 reduces=0 map_time=2s reduce_time=0ns
job id=j23 user=u0 arrival=153.798s input=16.933KB shuffle=0B output=1B maps=1 reduces=0 map_time=2.002s reduce_time=0ns
job id=j24 user=u3 arrival=156.087s input=3.061KB shuffle=0B output=0B maps=1 reduces=0 map_time=2s reduce_time=0ns
job id=j25 user=u1 arrival=160.298s input=1B shuffle=0B output=0B maps=1 reduces=0 map_time=2s reduce_time=0ns
job id=j26 user=u0 arrival=167.863s input=225.683KB shuffle=0B output=10.217KB maps=1 reduces=0 map_time=2.023s reduce_time=0ns
job id=j27 user=u2 arrival=167.899s input=657.095KB shuffle=59.623KB output=18.041KB maps=1 reduces=1 map_time=2.066s reduce_time=2.006s class=medium
job id=j28 user=u3 arrival=172.299s input=75B shuffle=5B output=2B maps=1 reduces=1 map_time=2s reduce_time=2s
job id=j29 user=u0 arrival=176.804s input=56.508KB shuffle=103.392KB output=1B maps=1 reduces=1 map_time=2.006s reduce_time=2.01s class=medium
