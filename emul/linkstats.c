/* Per-link byte counters of the fabric from the ToRs' interfaces (see
 * linkstats.h).
 *
 * Raw rtnetlink rather than libnl: a sample is meant to be taken every
 * 100 ms during a run, on the machine that runs the run. libnl's link
 * cache (what fabric_query() uses) allocates an object per interface and
 * parses every attribute of it on each dump, and nl_recvmsgs() allocates
 * each receive buffer; here the request is 32 bytes built on the stack,
 * the receive buffer is allocated once, and of each interface's message
 * only its name and IFLA_STATS64 are looked at. bench/linkstats.sh
 * measures both. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "core/util.h"
#include "fabric.h"
#include "linkstats.h"
#include "netns.h"

/* A dump's messages come in buffers of at most 32 KiB (the kernel sizes
 * them from our largest receive, capped there); twice that never
 * truncates. */
#define LS_RECV_BUF (64 * 1024)

struct linkstats {
	unsigned racks, hosts;
	size_t n_links;
	bool has_ocs;
	uint64_t *rate; /* [n_links], bit/s */
	int *fd;	/* [racks]: NETLINK_ROUTE socket in tor<k>'s namespace */
	/* The ToR interfaces read, by slot: h0..h<H-1>, up, ocs. */
	unsigned n_slots;
	char (*slot_name)[FABRIC_IFNAME_MAX];
	unsigned char *seen; /* [n_slots], per dump */
	uint32_t seq;
	void *buf; /* LS_RECV_BUF */
	char err[HYDE_ERRBUF_SIZE];
};

/* ------------------------------------------------------- the indexing */

size_t linkstats_n_links(unsigned racks, unsigned hosts)
{
	return 2 * (size_t)racks * hosts + 4 * (size_t)racks;
}

size_t linkstats_index(unsigned racks, unsigned hosts,
		       enum linkstats_kind kind, unsigned rack, unsigned host)
{
	size_t rh = (size_t)racks * hosts;

	switch (kind) {
	case LINKSTATS_HOST_UP:
	case LINKSTATS_HOST_DOWN:
		return (size_t)kind * rh + (size_t)rack * hosts + host;
	default:
		return 2 * rh + (size_t)(kind - LINKSTATS_TOR_UP) * racks + rack;
	}
}

int linkstats_link(unsigned racks, unsigned hosts, size_t index,
		   enum linkstats_kind *kind, unsigned *rack, unsigned *host)
{
	size_t rh = (size_t)racks * hosts;

	if (index >= linkstats_n_links(racks, hosts))
		return -ERANGE;
	if (index < 2 * rh) {
		*kind = (enum linkstats_kind)(index / rh);
		*rack = (unsigned)(index % rh / hosts);
		*host = (unsigned)(index % hosts);
		return 0;
	}
	index -= 2 * rh;
	*kind = (enum linkstats_kind)(LINKSTATS_TOR_UP + index / racks);
	*rack = (unsigned)(index % racks);
	*host = 0;
	return 0;
}

const char *linkstats_kind_name(enum linkstats_kind kind)
{
	static const char *const names[LINKSTATS_N_KINDS] = {
		[LINKSTATS_HOST_UP] = "host_up",   [LINKSTATS_HOST_DOWN] = "host_down",
		[LINKSTATS_TOR_UP] = "tor_up",	   [LINKSTATS_TOR_DOWN] = "tor_down",
		[LINKSTATS_OCS_OUT] = "ocs_out",   [LINKSTATS_OCS_IN] = "ocs_in",
	};

	return (unsigned)kind < LINKSTATS_N_KINDS ? names[kind] : "?";
}

char *linkstats_link_name(enum linkstats_kind kind, unsigned rack,
			  unsigned host, char *buf, size_t len)
{
	switch (kind) {
	case LINKSTATS_HOST_UP:
		snprintf(buf, len, "r%uh%u->tor%u", rack, host, rack);
		break;
	case LINKSTATS_HOST_DOWN:
		snprintf(buf, len, "tor%u->r%uh%u", rack, rack, host);
		break;
	case LINKSTATS_TOR_UP:
		snprintf(buf, len, "tor%u->core", rack);
		break;
	case LINKSTATS_TOR_DOWN:
		snprintf(buf, len, "core->tor%u", rack);
		break;
	case LINKSTATS_OCS_OUT:
		snprintf(buf, len, "tor%u->ocs", rack);
		break;
	default:
		snprintf(buf, len, "ocs->tor%u", rack);
		break;
	}
	return buf;
}

