/* coscheduler: Co-scheduler [Co-scheduler §IV], every part:
 *
 * - §IV-A: a job's reduces are scheduled only after all its maps are
 *   done, and its shuffle starts only once every reduce has a container
 *   (reduce_start = SCHED_AFTER_MAPS; the controller holds the shuffle).
 * - MTS (§IV-C): at arrival, a job whose estimated shuffle Input x SIR
 *   reaches T_e gets R_map = sqrt(Input x SIR / T_e) (eq. 3-6); replica k
 *   of its blocks goes evenly over the k-th of three disjoint sets of
 *   R_map random racks, and its maps run on at most R_map of those racks.
 *   SIR starts at the option sir (1.0) and follows the job's finished maps
 *   (it decides whether the job is shuffle-heavy when PSRT runs).
 * - PSRT (§IV-D): once the maps are done, from the map output per rack,
 *   every R_red in [1, floor(SM_1 / T_e)] with its placement D and CCT.
 * - SBS (§IV-E): ExploreSchedule (Alg. 1) on each, with the release
 *   times of the racks' containers from eq. (8) on the running tasks'
 *   progress; the schedule with the smallest CCT + t_max wins, and its
 *   racks get d_i reduces each.
 * - OCAS (§IV-F, Alg. 2): a free container goes, in the fair order of
 *   users, to the first task of: a shuffle-heavy job's reduce whose best
 *   schedule has this rack; a shuffle-heavy job's map with input here
 *   within its R_map racks; a non-shuffle-heavy reduce; a non-shuffle-heavy
 *   map; any reduce; any map.
 * Circuits: Sunflow, the controller's default (-C sunflow).
 *
 * Where the paper leaves a choice, this file says which one it takes:
 * - A job without a guideline (MTS off, or not shuffle-heavy) is
 *   "non-shuffle-heavy" for Alg. 2: with every mechanism off, OCAS is Fair
 *   (§V-C: "OCAS is actually Fair when there is no guideline").
 * - The tasks of a job with a guideline follow it: its maps run only on
 *   racks holding its input, at most R_map of them, and the reduces of a
 *   job with a best schedule only on its racks (a task elsewhere would
 *   undo the aggregation the guideline is for; left to lines 8-9, a
 *   shuffle-heavy job's maps spill onto every rack whenever its user is
 *   first in fair order). The R_map racks are one per column of the rack
 *   sets, so that together they hold a replica of every block. So "any
 *   available reduce" (line 8) is a reduce of a shuffle-heavy job without
 *   a best schedule, and "any available map" (line 9) exists only with
 *   spill=yes, which lets a guided job's maps run anywhere as the last
 *   choice.
 * - §IV-F: the first user in fair order that has a task for the
 *   container gets it, its best level of Alg. 2 first (jobs of the user in
 *   fair order within a level). With levels_first=yes a level is tried for
 *   every user before the next level instead (guided tasks before
 *   fairness).
 * - Holding reduces until all are placed can deadlock (every container
 *   held by reduces waiting for the rest of their job). A job's reduces
 *   start being placed only when the containers of the jobs doing so, plus
 *   its own, fit the cluster (and, for a best schedule, each of its
 *   racks): a job so admitted always gets the rest.
 * - With SBS off, PSRT's smallest-CCT schedule is placed on the racks
 *   holding most map output that can take its d_i.
 *
 * Options (the §V-C ablations: OCAS alone is mts=no psrt=no; MTS + OCAS is
 * psrt=no; all is the default): mts, psrt, sbs (only with psrt), sir,
 * barrier (§IV-A), spill, levels_first, and trem_error for §V-D (T_rem
 * estimates off by a uniform factor in 1 +- trem_error). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <hyde/sched.h>

#include "core/util.h"
#include "sched/policy.h"

struct cs_opts {
	bool mts, psrt, sbs, barrier, levels_first, spill;
	double sir;
	double trem_error;
};

struct cs_job {
	double sir;		/* shuffle / input estimate */
	double in_done, out_done; /* of its finished maps, for sir */
	bool heavy;		/* estimated shuffle >= T_e */
	unsigned r_map;		/* R_map = R_data; 0: no map guideline */
	/* Block b's replicas are on column b % R_data of every rack set;
	 * the maps of a column run on one of its racks, the first that
	 * starts one, so R_map racks hold every map. */
	int32_t *col_of_rack;	/* per rack: its column in the sets, or -1 */
	int32_t *col_rack;	/* per column: the rack its maps run on, or -1 */
	unsigned *red_left;	/* best schedule: reduces still to place per rack */
	unsigned *red_d;	/* best schedule: d per rack */
	bool admitted, opened;
	uint32_t reduces_placed;
};

