# The fabric for the crossbar's tests and benchmark, built by `hyde topo up`
# (emul/README.md) from a topology of RACKS racks of one host each. Sourced
# (POSIX sh); needs $HYDE.
#
# ocs_fixture_up PREFIX RACKS OCS_MBIT HOST_MBIT
#   the fabric PREFIX-*: namespaces PREFIX-ocs (ports p0..p<R-1>),
#   PREFIX-tor<k>, PREFIX-r<k>h0 (and the EPS core), default addresses
#   (EPS 10.0.k.1, OCS 10.16.k.1); the ToR-OCS links at OCS_MBIT, the host
#   links at HOST_MBIT; 0 for either means 100 Gbit/s (as good as unshaped
#   here: the crossbar and the box are far slower).
# ocs_fixture_down PREFIX
#   removes the fabric PREFIX and whatever runs in it.

ocs_fixture_up() {
	_p=$1 _r=$2 _om=$3 _hm=$4
	[ "$_om" -gt 0 ] || _om=100000
	[ "$_hm" -gt 0 ] || _hm=100000
	_topo=$(mktemp "${TMPDIR:-/tmp}/hyde-ocsfx.XXXXXX")
	cat >"$_topo" <<EOT
racks $_r
hosts 1
containers 1
host_rate ${_hm}Mbit
uplink_rate 1Gbit
ocs yes
ocs_rate ${_om}Mbit
delta 10ms
t_e 1MB
EOT
	"$HYDE" topo up -t "$_topo" --prefix "$_p" >/dev/null
	_st=$?
	rm -f "$_topo"
	return $_st
}

ocs_fixture_down() {
	"$HYDE" clean --prefix "$1" >/dev/null 2>&1
	return 0
}
