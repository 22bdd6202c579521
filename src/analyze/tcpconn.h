/* One instance of a connection, rebuilt from the packets that the data
 * receiver's host port saw: handshake, data, retransmissions, FIN/RST.
 *
 * Most connections (a shuffle fetch, an input read: src/core/rundir.h)
 * have the client send a small request and the server send exactly
 * `bytes` payload bytes; an output write has it the other way: the client
 * sends a request of `req` bytes, then `bytes` of data, to the server.
 * The sender's data sequence numbers are turned into 64-bit offsets from
 * its ISN + 1 (+ req), unwrapped against the highest offset seen, so
 * flows above 4 GB work and the last data byte is at offset bytes - 1.
 *
 * FCT (the exact definition): from the timestamp of the first SYN the client
 * sent to the timestamp of the first segment from the receiver with the
 * ACK flag whose acknowledgement number covers the sender's last data
 * byte, i.e. ack >= sender ISN + 1 + req + bytes (an ACK of the sender's
 * FIN, or the receiver's own FIN, qualifies as well since it acknowledges
 * at least that). Both timestamps are those of the capture on the
 * receiver's ToR host port. */
#ifndef HYDE_TCPCONN_H
#define HYDE_TCPCONN_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/pcap_read.h"

/* Disjoint, sorted [start, end) ranges of sequence offsets. Usually one
 * range (in-order data), one more per hole that reordering or loss left. */
struct seqset {
	uint64_t (*iv)[2];
	size_t n, cap;
};

/* Add [a, b); returns how many of its bytes were already in the set. */
uint64_t seqset_add(struct seqset *s, uint64_t a, uint64_t b);
/* Bytes covered by the set. */
uint64_t seqset_bytes(const struct seqset *s);
void seqset_free(struct seqset *s);

struct tcpconn {
	uint64_t bytes;	      /* data the sender is to send (manifest) */
	uint64_t req;	      /* what the sender sends before it (writes) */
	bool cli_sends;	      /* the client is the sender (writes) */
	int64_t syn_ns;	      /* first client SYN, -1 if never seen */
	int64_t data_ns;      /* first data byte from the sender (a write's
			       * request is not data), -1 if none seen */
	int64_t end_ns;	      /* first client ACK of the last data byte, -1 */
	int64_t first_ns, last_ns; /* first and last packet of the instance */
	uint32_t isn_cli, isn_srv;
	bool have_isn_cli, have_isn_srv;
	bool fin_cli, fin_srv, rst;
	uint64_t packets;
	uint64_t data_bytes;	/* distinct server payload bytes seen */
	uint64_t wire_bytes;	/* server payload bytes seen, repeats included */
	uint64_t retrans_bytes; /* server payload whose range was seen before */
	uint64_t ack_hi;	/* highest unwrapped client ACK offset */
	bool have_ack;
	uint64_t seq_ref;	/* offset the next unwrap is made near */
	uint32_t seq_base;	/* raw sequence number of offset 0 */
	bool have_base;
	struct seqset seen;
};

void tcpconn_init(struct tcpconn *c, uint64_t bytes);
/* The other way: the client sends req bytes, then the data. */
void tcpconn_init_write(struct tcpconn *c, uint64_t req, uint64_t bytes);
void tcpconn_free(struct tcpconn *c);

/* Feed one segment of this connection; from_cli says its direction. */
void tcpconn_packet(struct tcpconn *c, const struct pkt_tcp *p, bool from_cli);

/* Whether p opens a new instance on the same 4-tuple: a client SYN (no
 * ACK) whose ISN differs from this instance's (port reuse). A repeated SYN
 * with the same ISN is a retransmission of this instance's SYN. */
bool tcpconn_is_new_syn(const struct tcpconn *c, const struct pkt_tcp *p,
			bool from_cli);

/* Whether the instance is over: reset, or both FINs sent and the client's
 * ACK of the last data byte seen. Later packets of it (a last ACK) are
 * still recognised by their sequence numbers. */
bool tcpconn_closed(const struct tcpconn *c);

static inline bool tcpconn_finished(const struct tcpconn *c)
{
	return c->end_ns >= 0;
}

#endif
