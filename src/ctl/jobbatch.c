/* The simulator's lazy job batching (struct jlazy): for hyde sim jobs
 * whose every partition has bytes, a waiting fetch from a host holds every
 * output of that host from its first on, so map outputs are counted per
 * host, not visited per fetch. It owns struct jstate's lz, the lz_* fields
 * of a flow, and a batched job's side of reduce_open, of a map's end and
 * of a fetch's start. It may call ctl.c's flow functions (ctl_flow_new,
 * ctl_flow_enqueue) and the OCS pair table (ctl_pair, ctl_pair_wait);
 * ctl.c calls it where a job is batched (jstate.lz set). */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "ctl/ctl_int.h"

static unsigned lz_class(const struct wl_job *w, uint32_t r)
{
	return r < w->shuffle % w->reduces;
}

void jobbatch_init(struct ctl *c, struct jstate *j, const struct wl_job *w)
{
	unsigned H = topo_n_hosts(c->t), k;
	struct jlazy *lz;

	if (!c->opts.stream_flows || !w->reduces || !w->maps)
		return;
	if (c->fetch_rack) { /* -B fetch=rack: struct jrack */
		struct jrack *rk = j->rk = xcalloc(1, sizeof(*rk));

		rk->words = (w->reduces + 63) / 64;
		rk->eager = xcalloc((size_t)c->t->racks * rk->words, sizeof(uint64_t));
		rk->seq = xcalloc(c->t->racks, sizeof(uint32_t *));
		rk->n_seq = xcalloc(c->t->racks, sizeof(uint32_t));
		rk->cap_seq = xcalloc(c->t->racks, sizeof(uint32_t));
		rk->head = xcalloc(H, sizeof(uint32_t));
		memset(rk->head, 0xff, H * sizeof(uint32_t));
		rk->next = xcalloc(w->reduces, sizeof(uint32_t));
		if (!w->reduce_bytes) {
			rk->rbits = xcalloc(c->t->racks, sizeof(uint64_t *));
			rk->mwords = (w->maps + 63) / 64;
			rk->done_host = xcalloc(H, sizeof(uint32_t));
			rk->last_at = xcalloc(H, sizeof(uint32_t));
			for (k = 0; k < 2; k++) {
				rk->below_host[k] = xcalloc(H, sizeof(uint32_t));
				rk->below_rack[k] = xcalloc(c->t->racks, sizeof(uint32_t));
				rk->rem[k] = (uint32_t)((w->shuffle / w->reduces + k) % w->maps);
			}
		}
		if (!c->rack_of) {
			c->rack_of = xcalloc(H, sizeof(uint32_t));
			for (k = 0; k < H; k++)
				c->rack_of[k] = topo_host_rack(c->t, k);
		}
		return;
	}
	/* every partition must have bytes (a map with none to give is no
	 * fetch), and no per-reduce sizes */
	if (w->reduce_bytes || w->shuffle / w->reduces < w->maps)
		return;
	lz = j->lz = xcalloc(1, sizeof(*lz));
	lz->words = (w->reduces + 63) / 64;
	lz->need = xcalloc((size_t)H * lz->words, sizeof(uint64_t));
	lz->n_out = xcalloc(H, sizeof(uint32_t));
	lz->cap = xcalloc(H, sizeof(uint32_t));
	lz->single_n = xcalloc(H, sizeof(uint32_t));
	lz->single_bytes = xcalloc(H, sizeof(uint64_t));
	for (k = 0; k < 2; k++) {
		uint64_t rb = w->shuffle / w->reduces + k;

		lz->below[k] = xcalloc(H, sizeof(uint32_t *));
		lz->base[k] = rb / w->maps;
		lz->rem[k] = (uint32_t)(rb % w->maps);
	}
}

void jobbatch_free(struct ctl *c, struct jstate *j)
{
	struct jlazy *lz = j->lz;
	unsigned H = topo_n_hosts(c->t), h, k;

	if (j->rk) {
		for (k = 0; k < c->t->racks; k++)
			free(j->rk->seq[k]);
		free(j->rk->seq);
		free(j->rk->n_seq);
		free(j->rk->cap_seq);
		free(j->rk->eager);
		free(j->rk->head);
		free(j->rk->next);
		free(j->rk->acc_bytes);
		free(j->rk->acc_n);
		free(j->rk->acc_host);
		free(j->rk->acc_slots);
		free(j->rk->total);
		free(j->rk->below);
		free(j->rk->seen_n);
		free(j->rk->seen_below);
		free(j->rk->seen_host);
		free(j->rk->done_host);
		free(j->rk->last_at);
		if (j->rk->rbits)
			for (k = 0; k < c->t->racks; k++)
				free(j->rk->rbits[k]);
		free(j->rk->rbits);
		free(j->rk->from);
		free(j->rk->nx);
		for (k = 0; k < 2; k++) {
			free(j->rk->below_host[k]);
			free(j->rk->below_rack[k]);
		}
		if (j->rk->lzp)
			for (k = 0; k < c->t->racks; k++)
				free(j->rk->lzp[k]);
		free(j->rk->lzp);
		free(j->rk->n_lzp);
		free(j->rk->cap_lzp);
		free(j->rk);
		j->rk = NULL;
	}
	if (!lz)
		return;
	for (k = 0; k < 2; k++) {
		for (h = 0; h < H; h++)
			free(lz->below[k][h]);
		free(lz->below[k]);
	}
	free(lz->need);
	free(lz->n_out);
	free(lz->cap);
	free(lz->ocs_wait);
	free(lz->single_n);
	free(lz->single_bytes);
	free(lz);
	j->lz = NULL;
}