struct cs_priv {
	struct cs_opts o; /* first: opts[] offsets are relative to it */
	struct cs_job *jobs;
	uint32_t *order;
	unsigned *user_running, *user_rank;
	struct pol_cand *cand;
	const struct hyde_task **cand_task;
	uint64_t *out; /* map output per rack, for PSRT */
	unsigned *resv_rack, resv_total; /* containers of admitted jobs */
	unsigned rack_cap, total_cap;
	/* SBS scratch */
	double **rel;
	unsigned *n_rel;
	size_t *cap_rel;
};

static const struct hyde_opt cs_opts[] = {
	{ "mts", HYDE_OPT_BOOL, offsetof(struct cs_opts, mts), 0, 0,
	  "MTS: input of shuffle-heavy jobs on R_map racks, maps there (§IV-C)" },
	{ "psrt", HYDE_OPT_BOOL, offsetof(struct cs_opts, psrt), 0, 0,
	  "PSRT: possible schedules of reduces from the map output (§IV-D)" },
	{ "sbs", HYDE_OPT_BOOL, offsetof(struct cs_opts, sbs), 0, 0,
	  "SBS: ExploreSchedule picks the racks and the schedule (§IV-E; needs psrt)" },
	{ "sir", HYDE_OPT_DOUBLE, offsetof(struct cs_opts, sir), 1e-9, 1e9,
	  "shuffle/input ratio assumed at arrival (§IV-C)" },
	{ "barrier", HYDE_OPT_BOOL, offsetof(struct cs_opts, barrier), 0, 0,
	  "reduces after all maps, shuffle after all reduces placed (§IV-A)" },
	{ "trem_error", HYDE_OPT_DOUBLE, offsetof(struct cs_opts, trem_error), 0, 1,
	  "error rate of the T_rem estimates, uniform in +-this (§V-D)" },
	{ "spill", HYDE_OPT_BOOL, offsetof(struct cs_opts, spill), 0, 0,
	  "maps of a guided job may run off its guideline (Alg. 2 line 9)" },
	{ "levels_first", HYDE_OPT_BOOL, offsetof(struct cs_opts, levels_first), 0, 0,
	  "Alg. 2: each level over all users first (no: first user, then levels)" },
};

static void cs_defaults(void *priv)
{
	struct cs_priv *p = priv;

	p->o.mts = p->o.psrt = p->o.sbs = p->o.barrier = true;
	p->o.levels_first = false; /* §IV-F: the first user, then Alg. 2 */
	p->o.spill = false;
	p->o.sir = 1.0; /* §IV-C, as in [6] */
}

static int cs_init(struct hyde_sched *s, char *errbuf)
{
	struct cs_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	unsigned racks = ci->racks;
	size_t i, n = ci->n_jobs;

	(void)errbuf;
	p->jobs = hyde_calloc(n + 1, sizeof(*p->jobs));
	for (i = 0; i < n; i++)
		p->jobs[i].sir = p->o.sir;
	p->order = hyde_calloc(n + 1, sizeof(uint32_t));
	p->cand = hyde_calloc(n + 1, sizeof(*p->cand));
	p->cand_task = hyde_calloc(n + 1, sizeof(*p->cand_task));
	p->user_running = hyde_calloc(ci->n_users + 1, sizeof(unsigned));
	p->user_rank = hyde_calloc(ci->n_users + 1, sizeof(unsigned));
	p->out = hyde_calloc(racks, sizeof(uint64_t));
	p->resv_rack = hyde_calloc(racks, sizeof(unsigned));
	p->rack_cap = ci->hosts_per_rack * ci->containers;
	p->total_cap = p->rack_cap * racks;
	p->rel = hyde_calloc(racks, sizeof(double *));
	p->n_rel = hyde_calloc(racks, sizeof(unsigned));
	p->cap_rel = hyde_calloc(racks, sizeof(size_t));
	return 0;
}

