/* The OCS crossbar daemon: one thread, one epoll loop.
 *
 * Data path (a userspace forwarder, emul/README.md, "The OCS crossbar"):
 * one AF_PACKET socket per
 * port p<k> of the ocs namespace, with PACKET_VNET_HDR so that the hosts'
 * TSO/GSO super-frames (up to 64 KB, partial checksums) cross intact, and a
 * TPACKET_V2 receive ring of 2 KB slots for MTU-sized frames. A larger
 * frame is queued whole on the socket as well (PACKET_COPY_THRESH) and its
 * slot says so (TP_STATUS_COPY): we read it with one recvmsg, in order. So
 * small frames cost no system call and 2048 of them fit in 4 MB, and a
 * 64 KB frame costs one call, nothing next to its copy. Not TPACKET_V3: a
 * V3 block reaches user space only when full or when its retire timer
 * fires, in whole milliseconds (1 at least); at bw_o a block fills slowly,
 * so frames wait for the timer (measured through a two-port forwarder:
 * minimum RTT 1005 us with V3 against 49 us with V2, and 0.7-1.3 Gbit/s
 * against 3-9 Gbit/s).
 * Nor V2 with 64 KB slots: 96 slots in 8 MB overflow under bursts of small
 * frames (measured: 9% ring drops at 600 Mbit/s of 1.4 KB datagrams).
 *
 * Sends are non-blocking. With pacing (the default) the daemon is the
 * port's shaper: a virtual clock per output port lets a frame go when the
 * previous ones would have left the wire at bw_o, counting bytes as HTB
 * does, and the socket bypasses the port's qdisc (PACKET_QDISC_BYPASS), so
 * no queue hides below us: a circuit that goes down stops at once, and one
 * that comes up starts at once, which is what makes the stall exactly
 * delta. With --no-pacing the port's qdisc (the fabric's HTB) shapes
 * instead, for comparison.
 *
 * Timing: a reconfiguration takes the changed circuits down at once and
 * brings the new ones up delta later. The loop sleeps (timer slack 1 ns)
 * until 50 us before that instant, then polls without sleeping, and
 * checks the clock between frames, so the deadline is met within one
 * frame's handling while forwarding goes on. One thread is enough: the
 * work per frame is a copy at most, and a second thread would only add
 * locking on the circuit state that every frame reads. The thread runs
 * SCHED_FIFO when allowed: on a box shared with the emulated hosts (and
 * here with other work) a SCHED_OTHER crossbar was measured descheduled
 * for 11 ms, longer than delta, in the middle of a reconfiguration. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <arpa/inet.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "core/units.h"
#include "emul/fabric.h"
#include "emul/ocs.h"

/* Receive ring: 2 KB slots hold an MTU frame with its headers; 2048 of
 * them per port. Bigger frames come through the socket queue, up to
 * RCVBUF bytes of them waiting (beyond, the kernel drops and counts). */
#define RING_BLOCK (64u * 1024u)
#define RING_SLOT 2048u
#define RING_BLOCKS 64u
#define RING_SLOTS (RING_BLOCKS * (RING_BLOCK / RING_SLOT))
#define RCVBUF (8 * 1024 * 1024)
/* The largest frame read from the queue: a 64 KB GSO frame and its
 * Ethernet header, with room to spare (BIG TCP is off on veth by default;
 * a longer frame is counted as truncated). */
#define BIG_FRAME (256u * 1024u)

#define SPIN_NS (50 * NSEC_PER_USEC)
/* How far a port's virtual clock may lag real time while frames wait: a
 * crossbar descheduled that long (the hypervisor takes the CPU now and
 * then here) catches up on return, so the rate stays bw_o on average.
 * After an idle spell there is no credit (frame_in restarts the clock):
 * no burst above bw_o from an idle port. */
#define PACE_CATCHUP_NS (20 * NSEC_PER_MSEC)
/* A frame may leave this much before its time, so that MTU frames go in
 * small batches, not one wakeup each (29 us apart at 400 Mbit/s). */
#define PACE_AHEAD_NS (50 * NSEC_PER_USEC)
/* Frames taken from one port before looking at the others. */
#define RX_BUDGET 64
#define MAX_CLIENTS 64
/* A watcher that stops reading is dropped rather than buffered forever. */
#define OUTBUF_MAX (1u << 20)

enum ev_kind { EV_PORT = 1, EV_LISTEN, EV_SIGNAL, EV_CLIENT };
#define EV_TAG(kind, idx) (((uint64_t)(kind) << 32) | (uint32_t)(idx))

struct ocs_port_stats {
	uint64_t rx_frames, rx_bytes, tx_frames, tx_bytes;
	uint64_t unknown_frames, truncated_frames, tx_dropped, ring_drops;
};

struct ocs_port {
	int fd;
	unsigned char *ring;
	unsigned slot;	  /* next receive slot */
	int out, in;	  /* up circuits: this port's destination and source */
	int64_t up_since; /* when `out` came up */
	int pend_out;	  /* circuit this port waits for, -1 none */
	int64_t pend_at;  /* when it comes up */
	int64_t tx_time;  /* pacing: when the last frame sent has left */
	bool tx_blocked;  /* a send said EAGAIN: waiting for EPOLLOUT */
	bool tx_err_logged;
	struct ocs_port_stats st;
};

struct ocs_client {
	int fd; /* -1: free slot */
	bool watching, closing;
	pid_t pid;	    /* the peer's (SO_PEERCRED), for the log */
	int64_t line_since; /* a request line under way since; 0: none */
	struct ocs_linebuf in;
	char *out;
	size_t out_len, out_cap;
	struct ocs_daemon *d; /* for the line callback */
};

