/* The HDFS DataNode role: a per-host data service that serves input blocks
 * to map tasks and takes the output blocks reduce tasks write, forwarding
 * them along a replication pipeline as HDFS does (writer -> first DataNode
 * -> second -> ...; every link of the pipeline is a TCP connection of its
 * own), and the client state machines task processes drive from their epoll
 * loop. Every byte that crosses a connection is checked by its receiver.
 *
 * Blocks are never stored. The bytes of block `uid` are the pseudo-random
 * stream datanode_key(seed, uid) (shuffle_fill / shuffle_check, which make
 * any offset on its own), in a key domain of its own, apart from the map
 * output streams of shuffle_key. A block uid is kind << 62 | job << 32 |
 * idx (kind 1: the input block of map idx of job; kind 2: the output part
 * reduce idx of job writes; job < 2^30), so distinct (kind, job, idx) never
 * share a uid and uid 0 is never a block of a run.
 *
 * Protocol (TCP, port 9866 as HDFS's DataNode data-transfer port). A
 * request is one line of at most DN_LINE_MAX bytes, '\n' included; fields
 * are separated by exactly one space; numbers are decimal:
 *
 *   READ <uid> <offset> <len>\n
 *       -> exactly len bytes of the block from offset, then the service
 *          closes. offset + len <= DN_MAX_LEN (64 GiB): a block is no
 *          bigger. Nothing may follow the line.
 *   WRITE <uid> <len>[ <ip>[,<ip>...]]\n, then len bytes
 *       The service checks every byte as it arrives. With next hops (at
 *       most DN_MAX_PIPELINE, distinct unicast addresses) it connects to
 *       the first one's data service (same port as its own) and forwards
 *       the bytes, as they arrive and once checked, with
 *       "WRITE <uid> <len>[ <rest of the ips>]\n"; it reads from its
 *       client only as fast as the next hop takes the bytes (backpressure
 *       all along the pipeline). Once every byte is in and checked, and the
 *       next hop (if any) has answered OK:
 *       -> OK <n> <first_byte_ns> <last_byte_ns>\n
 *          then n lines, one per connection further down the pipeline (the
 *          service's own to its next hop, then those its next hop reported):
 *          <cli_ip> <cli_port> <srv_ip> <srv_port> <connect_ns> <established_ns> <first_byte_ns> <last_byte_ns> <bytes>\n
 *          then the service closes. n is the number of next hops.
 *   Any failure (malformed or oversized line, a wrong byte, a stream that
 *   ends before len bytes or goes on past them, a next hop that cannot be
 *   reached or fails):
 *       -> ERR <where>: <why>\n
 *          <where> names the hop: "<ip>" for the service at ip itself,
 *          "<ip> -> <ip>:<port>" for its connection to the next hop; an ERR
 *          from further down is passed up unchanged. The service then stops
 *          sending and discards what still comes until the peer closes (for
 *          at most the idle timeout), so that the line is not lost to a
 *          reset. A READ that fails gets the same line instead of its data.
 *
 * Times are CLOCK_REALTIME nanoseconds (the clock of the captures, as in
 * the shuffle's done lines). connect_ns and established_ns are the
 * client's: just before connect(), and when the connection was up.
 * first_byte_ns and last_byte_ns are the receiver's: when the first and the
 * last byte of the block were read (READ: the client; WRITE: the service,
 * which is why OK carries its own two, that its client puts in the line of
 * that connection). A block of 0 bytes has both at the time its request was
 * read. <bytes> counts block bytes only, not the request line.
 *
 * The service is one process per host namespace (`hyde datanode`), one
 * thread, one epoll loop, non-blocking sockets, any number of clients at
 * once. A peer that sends no request line within the idle timeout (5 s) is
 * closed, as is one that moves no byte for the stall timeout (60 s) once
 * its request is under way; a bad peer gets one line on stderr (at most 10
 * a second, the rest counted) and never disturbs the others. */
