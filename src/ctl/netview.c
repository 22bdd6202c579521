/* The network view schedulers read (hyde_net_*): per link, the bytes it
 * carried over the last heartbeat period, sampled on the period's bounds
 * from the backend's own counters (the emulated fabric's interface and
 * crossbar statistics; the fluid model's delivered bits), and the flows
 * active now, kept by the controller as they start and end.
 *
 * Links, each one direction, indexed kind by kind: host up (host ->
 * ToR, H of them), host down, ToR up (ToR -> EPS core, R), ToR down, OCS
 * up (ToR -> its OCS port), OCS down (OCS port -> ToR). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/util.h"
#include "ctl/ctl_int.h"

unsigned netview_link_index(const struct topo *t, enum hyde_link_kind kind, unsigned idx)
{
	unsigned H = topo_n_hosts(t), R = t->racks;

	switch (kind) {
	case HYDE_LINK_HOST_UP:
		return idx;
	case HYDE_LINK_HOST_DOWN:
		return H + idx;
	case HYDE_LINK_TOR_UP:
		return 2 * H + idx;
	case HYDE_LINK_TOR_DOWN:
		return 2 * H + R + idx;
	case HYDE_LINK_OCS_UP:
		return 2 * H + 2 * R + idx;
	case HYDE_LINK_OCS_DOWN:
		return 2 * H + 3 * R + idx;
	}
	return 0;
}

unsigned netview_n_links(const struct topo *t)
{
	return 2 * topo_n_hosts(t) + 4 * t->racks;
}

/* The links a flow's bytes cross on its path (at most 4). */
static unsigned flow_links(const struct topo *t, enum flow_path path, unsigned src,
			   unsigned dst, bool no_link, unsigned *out)
{
	unsigned n = 0, sr = topo_host_rack(t, src), dr = topo_host_rack(t, dst);

	if (path == PATH_HOST)
		return 0;
	if (!no_link) /* (a fetch from several hosts of a rack: no one link) */
		out[n++] = netview_link_index(t, HYDE_LINK_HOST_UP, src);
	if (path == PATH_EPS) {
		out[n++] = netview_link_index(t, HYDE_LINK_TOR_UP, sr);
		out[n++] = netview_link_index(t, HYDE_LINK_TOR_DOWN, dr);
	} else if (path == PATH_OCS) {
		out[n++] = netview_link_index(t, HYDE_LINK_OCS_UP, sr);
		out[n++] = netview_link_index(t, HYDE_LINK_OCS_DOWN, dr);
	}
	out[n++] = netview_link_index(t, HYDE_LINK_HOST_DOWN, dst);
	return n;
}

static uint64_t link_capacity(const struct topo *t, enum hyde_link_kind kind)
{
	switch (kind) {
	case HYDE_LINK_HOST_UP:
	case HYDE_LINK_HOST_DOWN:
		return t->host_rate;
	case HYDE_LINK_TOR_UP:
	case HYDE_LINK_TOR_DOWN:
		return t->uplink_rate;
	case HYDE_LINK_OCS_UP:
	case HYDE_LINK_OCS_DOWN:
		return t->ocs_rate;
	}
	return 0;
}

void netview_init(struct ctl *c)
{
	struct netview *n = &c->net;

	n->period = c->opts.heartbeat ? c->opts.heartbeat : NSEC_PER_SEC;
	n->n_links = netview_n_links(c->t);
	n->prev = xcalloc(n->n_links, sizeof(uint64_t));
	n->last = xcalloc(n->n_links, sizeof(uint64_t));
	n->flows = xcalloc(n->n_links, sizeof(unsigned));
	n->into = xcalloc(topo_n_hosts(c->t), sizeof(*n->into));
	n->t_prev = n->t_last = -1;
	metrics_init(c);
}

