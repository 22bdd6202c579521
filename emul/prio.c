/* Priority bands on the emulated fabric and the senders' marking
 * (prio.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/if_ether.h>
#include <linux/sockios.h>
#include <netlink/route/class.h>
#include <netlink/route/classifier.h>
#include <netlink/route/cls/u32.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/fifo.h>
#include <netlink/route/qdisc/htb.h>
#include <netlink/route/tc.h>

#include "core/units.h"
#include "core/util.h"
#include "emul/fabric.h"
#include "emul/netns.h"
#include "emul/nlbatch.h"
#include "emul/prio.h"
#include "net/netsched.h"

void prio_opts_default(struct prio_opts *o)
{
	o->net = HYDE_NET_FAIR;
	o->base = PRIO_DEFAULT_BASE;
	o->factor = PRIO_DEFAULT_FACTOR;
	o->table = NULL;
}

/* ---- the fcfs table: a slot per sending flow, its start time (0: free),
 * in a file every service of the run maps ---- */

struct prio_table {
	_Atomic int64_t *start;
	size_t n;
};

int prio_table_open(const char *path, struct prio_table **out, char *errbuf)
{
	size_t len = PRIO_TABLE_SLOTS * sizeof(int64_t);
	struct prio_table *t;
	struct stat st;
	void *p;
	int fd, r;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || fstat(fd, &st) || ((size_t)st.st_size < len && ftruncate(fd, (off_t)len))) {
		r = -errno;
		errbuf_set(errbuf, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return r;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		errbuf_set(errbuf, "%s: mmap: %s", path, strerror(errno));
		return -errno;
	}
	t = xcalloc(1, sizeof(*t));
	t->start = p;
	t->n = PRIO_TABLE_SLOTS;
	*out = t;
	return 0;
}

void prio_table_close(struct prio_table *t)
{
	if (!t)
		return;
	munmap((void *)t->start, t->n * sizeof(int64_t));
	free(t);
}

static int table_claim(struct prio_table *t, int64_t start)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		int64_t free_slot = 0;

		if (atomic_compare_exchange_strong(&t->start[i], &free_slot, start))
			return (int)i;
	}
	return -1;
}

/* Flows still sending that came before the one in slot i (ties: by slot). */
static unsigned table_older(const struct prio_table *t, int i)
{
	int64_t mine = atomic_load(&t->start[i]);
	unsigned n = 0;
	size_t k;

	for (k = 0; k < t->n && n < PRIO_BANDS - 1; k++) {
		int64_t s = atomic_load_explicit(&t->start[k], memory_order_relaxed);

		if (s && (s < mine || (s == mine && (int)k < i)))
			n++;
	}
	return n;
}

/* How many of the bounds base x factor^k (k = 0 .. 6) are <= v. */
static unsigned bounds_below(double v, double base, double factor)
{
	unsigned k = 0;
	double b = base;

	while (k < PRIO_BANDS - 1 && v >= b) {
		k++;
		b *= factor;
	}
	return k;
}

unsigned prio_band(const struct prio_opts *o, uint64_t sent, uint64_t left, unsigned older)
{
	switch (o->net) {
	case HYDE_NET_SRPT:
		return bounds_below((double)left, (double)o->base, o->factor);
	case HYDE_NET_LAS:
		return bounds_below((double)sent, (double)o->base, o->factor);
	case HYDE_NET_FCFS:
		return older < PRIO_BANDS - 1 ? older : PRIO_BANDS - 1;
	default:
		return 0;
	}
}

void prio_mark_start(struct prio_mark *m, const struct prio_opts *o, int fd, int64_t now)
{
	int lowat = PRIO_NOTSENT_LOWAT;

	m->o = o;
	m->tos = -1;
	m->start = now > 0 ? now : 1;
	m->slot = -1;
	if (o->net == HYDE_NET_FAIR)
		return;
	/* keep what the kernel has not sent short, so that the band follows
	 * the bytes on the wire (best effort: without it marks lag) */
	setsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &lowat, sizeof(lowat));
	if (o->net == HYDE_NET_FCFS && o->table)
		m->slot = table_claim(o->table, m->start);
}

