/* The network view: how many bytes each link of an emulated fabric has
 * carried, read from the kernel's own interface counters, cheaply enough
 * to sample every 100 ms during a run.
 *
 * Every link of the fabric ends at a ToR, so every counter is read in a
 * ToR's namespace: one NETLINK_ROUTE socket per ToR, opened there once
 * (a netlink socket stays bound to the namespace it was created in), and
 * one RTM_GETLINK dump per ToR per sample, of which only IFLA_STATS64 is
 * kept. The sampler never enters a namespace after linkstats_new().
 *
 * Links are directed. For rack k and host i (emul/README.md):
 *
 *   kind                  link              counter (in <prefix>-tor<k>)
 *   LINKSTATS_HOST_UP     r<k>h<i> -> tor<k>   h<i> rx
 *   LINKSTATS_HOST_DOWN   tor<k> -> r<k>h<i>   h<i> tx
 *   LINKSTATS_TOR_UP      tor<k> -> core       up   tx
 *   LINKSTATS_TOR_DOWN    core -> tor<k>       up   rx
 *   LINKSTATS_OCS_OUT     tor<k> -> ocs        ocs  tx  (OCS port k in)
 *   LINKSTATS_OCS_IN      ocs -> tor<k>        ocs  rx  (OCS port k out)
 *
 * Indexing, for R racks of H hosts: kind-major, then rack, then host.
 * The two host kinds have R x H links each, the four rack kinds R each:
 *
 *   index(HOST_UP,   k, i) =            k * H + i
 *   index(HOST_DOWN, k, i) = R * H    + k * H + i
 *   index(TOR_UP,    k)    = 2 * R * H          + k
 *   index(TOR_DOWN,  k)    = 2 * R * H +     R  + k
 *   index(OCS_OUT,   k)    = 2 * R * H + 2 * R  + k
 *   index(OCS_IN,    k)    = 2 * R * H + 3 * R  + k
 *   n_links                = 2 * R * H + 4 * R
 *
 * The OCS slots exist also in a fabric without an OCS (eps-only
 * topologies), so that an index never depends on the topology's options;
 * they stay 0 there (linkstats_rate() is 0 for them).
 *
 * Bytes are what the kernel counts for the interface: whole frames,
 * Ethernet header included, as a capture's original lengths. A GSO frame
 * counts once with one set of headers, while HTB (and the wire) count
 * every segment's headers: a link saturated by bulk TCP reads about
 * 1448/1514 = 0.956 of its rate, one saturated by MTU frames 1.0.
 *
 * Single-threaded: a struct linkstats is used by one thread at a time. */
#ifndef HYDE_LINKSTATS_H
#define HYDE_LINKSTATS_H

#include <stddef.h>
#include <stdint.h>

struct fabric;
struct linkstats;

enum linkstats_kind {
	LINKSTATS_HOST_UP,
	LINKSTATS_HOST_DOWN,
	LINKSTATS_TOR_UP,
	LINKSTATS_TOR_DOWN,
	LINKSTATS_OCS_OUT,
	LINKSTATS_OCS_IN,
	LINKSTATS_N_KINDS,
};

struct linkstats_counter {
	uint64_t bytes;
	uint64_t packets;
};

/* One reading of every link. Initialise with linkstats_sample_init() (it
 * allocates the arrays once, so that sampling allocates nothing), release
 * with linkstats_sample_fini(). */
struct linkstats_sample {
	unsigned racks, hosts;
	size_t n_links;
	struct linkstats_counter *link; /* [n_links], by linkstats_index() */
	/* CLOCK_MONOTONIC ns when rack k's counters were read: the middle of
	 * its ToR's request and last reply. A rate over an interval uses its
	 * own rack's instants, so that a sampler descheduled between two
	 * ToRs does not skew the other racks' rates. */
	int64_t *rack_mono_ns; /* [racks] */
	int64_t mono_ns;       /* CLOCK_MONOTONIC: the middle of the sample */
	int64_t real_ns;       /* CLOCK_REALTIME at the same instant */
	int64_t span_ns;       /* first request to last reply */
};