void netview_free(struct ctl *c)
{
	unsigned h;

	free(c->net.prev);
	free(c->net.last);
	free(c->net.flows);
	if (c->net.into)
		for (h = 0; h < topo_n_hosts(c->t); h++)
			free(c->net.into[h].v);
	free(c->net.into);
	free(c->net.rd);
	free(c->net.rd_left);
	metrics_free(c);
}

/* One sample: the counters now become the last, the last the previous.
 * Stamped with when the backend read them: the time after the read is
 * later by up to its span (tens of ms on a loaded box), and an
 * interval's bytes would be taken as those of one that ends later. */
static void take_sample(struct ctl *c)
{
	struct netview *n = &c->net;
	uint64_t *tmp = n->prev;
	int64_t at = -1, now;

	n->prev = n->last;
	n->last = tmp;
	memset(n->last, 0, n->n_links * sizeof(uint64_t));
	if (c->be.ops->link_bytes)
		at = c->be.ops->link_bytes(&c->be, n->last);
	now = ctl_now(c);
	n->t_prev = n->t_last;
	/* never after now, never before the last (an interval of 0 s or
	 * less would give no rate) */
	n->t_last = at < 0 || at > now ? now : at;
	if (n->t_prev >= 0 && n->t_last <= n->t_prev)
		n->t_last = now > n->t_prev ? now : n->t_prev + 1;
	n->nsamples++;
}

/* On the cluster-wide tick, before the scheduler's: what it reads then
 * is the period just ended. */
void netview_tick(struct ctl *c)
{
	take_sample(c);
	metrics_sample(c);
}

void netview_start(struct ctl *c)
{
	take_sample(c); /* the baseline, at t0 */
}

/* A flow starts (d = 1) or ends (-1) moving bytes. */
void netview_flow(struct ctl *c, struct flow *f, int d)
{
	unsigned l[4], n = flow_links(c->t, f->path, f->link_host, f->dst_host, f->no_link, l), k;
	struct into *q = &c->net.into[f->dst_host];

	q->sum_at = q->ver_at = 0;
	for (k = 0; k < n; k++)
		c->net.flows[l[k]] += (unsigned)d;
	if (f->path == PATH_HOST)
		return;
	if (d > 0) {
		if (q->n == q->cap) {
			q->cap = q->cap ? 2 * q->cap : 8;
			q->v = xrealloc(q->v, (size_t)q->cap * sizeof(*q->v));
		}
		f->islot = q->n;
		q->v[q->n++] = f;
		return;
	}
	q->v[f->islot] = NULL;
	q->holes++;
	while (q->n && !q->v[q->n - 1]) { /* (the newest ones ended) */
		q->n--;
		q->holes--;
	}
	if (q->holes > 8 && 2 * q->holes > q->n) {
		uint32_t i, j = 0;

		for (i = 0; i < q->n; i++)
			if (q->v[i]) {
				q->v[j] = q->v[i];
				q->v[j]->islot = j;
				j++;
			}
		q->n = j;
		q->holes = 0;
	}
}

int ctl_net_link(struct ctl *c, enum hyde_link_kind kind, unsigned idx,
		 struct hyde_link_state *out)
{
	const struct netview *n = &c->net;
	unsigned H = topo_n_hosts(c->t), l;
	double secs;

	if ((unsigned)kind >= HYDE_LINK_KINDS)
		return -EINVAL;
	if (idx >= (kind <= HYDE_LINK_HOST_DOWN ? H : c->t->racks))
		return -EINVAL;
	l = netview_link_index(c->t, kind, idx);
	memset(out, 0, sizeof(*out));
	out->capacity = link_capacity(c->t, kind);
	out->flows = n->flows[l];
	if (n->t_prev < 0)
		return 0;
	out->bytes = n->last[l] >= n->prev[l] ? n->last[l] - n->prev[l] : 0;
	secs = (double)(n->t_last - n->t_prev) / 1e9;
	if (out->capacity && secs > 0)
		out->utilisation = (double)out->bytes * 8 / ((double)out->capacity * secs);
	return 0;
}

