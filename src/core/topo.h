/* A Hybrid-DCN topology: R racks of hosts, each ToR with an EPS uplink to a
 * core packet switch and (optionally) one port on an R-port optical circuit
 * switch (Co-scheduler §II-B). Read from a .topo file (see topologies/README). */
#ifndef HYDE_TOPO_H
#define HYDE_TOPO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util.h"

#define TOPO_NAME_MAX 32
#define TOPO_MAX_RACKS 1024
#define TOPO_MAX_HOSTS 1000 /* per rack */
#define TOPO_MAX_CONTAINERS 1000

struct topo_net {
	uint32_t addr; /* host byte order */
	unsigned plen;
};

/* How long a container takes from its request to its start (YARN's
 * response time, COBRA Table I): fixed, exponential with that mean, or
 * TOPO_DELAY_TABLE1 (a distribution with Table I's mean, median and 95th
 * percentile, scaled by mean / 996ms). */
enum topo_delay_kind { TOPO_DELAY_FIXED, TOPO_DELAY_EXP, TOPO_DELAY_TABLE1 };
struct topo_delay {
	enum topo_delay_kind kind;
	int64_t mean; /* ns; the value itself for FIXED */
};

struct topo {
	char name[TOPO_NAME_MAX];
	unsigned racks;
	unsigned hosts;      /* per rack */
	unsigned containers; /* per host */
	unsigned replicas;   /* HDFS-like block replication */
	unsigned output_replication; /* of the reduces' output (default 1) */
	uint64_t host_rate;  /* bit/s, host <-> ToR */
	bool has_eps;	     /* false: no packet core, racks reach each
			      * other only over the OCS (Sunflow's setup) */
	uint64_t uplink_rate; /* bw_e, bit/s, ToR <-> EPS core; 0 without EPS */
	double oversub;	     /* hosts x host_rate / bw_e; 0 without EPS */
	bool has_ocs;
	uint64_t ocs_rate; /* bw_o, bit/s, ToR <-> OCS */
	int64_t delta;	   /* OCS reconfiguration delay, ns */
	uint64_t t_e;	   /* elephant flow threshold, bytes */
	struct topo_net eps_net, ocs_net, link_net;
	unsigned host_bits; /* address bits per rack subnet */
	/* Multi-resource hosts (schedulers that hold containers, COBRA):
	 * each host's capacity, split into `containers` default containers */
	double cores;	 /* per host; default: one per container */
	uint64_t memory; /* bytes per host; default: 2GB per container */
	struct topo_delay container_delay; /* a container's response time */
	/* Emulation: the real CPU (cores) and memory (bytes) one emulated
	 * core and byte cost (a box of 2 cores emulates 56) */
	double cpu_scale, mem_scale;
	/* Emulation: the hosts' cap on TCP's retransmission timeout
	 * (net.ipv4.tcp_rto_max_ms), ns; TOPO_RTO_MAX_KERNEL leaves the
	 * kernel's */
	int64_t tcp_rto_max;
	/* Emulation: the hosts' TCP congestion control
	 * (net.ipv4.tcp_congestion_control); TOPO_TCP_CC_DEFAULT unless set */
	char tcp_cc[16];
};

/* The kernel's own cap (and the most tcp_rto_max_ms takes), and the
 * default: the least it takes (fabric.c says why) */
#define TOPO_RTO_MAX_KERNEL (120 * NSEC_PER_SEC)
#define TOPO_RTO_MAX_DEFAULT NSEC_PER_SEC
/* Linux's own default, and what the clusters of the papers ran; not the
 * machine's setting, which the hosts' namespaces would otherwise inherit
 * (fabric.c says why) */
#define TOPO_TCP_CC_DEFAULT "cubic"

enum topo_node_kind {
	TOPO_NODE_HOST,
	TOPO_NODE_TOR,
	TOPO_NODE_CORE,
	TOPO_NODE_OCS,
};

struct topo_node {
	enum topo_node_kind kind;
	unsigned rack; /* hosts and ToRs */
	unsigned host; /* index within the rack, hosts only */
};

/* Parse a topology. On error returns a negative errno, writes
 * "path:line: what was expected" into errbuf and allocates nothing.
 * The caller owns *out and frees it with topo_free(). */
int topo_load(const char *path, struct topo **out, char *errbuf);
int topo_parse(FILE *fp, const char *path, struct topo **out, char *errbuf);
void topo_free(struct topo *t);

static inline unsigned topo_n_hosts(const struct topo *t)
{
	return t->racks * t->hosts;
}

static inline unsigned topo_host_rack(const struct topo *t, unsigned host)
{
	return host / t->hosts;
}

/* Host id of host i of rack k. */
static inline unsigned topo_host_id(const struct topo *t, unsigned rack,
				    unsigned i)
{
	return rack * t->hosts + i;
}

/* Node names, fixed: hosts r<rack>h<host>, ToRs tor<rack>, core, ocs. */
void topo_host_name(const struct topo *t, unsigned host, char *buf,
		    size_t len);
int topo_node_parse(const struct topo *t, const char *name,
		    struct topo_node *out);

/* Address plan: rack k owns a subnet of 2^host_bits addresses inside each
 * of eps_net and ocs_net; host i is at offset i + 1 and the ToR's gateway at
 * the last usable offset. Host byte order. */
uint32_t topo_host_addr(const struct topo *t, const struct topo_net *net,
			unsigned host);
uint32_t topo_rack_subnet(const struct topo *t, const struct topo_net *net,
			  unsigned rack);
uint32_t topo_rack_gateway(const struct topo *t, const struct topo_net *net,
			   unsigned rack);
static inline unsigned topo_rack_plen(const struct topo *t)
{
	return 32 - t->host_bits;
}
/* The token bucket (bytes) of a link shaped at rate bit/s in the emulated
 * fabric (its HTB classes' burst and cburst): rate x 10 ms, at least
 * 64 KiB, at most 1 GiB. An idle link sends that much at once before its
 * rate holds; the simulator's -B burst models it. */
uint32_t topo_shaper_burst(uint64_t rate);
/* The bytes a switch port's queue holds at rate bit/s in the emulated
 * fabric (the FIFO under its HTB): 5 ms at the rate, at least 256 KiB,
 * at most 64 MiB. The simulator's -B port_queue models what it still
 * delivers after a circuit goes down. */
uint32_t topo_port_queue(uint64_t rate);
/* "a.b.c.d" of a host-order address; returns buf (16 bytes at least). */
char *topo_addr_str(uint32_t addr, char *buf, size_t len);

#endif
