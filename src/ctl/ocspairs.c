/* The OCS pair table: it owns each job's records of OCS demand per rack
 * pair (struct ocs_pair in struct jstate's pairs), the hash that finds a
 * pair's record (ctl.ptab_*), the pairs with demand (ctl.live), and the
 * Co-scheduler's elephant test that sends a shuffle flow to the OCS. It
 * may call the core (rng, topology, workload) and circuits.c
 * (cexec_demand_changed); it starts no flow (ctl.c's ctl_release_pair
 * does, with the pair's waiting flows). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "core/log.h"
#include "core/rng.h"
#include "ctl/ctl_int.h"

static uint64_t ptab_key_of(const struct ctl *c, uint32_t job, uint32_t src, uint32_t dst)
{
	return ((uint64_t)job * c->t->racks + src) * c->t->racks + dst + 1;
}

static size_t ptab_home(const struct ctl *c, uint64_t key)
{
	uint64_t h = key;

	return (size_t)splitmix64(&h) & c->ptab_mask;
}

static size_t ptab_slot(const struct ctl *c, uint64_t key)
{
	size_t i = ptab_home(c, key);

	while (c->ptab_key[i] && c->ptab_key[i] != key)
		i = (i + 1) & c->ptab_mask;
	return i;
}

static void ptab_grow(struct ctl *c)
{
	uint64_t *okey = c->ptab_key;
	struct pair_ref *oval = c->ptab_val;
	size_t on = c->ptab_key ? c->ptab_mask + 1 : 0, n = on ? 2 * on : 1024, i;

	c->ptab_key = xcalloc(n, sizeof(*c->ptab_key));
	c->ptab_val = xcalloc(n, sizeof(*c->ptab_val));
	c->ptab_mask = n - 1;
	for (i = 0; i < on; i++)
		if (okey[i]) {
			size_t k = ptab_slot(c, okey[i]);

			c->ptab_key[k] = okey[i];
			c->ptab_val[k] = oval[i];
		}
	free(okey);
	free(oval);
}

/* The key out of the hash (it is there). Linear probing without
 * tombstones: the keys after it in its run move back into the hole
 * unless their home is after the hole (cyclically), so every key stays
 * reachable from its home. */
static void ptab_del(struct ctl *c, uint64_t key)
{
	size_t i = ptab_slot(c, key), j = i, h;

	for (;;) {
		j = (j + 1) & c->ptab_mask;
		if (!c->ptab_key[j])
			break;
		h = ptab_home(c, c->ptab_key[j]);
		/* stays if its home lies in (i, j] */
		if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		c->ptab_key[i] = c->ptab_key[j];
		c->ptab_val[i] = c->ptab_val[j];
		i = j;
	}
	c->ptab_key[i] = 0;
	c->ptab_n--;
}

/* The pair's record, made on first use. Found through a hash: a job can
 * have thousands of pairs and this is asked for every OCS flow. */
struct ocs_pair *ctl_pair(struct ctl *c, uint32_t job, uint32_t src, uint32_t dst)
{
	struct jstate *j = &c->js[job];
	uint64_t key = ptab_key_of(c, job, src, dst);
	size_t k;

	if (2 * (c->ptab_n + 1) > (c->ptab_key ? c->ptab_mask + 1 : 0))
		ptab_grow(c);
	k = ptab_slot(c, key);
	if (c->ptab_key[k])
		return &j->pairs[c->ptab_val[k].idx];
	c->ptab_key[k] = key;
	c->ptab_val[k] = (struct pair_ref){ job, (uint32_t)j->n_pairs };
	c->ptab_n++;
	xgrow((void **)&j->pairs, &j->cap_pairs, j->n_pairs + 1, sizeof(*j->pairs));
	j->pairs[j->n_pairs] = (struct ocs_pair){ .job = job, .src = src, .dst = dst,
						   .live = SIZE_MAX };
	return &j->pairs[j->n_pairs++];
}