void jobbatch_need(struct jlazy *lz, unsigned h, uint32_t r, bool on)
{
	uint64_t *w = &lz->need[(size_t)h * lz->words + r / 64];

	if (on)
		*w |= 1ULL << (r % 64);
	else
		*w &= ~(1ULL << (r % 64));
}

/* Bytes of a host's outputs [from, end) for a reduce of class k. */
static uint64_t lz_range(const struct jlazy *lz, unsigned h, unsigned k, uint32_t from,
			 uint32_t end)
{
	if (end == from)
		return 0;
	return (uint64_t)(end - from) * lz->base[k] + lz->below[k][h][end] -
	       lz->below[k][h][from];
}

static uint32_t *lz_ocs_wait(struct ctl *c, struct jlazy *lz, const struct flow *f)
{
	unsigned H = topo_n_hosts(c->t), R = c->t->racks;

	if (!lz->ocs_wait)
		lz->ocs_wait = xcalloc((size_t)H * R * 2, sizeof(uint32_t));
	return &lz->ocs_wait[((size_t)f->src_host * R + f->dst_rack) * 2 +
			     lz_class(c->wl->jobs + f->job, f->reduce)];
}

uint32_t jobbatch_hosts(uint32_t so_far, uint32_t h)
{
	return so_far == RK_NO_HOST || so_far == h ? h : UINT32_MAX;
}

/* A waiting rack fetch's outputs since it went lazy (but its reduce's own
 * host's), read one by one: how many, their bytes and their hosts. */
static uint64_t rack_window_read(const struct ctl *c, const struct flow *f, uint32_t *n_out,
				 uint32_t *host_out)
{
	const struct jrack *rk = c->js[f->job].rk;
	const struct rstate *rs = &c->js[f->job].red[f->reduce];
	uint32_t own = (uint32_t)c->c->jobs[f->job].reduces[f->reduce].host, i;
	const uint32_t *q = rk->seq[f->src_rack];
	uint32_t n = 0, host = RK_NO_HOST;
	uint64_t sum = 0;

	for (i = f->lz_from; i < rk->n_seq[f->src_rack]; i++) {
		uint32_t m = q[2 * i];
		uint64_t bytes = rs->part_base + (m < rs->part_rem);

		if (q[2 * i + 1] == own || !bytes)
			continue;
		sum += bytes;
		n++;
		host = jobbatch_hosts(host, q[2 * i + 1]);
	}
	*n_out = n;
	*host_out = host;
	return sum;
}

/* The counts a rack fetch's window is read from, as it goes lazy (an even
 * split's: those of its rack, and of its reduce's own host if there). */
static void rk_window_open(const struct ctl *c, struct flow *f)
{
	const struct jrack *rk = c->js[f->job].rk;
	unsigned own = (unsigned)c->c->jobs[f->job].reduces[f->reduce].host;
	unsigned k = lz_class(&c->wl->jobs[f->job], f->reduce);

	if (!rk->done_host)
		return;
	f->lz_rk.rack_below = rk->below_rack[k][f->src_rack];
	f->lz_rk.own_done = rk->done_host[own];
	f->lz_rk.own_below = rk->below_host[k][own];
}

/* A waiting rack fetch's outputs since it went lazy (but its reduce's own
 * host's): their bytes, added to it (add) as ctl_offer_map_output would
 * have, one by one in their order, or only counted. Of an even split
 * whose every output to the reduce has bytes, counted: the window's
 * length less the own host's new outputs, their bytes from those below
 * the reduce's remainder, and a host is in it iff its last output is
 * (the rack's hosts looked at until two are: several); read afresh and
 * compared under HYDE_SIM_VERIFY. */