struct ocs_event {
	int64_t t;
	uint16_t src, dst;
	bool up;
};

struct ocs_daemon {
	const struct ocs_opts *o;
	unsigned ports;
	struct ocs_port *port;
	struct ocs_voq *voq; /* [in * ports + dst] */
	uint64_t voq_bound;
	int64_t delta;
	bool pacing;
	int epfd, lfd, sfd;
	bool unlink_socket;
	struct ocs_client cl[MAX_CLIENTS];
	struct ocs_event *ev;
	size_t n_ev, cap_ev;
	unsigned char *big; /* OCS_VNET_LEN + BIG_FRAME: a frame read whole */
	FILE *log;
	int64_t next_up; /* earliest pending circuit; INT64_MAX: none */
	int64_t request_timeout;
	int64_t next_expiry; /* of a client's request; INT64_MAX: none */
	struct log_ratelimit rl; /* what clients provoke */
	bool stop;
};

static struct ocs_voq *voq_of(struct ocs_daemon *d, unsigned in, unsigned dst)
{
	return &d->voq[(size_t)in * d->ports + dst];
}

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* ---- clients: output ---- */

static void client_close(struct ocs_daemon *d, struct ocs_client *c)
{
	if (c->fd < 0)
		return;
	epoll_ctl(d->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c->out);
	c->fd = -1;
	c->out = NULL;
	c->out_len = c->out_cap = 0;
	c->in.len = 0;
	c->in.discard = false;
	c->line_since = 0;
	c->watching = c->closing = false;
}

/* Interest follows state: input until the client is closing (after quit
 * or its end of file: a half-closed socket stays readable and would spin
 * the loop), output while replies wait. */
static void client_update_events(struct ocs_daemon *d, struct ocs_client *c)
{
	struct epoll_event e = {
		.events = (c->closing ? 0 : EPOLLIN) | (c->out_len ? EPOLLOUT : 0),
		.data.u64 = EV_TAG(EV_CLIENT, c - d->cl),
	};

	epoll_ctl(d->epfd, EPOLL_CTL_MOD, c->fd, &e);
}

static void client_flush(struct ocs_daemon *d, struct ocs_client *c)
{
	size_t off = 0;

	while (off < c->out_len) {
		ssize_t n = send(c->fd, c->out + off, c->out_len - off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			if (errno == EINTR)
				continue;
			client_close(d, c); /* the peer went away */
			return;
		}
		off += (size_t)n;
	}
	if (off) { /* c->out is NULL while nothing was ever queued */
		memmove(c->out, c->out + off, c->out_len - off);
		c->out_len -= off;
	}
	if (!c->out_len && c->closing)
		client_close(d, c);
	else
		client_update_events(d, c);
}

static void client_printf(struct ocs_daemon *d, struct ocs_client *c,
			  const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Append a line to the client's output; flushed by client_flush. */
static void client_printf(struct ocs_daemon *d, struct ocs_client *c,
			  const char *fmt, ...)
{
	char line[OCS_LINE_MAX + 128];
	va_list ap;
	int n;

	if (c->fd < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (c->out_len + (size_t)n > OUTBUF_MAX) {
		log_warnx_rl(&d->rl, "control client (pid %d) not reading (%zu bytes pending): disconnected",
			     (int)c->pid, c->out_len);
		client_close(d, c);
		return;
	}
	xgrow((void **)&c->out, &c->out_cap, c->out_len + (size_t)n, 1);
	memcpy(c->out + c->out_len, line, (size_t)n);
	c->out_len += (size_t)n;
}

/* ---- circuit events ---- */

static void event_emit(struct ocs_daemon *d, bool up, unsigned src, unsigned dst,
		       int64_t t)
{
	struct ocs_event *e;
	unsigned k;

	xgrow((void **)&d->ev, &d->cap_ev, d->n_ev + 1, sizeof(*d->ev));
	e = &d->ev[d->n_ev++];
	e->t = t;
	e->src = (uint16_t)src;
	e->dst = (uint16_t)dst;
	e->up = up;
	if (d->log) {
		fprintf(d->log, "%s %u %u %" PRId64 "\n", up ? "up" : "down", src, dst, t);
		fflush(d->log);
	}
	for (k = 0; k < MAX_CLIENTS; k++)
		if (d->cl[k].fd >= 0 && d->cl[k].watching) {
			client_printf(d, &d->cl[k], "%s %u %u %" PRId64, up ? "up" : "down",
				      src, dst, t);
			if (d->cl[k].fd >= 0)
				client_flush(d, &d->cl[k]);
		}
	log_debug("circuit %u>%u %s at %" PRId64, src, dst, up ? "up" : "down", t);
}

static void circuit_down(struct ocs_daemon *d, unsigned i, int64_t t)
{
	unsigned j = (unsigned)d->port[i].out;

	d->port[i].out = -1;
	d->port[j].in = -1;
	event_emit(d, false, i, j, t);
}

static void circuit_up(struct ocs_daemon *d, unsigned i, unsigned j, int64_t t)
{
	d->port[i].out = (int)j;
	d->port[i].up_since = t;
	d->port[i].pend_out = -1;
	d->port[j].in = (int)i;
	/* A new circuit starts with a clean pacing clock: the debt of the
	 * last frame of the previous circuit on this output was paid during
	 * the stall. */
	d->port[j].tx_time = t;
	event_emit(d, true, i, j, t);
}

static void next_up_update(struct ocs_daemon *d)
{
	unsigned i;

	d->next_up = INT64_MAX;
	for (i = 0; i < d->ports; i++)
		if (d->port[i].pend_out >= 0 && d->port[i].pend_at < d->next_up)
			d->next_up = d->port[i].pend_at;
}

/* Bring up every pending circuit whose time has come, all with one
 * timestamp. */
static void run_ups(struct ocs_daemon *d)
{
	int64_t t;
	unsigned i;

	if (d->next_up == INT64_MAX || now_ns() < d->next_up)
		return;
	t = now_ns();
	for (i = 0; i < d->ports; i++)
		if (d->port[i].pend_out >= 0 && d->port[i].pend_at <= t)
			circuit_up(d, i, (unsigned)d->port[i].pend_out, t);
	next_up_update(d);
}

/* ---- data path ---- */

static void port_want_out(struct ocs_daemon *d, unsigned j, bool on)
{
	struct epoll_event e = {
		.events = EPOLLIN | (on ? EPOLLOUT : 0),
		.data.u64 = EV_TAG(EV_PORT, j),
	};

	epoll_ctl(d->epfd, EPOLL_CTL_MOD, d->port[j].fd, &e);
}

static bool port_can_send(const struct ocs_daemon *d, unsigned j, int64_t now)
{
	const struct ocs_port *p = &d->port[j];

	return !p->tx_blocked && (!d->pacing || p->tx_time <= now + PACE_AHEAD_NS);
}

/* Send one frame out of port j. 0: sent; -EAGAIN: the socket is full, keep
 * the frame; other: the kernel refused it (counted; drop it). */
static int port_send(struct ocs_daemon *d, unsigned j, const void *vnet,
		     const void *frame, uint32_t len, uint32_t wire, int64_t now)
{
	struct ocs_port *p = &d->port[j];
	struct iovec iov[2] = {
		{ .iov_base = (void *)vnet, .iov_len = OCS_VNET_LEN },
		{ .iov_base = (void *)frame, .iov_len = len },
	};
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = 2 };

	while (sendmsg(p->fd, &m, MSG_DONTWAIT) < 0) {
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			p->tx_blocked = true;
			port_want_out(d, j, true);
			return -EAGAIN;
		}
		p->st.tx_dropped++;
		if (!p->tx_err_logged) {
			log_warn("p%u: send of a %u-byte frame", j, len);
			p->tx_err_logged = true;
		}
		return -errno;
	}
	p->st.tx_frames++;
	p->st.tx_bytes += len;
	if (d->pacing) {
		int64_t start = p->tx_time > now - PACE_CATCHUP_NS ? p->tx_time : now - PACE_CATCHUP_NS;

		p->tx_time = start + (int64_t)(((uint64_t)wire * 8 * NSEC_PER_SEC +
						d->o->rate / 2) / d->o->rate);
	}
	return 0;
}

