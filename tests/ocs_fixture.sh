# The OCS half of a fabric, laid out exactly as emul/README.md fixes it,
# built with ip and tc for the crossbar's tests and benchmark (tests may use
# ip/tc; the product may not). When `hyde topo up` exists, this function
# becomes a call to it: it is the only place that knows how the fabric is
# made. Sourced (POSIX sh).
#
# ocs_fixture_up PREFIX RACKS OCS_MBIT HOST_MBIT
#   namespaces PREFIX-ocs (ports p0..p<R-1>), PREFIX-tor<k> (br0 over h0,
#   ocs with MAC 02:68:79:6f:HH:LL), PREFIX-r<k>h0 (eth0), one host per
#   rack; the default address plan (EPS 10.0.k.1, OCS 10.16.k.1, ToR ocs
#   10.40.0.k+1/13); permanent neighbours for every other ToR's ocs port.
#   Links are shaped with HTB at HOST_MBIT (host links) and OCS_MBIT (both
#   ends of each ToR-OCS link), burst = max(rate x 4 ms, 64 KiB); 0 leaves a
#   link unshaped. No EPS core: these tests only cross the OCS.
# ocs_fixture_down PREFIX
#   deletes every namespace PREFIX-*; the caller ends its processes first.

_ocs_fx_htb() { # NS DEV MBIT
	[ "$3" -gt 0 ] || return 0
	_b=$(($3 * 500))
	[ "$_b" -ge 65536 ] || _b=65536
	tc -n "$1" qdisc add dev "$2" root handle 1: htb default 1 &&
		tc -n "$1" class add dev "$2" parent 1: classid 1:1 htb \
			rate "$3"mbit burst "$_b" cburst "$_b" quantum 65536
}

_ocs_fx_ns() { # NAME
	ip netns add "$1" &&
		ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1 \
			net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 &&
		ip -n "$1" link set lo up
}

ocs_fixture_up() {
	_p=$1 _r=$2 _om=$3 _hm=$4
	_ocs_fx_ns "$_p-ocs" || return 1
	_k=0
	while [ "$_k" -lt "$_r" ]; do
		_t="$_p-tor$_k" _h="$_p-r${_k}h0"
		_mac=$(printf '02:68:79:6f:%02x:%02x' $((_k / 256)) $((_k % 256)))
		_ocs_fx_ns "$_t" && _ocs_fx_ns "$_h" &&
			ip netns exec "$_t" sysctl -qw net.ipv4.ip_forward=1 &&
			ip link add eth0 netns "$_h" type veth peer name h0 netns "$_t" &&
			ip link add ocs netns "$_t" address "$_mac" type veth peer name "p$_k" netns "$_p-ocs" &&
			ip -n "$_t" link add br0 type bridge &&
			ip -n "$_t" link set h0 master br0 &&
			ip -n "$_t" link set h0 up && ip -n "$_t" link set br0 up &&
			ip -n "$_t" link set ocs up && ip -n "$_p-ocs" link set "p$_k" up &&
			ip -n "$_h" link set eth0 up &&
			ip -n "$_t" addr add "10.0.$_k.254/24" dev br0 &&
			ip -n "$_t" addr add "10.16.$_k.254/24" dev br0 &&
			ip -n "$_t" addr add "10.40.0.$((_k + 1))/13" dev ocs &&
			ip -n "$_h" addr add "10.0.$_k.1/24" dev eth0 &&
			ip -n "$_h" addr add "10.16.$_k.1/24" dev eth0 &&
			ip -n "$_h" route add default via "10.0.$_k.254" &&
			ip -n "$_h" route add 10.16.0.0/12 via "10.16.$_k.254" src "10.16.$_k.1" &&
			_ocs_fx_htb "$_h" eth0 "$_hm" && _ocs_fx_htb "$_t" h0 "$_hm" &&
			_ocs_fx_htb "$_t" ocs "$_om" && _ocs_fx_htb "$_p-ocs" "p$_k" "$_om" ||
			return 1
		_k=$((_k + 1))
	done
	_k=0
	while [ "$_k" -lt "$_r" ]; do
		_j=0
		while [ "$_j" -lt "$_r" ]; do
			if [ "$_j" != "$_k" ]; then
				_mac=$(printf '02:68:79:6f:%02x:%02x' $((_j / 256)) $((_j % 256)))
				ip -n "$_p-tor$_k" neigh add "10.40.0.$((_j + 1))" lladdr "$_mac" \
					dev ocs nud permanent &&
					ip -n "$_p-tor$_k" route add "10.16.$_j.0/24" \
						via "10.40.0.$((_j + 1))" dev ocs onlink || return 1
			fi
			_j=$((_j + 1))
		done
		_k=$((_k + 1))
	done
}

ocs_fixture_down() {
	for _n in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$1-"); do
		ip netns del "$_n"
	done
}
