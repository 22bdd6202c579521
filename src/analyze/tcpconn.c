/* TCP connection rebuilding (see tcpconn.h for the FCT definition). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/tcpconn.h"

uint64_t seqset_add(struct seqset *s, uint64_t a, uint64_t b)
{
	size_t lo, hi, i, j;
	uint64_t dup = 0, na = a, nb = b;

	if (a >= b)
		return 0;
	/* First range that ends at or after a (it may touch or overlap). */
	lo = 0;
	hi = s->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->iv[mid][1] < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Merge every range that overlaps or touches [a, b). */
	for (j = lo; j < s->n && s->iv[j][0] <= b; j++) {
		uint64_t os = s->iv[j][0] > a ? s->iv[j][0] : a;
		uint64_t oe = s->iv[j][1] < b ? s->iv[j][1] : b;

		if (oe > os)
			dup += oe - os;
		if (s->iv[j][0] < na)
			na = s->iv[j][0];
		if (s->iv[j][1] > nb)
			nb = s->iv[j][1];
	}
	if (j == lo) {
		/* No neighbour: insert a new range at lo. */
		xgrow((void **)&s->iv, &s->cap, s->n + 1, sizeof(*s->iv));
		memmove(&s->iv[lo + 1], &s->iv[lo], (s->n - lo) * sizeof(*s->iv));
		s->n++;
	} else if (j - lo > 1) {
		memmove(&s->iv[lo + 1], &s->iv[j], (s->n - j) * sizeof(*s->iv));
		s->n -= j - lo - 1;
	}
	i = lo;
	s->iv[i][0] = na;
	s->iv[i][1] = nb;
	return dup;
}

uint64_t seqset_bytes(const struct seqset *s)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < s->n; i++)
		n += s->iv[i][1] - s->iv[i][0];
	return n;
}

void seqset_free(struct seqset *s)
{
	free(s->iv);
	memset(s, 0, sizeof(*s));
}

void tcpconn_init(struct tcpconn *c, uint64_t bytes)
{
	memset(c, 0, sizeof(*c));
	c->bytes = bytes;
	c->syn_ns = -1;
	c->data_ns = -1;
	c->end_ns = -1;
	c->first_ns = -1;
}

void tcpconn_init_write(struct tcpconn *c, uint64_t req, uint64_t bytes)
{
	tcpconn_init(c, bytes);
	c->req = req;
	c->cli_sends = true;
}

void tcpconn_free(struct tcpconn *c)
{
	seqset_free(&c->seen);
}

/* The 64-bit offset of a 32-bit sequence number relative to `base`, taken
 * within 2^31 of `ref` (the highest offset seen so far). */
static uint64_t unwrap(uint32_t seq, uint32_t base, uint64_t ref)
{
	uint32_t rel = seq - base;
	int64_t d = (int64_t)(int32_t)(rel - (uint32_t)ref);
	int64_t v = (int64_t)ref + d;

	return v < 0 ? 0 : (uint64_t)v;
}

static void server_data(struct tcpconn *c, const struct pkt_tcp *p)
{
	uint64_t a, b;

	if (!c->have_base) {
		/* Without the SYN-ACK the offsets start at the first data
		 * seen: retransmissions are still found, the FCT is not. */
		c->seq_base = p->seq;
		c->have_base = true;
	}
	a = unwrap(p->seq, c->seq_base, c->seq_ref);
	b = a + p->payload;
	/* a write's request is not data: offsets below req are left out */
	if (c->req) {
		uint64_t lo = a < c->req ? c->req : a;

		if (b <= c->req) {
			if (b > c->seq_ref)
				c->seq_ref = b;
			return;
		}
		if (c->data_ns < 0)
			c->data_ns = p->ts;
		c->wire_bytes += b - lo;
		c->retrans_bytes += seqset_add(&c->seen, lo - c->req, b - c->req);
		c->data_bytes = seqset_bytes(&c->seen);
		if (b > c->seq_ref)
			c->seq_ref = b;
		return;
	}
	if (c->data_ns < 0)
		c->data_ns = p->ts;
	c->wire_bytes += p->payload;
	c->retrans_bytes += seqset_add(&c->seen, a, b);
	c->data_bytes = seqset_bytes(&c->seen);
	if (b > c->seq_ref)
		c->seq_ref = b;
}

static void client_ack(struct tcpconn *c, const struct pkt_tcp *p)
{
	uint64_t acked;

	uint32_t isn = c->cli_sends ? c->isn_cli : c->isn_srv;

	if (!(c->cli_sends ? c->have_isn_cli : c->have_isn_srv))
		return;
	acked = unwrap(p->ack, isn + 1, c->have_ack ? c->ack_hi : 0);
	/* An ACK below ISN + 1 (a stray from before the handshake) unwraps
	 * to a huge or negative distance: ignore anything beyond the data
	 * the sender can have sent (+1 for its FIN). */
	if (acked > c->req + c->bytes + 1 && acked > c->seq_ref + 1)
		return;
	if (!c->have_ack || acked > c->ack_hi) {
		c->ack_hi = acked;
		c->have_ack = true;
	}
	if (c->end_ns < 0 && acked >= c->req + c->bytes)
		c->end_ns = p->ts;
}

void tcpconn_packet(struct tcpconn *c, const struct pkt_tcp *p, bool from_cli)
{
	bool syn = p->flags & TCPF_SYN, ack = p->flags & TCPF_ACK;

	if (c->first_ns < 0)
		c->first_ns = p->ts;
	c->last_ns = p->ts;
	c->packets++;
	if (p->flags & TCPF_RST)
		c->rst = true;
	if (from_cli && syn && !ack) {
		if (c->syn_ns < 0)
			c->syn_ns = p->ts;
		if (c->cli_sends && (!c->have_isn_cli || c->isn_cli != p->seq) &&
		    (!c->have_base || c->seen.n == 0)) {
			c->seq_base = p->seq + 1; /* the sender's ISN: offset 0 */
			c->have_base = true;
		}
		c->isn_cli = p->seq;
		c->have_isn_cli = true;
		return;
	}
	if (!from_cli && syn) {
		/* SYN-ACK: the server's ISN fixes data offset 0 of a fetch. A
		 * data byte seen before it (impossible in order) would have
		 * set another base; the handshake wins. */
		if (!c->have_isn_srv || c->isn_srv != p->seq) {
			c->isn_srv = p->seq;
			c->have_isn_srv = true;
			if (!c->cli_sends && (!c->have_base || c->seen.n == 0)) {
				c->seq_base = p->seq + 1;
				c->have_base = true;
			}
		}
		return;
	}
	if (p->flags & TCPF_FIN) {
		if (from_cli)
			c->fin_cli = true;
		else
			c->fin_srv = true;
	}
	if (from_cli == c->cli_sends) { /* from the sender */
		if (p->payload)
			server_data(c, p);
		return;
	}
	if (ack)
		client_ack(c, p);
}

bool tcpconn_is_new_syn(const struct tcpconn *c, const struct pkt_tcp *p,
			bool from_cli)
{
	if (!from_cli || (p->flags & (TCPF_SYN | TCPF_ACK)) != TCPF_SYN)
		return false;
	return !c->have_isn_cli || c->isn_cli != p->seq || c->rst ||
	       (c->fin_cli && c->fin_srv);
}

bool tcpconn_closed(const struct tcpconn *c)
{
	return c->rst || (c->fin_cli && c->fin_srv && c->end_ns >= 0);
}