/* Send what output j's circuit has queued, as far as pacing allows. */
static void port_drain(struct ocs_daemon *d, unsigned j, int64_t now)
{
	struct ocs_voq *q;
	struct ocs_frame *f;
	int i = d->port[j].in;

	if (i < 0)
		return;
	q = voq_of(d, (unsigned)i, j);
	while (q->head && port_can_send(d, j, now)) {
		f = q->head;
		if (port_send(d, j, f->buf, f->buf + OCS_VNET_LEN, f->len, f->wire, now) == -EAGAIN)
			break;
		free(ocs_voq_pop(q));
	}
}

static void drain_all(struct ocs_daemon *d)
{
	int64_t now = now_ns();
	unsigned j;

	for (j = 0; j < d->ports; j++)
		port_drain(d, j, now);
}

/* When the next paced frame may go; INT64_MAX if none waits for pacing. */
static int64_t next_pace(const struct ocs_daemon *d)
{
	int64_t t = INT64_MAX;
	unsigned j;

	if (!d->pacing)
		return t;
	for (j = 0; j < d->ports; j++) {
		const struct ocs_port *p = &d->port[j];

		if (p->in >= 0 && !p->tx_blocked && p->tx_time - PACE_AHEAD_NS < t &&
		    d->voq[(size_t)p->in * d->ports + j].head)
			t = p->tx_time - PACE_AHEAD_NS;
	}
	return t;
}

static struct tpacket2_hdr *ring_slot(const struct ocs_port *p, unsigned slot)
{
	unsigned per = RING_BLOCK / RING_SLOT;

	return (struct tpacket2_hdr *)(p->ring + (size_t)(slot / per) * RING_BLOCK +
				       (size_t)(slot % per) * RING_SLOT);
}

/* One frame received on port i: straight out if its circuit is up and
 * idle, else into its VOQ (or dropped past the bound). */
static void frame_in(struct ocs_daemon *d, unsigned i, const unsigned char *vnet,
		     const unsigned char *mac, uint32_t len)
{
	struct ocs_port *p = &d->port[i];
	uint32_t wire;
	int64_t now;
	int j;

	p->st.rx_frames++;
	p->st.rx_bytes += len;
	j = len >= ETH_HLEN ? ocs_mac_port(mac) : -1;
	if (j < 0 || (unsigned)j >= d->ports || (unsigned)j == i) {
		p->st.unknown_frames++;
		return;
	}
	wire = (uint32_t)ocs_wire_bytes(vnet, mac, len);
	now = now_ns();
	if (p->out == j && !voq_of(d, i, (unsigned)j)->head) {
		/* The output was idle: its clock restarts now, no credit. */
		if (d->port[j].tx_time < now)
			d->port[j].tx_time = now;
	}
	if (p->out == j && !voq_of(d, i, (unsigned)j)->head &&
	    port_can_send(d, (unsigned)j, now)) {
		int r = port_send(d, (unsigned)j, vnet, mac, len, wire, now);

		if (r != -EAGAIN)
			return; /* sent, or refused and counted */
	}
	ocs_voq_push(voq_of(d, i, (unsigned)j), d->voq_bound, vnet, mac, len, wire);
}

