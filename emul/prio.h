/* Network scheduling policies on the emulated fabric (--net fcfs|srpt|las;
 * NEAT §4, as PASE, L2DCT and FCFS networks would enforce them), with what
 * this kernel has: no prio, fq or sfq qdisc, but HTB and u32.
 *
 * The fabric (prio_bands_add): on every switch's link end, HTB's data class 1:20
 * gets 8 children, bands 0 (first) to 7 (last), leaves 1:21 .. 1:28 with
 * HTB priorities 0 .. 7, each guaranteed a thousandth of the link and
 * allowed all of it, each with its own byte FIFO of a switch port's
 * buffer: what the bands borrow is served by priority, so they are strict
 * priority queues (PASE's 8 queues), but for that thousandth. A u32 filter
 * per band sends an IPv4 packet by the precedence bits of its TOS byte
 * (tos >> 5 = 7 - band: unmarked traffic, precedence 0, is band 7, the
 * last); small packets (SYNs, ACKs, requests) keep their class 1:10 ahead
 * of all. The bits the fabric routes by (TOS 0x04, emul/README.md) are
 * not touched: the kernel routes by tos & 0x1e, the bands are 0xe0.
 * ip_forward keeps the TOS byte, so a packet is in the same band at every
 * switch of its path. A host's own end (its NIC) keeps the one FIFO it has
 * without bands, as a Linux host's does (no qdisc of its serves by the
 * precedence bits): with bands there, a flow raised to a better band
 * (SRPT as its bytes left fall, FCFS as older flows end) overtook its own
 * packets queued in the old one at the first hop, where a CUBIC sender
 * keeps a full FIFO, and the receiver's PAWS check dropped the late
 * originals once a retransmission with a newer timestamp had been taken:
 * a 4 MB read waited 150 ms for a retransmission timeout in 3 of 5 tries
 * (tests/netpolicy.sh; 0 of 8 with a FIFO at the hosts).
 *
 * The senders (the data service's READs, the shuffle service's map
 * outputs) mark each connection as its flow progresses (prio_mark):
 *   srpt  by the bytes it has left: band k while left is in
 *         [bound_{k-1}, bound_k), bound_k = base x factor^k (band 0 below
 *         base, band 7 from base x factor^6 up);
 *   las   the same by the bytes it has sent (a new flow first);
 *   fcfs  by its arrival rank among the flows of the whole fabric: band
 *         k for the flow with k older ones still sending (band 7 for the
 *         eighth and later). The senders learn ranks from a table in
 *         shared memory (--fcfs-table, one per run), where each flow
 *         holds a slot with its start time while it sends: the emulation
 *         of a central arbiter (PASE's) with no delay, which one box
 *         allows; a flow's rank only rises as older ones end.
 * Bytes sent are what left the socket (written less SIOCOUTQNSD, what the
 * kernel has not sent yet), with TCP_NOTSENT_LOWAT keeping that queue at
 * 256 KB (20 ms at 100 Mbit/s: a sender the box is slow to wake does
 * not starve its link), so that a mark changes within about 256 KB of where
 * it should. */
#ifndef HYDE_PRIO_H
#define HYDE_PRIO_H

#include <stdint.h>

#include <hyde/sched.h>

#define PRIO_BANDS 8
#define PRIO_DEFAULT_BASE 100000ULL		 /* 100 KB */
#define PRIO_DEFAULT_FACTOR 4
#define PRIO_TABLE_SLOTS 4096 /* flows marked at once; more: the last band */
#define PRIO_NOTSENT_LOWAT (256 * 1024)

struct prio_table;

struct prio_opts {
	enum hyde_net_policy net; /* HYDE_NET_FAIR: no marking */
	uint64_t base;
	unsigned factor;
	struct prio_table *table; /* fcfs: the flows' start times */
};

/* The fcfs table at path, made if it is not there (every service of a
 * run opens the same one). 0, or -errno with errbuf. */
int prio_table_open(const char *path, struct prio_table **out, char *errbuf);
void prio_table_close(struct prio_table *t);

void prio_opts_default(struct prio_opts *o);

/* The band of a flow that has sent `sent` bytes, has `left` to go and
 * has `older` flows still sending that came before it, under o's policy
 * (0 under Fair). */
unsigned prio_band(const struct prio_opts *o, uint64_t sent, uint64_t left, unsigned older);
/* The TOS byte of a band (its precedence bits). */
static inline int prio_tos(unsigned band)
{
	return (int)(PRIO_BANDS - 1 - band) << 5;
}

/* One sending connection's marking. */
struct prio_mark {
	const struct prio_opts *o;
	int tos; /* set on the socket, -1 before the first */
	int64_t start;
	int slot; /* fcfs: its slot in the table, -1 if none */
};

/* A connection that starts sending a flow of len bytes now: its socket's
 * unsent queue is kept short. Nothing under Fair. */
void prio_mark_start(struct prio_mark *m, const struct prio_opts *o, int fd, int64_t now);
/* After writing: written of len bytes are in the socket. Re-marks the
 * socket if its band changed. */
void prio_mark_update(struct prio_mark *m, int fd, uint64_t written, uint64_t len);
/* The flow is over (its last bytes written): it leaves the fcfs table. */
void prio_mark_end(struct prio_mark *m);

/* "--net POLICY", "--band-base SIZE", "--fcfs-table PATH" for the
 * services' command lines (fcfs needs the table):
 * 1 if argv[*i] was one (and its value taken), 0 if not, -1 bad value
 * (a message on stderr). */
int prio_parse_arg(struct prio_opts *o, int argc, char **argv, int *i);

struct fabric;

/* Add the 8 bands and their filters to every switch link end of the fabric
 * (not the hosts' own ends). */
int prio_bands_add(struct fabric *f, char *errbuf);

#endif