static void cs_destroy(struct hyde_sched *s)
{
	struct cs_priv *p = s->priv;
	size_t i;

	for (i = 0; i < hyde_cluster(s)->n_jobs; i++) {
		free(p->jobs[i].col_of_rack);
		free(p->jobs[i].col_rack);
		free(p->jobs[i].red_left);
		free(p->jobs[i].red_d);
	}
	for (i = 0; i < hyde_cluster(s)->racks; i++)
		free(p->rel[i]);
	free(p->out);
	free(p->rel);
	free(p->n_rel);
	free(p->cap_rel);
	free(p->jobs);
	free(p->order);
	free(p->cand);
	free(p->cand_task);
	free(p->user_running);
	free(p->user_rank);
	free(p->resv_rack);
}

/* §IV-A: reduces only once every map is done (else Hadoop's slowstart) */
static bool cs_reduces_may_start(struct hyde_sched *s, const struct hyde_job *j)
{
	const struct cs_priv *p = s->priv;

	if (p->o.barrier)
		return hyde_job_maps_done(j);
	return j->maps_done >= (uint32_t)ceil(hyde_cluster(s)->slowstart * j->n_maps);
}

static unsigned first_wave(const struct cs_priv *p, const struct hyde_job *j);

/* §IV-A: the shuffle starts once every reduce has its container. A job
 * with more reduces than the cluster has containers runs them in waves:
 * its shuffle opens when its reduces hold every container, and later
 * reduces fetch as they start. */
static bool cs_shuffle_may_start(struct hyde_sched *s, const struct hyde_job *j)
{
	const struct cs_priv *p = s->priv;

	return !p->o.barrier || j->reduces_running + j->reduces_done >= first_wave(p, j);
}

static bool ocs_usable(const struct hyde_sched *s)
{
	return hyde_cluster(s)->has_ocs && hyde_cluster(s)->t_e > 0;
}

/* §IV-C: shuffle-heavy if Input x SIR reaches T_e. */
static void estimate(struct hyde_sched *s, const struct hyde_job *j)
{
	struct cs_job *cj = &((struct cs_priv *)s->priv)->jobs[j->idx];

	cj->heavy = ocs_usable(s) && (double)j->input * cj->sir >= (double)hyde_cluster(s)->t_e;
}

static void cs_job_arrived(struct hyde_sched *s, const struct hyde_job *j)
{
	struct cs_priv *p = s->priv;
	struct cs_job *cj = &p->jobs[j->idx];
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	unsigned racks = ci->racks, copies = ci->replicas, r, k, i;
	uint32_t *perm, *sets[HYDE_MAX_REPLICAS];

	estimate(s, j);
	if (!p->o.mts || !cj->heavy || j->map_racks || !j->n_maps || j->input_from_parents)
		return;
	if (copies > HYDE_MAX_REPLICAS)
		copies = HYDE_MAX_REPLICAS;
	if (copies < 1)
		copies = 1;
	/* eq. (6), at most as many racks as disjoint sets allow and as
	 * there are blocks to spread */
	r = pol_r_map((double)j->input, cj->sir, (double)ci->t_e);
	if (r > racks / copies)
		r = racks / copies;
	if (r > j->n_maps)
		r = j->n_maps;
	if (r < 1)
		r = 1;
	perm = hyde_calloc(racks, sizeof(uint32_t));
	for (i = 0; i < racks; i++)
		perm[i] = i;
	hyde_shuffle(s, perm, racks);
	/* replica k evenly over the k-th set; the sets are disjoint when
	 * the cluster has copies x r racks (else they wrap around) */
	for (k = 0; k < copies; k++) {
		sets[k] = hyde_calloc(r, sizeof(uint32_t));
		for (i = 0; i < r; i++)
			sets[k][i] = perm[(k * r + i) % racks];
	}
	hyde_place_blocks_racks(s, j, (const uint32_t *const *)sets, r);
	for (k = 0; k < copies; k++)
		free(sets[k]);
	cj->r_map = r;
	cj->col_of_rack = hyde_calloc(racks, sizeof(int32_t));
	cj->col_rack = hyde_calloc(r, sizeof(int32_t));
	for (i = 0; i < racks; i++)
		cj->col_of_rack[i] = -1;
	for (i = 0; i < r; i++)
		cj->col_rack[i] = -1;
	for (k = 0; k < copies; k++)
		for (i = 0; i < r; i++)
			cj->col_of_rack[perm[(k * r + i) % racks]] = (int32_t)i;
	free(perm);
}