void ctl_net_interval(const struct ctl *c, int64_t *from, int64_t *to)
{
	*from = c->net.t_prev;
	*to = c->net.t_prev < 0 ? -1 : c->net.t_last;
}

/* The bytes an active flow has left now, as far as the backend can tell. */
static uint64_t flow_left(struct ctl *c, struct flow *f)
{
	return c->be.ops->flow_remaining ? c->be.ops->flow_remaining(&c->be, f) : f->bytes;
}

/* A flow as the network view gives it, with the bytes it has left now
 * (flow_left's, or the backend's flows_remaining's). */
static void flow_state(struct flow *f, uint64_t left, struct hyde_flow_state *out)
{
	if (left > f->bytes)
		left = f->bytes;
	*out = (struct hyde_flow_state){
		.id = f->id,
		.job = f->job,
		.task = f->reduce,
		.kind = f->kind,
		.path = (enum hyde_path)f->path,
		.src_host = f->link_host,
		.dst_host = f->dst_host,
		.bytes = f->bytes,
		.sent = f->bytes - left,
		.left = left,
		.start = f->start,
	};
}

size_t ctl_net_flows(struct ctl *c, struct hyde_flow_state *out, size_t max)
{
	size_t n = 0;
	struct flow *f;

	for (f = c->active_head; f; f = f->anext, n++)
		if (n < max)
			flow_state(f, flow_left(c, f), &out[n]);
	return n;
}

/* The flows into host (newest first, as c->active_head) into c->net.rd,
 * the first `max` of them with the bytes they have left in rd_left when
 * the backend counts them all at once; their number. */
static size_t into_read(struct ctl *c, unsigned host, size_t max, size_t *k)
{
	struct into *q = &c->net.into[host];
	size_t n = 0, i;

	for (i = q->n; i-- > 0;)
		if (q->v[i]) {
			if (n < max) {
				xgrow((void **)&c->net.rd, &c->net.cap_rd, n + 1, sizeof(*c->net.rd));
				c->net.rd[n] = q->v[i];
			}
			n++;
		}
	*k = n < max ? n : max;
	if (c->be.ops->flows_remaining) {
		/* (the backend's counts asked all at once: see flows_remaining) */
		xgrow((void **)&c->net.rd_left, &c->net.cap_rd_left, *k + 1, sizeof(*c->net.rd_left));
		c->be.ops->flows_remaining(&c->be, c->net.rd, *k, c->net.rd_left);
	}
	return n;
}

size_t ctl_net_flows_into(struct ctl *c, unsigned host, struct hyde_flow_state *out, size_t max)
{
	size_t n, k, i;

	if (host >= topo_n_hosts(c->t))
		return 0;
	n = into_read(c, host, max, &k);
	for (i = 0; i < k; i++)
		flow_state(c->net.rd[i],
			   c->be.ops->flows_remaining ? c->net.rd_left[i] : flow_left(c, c->net.rd[i]),
			   &out[i]);
	return n;
}

/* The sum of what ctl_net_flows_into's flows have left. In virtual time
 * nothing moves within an event, so the sum is kept for the rest of the
 * event until a flow into the host starts or ends (netview_flow; a flow's
 * bytes grow only before it moves, or in flow_activate before any read):
 * a scheduler that weighs every offered host at every pick (minload)
 * reads each host's flows once an event, not once a pick. Under
 * HYDE_SIM_VERIFY each read is made and checked against the kept sum. */