/* The frame of a TP_STATUS_COPY slot, from the socket queue. */
static void frame_in_big(struct ocs_daemon *d, unsigned i)
{
	struct ocs_port *p = &d->port[i];
	struct sockaddr_ll sll;
	struct iovec iov = { .iov_base = d->big, .iov_len = OCS_VNET_LEN + BIG_FRAME };
	struct msghdr m = { .msg_name = &sll, .msg_namelen = sizeof(sll),
			    .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	do
		n = recvmsg(p->fd, &m, MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0 || (m.msg_flags & MSG_TRUNC) || n <= OCS_VNET_LEN) {
		p->st.truncated_frames++;
		return;
	}
	if (sll.sll_pkttype == PACKET_OUTGOING)
		return;
	frame_in(d, i, d->big, d->big + OCS_VNET_LEN, (uint32_t)(n - OCS_VNET_LEN));
}

static void port_rx(struct ocs_daemon *d, unsigned i)
{
	struct ocs_port *p = &d->port[i];
	int n;

	for (n = 0; n < RX_BUDGET; n++) {
		struct tpacket2_hdr *h = ring_slot(p, p->slot);
		const struct sockaddr_ll *sll =
			(const void *)((char *)h + TPACKET_ALIGN(sizeof(struct tpacket2_hdr)));
		unsigned long st = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
		unsigned char *mac = (unsigned char *)h + h->tp_mac;

		if (!(st & TP_STATUS_USER))
			break;
		if (st & TP_STATUS_COPY)
			frame_in_big(d, i);
		else if (sll->sll_pkttype == PACKET_OUTGOING)
			;
		else if (h->tp_snaplen < h->tp_len)
			p->st.truncated_frames++; /* too big, and the queue was full */
		else
			frame_in(d, i, mac - OCS_VNET_LEN, mac, h->tp_len);
		__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		p->slot = (p->slot + 1) % RING_SLOTS;
		/* A deadline may pass while we copy frames: honour it now. */
		if (d->next_up != INT64_MAX && now_ns() >= d->next_up) {
			run_ups(d);
			drain_all(d);
		}
	}
}

static void ring_drops_collect(struct ocs_daemon *d)
{
	struct tpacket_stats s;
	socklen_t sl;
	unsigned i;

	for (i = 0; i < d->ports; i++) {
		sl = sizeof(s);
		/* Reading resets the kernel's counters: accumulate. */
		if (!getsockopt(d->port[i].fd, SOL_PACKET, PACKET_STATISTICS, &s, &sl))
			d->port[i].st.ring_drops += s.tp_drops;
	}
}

/* ---- commands ---- */

static void cmd_set(struct ocs_daemon *d, struct ocs_client *c,
		    const struct ocs_matching *want)
{
	struct ocs_matching target;
	struct ocs_diff diff;
	char stalled[OCS_MAX_PORTS * 5 + 2];
	unsigned i, down = 0, cancelled = 0;
	size_t off = 0;
	int64_t t0;

	/* The configuration being reached: up circuits and pending ones. A
	 * pending circuit that stays keeps its time (its mirror is already
	 * moving); only what changes pays delta. */
	ocs_matching_init(&target, d->ports);
	for (i = 0; i < d->ports; i++)
		target.out[i] = d->port[i].out >= 0 ? d->port[i].out : d->port[i].pend_out;
	ocs_matching_diff(&target, want, &diff);
	t0 = now_ns();
	for (i = 0; i < d->ports; i++) {
		if (diff.down[i] < 0)
			continue;
		if (d->port[i].out == diff.down[i]) {
			circuit_down(d, i, t0);
			down++;
		} else {
			d->port[i].pend_out = -1;
			cancelled++;
		}
	}
	for (i = 0; i < d->ports; i++)
		if (diff.up[i] >= 0) {
			d->port[i].pend_out = diff.up[i];
			d->port[i].pend_at = t0 + d->delta;
		}
	next_up_update(d);
	stalled[0] = '\0';
	for (i = 0; i < d->ports; i++)
		if (diff.stall[i])
			off += (size_t)snprintf(stalled + off, sizeof(stalled) - off, "%s%u",
						off ? "," : "", i);
	client_printf(d, c, "ok t=%" PRId64 " down=%u cancelled=%u up=%u ready=%" PRId64
		      " stalled=%s", t0, down, cancelled, diff.n_up,
		      diff.n_up ? t0 + d->delta : t0, off ? stalled : "none");
	if (d->delta == 0)
		run_ups(d);
}

static void cmd_show(struct ocs_daemon *d, struct ocs_client *c)
{
	unsigned i, up = 0, pending = 0;

	for (i = 0; i < d->ports; i++) {
		if (d->port[i].out >= 0) {
			client_printf(d, c, "circuit %u %d up %" PRId64, i, d->port[i].out,
				      d->port[i].up_since);
			up++;
		}
		if (d->port[i].pend_out >= 0) {
			client_printf(d, c, "circuit %u %d pending %" PRId64, i,
				      d->port[i].pend_out, d->port[i].pend_at);
			pending++;
		}
	}
	client_printf(d, c, "ok ports=%u up=%u pending=%u delta=%" PRId64 " rate=%" PRIu64
		      " voq=%" PRIu64 " pacing=%s now=%" PRId64, d->ports, up, pending,
		      d->delta, d->o->rate, d->voq_bound, d->pacing ? "on" : "off", now_ns());
}

static void cmd_stats(struct ocs_daemon *d, struct ocs_client *c)
{
	unsigned i, j;

	ring_drops_collect(d);
	for (i = 0; i < d->ports; i++) {
		const struct ocs_port_stats *s = &d->port[i].st;
		uint64_t qf = 0, qb = 0, df = 0, db = 0;

		for (j = 0; j < d->ports; j++) {
			const struct ocs_voq *q = voq_of(d, i, j);

			qf += q->frames;
			qb += q->bytes;
			df += q->dropped_frames;
			db += q->dropped_bytes;
		}
		client_printf(d, c,
			      "port %u rx_frames=%" PRIu64 " rx_bytes=%" PRIu64
			      " tx_frames=%" PRIu64 " tx_bytes=%" PRIu64
			      " queued_frames=%" PRIu64 " queued_bytes=%" PRIu64
			      " dropped_frames=%" PRIu64 " dropped_bytes=%" PRIu64
			      " unknown_frames=%" PRIu64 " truncated_frames=%" PRIu64
			      " tx_dropped=%" PRIu64 " ring_drops=%" PRIu64,
			      i, s->rx_frames, s->rx_bytes, s->tx_frames, s->tx_bytes, qf, qb, df,
			      db, s->unknown_frames, s->truncated_frames, s->tx_dropped,
			      s->ring_drops);
	}
	for (i = 0; i < d->ports; i++)
		for (j = 0; j < d->ports; j++) {
			const struct ocs_voq *q = voq_of(d, i, j);

			if (q->peak_bytes || q->dropped_frames)
				client_printf(d, c,
					      "voq %u %u queued_frames=%" PRIu64
					      " queued_bytes=%" PRIu64 " dropped_frames=%" PRIu64
					      " dropped_bytes=%" PRIu64 " peak_bytes=%" PRIu64,
					      i, j, q->frames, q->bytes, q->dropped_frames,
					      q->dropped_bytes, q->peak_bytes);
		}
	client_printf(d, c, "ok ports=%u voq=%" PRIu64 " now=%" PRId64, d->ports,
		      d->voq_bound, now_ns());
}

static void cmd_events(struct ocs_daemon *d, struct ocs_client *c, uint64_t count)
{
	size_t k = 0;

	if (count && count < d->n_ev)
		k = d->n_ev - (size_t)count;
	for (; k < d->n_ev; k++)
		client_printf(d, c, "event %s %u %u %" PRId64, d->ev[k].up ? "up" : "down",
			      d->ev[k].src, d->ev[k].dst, d->ev[k].t);
	client_printf(d, c, "ok events=%zu", d->n_ev);
}

static void client_line(struct ocs_daemon *d, struct ocs_client *c, char *line,
			size_t len)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct ocs_cmd cmd;
	int r, k;

	if (memchr(line, '\0', len)) {
		client_printf(d, c, "err not a command: byte 0x00 at column %zu (text only; 'help' lists commands)",
			      (size_t)((char *)memchr(line, '\0', len) - line) + 1);
		log_warnx_rl(&d->rl, "control client (pid %d): a request with a NUL byte (%zu bytes): refused",
			     (int)c->pid, len);
		return;
	}
	r = ocs_cmd_parse(line, d->ports, &cmd, errbuf);
	if (r == -ENODATA)
		return; /* a blank line asks nothing */
	if (r) {
		client_printf(d, c, "err %s", errbuf);
		log_warnx_rl(&d->rl, "control client (pid %d): refused a request (%zu bytes): %s",
			     (int)c->pid, len, errbuf);
		return;
	}
	switch (cmd.kind) {
	case OCS_CMD_SET:
		cmd_set(d, c, &cmd.m);
		break;
	case OCS_CMD_SHOW:
		cmd_show(d, c);
		break;
	case OCS_CMD_STATS:
		cmd_stats(d, c);
		break;
	case OCS_CMD_WATCH:
		c->watching = true;
		client_printf(d, c, "ok watching now=%" PRId64, now_ns());
		break;
	case OCS_CMD_UNWATCH:
		c->watching = false;
		client_printf(d, c, "ok");
		break;
	case OCS_CMD_EVENTS:
		cmd_events(d, c, cmd.has_arg ? cmd.count : 0);
		break;
	case OCS_CMD_DELTA:
		if (cmd.has_arg) {
			d->delta = cmd.delta;
			if (!d->o->voq)
				d->voq_bound = ocs_voq_default(d->o->rate, d->delta);
		}
		client_printf(d, c, "ok delta=%" PRId64 " voq=%" PRIu64, d->delta, d->voq_bound);
		break;
	case OCS_CMD_TIME:
		client_printf(d, c, "ok mono=%" PRId64 " real=%" PRId64, now_ns(), realtime_ns());
		break;
	case OCS_CMD_HELP:
		for (k = 0; ocs_cmd_help[k]; k++)
			client_printf(d, c, "%s", ocs_cmd_help[k]);
		client_printf(d, c, "ok");
		break;
	case OCS_CMD_QUIT:
		client_printf(d, c, "ok bye");
		c->closing = true;
		break;
	}
}