/* Transmitted by the ToR: the links that leave it. */
static bool kind_is_tx(enum linkstats_kind kind)
{
	return kind == LINKSTATS_HOST_DOWN || kind == LINKSTATS_TOR_UP ||
	       kind == LINKSTATS_OCS_OUT;
}

char *linkstats_counter_name(enum linkstats_kind kind, unsigned rack,
			     unsigned host, char *buf, size_t len)
{
	const char *dir = kind_is_tx(kind) ? "tx" : "rx";

	if (kind == LINKSTATS_HOST_UP || kind == LINKSTATS_HOST_DOWN)
		snprintf(buf, len, "tor%u:h%u %s", rack, host, dir);
	else
		snprintf(buf, len, "tor%u:%s %s", rack,
			 kind == LINKSTATS_TOR_UP || kind == LINKSTATS_TOR_DOWN ? "up" : "ocs",
			 dir);
	return buf;
}

/* ------------------------------------------------------ the arithmetic */

uint64_t linkstats_delta(uint64_t before, uint64_t after)
{
	return after >= before ? after - before : after;
}

double linkstats_util(uint64_t bytes, uint64_t rate_bps, int64_t interval_ns)
{
	if (!rate_bps || interval_ns <= 0)
		return 0;
	return (double)bytes * 8.0 * 1e9 / ((double)rate_bps * (double)interval_ns);
}

uint64_t linkstats_bytes(const struct linkstats_sample *a,
			 const struct linkstats_sample *b, size_t link,
			 int64_t *interval_ns)
{
	enum linkstats_kind kind;
	unsigned rack = 0, host = 0;

	if (interval_ns) {
		linkstats_link(b->racks, b->hosts, link, &kind, &rack, &host);
		*interval_ns = b->rack_mono_ns[rack] - a->rack_mono_ns[rack];
	}
	return linkstats_delta(a->link[link].bytes, b->link[link].bytes);
}

/* --------------------------------------------------------- the sampler */

unsigned linkstats_racks(const struct linkstats *ls)
{
	return ls->racks;
}

unsigned linkstats_hosts(const struct linkstats *ls)
{
	return ls->hosts;
}

size_t linkstats_count(const struct linkstats *ls)
{
	return ls->n_links;
}

uint64_t linkstats_rate(const struct linkstats *ls, size_t link)
{
	return link < ls->n_links ? ls->rate[link] : 0;
}

const char *linkstats_geterr(const struct linkstats *ls)
{
	return ls->err;
}

void linkstats_sample_init(const struct linkstats *ls,
			   struct linkstats_sample *s)
{
	memset(s, 0, sizeof(*s));
	s->racks = ls->racks;
	s->hosts = ls->hosts;
	s->n_links = ls->n_links;
	s->link = xcalloc(ls->n_links, sizeof(*s->link));
	s->rack_mono_ns = xcalloc(ls->racks, sizeof(*s->rack_mono_ns));
}