/* ---- the indexing (pure) ---- */

size_t linkstats_n_links(unsigned racks, unsigned hosts);
/* Index of a link; host is ignored (use 0) for the four rack kinds. The
 * caller keeps kind, rack and host in range. */
size_t linkstats_index(unsigned racks, unsigned hosts,
		       enum linkstats_kind kind, unsigned rack, unsigned host);
/* The inverse: kind, rack and host (0 for rack kinds) of index; -ERANGE
 * if index >= linkstats_n_links(racks, hosts). */
int linkstats_link(unsigned racks, unsigned hosts, size_t index,
		   enum linkstats_kind *kind, unsigned *rack, unsigned *host);
/* "host_up", "host_down", "tor_up", "tor_down", "ocs_out", "ocs_in". */
const char *linkstats_kind_name(enum linkstats_kind kind);
/* The link as "r0h1->tor0", "tor0->core", "ocs->tor0", ...; and the
 * counter it is read from, "tor0:h1 rx". Return buf. */
char *linkstats_link_name(enum linkstats_kind kind, unsigned rack,
			  unsigned host, char *buf, size_t len);
char *linkstats_counter_name(enum linkstats_kind kind, unsigned rack,
			     unsigned host, char *buf, size_t len);

/* ---- arithmetic over two samples (pure) ---- */

/* What a counter grew by from before to after. The counters are 64-bit
 * (IFLA_STATS64) and do not wrap in practice (2^64 bytes is 11 years at
 * 400 Gbit/s); a counter that went down belongs to an interface that was
 * created again, whose count restarted from 0: all of after is new. */
uint64_t linkstats_delta(uint64_t before, uint64_t after);
/* Utilisation of a link of rate_bps that carried bytes in interval_ns:
 * bytes x 8 / (rate x interval); 0 if rate or interval is 0 or negative. */
double linkstats_util(uint64_t bytes, uint64_t rate_bps, int64_t interval_ns);
/* Bytes link carried from a to b (same fabric), and through *interval_ns
 * (if not NULL) the time between its two readings. */
uint64_t linkstats_bytes(const struct linkstats_sample *a,
			 const struct linkstats_sample *b, size_t link,
			 int64_t *interval_ns);

/* ---- the sampler (root: it enters the ToRs' namespaces) ---- */

/* Open one NETLINK_ROUTE socket in each ToR's namespace of f, and check
 * with a first dump that every interface of the fabric's links is there.
 * The calling thread returns to its own namespace on every path. f is
 * only read (its layout and rates are copied): it may be freed after.
 * The caller owns *out (linkstats_free). */
int linkstats_new(const struct fabric *f, struct linkstats **out,
		  char *errbuf);
void linkstats_free(struct linkstats *ls);

/* Fill s (linkstats_sample_init'ed for ls) with the cumulative counters
 * of every link, now: one dump per ToR, no allocation. Returns 0, or a
 * negative errno with the reason in linkstats_geterr() (an interface of
 * the fabric gone: -ENODEV; a ToR namespace whose interfaces went away
 * with the fabric reads so). s is then incomplete. */
int linkstats_sample(struct linkstats *ls, struct linkstats_sample *s);
/* The reason of the last failed linkstats_sample(); owned by ls. */
const char *linkstats_geterr(const struct linkstats *ls);

/* Layout and rate (bit/s, from the topology) of link; 0 for the OCS
 * slots of a fabric without an OCS. */
unsigned linkstats_racks(const struct linkstats *ls);
unsigned linkstats_hosts(const struct linkstats *ls);
size_t linkstats_count(const struct linkstats *ls);
uint64_t linkstats_rate(const struct linkstats *ls, size_t link);

void linkstats_sample_init(const struct linkstats *ls,
			   struct linkstats_sample *s);
void linkstats_sample_fini(struct linkstats_sample *s);

#endif