static void cs_task_finished(struct hyde_sched *s, const struct hyde_task *t)
{
	struct cs_priv *p = s->priv;
	const struct hyde_job *j = hyde_job(s, t->job);
	struct cs_job *cj = &p->jobs[t->job];

	if (t->kind != HYDE_MAP)
		return;
	/* §IV-C: SIR follows the map phase */
	cj->in_done += (double)j->blocks[t->idx].bytes;
	cj->out_done += (double)hyde_map_output_bytes(s, t->job, t->idx);
	if (cj->in_done > 0) {
		cj->sir = cj->out_done / cj->in_done;
		estimate(s, j);
	}
}

/* Release times of every rack's busy containers (eq. 8), ascending. */
static void rack_releases(struct hyde_sched *s, struct pol_rack *out)
{
	struct cs_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	unsigned racks = ci->racks, r;
	const uint32_t *act;
	size_t i, na;

	memset(p->n_rel, 0, racks * sizeof(unsigned));
	act = hyde_active_jobs(s, &na);
	for (i = 0; i < na; i++) {
		const struct hyde_job *j = hyde_job(s, act[i]);
		uint32_t k, n = j->n_maps + j->n_reduces;

		if (!j->maps_running && !j->reduces_running)
			continue;
		for (k = 0; k < n; k++) {
			const struct hyde_task *t = k < j->n_maps ? &j->maps[k] : &j->reduces[k - j->n_maps];
			int64_t elapsed;
			double prog, t_rem;

			if (t->state != HYDE_TASK_RUNNING ||
			    hyde_task_progress(s, t, &elapsed, &prog))
				continue;
			r = hyde_rack_of(ci, (unsigned)t->host);
			hyde_grow((void **)&p->rel[r], &p->cap_rel[r], p->n_rel[r] + 1,
			      sizeof(double));
			t_rem = pol_t_rem((double)elapsed / 1e9, prog);
			/* §V-D: estimates off by up to trem_error */
			if (p->o.trem_error > 0 && !isinf(t_rem))
				t_rem *= 1 + p->o.trem_error * (2 * hyde_rand_unit(s) - 1);
			p->rel[r][p->n_rel[r]++] = t_rem;
		}
	}
	for (r = 0; r < racks; r++) {
		double *v = p->rel[r];
		unsigned a, b;

		/* insertion sort: a rack holds few containers */
		for (a = 1; a < p->n_rel[r]; a++) {
			double x = v[a];

			for (b = a; b > 0 && v[b - 1] > x; b--)
				v[b] = v[b - 1];
			v[b] = x;
		}
		out[r] = (struct pol_rack){ .free = hyde_rack_free(s, r),
					    .n_busy = p->n_rel[r], .release = v };
	}
}

static const uint64_t *by_rack_out;

static int cmp_rack_output(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (by_rack_out[x] != by_rack_out[y])
		return by_rack_out[x] > by_rack_out[y] ? -1 : 1;
	return (x > y) - (x < y);
}