void linkstats_sample_fini(struct linkstats_sample *s)
{
	free(s->link);
	free(s->rack_mono_ns);
	memset(s, 0, sizeof(*s));
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* Slot of ifindex in a ToR (the indices are fabric.h's, chosen by the
 * builder), or -1 for an interface no link is read from (lo, br0). */
static int slot_of(const struct linkstats *ls, int ifindex)
{
	if (ifindex >= FABRIC_IDX_PORT0 &&
	    ifindex < FABRIC_IDX_PORT0 + (int)ls->hosts)
		return ifindex - FABRIC_IDX_PORT0;
	if (ifindex == FABRIC_IDX_UP)
		return (int)ls->hosts;
	if (ifindex == FABRIC_IDX_OCS && ls->has_ocs)
		return (int)ls->hosts + 1;
	return -1;
}

static void store(struct linkstats *ls, struct linkstats_sample *s,
		  unsigned rack, unsigned slot, const struct rtnl_link_stats64 *st)
{
	enum linkstats_kind rx_kind, tx_kind;
	unsigned host = 0;

	if (slot < ls->hosts) {
		rx_kind = LINKSTATS_HOST_UP;
		tx_kind = LINKSTATS_HOST_DOWN;
		host = slot;
	} else if (slot == ls->hosts) {
		rx_kind = LINKSTATS_TOR_DOWN;
		tx_kind = LINKSTATS_TOR_UP;
	} else {
		rx_kind = LINKSTATS_OCS_IN;
		tx_kind = LINKSTATS_OCS_OUT;
	}
	s->link[linkstats_index(ls->racks, ls->hosts, rx_kind, rack, host)] =
		(struct linkstats_counter){ st->rx_bytes, st->rx_packets };
	s->link[linkstats_index(ls->racks, ls->hosts, tx_kind, rack, host)] =
		(struct linkstats_counter){ st->tx_bytes, st->tx_packets };
}

/* One RTM_NEWLINK of tor<rack>'s dump. */
static int parse_link(struct linkstats *ls, struct linkstats_sample *s,
		      unsigned rack, const struct nlmsghdr *h)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	struct rtnl_link_stats64 st;
	const char *name = NULL;
	bool have_stats = false;
	const struct rtattr *a;
	int len, slot;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi))) {
		errbuf_set(ls->err, "tor%u: short RTM_NEWLINK message", rack);
		return -EPROTO;
	}
	slot = slot_of(ls, ifi->ifi_index);
	if (slot < 0)
		return 0;
	len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi)));
	for (a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		size_t plen = RTA_PAYLOAD(a);

		switch (a->rta_type) {
		case IFLA_IFNAME:
			if (plen && memchr(RTA_DATA(a), 0, plen))
				name = RTA_DATA(a);
			break;
		case IFLA_STATS64:
			/* Older kernels send a shorter struct: the four
			 * counters read come first in every version. */
			memset(&st, 0, sizeof(st));
			if (plen >= 4 * sizeof(uint64_t)) {
				memcpy(&st, RTA_DATA(a), plen < sizeof(st) ? plen : sizeof(st));
				have_stats = true;
			}
			break;
		}
	}
	if (!name || strcmp(name, ls->slot_name[slot])) {
		errbuf_set(ls->err, "tor%u: interface %d is '%s', not the fabric's %s",
			   rack, ifi->ifi_index, name ? name : "?", ls->slot_name[slot]);
		return -ENODEV;
	}
	if (!have_stats) {
		errbuf_set(ls->err, "tor%u: %s: no IFLA_STATS64 in the kernel's answer",
			   rack, name);
		return -EPROTO;
	}
	store(ls, s, rack, (unsigned)slot, &st);
	ls->seen[slot] = 1;
	return 0;
}

/* The messages of one receive; *done at the dump's end. The first error
 * is kept, but the dump is read to its end all the same: a socket whose
 * dump is left half-read refuses the next one (EBUSY). */
static int parse_batch(struct linkstats *ls, struct linkstats_sample *s,
		       unsigned rack, size_t n, bool *done, int r)
{
	const struct nlmsghdr *h = ls->buf;
	int len = (int)n, e;

	for (; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
		if (h->nlmsg_seq != ls->seq)
			continue; /* left over from an earlier, failed sample */
		switch (h->nlmsg_type) {
		case NLMSG_DONE:
			*done = true;
			/* A dump that failed says so in its DONE. */
			if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int))) {
				memcpy(&e, NLMSG_DATA(h), sizeof(e));
				if (e < 0 && !r) {
					errbuf_set(ls->err, "tor%u: link dump: %s", rack,
						   strerror(-e));
					r = e;
				}
			}
			return r;
		case NLMSG_ERROR:
			*done = true;
			memcpy(&e, NLMSG_DATA(h), sizeof(e));
			if (e < 0 && !r) {
				errbuf_set(ls->err, "tor%u: link dump refused: %s", rack,
					   strerror(-e));
				r = e;
			}
			return r;
		case RTM_NEWLINK:
			e = parse_link(ls, s, rack, h);
			if (e && !r)
				r = e;
			break;
		}
	}
	return r;
}