static uint64_t rack_window(struct ctl *c, struct flow *f, bool add)
{
	const struct jrack *rk = c->js[f->job].rk;
	const struct rstate *rs = &c->js[f->job].red[f->reduce];
	unsigned own = (unsigned)c->c->jobs[f->job].reduces[f->reduce].host, hpr = c->t->hosts;
	unsigned k = lz_class(&c->wl->jobs[f->job], f->reduce), rack = f->src_rack, h;
	uint32_t n, host, vn, vhost;
	uint64_t sum, vsum;

	if (!rk->done_host || !rs->part_base) {
		sum = rack_window_read(c, f, &n, &host);
	} else {
		uint32_t below = rk->below_rack[k][rack] - f->lz_rk.rack_below;

		n = rk->n_seq[rack] - f->lz_from;
		if (c->rack_of[own] == rack) {
			n -= rk->done_host[own] - f->lz_rk.own_done;
			below -= rk->below_host[k][own] - f->lz_rk.own_below;
		}
		sum = (uint64_t)n * rs->part_base + below;
		host = RK_NO_HOST;
		for (h = rack * hpr; n && host != UINT32_MAX && h < (rack + 1) * hpr; h++)
			if (h != own && rk->done_host[h] && rk->last_at[h] >= f->lz_from)
				host = jobbatch_hosts(host, h);
		if (c->cx.verify) {
			vsum = rack_window_read(c, f, &vn, &vhost);
			if (vsum != sum || vn != n || vhost != host)
				fatalx("jobbatch: job %u reduce %u: rack %u's window from %u counted %u outputs, %" PRIu64
				       " bytes, host %u; read %u, %" PRIu64 ", host %u",
				       f->job, f->reduce, rack, f->lz_from, n, sum, host, vn, vsum, vhost);
		}
	}
	if (add && n)
		ctl_flow_add_bulk(c, f, n, sum, host, f->path == PATH_OCS);
	return sum;
}

/* The bytes a waiting batched fetch holds so far (for a run's files when
 * it stops before the fetch starts). */
uint64_t ctl_flow_bytes_now(const struct ctl *c, const struct flow *f)
{
	const struct jlazy *lz = c->js[f->job].lz;

	if (f->lz_open && c->js[f->job].rk) /* counted only: nothing changes */
		return f->bytes + rack_window((struct ctl *)c, (struct flow *)f, false);
	if (!f->lz_open || !lz)
		return f->bytes;
	return lz_range(lz, f->src_host, lz_class(&c->wl->jobs[f->job], f->reduce), f->lz_from,
			lz->n_out[f->src_host]) - f->lz_adj_bytes;
}

/* A batched fetch starts: its bytes are final now; count them where
 * eager batching (flow_add_map) counts them map by map. */
void jobbatch_settle(struct ctl *c, struct flow *f)
{
	struct jstate *j = &c->js[f->job];
	struct jlazy *lz = j->lz;
	const struct wl_job *w = &c->wl->jobs[f->job];

	if (f->lz_open) {
		uint32_t end = lz->n_out[f->src_host];

		f->bytes = lz_range(lz, f->src_host, lz_class(w, f->reduce), f->lz_from, end) -
			   f->lz_adj_bytes;
		f->n_maps = end - f->lz_from - f->lz_adj_maps;
		f->lz_open = false;
		if (f->path == PATH_OCS) {
			(*lz_ocs_wait(c, lz, f))--;
			ctl_pair_wait(c, &j->pairs[f->pair], f->src_host, -(int64_t)f->bytes);
		}
	}
	j->bytes += f->bytes;
	if (f->src_rack != f->dst_rack)
		j->cross_rack_bytes += f->bytes;
	if (f->path == PATH_OCS) {
		j->pairs[f->pair].bytes += f->bytes;
		j->ocs_bytes += f->bytes;
	}
	/* the reduce's next output from this host makes a new fetch */
	if (j->red[f->reduce].opened && !j->red[f->reduce].computing)
		jobbatch_need(lz, f->src_host, f->reduce, true);
}

/* Batched: map m (on host h) makes a new fetch for reduce r, which has
 * none waiting on h; as offer_map_output's new fetch. If it must wait, it
 * holds h's outputs from `from` on, less the adj_* (see reduce_open). */
static struct flow *lz_new_flow(struct ctl *c, uint32_t job, uint32_t r, uint32_t m,
				unsigned h, uint32_t from, uint32_t adj_maps, uint64_t adj_bytes)
{
	struct hyde_job *jb = &c->c->jobs[job];
	struct jstate *j = &c->js[job];
	struct jlazy *lz = j->lz;
	unsigned k = lz_class(jb->wl, r);
	struct flow *f = ctl_flow_new(c, HYDE_FLOW_SHUFFLE, job, r, h,
				       (unsigned)jb->reduces[r].host);

	j->red[r].flows_left++;
	f->nth = m;
	f->bytes = lz->base[k] + (m < lz->rem[k]);
	f->n_maps = 1;
	jobbatch_need(lz, h, r, false);
	ctl_flow_enqueue(c, j, job, f);
	if (f->state != FLOW_ACTIVE) { /* it waits: it takes h's next outputs */
		f->lz_open = true;
		f->lz_from = from;
		f->lz_adj_maps = adj_maps;
		f->lz_adj_bytes = adj_bytes;
		if (f->path == PATH_OCS) {
			(*lz_ocs_wait(c, lz, f))++;
			ctl_pair_wait(c, &j->pairs[f->pair], h,
				      (int64_t)(lz_range(lz, h, k, from, lz->n_out[h]) - adj_bytes));
		}
	}
	return f;
}