#ifndef HYDE_DATANODE_H
#define HYDE_DATANODE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util.h"
#include "emul/prio.h"

#define DN_PORT 9866
#define DN_LINE_MAX 512			/* a request line, '\n' included */
#define DN_MAX_LEN (64ULL << 30)	/* the biggest block: 64 GiB */
#define DN_MAX_PIPELINE 8		/* next hops of a WRITE */
#define DN_REPLY_MAX 4096		/* OK line and its hop lines */
#define DN_HOP_LINE_MAX 200		/* one hop line, '\n' included */

/* ---- block data ---- */

enum dn_kind {
	DN_INPUT = 1,  /* the input block of map idx of a job */
	DN_OUTPUT = 2, /* the output part written by reduce idx of a job */
};

#define DN_JOB_MAX ((1U << 30) - 1)

/* The uid of block (kind, job, idx); 0 (no block) if kind is not one of
 * enum dn_kind or job > DN_JOB_MAX. */
uint64_t datanode_uid(enum dn_kind kind, uint32_t job, uint32_t idx);
/* The inverse: 0, or -EINVAL if uid is not a block's. */
int datanode_uid_split(uint64_t uid, enum dn_kind *kind, uint32_t *job, uint32_t *idx);
/* The stream key of block uid under a run's seed (for shuffle_fill). */
uint64_t datanode_key(uint64_t seed, uint64_t uid);

/* ---- the protocol's lines (pure: the tests drive them) ---- */

enum dn_op {
	DN_OP_READ = 1,
	DN_OP_WRITE,
};

struct dn_request {
	enum dn_op op;
	uint64_t uid;
	uint64_t off; /* READ */
	uint64_t len;
	unsigned n_next; /* WRITE: the pipeline after the service asked */
	struct in_addr next[DN_MAX_PIPELINE];
};

/* Parse one request line of len bytes (its '\n' excluded; the line need
 * not be NUL-terminated). 0, or -EINVAL (malformed) or -ERANGE (a number or
 * the pipeline too big) with *why set to a static text saying what. */
int dn_request_parse(const char *line, size_t len, struct dn_request *req, const char **why);
/* The request line, '\n' included, into buf; its length, or -ENOSPC. */
int dn_request_format(const struct dn_request *req, char *buf, size_t size);

/* One TCP connection of a transfer (see the protocol above for whose
 * clock each time is). Addresses and ports in network order, as in a
 * struct sockaddr_in. */
struct dn_hop {
	struct in_addr cli_ip, srv_ip;
	uint16_t cli_port, srv_port; /* network order */
	int64_t connect_ns, established_ns, first_byte_ns, last_byte_ns;
	uint64_t bytes;
};

/* The hop line, '\n' included, into buf; its length, or -ENOSPC. */
int dn_hop_format(const struct dn_hop *h, char *buf, size_t size);
/* Parse a hop line of len bytes ('\n' excluded): 0 or -EINVAL. */
int dn_hop_parse(const char *line, size_t len, struct dn_hop *h);

/* ---- clients: the state machines of a task process ----
 *
 * A transfer owns one non-blocking socket, registered in the caller's
 * epoll set with the caller's tag as its data.ptr (NULL: the transfer
 * itself), and changes its own interest set as it goes. The caller hands
 * every event of that socket to dn_xfer_event until it returns non-zero:
 *
 *	x = dn_read_new(seed, uid, 0, len);
 *	if (dn_xfer_start(x, ep, NULL, &srv, tos) == 0)
 *		... for each event with data.ptr == x:
 *			if ((r = dn_xfer_event(x, ev.events)))
 *				r > 0: done, x->conn holds the times; r < 0: x->err says why
 *	dn_xfer_free(x);
 */

enum dn_xfer_mode {
	DN_XFER_READ = 1,
	DN_XFER_WRITE,	/* the bytes are generated from the seed */
	DN_XFER_RELAY,	/* a WRITE whose bytes the caller supplies */
};