uint64_t ctl_net_bytes_into(struct ctl *c, unsigned host)
{
	struct into *q;
	struct hyde_flow_state st;
	uint64_t sum = 0, left;
	size_t n, i, k;

	if (host >= topo_n_hosts(c->t))
		return 0;
	q = &c->net.into[host];
	if (c->loop.clock == EVLOOP_VIRTUAL && q->sum_at == c->loop.events + 1 && !c->cx.verify)
		return q->sum;
	c->net.sums_read++;
	n = into_read(c, host, SIZE_MAX, &k);
	for (i = 0; i < n; i++) {
		left = c->be.ops->flows_remaining ? c->net.rd_left[i] : flow_left(c, c->net.rd[i]);
		flow_state(c->net.rd[i], left, &st);
		sum += st.left;
	}
	if (q->sum_at == c->loop.events + 1 && q->sum != sum) /* (HYDE_SIM_VERIFY) */
		fatalx("netview: %" PRIu64 " bytes into host %u kept in the event, %" PRIu64
		       " left at %lld ns",
		       q->sum, host, sum, (long long)ctl_now(c));
	if (c->loop.clock == EVLOOP_VIRTUAL) {
		q->sum = sum;
		q->sum_at = c->loop.events + 1;
	}
	return sum;
}

/* A digest of the flows into host as ctl_net_flows_into gives them. */
static uint64_t into_digest(struct ctl *c, unsigned host)
{
	uint64_t d = 14695981039346656037ull, left;
	size_t n, i, k;

	n = into_read(c, host, SIZE_MAX, &k);
	for (i = 0; i < n; i++) {
		left = c->be.ops->flows_remaining ? c->net.rd_left[i] : flow_left(c, c->net.rd[i]);
		d = (d ^ c->net.rd[i]->id) * 1099511628211ull;
		d = (d ^ left) * 1099511628211ull;
	}
	return d;
}

/* A number that stays the same while what ctl_net_flows_into gives for
 * host does: in virtual time for the rest of the event while no flow into
 * the host starts or ends (as ctl_net_bytes_into's kept sum); in real time
 * a new one at every call. Never 0 for a host in range, never given to two
 * hosts. Under HYDE_SIM_VERIFY a version given again is checked against a
 * digest of the flows it was given for. */
uint64_t ctl_net_into_version(struct ctl *c, unsigned host)
{
	struct into *q;

	if (host >= topo_n_hosts(c->t))
		return 0;
	q = &c->net.into[host];
	if (c->loop.clock == EVLOOP_VIRTUAL && q->ver_at == c->loop.events + 1) {
		if (c->cx.verify && into_digest(c, host) != q->ver_digest)
			fatalx("netview: the flows into host %u changed under version %" PRIu64
			       " at %lld ns",
			       host, q->ver, (long long)ctl_now(c));
		return q->ver;
	}
	q->ver = ++c->net.versions;
	q->ver_at = c->loop.clock == EVLOOP_VIRTUAL ? c->loop.events + 1 : 0;
	if (c->cx.verify)
		q->ver_digest = into_digest(c, host);
	return q->ver;
}

bool ctl_flow_crosses(const struct ctl *c, const struct hyde_flow_state *f,
		      enum hyde_link_kind kind, unsigned idx)
{
	unsigned l[4], n, k, want;

	if ((unsigned)kind >= HYDE_LINK_KINDS ||
	    idx >= (kind <= HYDE_LINK_HOST_DOWN ? topo_n_hosts(c->t) : c->t->racks) ||
	    f->src_host >= topo_n_hosts(c->t) || f->dst_host >= topo_n_hosts(c->t))
		return false;
	want = netview_link_index(c->t, kind, idx);
	n = flow_links(c->t, (enum flow_path)f->path, f->src_host, f->dst_host, false, l);
	for (k = 0; k < n; k++)
		if (l[k] == want)
			return true;
	return false;
}

_Static_assert((int)HYDE_PATH_HOST == (int)PATH_HOST && (int)HYDE_PATH_RACK == (int)PATH_RACK &&
		       (int)HYDE_PATH_EPS == (int)PATH_EPS && (int)HYDE_PATH_OCS == (int)PATH_OCS,
	       "paths differ");