static int dump_tor(struct linkstats *ls, struct linkstats_sample *s,
		    unsigned rack)
{
	struct {
		struct nlmsghdr h;
		struct ifinfomsg i;
	} req = {
		.h = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETLINK,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		.i = { .ifi_family = AF_UNSPEC },
	};
	struct iovec iov = { .iov_base = ls->buf, .iov_len = LS_RECV_BUF };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int64_t t0, t1;
	bool done = false;
	unsigned i;
	ssize_t n;
	int r = 0;

	req.h.nlmsg_seq = ++ls->seq;
	memset(ls->seen, 0, ls->n_slots);
	t0 = clock_ns(CLOCK_MONOTONIC);
	while (send(ls->fd[rack], &req, sizeof(req), 0) < 0) {
		if (errno == EINTR)
			continue;
		r = -errno;
		errbuf_set(ls->err, "tor%u: link dump request: %s", rack, strerror(errno));
		return r;
	}
	while (!done) {
		n = recvmsg(ls->fd[rack], &mh, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			errbuf_set(ls->err, "tor%u: link dump: %s", rack, strerror(errno));
			return r;
		}
		if (mh.msg_flags & MSG_TRUNC) {
			errbuf_set(ls->err, "tor%u: link dump: a reply larger than %d bytes",
				   rack, LS_RECV_BUF);
			return -EMSGSIZE;
		}
		r = parse_batch(ls, s, rack, (size_t)n, &done, r);
	}
	t1 = clock_ns(CLOCK_MONOTONIC);
	s->rack_mono_ns[rack] = t0 + (t1 - t0) / 2;
	for (i = 0; i < ls->n_slots && !r; i++)
		if (!ls->seen[i]) {
			errbuf_set(ls->err, "tor%u: no interface %s (index %d): the fabric is gone or incomplete",
				   rack, ls->slot_name[i],
				   i < ls->hosts ? FABRIC_IDX_PORT0 + (int)i
						 : i == ls->hosts ? FABRIC_IDX_UP : FABRIC_IDX_OCS);
			r = -ENODEV;
		}
	return r;
}

int linkstats_sample(struct linkstats *ls, struct linkstats_sample *s)
{
	int64_t m0, r0, m1;
	unsigned k;
	int r;

	if (s->racks != ls->racks || s->hosts != ls->hosts || !s->link) {
		errbuf_set(ls->err, "sample not initialised for this fabric (linkstats_sample_init)");
		return -EINVAL;
	}
	ls->err[0] = '\0';
	m0 = clock_ns(CLOCK_MONOTONIC);
	r0 = clock_ns(CLOCK_REALTIME);
	for (k = 0; k < ls->racks; k++) {
		r = dump_tor(ls, s, k);
		if (r)
			return r;
	}
	m1 = clock_ns(CLOCK_MONOTONIC);
	s->span_ns = m1 - m0;
	s->mono_ns = m0 + s->span_ns / 2;
	s->real_ns = r0 + s->span_ns / 2;
	return 0;
}

/* Runs inside a ToR's namespace (netns_run): the socket is bound there. */
static int open_socket(void *arg, char *errbuf)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int *fd = arg, r;

	*fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (*fd < 0) {
		r = -errno;
		errbuf_set(errbuf, "netlink socket: %s", strerror(errno));
		return r;
	}
	if (bind(*fd, (struct sockaddr *)&sa, sizeof(sa))) {
		r = -errno;
		errbuf_set(errbuf, "netlink bind: %s", strerror(errno));
		close(*fd);
		*fd = -1;
		return r;
	}
	return 0;
}