void prio_mark_update(struct prio_mark *m, int fd, uint64_t written, uint64_t len)
{
	uint64_t sent = written;
	unsigned older = PRIO_BANDS - 1; /* fcfs without a slot: last */
	int notsent = 0, tos;

	if (!m->o || m->o->net == HYDE_NET_FAIR)
		return;
	if (!ioctl(fd, SIOCOUTQNSD, &notsent) && notsent > 0 && (uint64_t)notsent <= written)
		sent = written - (uint64_t)notsent;
	if (m->slot >= 0)
		older = table_older(m->o->table, m->slot);
	tos = prio_tos(prio_band(m->o, sent, len - sent, older));
	if (tos == m->tos)
		return;
	if (!setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)))
		m->tos = tos;
}

void prio_mark_end(struct prio_mark *m)
{
	if (m->o && m->slot >= 0)
		atomic_store(&m->o->table->start[m->slot], 0);
	m->slot = -1;
}

int prio_parse_arg(struct prio_opts *o, int argc, char **argv, int *i)
{
	const char *opt = argv[*i], *val = *i + 1 < argc ? argv[*i + 1] : NULL;
	char errbuf[HYDE_ERRBUF_SIZE];
	int v;

	if (strcmp(opt, "--net") && strcmp(opt, "--band-base") && strcmp(opt, "--fcfs-table"))
		return 0;
	if (!val) {
		fprintf(stderr, "hyde: %s needs a value\n", opt);
		return -1;
	}
	(*i)++;
	if (!strcmp(opt, "--net")) {
		if ((v = netsched_net_parse(val)) < 0 || !strcmp(val, "maxmin")) {
			fprintf(stderr, "hyde: --net: expected fair, fcfs, srpt or las, got '%s'\n",
				val);
			return -1;
		}
		o->net = (enum hyde_net_policy)v;
		return 1;
	}
	if (!strcmp(opt, "--fcfs-table")) {
		prio_table_close(o->table);
		o->table = NULL;
		if (prio_table_open(val, &o->table, errbuf)) {
			fprintf(stderr, "hyde: --fcfs-table: %s\n", errbuf);
			return -1;
		}
		return 1;
	}
	if (unit_parse_size(val, &o->base) || !o->base) {
		fprintf(stderr, "hyde: --band-base: expected a size above 0 (%s), got '%s'\n",
			unit_size_expect, val);
		return -1;
	}
	return 1;
}

/* ---- the fabric ---- */

#define BAND_CLASS(b) TC_HANDLE(1, 0x21 + (b))

static void send_band_class(struct nlb *nb, int ifindex, const char *ifname, unsigned band,
			    uint64_t rate)
{
	struct rtnl_class *c = rtnl_class_alloc();
	struct nl_msg *msg = NULL;
	uint64_t floor = rate / 1000 > 8000 ? rate / 1000 : 8000;
	uint32_t burst, quantum;
	int r;

	fabric_htb_params(rate, &burst, &quantum);
	rtnl_tc_set_ifindex(TC_CAST(c), ifindex);
	rtnl_tc_set_parent(TC_CAST(c), TC_HANDLE(1, 0x20));
	rtnl_tc_set_handle(TC_CAST(c), BAND_CLASS(band));
	r = rtnl_tc_set_kind(TC_CAST(c), "htb");
	if (!r)
		r = rtnl_htb_set_rate64(c, floor / 8);
	if (!r)
		r = rtnl_htb_set_ceil64(c, rate / 8);
	/* what a band may send ahead of the others on its own rate: one
	 * full-sized frame's worth, not a burst */
	if (!r)
		r = rtnl_htb_set_rbuffer(c, 2000);
	if (!r)
		r = rtnl_htb_set_cbuffer(c, burst);
	if (!r)
		r = rtnl_htb_set_quantum(c, quantum);
	if (!r)
		r = rtnl_htb_set_prio(c, band);
	if (!r)
		r = rtnl_class_build_add_request(c, NLM_F_CREATE | NLM_F_EXCL, &msg);
	rtnl_class_put(c);
	nlb_send(nb, r, msg, "band %u class on %s", band, ifname);
}