/* The pair's bytes not started grow (or shrink) by d on source host h;
 * the most on one host follows, or is marked stale when the busiest host's
 * shrank (the planner looks again then: a plan need not read every pair's
 * hosts, which cost it a cache miss a pair on the Coflow-Benchmark). */
void ctl_pair_wait(struct ctl *c, struct ocs_pair *p, unsigned h, int64_t d)
{
	uint64_t *w, old;

	if (!p->src_wait)
		p->src_wait = xcalloc(c->t->hosts, sizeof(*p->src_wait));
	w = &p->src_wait[h % c->t->hosts];
	old = *w;
	ocspairs_touch(c, p);
	*w += (uint64_t)d;
	p->wait_bytes += (uint64_t)d;
	if (*w >= p->src_wait_max || c->t->hosts == 1)
		p->src_wait_max = *w;
	else if (old == p->src_wait_max)
		p->src_wait_stale = true;
}

/* The most bytes not started on one source host of the pair. */
uint64_t ctl_pair_wait_max(const struct ctl *c, struct ocs_pair *p)
{
	unsigned h;

	if (p->src_wait_stale) {
		p->src_wait_max = 0;
		for (h = 0; h < c->t->hosts; h++)
			if (p->src_wait[h] > p->src_wait_max)
				p->src_wait_max = p->src_wait[h];
		p->src_wait_stale = false;
	}
	return p->src_wait_max;
}

/* The pair has demand: into its job's list (read at the next plan), and
 * the job into the planner's. */
static void live_add(struct ctl *c, struct ocs_pair *p)
{
	struct jstate *j = &c->js[p->job];

	xgrow((void **)&j->lv, &j->cap_lv, j->n_lv + 1, sizeof(*j->lv));
	p->live = j->n_lv;
	j->lv[j->n_lv++] = (struct live_pair){ .idx = (uint32_t)(p - j->pairs), .src = p->src,
					       .dst = p->dst, .fresh = true };
	c->n_live++;
	if (!j->lv_listed) {
		j->lv_listed = true;
		xgrow((void **)&c->live_jobs, &c->cap_live_jobs, c->n_live_jobs + 1,
		      sizeof(*c->live_jobs));
		c->live_jobs[c->n_live_jobs++] = p->job;
	}
}

/* It has none left: out of its job's list, which keeps its order (the
 * circuit scheduler finds what changed since its last plan faster so): a
 * hole, the list closed up once half of it is holes. */
static void live_del(struct ctl *c, struct ocs_pair *p)
{
	struct jstate *j = &c->js[p->job];
	uint32_t i, k;

	j->lv[p->live].idx = LIVE_GONE;
	j->n_gone++;
	p->live = SIZE_MAX;
	c->n_live--;
	if (j->n_gone == j->n_lv) {
		j->n_lv = j->n_gone = 0;
	} else if (2 * j->n_gone > j->n_lv) {
		for (i = 0, k = 0; i < j->n_lv; i++)
			if (j->lv[i].idx != LIVE_GONE) {
				j->lv[k] = j->lv[i];
				j->pairs[j->lv[k].idx].live = k;
				k++;
			}
		j->n_lv = k;
		j->n_gone = 0;
	}
}

/* A flow of the pair appears (+1) or ends (-1): the pair's host counts and
 * its place among the pairs with demand. The circuits are planned again
 * when a pair's demand appears or its coflow's OCS demand ends, not when
 * demand grows or shrinks: the plans' own re-plan times (Sunflow's T_plan,
 * the end of a reservation) catch demand that outlives its reservation. */
void ocspairs_count(struct ctl *c, struct ocs_pair *p, const struct flow *f, int d)
{
	unsigned H = c->t->hosts;
	uint32_t *s, *t;

	if (!p->per_host)
		p->per_host = xcalloc(2 * (size_t)H, sizeof(uint32_t));
	s = &p->per_host[f->src_host % H];
	t = &p->per_host[H + f->dst_host % H];
	ocspairs_touch(c, p);
	if (d > 0) {
		p->nsrc += !(*s)++;
		p->ndst += !(*t)++;
		c->js[p->job].ocs_flows_left++;
		if (!p->flows_left++) {
			cexec_demand_changed(c);
			live_add(c, p);
		}
	} else {
		p->nsrc -= !--(*s);
		p->ndst -= !--(*t);
		if (!--p->flows_left)
			live_del(c, p);
		/* Sunflow re-plans when a coflow finishes, not a pair: a
		 * coflow may have thousands (the Coflow-Benchmark) */
		if (!--c->js[p->job].ocs_flows_left)
			cexec_demand_changed(c);
	}
}