static int client_line_cb(void *arg, char *text, size_t len)
{
	struct ocs_client *c = arg;

	client_line(c->d, c, text, len);
	/* stop once the client is closed, or closing after quit */
	return c->fd < 0 || c->closing;
}

/* Read what the client sent and answer every complete line. A line longer
 * than OCS_LINE_MAX is answered once with an error and skipped up to its
 * end; a partial line at disconnection is dropped. A few reads per turn,
 * so that a client flooding the socket cannot starve the data path. */
static void client_read(struct ocs_daemon *d, struct ocs_client *c)
{
	int turns;

	for (turns = 0; turns < 16; turns++) {
		ssize_t n = read(c->fd, c->in.buf + c->in.len, ocs_linebuf_room(&c->in));
		bool ended;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n < 0) {
			client_close(d, c);
			return;
		}
		if (n == 0) {
			/* End of file: a partial line is dropped, the replies
			 * already due are still sent. */
			if (ocs_linebuf_pending(&c->in))
				log_warnx_rl(&d->rl, "control client (pid %d) left in the middle of a request (%zu bytes)",
					     (int)c->pid, c->in.len);
			c->closing = true;
			c->in.len = 0;
			c->in.discard = false;
			break;
		}
		ended = memchr(c->in.buf + c->in.len, '\n', (size_t)n) != NULL;
		if (ocs_linebuf_feed(&c->in, (size_t)n, client_line_cb, c)) {
			client_printf(d, c, "err line too long (at most %d characters)",
				      OCS_LINE_MAX);
			log_warnx_rl(&d->rl, "control client (pid %d): a request longer than %d bytes: refused",
				     (int)c->pid, OCS_LINE_MAX);
		}
		if (c->fd < 0)
			return;
		if (c->closing) {
			c->in.len = 0;
			break;
		}
		/* the clock of a request runs from its first byte: a line that
		 * ended in this read restarts it for the rest */
		if (!ocs_linebuf_pending(&c->in))
			c->line_since = 0;
		else if (!c->line_since || ended)
			c->line_since = now_ns();
	}
	if (c->fd >= 0)
		client_flush(d, c);
}