/* PSRT + SBS when the maps are done: the best schedule's racks and d. */
static void plan_reduces(struct hyde_sched *s, const struct hyde_job *j)
{
	struct cs_priv *p = s->priv;
	struct cs_job *cj = &p->jobs[j->idx];
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	unsigned racks = ci->racks, r, *pref, *sel;
	const uint64_t *out;
	struct pol_schedule *ps;
	struct pol_rack *view;
	double *sm;
	size_t n, i;
	int best = -1;

	if (!p->o.psrt || !cj->heavy || !j->n_reduces || j->reduce_racks)
		return;
	hyde_job_map_output(s, j->idx, p->out, NULL);
	out = p->out;
	sm = hyde_calloc(racks, sizeof(double));
	for (r = 0; r < racks; r++)
		sm[r] = (double)out[r];
	n = pol_psrt(sm, racks, j->n_reduces, (double)ci->t_e, (double)ci->ocs_rate / 8,
		     (double)ci->delta / 1e9, racks, &ps);
	free(sm);
	if (!n)
		return;
	/* ties go to the racks holding most of the job's map output */
	pref = hyde_calloc(racks, sizeof(unsigned));
	for (r = 0; r < racks; r++)
		pref[r] = r;
	by_rack_out = out;
	xqsort(pref, racks, sizeof(unsigned), cmp_rack_output);
	by_rack_out = NULL;
	sel = hyde_calloc(racks + 1, sizeof(unsigned));
	view = hyde_calloc(racks, sizeof(*view));
	if (p->o.sbs) {
		rack_releases(s, view);
	} else {
		/* no SBS: the smallest CCT, on racks that can hold d_i */
		size_t k;

		for (r = 0; r < racks; r++)
			view[r] = (struct pol_rack){ .free = p->rack_cap };
		for (k = 1, i = 0; k < n; k++)
			if (ps[k].cct < ps[i].cct)
				i = k;
		if (!isinf(pol_explore_schedule(ps[i].d, ps[i].r_red, ps[i].cct, view,
						racks, pref, sel)))
			best = (int)i;
	}
	if (p->o.sbs)
		best = pol_select_best(ps, n, view, racks, pref, sel, NULL);
	if (best >= 0) {
		cj->red_left = hyde_calloc(racks, sizeof(unsigned));
		cj->red_d = hyde_calloc(racks, sizeof(unsigned));
		for (i = 0; i < ps[best].r_red; i++)
			cj->red_left[sel[i]] = cj->red_d[sel[i]] = ps[best].d[i];
	}
	free(view);
	free(sel);
	free(pref);
	pol_schedules_free(ps, n);
}

static void cs_stage_finished(struct hyde_sched *s, const struct hyde_job *j,
			      enum hyde_task_kind stage)
{
	if (stage == HYDE_MAP)
		plan_reduces(s, j);
}

/* The reduces that must hold containers at once before the shuffle opens:
 * all of them, or as many as the cluster has containers (the controller
 * runs bigger jobs' reduces in waves). */
static unsigned first_wave(const struct cs_priv *p, const struct hyde_job *j)
{
	return j->n_reduces < p->total_cap ? j->n_reduces : p->total_cap;
}

/* May the job's reduces start being placed without risking that reduces
 * holding containers wait for each other forever? */
static bool may_admit(const struct cs_priv *p, const struct hyde_sched *s,
		      const struct cs_job *cj, const struct hyde_job *j)
{
	unsigned r;

	if (!p->o.barrier || cj->admitted)
		return true;
	if (p->resv_total + first_wave(p, j) > p->total_cap)
		return false;
	if (cj->red_d)
		for (r = 0; r < hyde_cluster(s)->racks; r++)
			if (cj->red_d[r] && p->resv_rack[r] + cj->red_d[r] > p->rack_cap)
				return false;
	return true;
}

static void admit(struct cs_priv *p, const struct hyde_sched *s, struct cs_job *cj,
		  const struct hyde_job *j, int sign)
{
	unsigned r;

	p->resv_total += (unsigned)sign * first_wave(p, j);
	if (cj->red_d)
		for (r = 0; r < hyde_cluster(s)->racks; r++)
			p->resv_rack[r] += (unsigned)sign * cj->red_d[r];
}