/* Is the job's traffic from rack i to rack j an elephant (Co-scheduler
 * eq. 3: the bytes from a map rack to a reduce rack reach T_e)? Counted
 * over the maps finished and the reduces placed so far, so a pair can only
 * turn from EPS to OCS as the job progresses. */
bool ocspairs_is_elephant(struct ctl *c, uint32_t job, unsigned i, unsigned j)
{
	const struct wl_job *w = &c->wl->jobs[job];
	const struct jstate *js = &c->js[job];
	double bytes;

	if (!c->t->has_ocs || i == j)
		return false;
	if (!c->t->has_eps)
		return true; /* the OCS is the only way out of the rack */
	bytes = (double)js->red_bytes_rack[j] * js->maps_done_rack[i] / w->maps;
	return bytes >= (double)c->t->t_e;
}

void ocspairs_free_pair(struct ocs_pair *p)
{
	free(p->active);
	free(p->wait);
	free(p->per_host);
	free(p->src_wait);
	free(p->lz_rem);
	free(p->act_host);
}

int64_t ocspairs_lower_bound(struct ctl *c, uint32_t job)
{
	const struct jstate *j = &c->js[job];
	struct tmatrix tm;
	int64_t lb;
	size_t k;

	if (j->pairs_gone)
		return j->lower_bound;
	if (!c->t->has_ocs || !j->ocs_bytes)
		return 0;
	tm_init(&tm, c->t->racks);
	for (k = 0; k < j->n_pairs; k++)
		tm_add(&tm, j->pairs[k].src, j->pairs[k].dst, j->pairs[k].bytes);
	lb = tm_lower_bound(&tm, c->t->ocs_rate, c->t->delta, 0);
	tm_free(&tm);
	return lb;
}

/* Its pairs' records, their arrays and their keys in the hash go: they
 * were kept to the end of the run, some 700,000 of them on the
 * Coflow-Benchmark (their growth in later changes took its peak from
 * 371 to 555 MB). Only once no flow of the job waits, moves or has
 * demand (always, for a job done: kept otherwise). A reservation that
 * ends later releases nothing of it (ctl_release_pair). */
void ocspairs_job_done(struct ctl *c, uint32_t job)
{
	struct jstate *j = &c->js[job];
	size_t k;

	for (k = 0; k < j->n_pairs; k++) {
		const struct ocs_pair *p = &j->pairs[k];

		if (p->n_wait || p->n_active || p->live != SIZE_MAX)
			return;
		/* verifying: nothing is left counted as waiting (the
		 * records' counts at the end, which no file shows) */
		if (c->cx.verify) {
			uint64_t left = p->wait_bytes;
			unsigned h;

			for (h = 0; p->src_wait && h < c->t->hosts; h++)
				left |= p->src_wait[h];
			if (left)
				fatalx("ocspairs: job %u done, its pair %u -> %u still counts bytes "
				       "waiting (%llu in all)",
				       job, p->src, p->dst, (unsigned long long)p->wait_bytes);
		}
	}
	j->lower_bound = ocspairs_lower_bound(c, job);
	for (k = 0; k < j->n_pairs; k++) {
		ptab_del(c, ptab_key_of(c, job, j->pairs[k].src, j->pairs[k].dst));
		ocspairs_free_pair(&j->pairs[k]);
	}
	free(j->pairs);
	j->pairs = NULL;
	j->n_pairs = j->cap_pairs = 0;
	if (!j->n_lv) {
		free(j->lv);
		j->lv = NULL;
		j->cap_lv = 0;
	}
	j->pairs_gone = true;
}