/* Disconnect clients whose request line has been under way for longer
 * than the limit; returns the earliest deadline left (INT64_MAX: none). */
static int64_t clients_expire(struct ocs_daemon *d, int64_t now)
{
	int64_t next = INT64_MAX;
	unsigned k;

	for (k = 0; k < MAX_CLIENTS; k++) {
		struct ocs_client *c = &d->cl[k];

		if (c->fd < 0 || !c->line_since || c->closing)
			continue;
		if (now - c->line_since < d->request_timeout) {
			if (c->line_since + d->request_timeout < next)
				next = c->line_since + d->request_timeout;
			continue;
		}
		log_warnx_rl(&d->rl, "control client (pid %d): no end of line %.1fs after a request began (%zu bytes): disconnected",
			     (int)c->pid, (double)d->request_timeout / 1e9, c->in.len);
		client_printf(d, c, "err request not finished within %.1fs", (double)d->request_timeout / 1e9);
		if (c->fd < 0)
			continue;
		c->closing = true;
		c->line_since = 0;
		c->in.len = 0;
		client_flush(d, c);
	}
	return next;
}

static void client_accept(struct ocs_daemon *d)
{
	for (;;) {
		int fd = accept4(d->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct epoll_event e = { .events = EPOLLIN };
		unsigned k;

		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				log_warn("control socket: accept");
			return;
		}
		struct ucred cred = { 0 };
		socklen_t cl = sizeof(cred);

		getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl);
		for (k = 0; k < MAX_CLIENTS && d->cl[k].fd >= 0; k++)
			;
		if (k == MAX_CLIENTS) {
			static const char msg[] = "err too many clients\n";

			log_warnx_rl(&d->rl, "control client (pid %d) refused: %d clients connected",
				     (int)cred.pid, MAX_CLIENTS);
			if (send(fd, msg, sizeof(msg) - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
				log_debug("control client refused before it read");
			close(fd);
			continue;
		}
		e.data.u64 = EV_TAG(EV_CLIENT, k);
		if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &e)) {
			log_warn("control socket: epoll");
			close(fd);
			continue;
		}
		memset(&d->cl[k], 0, sizeof(d->cl[k]));
		d->cl[k].fd = fd;
		d->cl[k].pid = cred.pid;
		d->cl[k].d = d;
	}
}

/* ---- set-up and tear-down ---- */

static int enter_netns(const char *name, char *errbuf)
{
	char path[PATH_MAX];
	int fd, r = 0;

	if (strchr(name, '/') || !*name) {
		errbuf_set(errbuf, "--netns: '%s' is not a namespace name", name);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		errbuf_set(errbuf, "namespace %s: %s (is the fabric up?)", name, strerror(errno));
		return r;
	}
	if (setns(fd, CLONE_NEWNET)) {
		r = -errno;
		errbuf_set(errbuf, "namespace %s: setns: %s", name, strerror(errno));
	}
	close(fd);
	return r;
}