/* Alg. 2 for one job on one container: its best level and the task. */
static enum pol_ocas_level job_level(struct hyde_sched *s, const struct hyde_job *j,
				     unsigned host, const struct hyde_task **out)
{
	struct cs_priv *p = s->priv;
	struct cs_job *cj = &p->jobs[j->idx];
	unsigned rack = hyde_rack_of(hyde_cluster(s), host);
	bool guided_maps = cj->heavy && cj->r_map, scheduled = cj->heavy && cj->red_d;
	enum pol_ocas_level best = OCAS_NONE, l;
	enum hyde_locality lvl;
	const struct hyde_task *t;

	*out = NULL;
	/* without the barrier, reduces still wait for the maps to start (as
	 * in fair): else they can take every container from maps waiting
	 * for their guideline */
	if (hyde_job_has_pending(j, HYDE_REDUCE) && (!scheduled || cj->red_left[rack]) &&
	    (p->o.barrier || !hyde_job_has_pending(j, HYDE_MAP)) &&
	    may_admit(p, s, cj, j) && (t = hyde_pending_reduce(s, j, host))) {
		/* a job with a best schedule only on its racks */
		best = pol_ocas_level(false, cj->heavy && (cj->r_map || scheduled), scheduled);
		*out = t;
	}
	if (!hyde_job_has_pending(j, HYDE_MAP))
		return best;
	if (guided_maps && cj->col_of_rack[rack] >= 0 &&
	    (cj->col_rack[cj->col_of_rack[rack]] < 0 ||
	     cj->col_rack[cj->col_of_rack[rack]] == (int32_t)rack) &&
	    (t = hyde_pending_map(s, j, host, HYDE_RACK_LOCAL, &lvl))) {
		l = OCAS_HEAVY_MAP_GUIDED;
	} else if ((!guided_maps || p->o.spill) &&
		   (t = hyde_pending_map(s, j, host, HYDE_OFF_RACK, &lvl))) {
		l = pol_ocas_level(true, guided_maps, false);
	} else {
		return best;
	}
	if (l < best) {
		best = l;
		*out = t;
	}
	return best;
}

static const struct hyde_task *cs_pick(struct hyde_sched *s, unsigned host)
{
	struct cs_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	size_t n = hyde_fair_order(s, p->order, p->user_running), i;
	unsigned rack = hyde_rack_of(ci, host), next_rank = 0;
	struct cs_job *cj;
	const struct hyde_task *t;
	const struct hyde_job *j;
	long k;

	for (i = 0; i < ci->n_users; i++)
		p->user_rank[i] = UINT32_MAX;
	for (i = 0; i < n; i++) {
		uint32_t u = hyde_job(s, p->order[i])->user_idx;

		if (p->user_rank[u] == UINT32_MAX)
			p->user_rank[u] = next_rank++;
		p->cand[i].level = job_level(s, hyde_job(s, p->order[i]), host, &p->cand_task[i]);
		p->cand[i].user_rank = p->user_rank[u];
		p->cand[i].fair_rank = (unsigned)i;
		/* nothing beats the first level of the first job */
		if (p->o.levels_first && p->cand[i].level == OCAS_HEAVY_REDUCE_SCHEDULED) {
			n = i + 1;
			break;
		}
	}
	k = pol_ocas_pick(p->cand, n, p->o.levels_first ? OCAS_ORDER_LEVELS : OCAS_ORDER_USERS);
	if (k < 0)
		return NULL;
	t = p->cand_task[k];
	j = hyde_job(s, t->job);
	cj = &p->jobs[t->job];
	if (t->kind == HYDE_MAP) {
		if (p->cand[k].level == OCAS_HEAVY_MAP_GUIDED)
			cj->col_rack[cj->col_of_rack[rack]] = (int32_t)rack;
		return t;
	}
	if (p->o.barrier && !cj->admitted) {
		cj->admitted = true;
		admit(p, s, cj, j, 1);
	}
	if (cj->red_left && cj->red_left[rack])
		cj->red_left[rack]--;
	if (++cj->reduces_placed == first_wave(p, j) && cj->admitted && !cj->opened) {
		/* the shuffle opens (all reduces placed, or a first wave of
		 * a job with more than the cluster holds): these containers
		 * will be released */
		cj->opened = true;
		admit(p, s, cj, j, -1);
	}
	return t;
}

const struct hyde_sched_ops sched_coscheduler = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "coscheduler",
	.summary = "Co-scheduler: MTS, PSRT, SBS and OCAS for a Hybrid-DCN (Co-scheduler §IV)",
	.priv_size = sizeof(struct cs_priv),
	.opts = cs_opts,
	.n_opts = sizeof(cs_opts) / sizeof(cs_opts[0]),
	.defaults = cs_defaults,
	.init = cs_init,
	.destroy = cs_destroy,
	.job_arrived = cs_job_arrived,
	.task_finished = cs_task_finished,
	.stage_finished = cs_stage_finished,
	.pick_task = cs_pick,
	.reduces_may_start = cs_reduces_may_start,
	.shuffle_may_start = cs_shuffle_may_start,
};