static void fill_rates(struct linkstats *ls, const struct topo *t)
{
	unsigned k, i;

	for (k = 0; k < ls->racks; k++) {
		for (i = 0; i < ls->hosts; i++) {
			ls->rate[linkstats_index(ls->racks, ls->hosts, LINKSTATS_HOST_UP, k, i)] =
				t->host_rate;
			ls->rate[linkstats_index(ls->racks, ls->hosts, LINKSTATS_HOST_DOWN, k, i)] =
				t->host_rate;
		}
		ls->rate[linkstats_index(ls->racks, ls->hosts, LINKSTATS_TOR_UP, k, 0)] =
			t->uplink_rate;
		ls->rate[linkstats_index(ls->racks, ls->hosts, LINKSTATS_TOR_DOWN, k, 0)] =
			t->uplink_rate;
		if (!t->has_ocs)
			continue;
		ls->rate[linkstats_index(ls->racks, ls->hosts, LINKSTATS_OCS_OUT, k, 0)] =
			t->ocs_rate;
		ls->rate[linkstats_index(ls->racks, ls->hosts, LINKSTATS_OCS_IN, k, 0)] =
			t->ocs_rate;
	}
}

static struct linkstats *ls_alloc(const struct fabric *f)
{
	struct linkstats *ls = xcalloc(1, sizeof(*ls));
	unsigned i;

	ls->racks = f->topo->racks;
	ls->hosts = f->topo->hosts;
	ls->has_ocs = f->topo->has_ocs;
	ls->n_links = linkstats_n_links(ls->racks, ls->hosts);
	ls->rate = xcalloc(ls->n_links, sizeof(*ls->rate));
	fill_rates(ls, f->topo);
	ls->fd = xmalloc(ls->racks * sizeof(*ls->fd));
	for (i = 0; i < ls->racks; i++)
		ls->fd[i] = -1;
	ls->n_slots = ls->hosts + (ls->has_ocs ? 2 : 1);
	ls->slot_name = xcalloc(ls->n_slots, sizeof(*ls->slot_name));
	for (i = 0; i < ls->hosts; i++)
		snprintf(ls->slot_name[i], sizeof(ls->slot_name[i]), "h%u", i);
	snprintf(ls->slot_name[ls->hosts], sizeof(ls->slot_name[0]), "up");
	if (ls->has_ocs)
		snprintf(ls->slot_name[ls->hosts + 1], sizeof(ls->slot_name[0]), "ocs");
	ls->seen = xcalloc(ls->n_slots, 1);
	ls->buf = xmalloc(LS_RECV_BUF);
	return ls;
}

int linkstats_new(const struct fabric *f, struct linkstats **out,
		  char *errbuf)
{
	char eb[HYDE_ERRBUF_SIZE];
	struct linkstats_sample s;
	struct linkstats *ls;
	int nsfd = -1, r;
	size_t i;

	*out = NULL;
	ls = ls_alloc(f);
	for (i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *n = &f->nodes[i];

		if (n->kind != TOPO_NODE_TOR)
			continue;
		r = netns_open(n->ns, &nsfd, errbuf);
		if (r)
			goto err_free;
		r = netns_run(nsfd, open_socket, &ls->fd[n->rack], eb);
		close(nsfd);
		if (r) {
			errbuf_set(errbuf, "%s: %s", n->name, eb);
			goto err_free;
		}
	}
	for (i = 0; i < ls->racks; i++)
		if (ls->fd[i] < 0) {
			errbuf_set(errbuf, "fabric %s has no node tor%zu", f->prefix, i);
			r = -ENOENT;
			goto err_free;
		}
	/* The first dump checks that every interface read is there. */
	linkstats_sample_init(ls, &s);
	r = linkstats_sample(ls, &s);
	linkstats_sample_fini(&s);
	if (r) {
		errbuf_set(errbuf, "fabric %s: %s", f->prefix, ls->err);
		goto err_free;
	}
	*out = ls;
	return 0;

err_free:
	linkstats_free(ls);
	return r;
}

void linkstats_free(struct linkstats *ls)
{
	unsigned i;

	if (!ls)
		return;
	for (i = 0; i < ls->racks; i++)
		if (ls->fd[i] >= 0)
			close(ls->fd[i]);
	free(ls->fd);
	free(ls->rate);
	free(ls->slot_name);
	free(ls->seen);
	free(ls->buf);
	free(ls);
}