struct dn_xfer {
	/* results, valid once dn_xfer_event returned non-zero */
	int status;		/* 0 under way, 1 done, -errno failed */
	char err[HYDE_ERRBUF_SIZE]; /* why it failed, naming the hop */
	struct dn_hop conn;	/* this connection: cli is the local end */
	uint64_t moved;		/* block bytes received (READ) or sent */
	unsigned n_hops;	/* WRITE: the connections further down */
	struct dn_hop hops[DN_MAX_PIPELINE];
	int64_t last_progress_ns; /* CLOCK_MONOTONIC: for the caller's stall timeout */

	/* private */
	enum dn_xfer_mode mode;
	struct dn_request req;
	uint64_t key;
	int fd, ep;
	void *tag;
	uint32_t events;	/* the interest registered in ep */
	bool connected, in_eof, too_many;
	char hdr[DN_LINE_MAX];
	size_t hdr_len, hdr_off;
	uint8_t *buf;		/* data to send (WRITE, RELAY) or read (READ) */
	size_t buf_cap, buf_head, buf_tail;
	uint64_t queued;	/* bytes put into buf so far (WRITE, RELAY) */
	char *reply;		/* WRITE: the reply as it comes; READ: an ERR line */
	size_t reply_len;
};

/* A READ of [off, off + len) of block uid. The caller owns the result
 * (dn_xfer_free). */
struct dn_xfer *dn_read_new(uint64_t seed, uint64_t uid, uint64_t off, uint64_t len);
/* A WRITE of block uid (len bytes), to be forwarded along the n_next
 * addresses of next (the service's pipeline after the first). */
struct dn_xfer *dn_write_new(uint64_t seed, uint64_t uid, uint64_t len,
			     const struct in_addr *next, unsigned n_next);
/* The same, but the caller supplies the bytes (dn_xfer_room,
 * dn_xfer_commit): the service's forwarding to its next hop. */
struct dn_xfer *dn_relay_new(uint64_t uid, uint64_t len,
			     const struct in_addr *next, unsigned n_next);
/* Connect to the data service at srv (tos: IP TOS byte of the socket, 0
 * for none) and register in ep. 0, or -errno with x->err set (then x is
 * over: free it). */
int dn_xfer_start(struct dn_xfer *x, int ep, void *tag, const struct sockaddr_in *srv, int tos);
/* Act on epoll events of the transfer's socket: 0 under way, 1 done,
 * -errno failed (x->err). Once non-zero, the socket is closed and out of ep. */
int dn_xfer_event(struct dn_xfer *x, uint32_t events);
/* RELAY: where the next bytes go and how many fit now (0: wait until
 * the socket takes some; dn_xfer_event makes room). */
size_t dn_xfer_room(struct dn_xfer *x, uint8_t **at);
/* RELAY: n bytes were put at *at; sends what the socket takes. Returns as
 * dn_xfer_event. */
int dn_xfer_commit(struct dn_xfer *x, size_t n);
/* Close the socket (if still open), leave ep, free. NULL is fine. */
void dn_xfer_free(struct dn_xfer *x);

/* ---- the service ---- */

struct dn_serve_opts {
	uint64_t seed;
	uint16_t port;		/* DN_PORT */
	int64_t idle_ns;	/* no request line by then: closed (5 s) */
	int64_t stall_ns;	/* no byte moved for this long: closed (60 s) */
	unsigned max_conns;	/* clients at once; more wait in the backlog (4096) */
	int ready_fd;		/* "ready\n" goes there once listening (-1: none) */
	/* READs marked by the network's policy as they go (emul/prio.h);
	 * net HYDE_NET_FAIR (the default): unmarked */
	struct prio_opts prio;
};

void dn_serve_opts_default(struct dn_serve_opts *o);
/* Serve until SIGTERM or SIGINT (then 0), or a fatal error (-errno,
 * errbuf). */
int dn_serve(const struct dn_serve_opts *o, char *errbuf);

#endif