/* Batched: map m of the job is done (its output is on its host). */
void jobbatch_map_done(struct ctl *c, uint32_t job, uint32_t m)
{
	struct hyde_job *jb = &c->c->jobs[job];
	struct jstate *j = &c->js[job];
	struct jlazy *lz = j->lz;
	unsigned h = (unsigned)jb->maps[m].host, R = c->t->racks, d, k;
	uint32_t n = lz->n_out[h], wd;

	if (lz->cap[h] < n + 2) {
		lz->cap[h] = lz->cap[h] ? 2 * lz->cap[h] : 16;
		for (k = 0; k < 2; k++)
			lz->below[k][h] = xrealloc(lz->below[k][h], lz->cap[h] * sizeof(uint32_t));
		if (!n)
			lz->below[0][h][0] = lz->below[1][h][0] = 0;
	}
	for (k = 0; k < 2; k++)
		lz->below[k][h][n + 1] = lz->below[k][h][n] + (m < lz->rem[k]);
	lz->n_out[h] = n + 1;
	if (!j->shuffle_open)
		return;
	/* the waiting OCS fetches from h take it: their pairs' demand grows */
	if (lz->ocs_wait)
		for (d = 0; d < R; d++) {
			const uint32_t *cnt = &lz->ocs_wait[((size_t)h * R + d) * 2];

			if (cnt[0] || cnt[1])
				ctl_pair_wait(c, ctl_pair(c, job, topo_host_rack(c->t, h), d), h,
					      (int64_t)(cnt[0] * (lz->base[0] + (m < lz->rem[0])) +
							cnt[1] * (lz->base[1] + (m < lz->rem[1]))));
		}
	/* the reduces with no fetch waiting on h get one, in index order */
	for (wd = 0; wd < lz->words; wd++) {
		uint64_t bits = lz->need[(size_t)h * lz->words + wd];

		while (bits) {
			uint32_t r = wd * 64 + (uint32_t)__builtin_ctzll(bits);

			bits &= bits - 1;
			lz_new_flow(c, job, r, m, h, n, 0, 0);
		}
	}
}

/* Reduce r of a batched job may now receive every finished map's output
 * (ctl.c's reduce_open). As reduce_open's loop over the maps, batched: in
 * map order, a host's outputs go to fetches that start at once (one map
 * each) until one must wait; that one holds all the host's other outputs. */
void jobbatch_reduce_open(struct ctl *c, uint32_t job, uint32_t r)
{
	struct hyde_job *jb = &c->c->jobs[job];
	struct jstate *j = &c->js[job];
	struct jlazy *lz = j->lz;
	unsigned H = topo_n_hosts(c->t), h, k = lz_class(jb->wl, r);
	uint32_t m;

	for (h = 0; h < H; h++)
		jobbatch_need(lz, h, r, true);
	memset(lz->single_n, 0, H * sizeof(*lz->single_n));
	memset(lz->single_bytes, 0, H * sizeof(*lz->single_bytes));
	for (m = 0; m < jb->wl->maps; m++) {
		struct flow *f;

		if (jb->maps[m].state != HYDE_TASK_DONE)
			continue;
		h = (unsigned)jb->maps[m].host;
		if (!(lz->need[(size_t)h * lz->words + r / 64] & (1ULL << (r % 64))))
			continue; /* a waiting fetch from h holds it */
		f = lz_new_flow(c, job, r, m, h, 0, lz->single_n[h], lz->single_bytes[h]);
		if (f->state == FLOW_ACTIVE) {
			lz->single_n[h]++;
			lz->single_bytes[h] += lz->base[k] + (m < lz->rem[k]);
		}
	}
}

/* ---- rack batching (struct jrack, -B fetch=rack) ---- */

static void rk_bit(struct jrack *rk, unsigned rack, uint32_t r, bool on)
{
	uint64_t *w = &rk->eager[(size_t)rack * rk->words + r / 64];

	if (on)
		*w |= 1ULL << (r % 64);
	else
		*w &= ~(1ULL << (r % 64));
}