static int port_open(struct ocs_daemon *d, unsigned k, char *errbuf)
{
	struct ocs_port *p = &d->port[k];
	struct tpacket_req req = {
		.tp_block_size = RING_BLOCK,
		.tp_block_nr = RING_BLOCKS,
		.tp_frame_size = RING_SLOT,
		.tp_frame_nr = RING_SLOTS,
	};
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	struct epoll_event e = { .events = EPOLLIN, .data.u64 = EV_TAG(EV_PORT, k) };
	int one = 1, v2 = TPACKET_V2, rcvbuf = RCVBUF, r;
	char name[IFNAMSIZ];
	struct ifreq ifr;

	snprintf(name, sizeof(name), "p%u", k);
	sll.sll_ifindex = (int)if_nametoindex(name);
	if (!sll.sll_ifindex) {
		errbuf_set(errbuf, "port %s: no such interface in namespace %s", name,
			   d->o->netns ? d->o->netns : "(current)");
		return -ENODEV;
	}
	/* Protocol 0 until bound: no frame is queued from other interfaces
	 * before bind() narrows the socket to this port. */
	p->fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (p->fd < 0)
		goto err_errno;
	/* RCVBUFFORCE: past net.core.rmem_max, which this namespace's owner
	 * may have left small; the socket queue holds the big frames. */
	if (setsockopt(p->fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) ||
	    setsockopt(p->fd, SOL_PACKET, PACKET_VERSION, &v2, sizeof(v2)) ||
	    setsockopt(p->fd, SOL_PACKET, PACKET_COPY_THRESH, &one, sizeof(one)) ||
	    setsockopt(p->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) ||
	    setsockopt(p->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)))
		goto err_errno;
	if (d->pacing && setsockopt(p->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)))
		goto err_errno;
	/* Our own sends are no input; frame_in also checks the packet type
	 * in case this option is missing. */
	if (setsockopt(p->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)))
		log_debug("%s: PACKET_IGNORE_OUTGOING: %s", name, strerror(errno));
	p->ring = mmap(NULL, (size_t)RING_BLOCK * RING_BLOCKS, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, p->fd, 0);
	if (p->ring == MAP_FAILED) {
		p->ring = NULL;
		goto err_errno;
	}
	if (bind(p->fd, (struct sockaddr *)&sll, sizeof(sll)))
		goto err_errno;
	if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, p->fd, &e))
		goto err_errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (!ioctl(p->fd, SIOCGIFFLAGS, &ifr) && !(ifr.ifr_flags & IFF_UP))
		log_warnx("port %s is down: nothing will cross it until it is up", name);
	return 0;
err_errno:
	r = -errno;
	errbuf_set(errbuf, "port %s: %s", name, strerror(errno));
	return r;
}

/* Bind the control socket; a stale socket file (no daemon behind it) is
 * replaced, a live one is an error. */
