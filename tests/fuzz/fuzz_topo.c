/* Fuzz target: the topology parser (topo_load), then what is built on a
 * topology it accepts: host names and addresses, node names parsed back,
 * and the copy the fabric keeps in its state directory read back to the
 * same values (fabric_write_topo's promise). */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/topo.h"
#include "emul/fabric.h"
#include "fuzz.h"

static void same(const struct topo *a, const struct topo *b)
{
	if (a->racks != b->racks || a->hosts != b->hosts || a->containers != b->containers ||
	    a->replicas != b->replicas || a->host_rate != b->host_rate ||
	    a->uplink_rate != b->uplink_rate || a->has_ocs != b->has_ocs ||
	    (a->has_ocs && (a->ocs_rate != b->ocs_rate || a->delta != b->delta ||
			    a->t_e != b->t_e)) ||
	    a->eps_net.addr != b->eps_net.addr || a->eps_net.plen != b->eps_net.plen ||
	    a->ocs_net.addr != b->ocs_net.addr || a->link_net.addr != b->link_net.addr ||
	    strcmp(a->name, b->name))
		fuzz_fail("the state copy of topology %s does not read back the same", a->name);
}

FUZZ_TARGET(topo)
{
	static int copy_fd = -1;
	static char copy[64];
	char errbuf[HYDE_ERRBUF_SIZE], name[32], a[32];
	struct topo *t, *t2;
	struct topo_node n;
	unsigned h, step;

	if (topo_load(fuzz_file(data, size), &t, errbuf))
		return 0;
	step = topo_n_hosts(t) / 64 + 1;
	for (h = 0; h < topo_n_hosts(t); h += step) {
		topo_host_name(t, h, name, sizeof(name));
		if (topo_node_parse(t, name, &n) || n.kind != TOPO_NODE_HOST ||
		    topo_host_id(t, n.rack, n.host) != h)
			fuzz_fail("host %u is named %s, which names another node", h, name);
		topo_addr_str(topo_host_addr(t, &t->eps_net, h), a, sizeof(a));
		if (t->has_ocs)
			topo_addr_str(topo_host_addr(t, &t->ocs_net, h), a, sizeof(a));
	}
	if (t->has_eps) {
		if (copy_fd < 0) {
			copy_fd = memfd_create("hyde-fuzz-copy", MFD_CLOEXEC);
			snprintf(copy, sizeof(copy), "/proc/self/fd/%d", copy_fd);
		}
		if (ftruncate(copy_fd, 0) || fabric_write_topo(copy, t))
			fuzz_fail("cannot write the state copy");
		if (topo_load(copy, &t2, errbuf))
			fuzz_fail("the state copy of an accepted topology is refused: %s", errbuf);
		same(t, t2);
		topo_free(t2);
	}
	topo_free(t);
	return 0;
}