/* The remainders in p->lz_rem up to v (upper: v included). */
static uint32_t rk_rem_below(const struct ocs_pair *p, uint32_t v, bool upper)
{
	uint32_t lo = 0, hi = p->lz_n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (p->lz_rem[mid] < v || (upper && p->lz_rem[mid] == v))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A circuit fetch starts (on) or stops (off) holding its rack's next
 * outputs: its pair's sums, which add each output's bytes to the pair's
 * waiting bytes as it comes (the planner reads them), for all its holders
 * at once. */
static void rk_pair_hold(struct ctl *c, struct jstate *j, const struct flow *f, bool on)
{
	struct jrack *rk = j->rk;
	struct ocs_pair *p = &j->pairs[f->pair];
	const struct rstate *rs = &j->red[f->reduce];
	uint32_t k = rk_rem_below(p, rs->part_rem, false), rack = f->src_rack;

	if (on) {
		if (p->lz_n == p->lz_cap) {
			p->lz_cap = p->lz_cap ? 2 * p->lz_cap : 8;
			p->lz_rem = xrealloc(p->lz_rem, p->lz_cap * sizeof(uint32_t));
		}
		memmove(&p->lz_rem[k + 1], &p->lz_rem[k], (p->lz_n - k) * sizeof(uint32_t));
		p->lz_rem[k] = rs->part_rem;
		p->lz_base += rs->part_base;
		if (p->lz_n++)
			return;
		if (!rk->lzp) {
			rk->lzp = xcalloc(c->t->racks, sizeof(uint32_t *));
			rk->n_lzp = xcalloc(c->t->racks, sizeof(uint32_t));
			rk->cap_lzp = xcalloc(c->t->racks, sizeof(uint32_t));
		}
		if (rk->n_lzp[rack] == rk->cap_lzp[rack]) {
			rk->cap_lzp[rack] = rk->cap_lzp[rack] ? 2 * rk->cap_lzp[rack] : 4;
			rk->lzp[rack] = xrealloc(rk->lzp[rack], rk->cap_lzp[rack] * sizeof(uint32_t));
		}
		p->lz_pos = rk->n_lzp[rack];
		rk->lzp[rack][rk->n_lzp[rack]++] = f->pair;
		return;
	}
	memmove(&p->lz_rem[k], &p->lz_rem[k + 1], (p->lz_n - k - 1) * sizeof(uint32_t));
	p->lz_base -= rs->part_base;
	if (--p->lz_n)
		return;
	/* the pair holds no more: out of the rack's list (the last fills
	 * its place) */
	k = rk->lzp[rack][--rk->n_lzp[rack]];
	rk->lzp[rack][p->lz_pos] = k;
	j->pairs[k].lz_pos = p->lz_pos;
}

/* Map m's output on `rack` is done: the pairs' circuit fetches that hold
 * the rack's outputs take it, so their pairs' waiting bytes grow by its
 * share of each holder's partition. */
static void rk_pairs_take(struct ctl *c, struct jstate *j, unsigned rack, uint32_t m)
{
	struct jrack *rk = j->rk;
	uint32_t i;

	for (i = 0; rk->lzp && i < rk->n_lzp[rack]; i++) {
		struct ocs_pair *p = &j->pairs[rk->lzp[rack][i]];
		uint64_t add = p->lz_base + (p->lz_n - rk_rem_below(p, m, true));

		if (add)
			ctl_pair_wait(c, p, rack * c->t->hosts, (int64_t)add);
	}
}

/* After an offer to reduce r of an output of `rack`: a fetch from the
 * rack that waits for a copy slot or for its circuit, not yet lazy,
 * becomes lazy (it holds the rack's next outputs) and r leaves the rack's
 * eager set. */
static void rk_after_offer(struct ctl *c, struct jstate *j, uint32_t r, unsigned rack)
{
	struct flow **o = ctl_open_at(c, (uint32_t)(j - c->js), r, topo_n_hosts(c->t) + rack, false);
	struct flow *f = o ? *o : NULL;

	if (f && !f->lz_open &&
	    ((f->state == FLOW_WAIT_SLOT && f->path != PATH_OCS) || f->state == FLOW_WAIT_CIRCUIT)) {
		f->lz_open = true;
		f->lz_from = j->rk->n_seq[rack];
		rk_window_open(c, f);
		rk_bit(j->rk, rack, r, false);
		if (f->path == PATH_OCS)
			rk_pair_hold(c, j, f, true);
	} else {
		rk_bit(j->rk, rack, r, true);
	}
}

/* The first reduce above `from` in the rack's eager set, or UINT32_MAX. */
static uint32_t rk_next_eager(const struct jrack *rk, unsigned rack, uint32_t from, uint32_t n)
{
	const uint64_t *w = &rk->eager[(size_t)rack * rk->words];
	uint32_t wd = from / 64;
	uint64_t bits;

	if (from >= n)
		return UINT32_MAX;
	bits = w[wd] & (~0ULL << (from % 64));
	for (;;) {
		if (bits)
			return wd * 64 + (uint32_t)__builtin_ctzll(bits);
		if (++wd >= rk->words)
			return UINT32_MAX;
		bits = w[wd];
	}
}

void jobbatch_rack_map_done(struct ctl *c, uint32_t job, uint32_t m)
{
	struct hyde_job *jb = &c->c->jobs[job];
	struct jstate *j = &c->js[job];
	struct jrack *rk = j->rk;
	unsigned h = (unsigned)jb->maps[m].host, rack = topo_host_rack(c->t, h);
	uint32_t n = rk->n_seq[rack], p, r, e;

	if (rk->cap_seq[rack] < n + 1) {
		rk->cap_seq[rack] = rk->cap_seq[rack] ? 2 * rk->cap_seq[rack] : 16;
		rk->seq[rack] = xrealloc(rk->seq[rack], 2 * (size_t)rk->cap_seq[rack] * sizeof(uint32_t));
	}
	rk->seq[rack][2 * n] = m;
	rk->seq[rack][2 * n + 1] = h;
	rk->n_seq[rack] = n + 1;
	if (rk->done_host) {
		if (!rk->rbits[rack])
			rk->rbits[rack] = xcalloc(rk->mwords, sizeof(uint64_t));
		rk->rbits[rack][m / 64] |= 1ULL << (m % 64);
		rk->done_host[h]++;
		rk->last_at[h] = n;
		for (e = 0; e < 2; e++)
			if (m < rk->rem[e]) {
				rk->below_host[e][h]++;
				rk->below_rack[e][rack]++;
			}
	}
	if (!j->shuffle_open)
		return;
	/* before the offers: a fetch that they make wait holds only what
	 * comes after (no circuit is released here to a pair with holders:
	 * a pair's fetches wait only while its circuit may not send) */
	rk_pairs_take(c, j, rack, m);
	/* in index order, as ctl.c's loop over the fetching reduces: those
	 * with no lazy fetch from the rack, and those on h (theirs is an
	 * own-host output, whatever waits from the rack) */
	p = rk->head[h];
	e = rk_next_eager(rk, rack, 0, jb->wl->reduces);
	while (p != UINT32_MAX || e != UINT32_MAX) {
		r = p < e ? p : e;
		if (r == p)
			p = rk->next[p];
		ctl_offer_map_output(c, job, m, r);
		if ((unsigned)jb->reduces[r].host != h)
			rk_after_offer(c, j, r, rack);
		e = rk_next_eager(rk, rack, r + 1, jb->wl->reduces);
	}
}

void jobbatch_rack_open(struct ctl *c, uint32_t job, uint32_t r)
{
	struct jstate *j = &c->js[job];
	struct jrack *rk = j->rk;
	unsigned h = (unsigned)c->c->jobs[job].reduces[r].host, k;
	uint32_t *pp = &rk->head[h];

	while (*pp != UINT32_MAX && *pp < r)
		pp = &rk->next[*pp];
	rk->next[r] = *pp;
	*pp = r;
	for (k = 0; k < c->t->racks; k++)
		rk_after_offer(c, j, r, k);
}

void jobbatch_rack_close(struct ctl *c, uint32_t job, uint32_t r)
{
	struct jrack *rk = c->js[job].rk;
	uint32_t *pp = &rk->head[c->c->jobs[job].reduces[r].host];
	unsigned k;

	while (*pp != UINT32_MAX && *pp != r)
		pp = &rk->next[*pp];
	if (*pp == r)
		*pp = rk->next[r];
	for (k = 0; k < c->t->racks; k++)
		rk_bit(rk, k, r, false);
}

/* A lazy rack fetch takes its window's outputs and is lazy no more. */
static void rk_take(struct ctl *c, struct flow *f)
{
	rack_window(c, f, true);
	f->lz_open = false;
	if (f->path == PATH_OCS)
		rk_pair_hold(c, &c->js[f->job], f, false);
}

void jobbatch_rack_settle(struct ctl *c, struct flow *f)
{
	struct jstate *j = &c->js[f->job];

	rk_take(c, f);
	/* the rack's next output makes a new fetch */
	if (j->red[f->reduce].opened && !j->red[f->reduce].computing)
		rk_bit(j->rk, f->src_rack, f->reduce, true);
}

/* The run ends: every lazy rack fetch still waiting takes its outputs, so
 * that its flow's and its job's bytes are what offers one by one made. */
void jobbatch_rack_flush(struct ctl *c)
{
	unsigned H = topo_n_hosts(c->t), k;
	size_t i;
	uint32_t r;

	for (i = 0; i < c->wl->n_jobs; i++) {
		struct jstate *j = &c->js[i];

		if (!j->rk || !j->red)
			continue;
		for (r = 0; r < c->wl->jobs[i].reduces; r++)
			for (k = 0; j->open_rack && k < c->t->racks; k++) {
				struct flow *f = *ctl_open_at(c, (uint32_t)i, r, H + k, false);

				if (f && f->lz_open)
					rk_take(c, f);
			}
	}
}

/* HYDE_SIM_VERIFY: what jobbatch_rack_offer_done counted of a settled
 * slot's outputs past its scan (which stopped before map `from`), taking
 * it from (n, bytes, host) to the slot's acc_*, against those outputs
 * read: how many, their bytes, and whether they and what the slot took
 * in the scan are on one host or several. */
static void rk_verify_tail(struct ctl *c, uint32_t job, uint32_t r, uint32_t from, uint32_t slot,
			   uint32_t n, uint64_t bytes, uint32_t host)
{
	const struct hyde_job *jb = &c->c->jobs[job];
	const struct jrack *rk = c->js[job].rk;
	const struct rstate *rs = &c->js[job].red[r];
	unsigned H = topo_n_hosts(c->t), own = (unsigned)jb->reduces[r].host, h;
	uint32_t m;

	for (m = from; m < jb->wl->maps; m++) {
		h = (unsigned)jb->maps[m].host;
		if (jb->maps[m].state != HYDE_TASK_DONE || (h == own ? h : H + c->rack_of[h]) != slot)
			continue;
		n++;
		bytes += rs->part_base + (m < rs->part_rem);
		host = jobbatch_hosts(host, h);
	}
	if (n != rk->acc_n[slot] || bytes != rk->acc_bytes[slot] || host != rk->acc_host[slot])
		fatalx("jobbatch: job %u reduce %u slot %u: %u outputs of %llu B on host %u, counted %u "
		       "of %llu B on %u",
		       job, r, slot, n, (unsigned long long)bytes, host, rk->acc_n[slot],
		       (unsigned long long)rk->acc_bytes[slot], rk->acc_host[slot]);
}

/* The first finished map from `from` on among rack's whose host is own
 * (mine 1), is not (0) or either (-1); UINT32_MAX if none. */
static uint32_t rk_first(const struct jrack *rk, const struct hyde_job *jb, unsigned rack,
			 uint32_t from, int mine, unsigned own)
{
	const uint64_t *b = rk->rbits[rack];
	uint32_t wd = from / 64;
	uint64_t bits;

	if (!b || wd >= rk->mwords)
		return UINT32_MAX;
	for (bits = b[wd] & (~0ULL << (from % 64));;) {
		while (bits) {
			uint32_t m = wd * 64 + (uint32_t)__builtin_ctzll(bits);

			if (mine < 0 || ((unsigned)jb->maps[m].host == own) == (mine > 0))
				return m;
			bits &= bits - 1;
		}
		if (++wd >= rk->mwords)
			return UINT32_MAX;
		bits = b[wd];
	}
}

/* The slot's next output after map m, into the heap of n (by map). */
static void rk_push(struct jrack *rk, size_t *n, uint32_t m, uint32_t slot)
{
	size_t i = (*n)++;

	while (i > 0 && rk->nx[(i - 1) / 2].m > m) {
		rk->nx[i] = rk->nx[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	rk->nx[i] = (struct rk_next){ m, slot };
}

static struct rk_next rk_pop(struct jrack *rk, size_t *n)
{
	struct rk_next top = rk->nx[0], last = rk->nx[--*n];
	size_t i = 0;

	for (;;) {
		size_t l = 2 * i + 1;

		if (l >= *n)
			break;
		if (l + 1 < *n && rk->nx[l + 1].m < rk->nx[l].m)
			l++;
		if (rk->nx[l].m >= last.m)
			break;
		rk->nx[i] = rk->nx[l];
		i = l;
	}
	if (*n)
		rk->nx[i] = last;
	return top;
}

/* The slot's outputs from map `from` on: which rack's bitset, and which
 * of its hosts (the reduce's own host is a slot of its own). */
static uint32_t rk_slot_first(const struct jrack *rk, const struct hyde_job *jb, size_t slot,
			      uint32_t from, unsigned own, unsigned own_rack, unsigned H)
{
	uint32_t m = slot < H ? rk_first(rk, jb, own_rack, from, 1, own)
			      : rk_first(rk, jb, (unsigned)(slot - H), from,
					 slot - H == own_rack ? 0 : -1, own);

	/* (the caller knows the slot has one more: its count says so) */
	if (m == UINT32_MAX)
		fatalx("jobbatch: job %u: slot %zu has no finished map from %u on, its count has",
		       jb->idx, slot, from);
	return m;
}

/* Map m's output (on host h, of slot `slot`) at reduce r's opening: offered
 * (true) while the slot's fetch does not wait, else counted, the slot
 * settled (listed in acc_slots at its first). */
static bool rk_take_output(struct ctl *c, uint32_t job, uint32_t r, uint32_t m, unsigned h,
			   size_t slot, uint64_t bytes, uint32_t *n_slots)
{
	struct jrack *rk = c->js[job].rk;

	if (!rk->acc_n[slot]) {
		struct flow **o = ctl_open_at(c, job, r, slot, false);
		struct flow *f = o ? *o : NULL;

		if (!f || (f->state != FLOW_WAIT_SLOT && f->state != FLOW_WAIT_CIRCUIT)) {
			ctl_offer_map_output(c, job, m, r);
			return true;
		}
		rk->acc_slots[(*n_slots)++] = (uint32_t)slot;
		rk->acc_host[slot] = RK_NO_HOST;
	}
	rk->acc_n[slot]++;
	rk->acc_host[slot] = jobbatch_hosts(rk->acc_host[slot], h);
	rk->acc_bytes[slot] += bytes;
	return false;
}

void jobbatch_rack_offer_done(struct ctl *c, uint32_t job, uint32_t r)
{
	struct hyde_job *jb = &c->c->jobs[job];
	const struct wl_job *w = jb->wl;
	struct jstate *j = &c->js[job];
	struct jrack *rk = j->rk;
	struct rstate *rs = &j->red[r];
	unsigned H = topo_n_hosts(c->t), R = c->t->racks, own = (unsigned)jb->reduces[r].host;
	unsigned hpr = c->t->hosts, own_rack = c->rack_of[own], cls = r < w->shuffle % w->reduces;
	/* fast: an even split whose every output to r has bytes, where a
	 * slot's outputs left past the scan are counted, not read */
	bool fast = rk->done_host && rs->part_base > 0;
	uint32_t m, n_slots = 0, k, *total = NULL, *below = NULL;

	if (!rk->acc_bytes) {
		rk->acc_bytes = xcalloc(H + R, sizeof(uint64_t));
		rk->acc_n = xcalloc(H + R, sizeof(uint32_t));
		rk->acc_host = xcalloc(H + R, sizeof(uint32_t));
		rk->acc_slots = xcalloc(H + R, sizeof(uint32_t));
		rk->total = xcalloc(H + R, sizeof(uint32_t));
		rk->below = xcalloc(H + R, sizeof(uint32_t));
		rk->seen_n = xcalloc(H + R, sizeof(uint32_t));
		rk->seen_below = xcalloc(H + R, sizeof(uint32_t));
		rk->seen_host = xcalloc(H, sizeof(uint32_t));
		rk->from = xcalloc(H + R, sizeof(uint32_t));
		rk->nx = xcalloc(R + 2, sizeof(*rk->nx));
	}
	if (fast) {
		/* each slot's finished outputs and those below r's remainder
		 * (only the own host's host slot is used); open: the slots
		 * with outputs not read yet whose fetch is not settled */
		total = rk->total;
		below = rk->below;
		memset(rk->seen_n, 0, (H + R) * sizeof(uint32_t));
		memset(rk->seen_below, 0, (H + R) * sizeof(uint32_t));
		memset(rk->seen_host, 0, H * sizeof(uint32_t));
		total[own] = rk->done_host[own];
		below[own] = rk->below_host[cls][own];
		for (k = 0; k < R; k++) {
			total[H + k] = j->maps_done_rack[k] - (k == own_rack ? rk->done_host[own] : 0);
			below[H + k] = rk->below_rack[cls][k] - (k == own_rack ? rk->below_host[cls][own] : 0);
		}
	}
	/* in map order, as ctl.c's loop: an output that a fetch waiting for
	 * a copy or a circuit takes is counted, the others offered. No copy
	 * frees up in this loop, so a fetch that waits for one here waits to
	 * its end; a circuit is released here only to a new fetch on its
	 * pair, which is made only when the reduce has none waiting on it
	 * (one pair per slot), so one that waits for a circuit does too: a
	 * slot that counted an output (settled) counts the rest (its fetch is
	 * not read again, a cache miss an output). Fast, each slot's outputs
	 * are read from its rack's bitset, merged in map order, up to the one
	 * it settles at; the rest are counted (the tail below). Else every
	 * map is read. */
	if (fast) {
		/* the slots' outputs merged in map order (the scan's order),
		 * each slot's up to the one its fetch settles at, or its
		 * last: what the scan below read of them before it stopped,
		 * less a settled slot's outputs past that, which the tail
		 * counts (the same sums and hosts) */
		size_t nh = 0;

		for (k = 0; k <= R; k++) {
			size_t slot = k < R ? H + k : own;

			rk->from[slot] = 0;
			if (total[slot])
				rk_push(rk, &nh, rk_slot_first(rk, jb, slot, 0, own, own_rack, H),
					(uint32_t)slot);
		}
		while (nh) {
			struct rk_next e = rk_pop(rk, &nh);
			unsigned h = (unsigned)jb->maps[e.m].host;
			uint64_t bytes = rs->part_base + (e.m < rs->part_rem);
			size_t slot = e.slot;

			rk->seen_n[slot]++;
			rk->seen_below[slot] += e.m < rs->part_rem;
			rk->seen_host[h]++;
			rk->from[slot] = e.m + 1;
			if (rk_take_output(c, job, r, e.m, h, slot, bytes, &n_slots) &&
			    rk->seen_n[slot] < total[slot])
				rk_push(rk, &nh, rk_slot_first(rk, jb, slot, e.m + 1, own, own_rack, H),
					(uint32_t)slot);
		}
	}
	for (m = 0; m < w->maps && !fast; m++) {
		unsigned h = (unsigned)jb->maps[m].host;
		size_t slot;
		uint64_t bytes = rs->part_base + (m < rs->part_rem);

		if (jb->maps[m].state != HYDE_TASK_DONE)
			continue;
		slot = h == own ? h : H + c->rack_of[h];
		if (!bytes)
			ctl_offer_map_output(c, job, m, r);
		else
			rk_take_output(c, job, r, m, h, slot, bytes, &n_slots);
	}
	for (k = 0; k < n_slots; k++) {
		uint32_t slot = rk->acc_slots[k], left = fast ? total[slot] - rk->seen_n[slot] : 0, h;
		uint32_t pre_n = rk->acc_n[slot], pre_host = rk->acc_host[slot];
		uint64_t pre_bytes = rk->acc_bytes[slot];

		if (left) { /* the settled slot's outputs past the scan */
			rk->acc_n[slot] += left;
			rk->acc_bytes[slot] += (uint64_t)left * rs->part_base + below[slot] - rk->seen_below[slot];
			/* (the reduce's own host's slot has its outputs on one
			 * host, which it took in the scan) */
			if (slot >= H)
				for (h = (slot - H) * hpr; h < (slot - H + 1) * hpr; h++)
					if (h != own && rk->done_host[h] > rk->seen_host[h])
						rk->acc_host[slot] = jobbatch_hosts(rk->acc_host[slot], h);
		}
		if (fast && c->cx.verify)
			rk_verify_tail(c, job, r, rk->from[slot], slot, pre_n, pre_bytes, pre_host);
		ctl_flow_add_bulk(c, *ctl_open_at(c, job, r, slot, false), rk->acc_n[slot], rk->acc_bytes[slot], rk->acc_host[slot],
				  false);
		rk->acc_n[slot] = 0;
		rk->acc_bytes[slot] = 0;
	}
}