static int control_open(struct ocs_daemon *d, char *errbuf)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct epoll_event e = { .events = EPOLLIN, .data.u64 = EV_TAG(EV_LISTEN, 0) };
	const char *path = d->o->socket;
	int fd, r;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		errbuf_set(errbuf, "--socket: path too long (at most %zu bytes)",
			   sizeof(sun.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto err_errno;
	if (!connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		close(fd);
		errbuf_set(errbuf, "%s: another crossbar is serving this socket", path);
		return -EADDRINUSE;
	}
	close(fd);
	if (errno == ECONNREFUSED)
		unlink(path);
	d->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (d->lfd < 0)
		goto err_errno;
	if (bind(d->lfd, (struct sockaddr *)&sun, sizeof(sun)))
		goto err_errno;
	d->unlink_socket = true;
	/* root only: the crossbar's configuration is the run's */
	if (chmod(path, 0600) || listen(d->lfd, 16) ||
	    epoll_ctl(d->epfd, EPOLL_CTL_ADD, d->lfd, &e))
		goto err_errno;
	return 0;
err_errno:
	r = -errno;
	errbuf_set(errbuf, "control socket %s: %s", path, strerror(errno));
	return r;
}

static int signals_open(struct ocs_daemon *d, char *errbuf)
{
	struct epoll_event e = { .events = EPOLLIN, .data.u64 = EV_TAG(EV_SIGNAL, 0) };
	sigset_t set;
	int r;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		goto err_errno;
	signal(SIGPIPE, SIG_IGN);
	d->sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (d->sfd < 0 || epoll_ctl(d->epfd, EPOLL_CTL_ADD, d->sfd, &e))
		goto err_errno;
	return 0;
err_errno:
	r = -errno;
	errbuf_set(errbuf, "signals: %s", strerror(errno));
	return r;
}

static void daemon_free(struct ocs_daemon *d)
{
	unsigned i;

	for (i = 0; i < MAX_CLIENTS; i++)
		client_close(d, &d->cl[i]);
	if (d->port)
		for (i = 0; i < d->ports; i++) {
			if (d->port[i].ring)
				munmap(d->port[i].ring, (size_t)RING_BLOCK * RING_BLOCKS);
			if (d->port[i].fd >= 0)
				close(d->port[i].fd);
		}
	if (d->voq)
		for (i = 0; i < d->ports * d->ports; i++)
			ocs_voq_clear(&d->voq[i]);
	if (d->lfd >= 0)
		close(d->lfd);
	if (d->unlink_socket)
		unlink(d->o->socket);
	if (d->sfd >= 0)
		close(d->sfd);
	if (d->epfd >= 0)
		close(d->epfd);
	if (d->log)
		fclose(d->log);
	free(d->port);
	free(d->voq);
	free(d->ev);
	free(d->big);
}

static void handle_event(struct ocs_daemon *d, const struct epoll_event *e)
{
	unsigned kind = (unsigned)(e->data.u64 >> 32), idx = (unsigned)e->data.u64;
	struct signalfd_siginfo si;

	switch (kind) {
	case EV_PORT:
		if (e->events & EPOLLOUT) {
			d->port[idx].tx_blocked = false;
			port_want_out(d, idx, false);
			port_drain(d, idx, now_ns());
		}
		if (e->events & EPOLLIN)
			port_rx(d, idx);
		break;
	case EV_LISTEN:
		client_accept(d);
		break;
	case EV_SIGNAL:
		while (read(d->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			log_info("signal %u: stopping", si.ssi_signo);
			d->stop = true;
		}
		break;
	case EV_CLIENT:
		if (d->cl[idx].fd < 0)
			break;
		if (e->events & (EPOLLIN | EPOLLHUP | EPOLLERR))
			client_read(d, &d->cl[idx]);
		if (d->cl[idx].fd >= 0 && (e->events & EPOLLOUT))
			client_flush(d, &d->cl[idx]);
		break;
	}
}

static int run_loop(struct ocs_daemon *d, char *errbuf)
{
	struct epoll_event evs[64];
	int n, k, r;

	while (!d->stop) {
		struct timespec ts, *tp = NULL;
		int64_t now, wake, pace;

		run_ups(d);
		drain_all(d);
		now = now_ns();
		wake = INT64_MAX;
		if (d->next_up != INT64_MAX)
			wake = d->next_up - SPIN_NS;
		pace = next_pace(d);
		if (pace < wake)
			wake = pace;
		if (d->next_expiry < wake)
			wake = d->next_expiry;
		if (wake != INT64_MAX) {
			int64_t dt = wake > now ? wake - now : 0;

			ts.tv_sec = dt / NSEC_PER_SEC;
			ts.tv_nsec = dt % NSEC_PER_SEC;
			tp = &ts;
		}
		n = epoll_pwait2(d->epfd, evs, (int)ARRAY_SIZE(evs), tp, NULL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			errbuf_set(errbuf, "epoll: %s", strerror(errno));
			return r;
		}
		for (k = 0; k < n; k++)
			handle_event(d, &evs[k]);
		/* after the events: what a slow client sent while the
		 * crossbar was held up is read before it is judged slow */
		d->next_expiry = clients_expire(d, now_ns());
	}
	return 0;
}

int ocs_serve(const struct ocs_opts *o, char *errbuf)
{
	struct ocs_daemon d;
	char a[32], b[32], c[32];
	unsigned i;
	int r;

	memset(&d, 0, sizeof(d));
	d.o = o;
	d.ports = o->ports;
	d.delta = o->delta;
	d.pacing = !o->no_pacing;
	d.voq_bound = o->voq ? o->voq : ocs_voq_default(o->rate, o->delta);
	d.epfd = d.lfd = d.sfd = -1;
	d.next_up = INT64_MAX;
	d.request_timeout = o->request_timeout > 0 ? o->request_timeout : OCS_REQUEST_TIMEOUT;
	d.rl = (struct log_ratelimit)LOG_RATELIMIT(10 * NSEC_PER_SEC, 50);
	d.next_expiry = INT64_MAX;
	for (i = 0; i < MAX_CLIENTS; i++)
		d.cl[i].fd = -1;
	if (o->ports < 2 || o->ports > OCS_MAX_PORTS || !o->rate || !o->socket) {
		errbuf_set(errbuf, "crossbar: needs 2 to %d ports, a rate and a socket",
			   OCS_MAX_PORTS);
		return -EINVAL;
	}
	d.port = xcalloc(d.ports, sizeof(*d.port));
	d.voq = xcalloc((size_t)d.ports * d.ports, sizeof(*d.voq));
	d.big = xmalloc(OCS_VNET_LEN + BIG_FRAME);
	for (i = 0; i < d.ports; i++) {
		d.port[i].fd = -1;
		d.port[i].out = d.port[i].in = d.port[i].pend_out = -1;
	}
	/* Timer slack 1 ns: sleeps end when asked. With the default slack a
 * 1 ms clock_nanosleep ended about 70 us late (median) on the development
 * machine, with 1 ns about 20 us: δ would feel the difference. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (!o->no_rt) {
		struct sched_param sp = { .sched_priority = OCS_RT_PRIORITY };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			log_warn("SCHED_FIFO refused; timing will suffer from other work");
	}
	if (o->log) {
		d.log = fopen(o->log, "ae");
		if (!d.log) {
			r = -errno;
			errbuf_set(errbuf, "%s: %s", o->log, strerror(errno));
			goto out;
		}
	}
	d.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (d.epfd < 0) {
		r = -errno;
		errbuf_set(errbuf, "epoll: %s", strerror(errno));
		goto out;
	}
	if (o->netns && (r = enter_netns(o->netns, errbuf)))
		goto out;
	for (i = 0; i < d.ports; i++)
		if ((r = port_open(&d, i, errbuf)))
			goto out;
	if ((r = signals_open(&d, errbuf)))
		goto out;
	/* started by a run: when it dies, stop as on SIGTERM (the socket is
	 * removed) */
	fabric_death_signal(SIGTERM);
	/* Last: once the socket answers, the crossbar forwards. */
	if ((r = control_open(&d, errbuf)))
		goto out;
	log_info("crossbar: %u ports, bw_o %s (%s), delta %s, VOQ %s, %s, socket %s", d.ports,
		 unit_fmt_rate(o->rate, a, sizeof(a)), d.pacing ? "paced here" : "left to qdiscs",
		 unit_fmt_time(d.delta, b, sizeof(b)), unit_fmt_size(d.voq_bound, c, sizeof(c)),
		 sched_getscheduler(0) == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_OTHER", o->socket);
	r = run_loop(&d, errbuf);
	ring_drops_collect(&d);
	for (i = 0; i < d.ports; i++) {
		uint64_t vf = 0, vb = 0;
		unsigned j;

		/* what its VOQs dropped past their bound (frames for a circuit
		 * that was not up, more than the VOQ holds) */
		for (j = 0; j < d.ports; j++) {
			vf += voq_of(&d, i, j)->dropped_frames;
			vb += voq_of(&d, i, j)->dropped_bytes;
		}
		log_info("p%u: rx %" PRIu64 " frames, tx %" PRIu64 ", unknown %" PRIu64
			 ", ring drops %" PRIu64 ", tx dropped %" PRIu64 ", VOQ drops %" PRIu64
			 " frames (%" PRIu64 " bytes)", i,
			 d.port[i].st.rx_frames, d.port[i].st.tx_frames,
			 d.port[i].st.unknown_frames, d.port[i].st.ring_drops,
			 d.port[i].st.tx_dropped, vf, vb);
	}
out:
	daemon_free(&d);
	return r;
}