static void send_band_leaf(struct nlb *nb, int ifindex, const char *ifname, unsigned band,
			   uint64_t rate)
{
	struct rtnl_qdisc *q = rtnl_qdisc_alloc();
	struct nl_msg *msg = NULL;
	int r;

	rtnl_tc_set_ifindex(TC_CAST(q), ifindex);
	rtnl_tc_set_parent(TC_CAST(q), BAND_CLASS(band));
	rtnl_tc_set_handle(TC_CAST(q), TC_HANDLE(0x21 + band, 0));
	r = rtnl_tc_set_kind(TC_CAST(q), "bfifo");
	if (!r)
		r = rtnl_qdisc_fifo_set_limit(q, (int)fabric_queue_limit(rate));
	if (!r)
		r = rtnl_qdisc_build_add_request(q, NLM_F_CREATE | NLM_F_REPLACE, &msg);
	rtnl_qdisc_put(q);
	nlb_send(nb, r, msg, "band %u fifo on %s", band, ifname);
}

/* u32: the IPv4 TOS byte's precedence bits, 7 - band */
static void send_band_filter(struct nlb *nb, int ifindex, const char *ifname, unsigned band)
{
	struct rtnl_cls *cls = rtnl_cls_alloc();
	struct nl_msg *msg = NULL;
	int r;

	rtnl_tc_set_ifindex(TC_CAST(cls), ifindex);
	rtnl_tc_set_parent(TC_CAST(cls), TC_HANDLE(1, 0));
	rtnl_cls_set_protocol(cls, ETH_P_IP);
	rtnl_cls_set_prio(cls, 2);
	r = rtnl_tc_set_kind(TC_CAST(cls), "u32");
	if (!r)
		r = rtnl_u32_add_key_uint8(cls, (uint8_t)prio_tos(band), 0xe0, 1, 0);
	if (!r)
		r = rtnl_u32_set_classid(cls, BAND_CLASS(band));
	if (!r)
		r = rtnl_u32_set_cls_terminal(cls);
	if (!r)
		r = rtnl_cls_build_add_request(cls, NLM_F_CREATE | NLM_F_EXCL, &msg);
	rtnl_cls_put(cls);
	nlb_send(nb, r, msg, "band %u filter on %s", band, ifname);
}

static void send_bands(struct nlb *nb, int ifindex, const char *ifname, uint64_t rate)
{
	unsigned b;

	for (b = 0; b < PRIO_BANDS; b++) {
		send_band_class(nb, ifindex, ifname, b, rate);
		send_band_leaf(nb, ifindex, ifname, b, rate);
		send_band_filter(nb, ifindex, ifname, b);
	}
}

struct bands_node {
	struct fabric *f;
	size_t node;
};

/* Inside node's namespace: the bands of every link end there. */
static int bands_in_node(void *arg, char *errbuf)
{
	struct bands_node *bn = arg;
	struct fabric *f = bn->f;
	struct nlb nb;
	size_t i;
	int r;

	if ((r = nlb_open(&nb, f->nodes[bn->node].name, errbuf)))
		return r;
	for (i = 0; i < f->n_links; i++) {
		const struct fabric_link *l = &f->links[i];

		if (l->a == bn->node)
			send_bands(&nb, l->a_index, l->a_if, l->rate);
		if (l->b == bn->node)
			send_bands(&nb, l->b_index, l->b_if, l->rate);
	}
	r = nlb_flush(&nb, errbuf);
	nlb_close(&nb);
	return r;
}

int prio_bands_add(struct fabric *f, char *errbuf)
{
	size_t i;
	int r;

	for (i = 0; i < f->n_nodes; i++) {
		struct bands_node bn = { f, i };
		int fd;

		/* A host's end is its NIC, which sends in the order it is
		 * given (prio.h) */
		if (f->nodes[i].kind == TOPO_NODE_HOST)
			continue;
		fd = fabric_ns_fd(f, f->nodes[i].name);

		if (fd < 0) {
			errbuf_set(errbuf, "%s: %s", f->nodes[i].ns, strerror(-fd));
			return fd;
		}
		if ((r = netns_run(fd, bands_in_node, &bn, errbuf)))
			return r;
	}
	return 0;
}
