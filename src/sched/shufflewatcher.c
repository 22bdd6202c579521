/* shufflewatcher: ShuffleWatcher (Ahmad, Chakradhar, Raghunathan,
 * Vijaykumar, USENIX ATC 2014) on top of delay scheduling, as NAS's
 * evaluation ran it ("SW-delay", [NAS §IV-A]). A RECONSTRUCTION: the
 * ShuffleWatcher paper is not in hyde's sources; this follows its summary
 * in NAS (§I, §II) and the three policies as described from memory of the
 * ATC paper (docs/REFERENCES.md, Readings), not its code or pseudo-code:
 *
 * - Delay scheduling, skip-count form (delay.c's form=skip, D = d = 135
 *   as NAS set it): jobs in fair order; a job without a node-local map
 *   for the container is skipped (count + 1) until it has been skipped d
 *   times, then it launches its best-placed map; a node-local launch
 *   resets the count.
 * - Network-aware shuffle scheduling: while the cross-rack network is at
 *   or over `congestion` (0.8, the threshold NAS used for both), no reduce
 *   is launched (reduces start shuffles); the container goes to maps.
 *   The load is the requesting rack's EPS NetState, max(uplink, downlink)
 *   utilisation over the network view's last interval, as in nas.c (so
 *   the two differ in policy, not in what they measure); scope=cluster
 *   uses the whole core's cross-rack bytes over its capacity instead.
 * - Shuffle-aware map placement: a job's maps run on a small set of racks
 *   that covers its input (greedy set cover over its blocks' replica
 *   racks, computed when it first places a map), so its map output lands
 *   on few racks: on a rack outside that set the job is skipped (as for a
 *   non-local container) until its skip count reaches d.
 * - Shuffle-aware reduce placement: a reduce goes to a rack whose share of
 *   the job's map output still has reduces unclaimed (reduces x the rack's
 *   share of the finished maps' output, less the reduces placed there);
 *   elsewhere the job is skipped, counted like a map skip, until d.
 *
 * Request type, the same rule as fair, delay and nas: jobs in fair order,
 * a job's map before its reduces; a job's reduces once slowstart allows
 * and all its maps have started. Options: congestion, d, scope (rack or
 * cluster). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hyde/sched.h>

struct sw_opts {
	double congestion;
	uint32_t d;
	char scope[8]; /* rack | cluster */
};

struct sw_job {
	uint32_t skips;
	bool covered;	/* racks computed */
	bool *racks;	/* the cover: racks its maps run on */
};

struct sw_priv {
	struct sw_opts o; /* first */
	uint32_t *order;
	unsigned *user_running;
	struct sw_job *jobs;
	uint64_t *per_rack;
	unsigned *gain;
	bool cluster;
	uint64_t held; /* reduce offers refused while congested */
};

static const struct hyde_opt sw_opts[] = {
	{ "congestion", HYDE_OPT_DOUBLE, offsetof(struct sw_opts, congestion), 0.01, 10,
	  "cross-rack utilisation from which no reduce is launched (at 0 none ever would)" },
	{ "d", HYDE_OPT_U32, offsetof(struct sw_opts, d), 0, 1e9,
	  "times a job is skipped before it may launch off its locality or racks" },
	{ "scope", HYDE_OPT_STR, offsetof(struct sw_opts, scope), 0, 8,
	  "rack (the requesting rack's EPS link) or cluster (the whole core)" },
};

static void sw_defaults(void *priv)
{
	struct sw_priv *p = priv;

	p->o.congestion = 0.8;
	p->o.d = 135;
	strcpy(p->o.scope, "rack");
}

static int sw_init(struct hyde_sched *s, char *errbuf)
{
	struct sw_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);

	if (!strcmp(p->o.scope, "cluster")) {
		p->cluster = true;
	} else if (strcmp(p->o.scope, "rack")) {
		snprintf(errbuf, HYDE_SCHED_ERRBUF, "scope: expected rack or cluster, got '%s'",
			 p->o.scope);
		return -EINVAL;
	}
	p->order = hyde_calloc(ci->n_jobs + 1, sizeof(uint32_t));
	p->user_running = hyde_calloc(ci->n_users + 1, sizeof(unsigned));
	p->jobs = hyde_calloc(ci->n_jobs + 1, sizeof(*p->jobs));
	p->per_rack = hyde_calloc(ci->racks + 1, sizeof(uint64_t));
	p->gain = hyde_calloc(ci->racks + 1, sizeof(unsigned));
	return 0;
}

static void sw_destroy(struct hyde_sched *s)
{
	struct sw_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	size_t i;

	hyde_log(s, "reduce offers held while congested: %llu", (unsigned long long)p->held);
	for (i = 0; p->jobs && i < ci->n_jobs; i++)
		free(p->jobs[i].racks);
	free(p->order);
	free(p->user_running);
	free(p->jobs);
	free(p->per_rack);
	free(p->gain);
}

static bool congested(struct hyde_sched *s, struct sw_priv *p, unsigned rack)
{
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	struct hyde_link_state up, down;
	double bytes = 0, cap = 0;
	int64_t from, to;
	unsigned r;

	if (!ci->has_eps)
		return false;
	if (!p->cluster) {
		if (hyde_net_link(s, HYDE_LINK_TOR_UP, rack, &up) ||
		    hyde_net_link(s, HYDE_LINK_TOR_DOWN, rack, &down))
			return false;
		return fmax(up.utilisation, down.utilisation) >= p->o.congestion;
	}
	/* the core's load: every rack's uplink bytes over what the uplinks
	 * could have carried in the interval */
	hyde_net_interval(s, &from, &to);
	if (from < 0 || to <= from)
		return false;
	for (r = 0; r < ci->racks; r++) {
		if (hyde_net_link(s, HYDE_LINK_TOR_UP, r, &up))
			return false;
		cap += (double)up.capacity / 8 * (double)(to - from) / 1e9;
		bytes += (double)up.bytes;
	}
	if (cap <= 0)
		return false;
	return bytes / cap >= p->o.congestion;
}

/* Each rack the block has a replica on (once a rack) gains d. */
static void gain_add(const struct hyde_cluster_info *ci, unsigned *gain, const struct hyde_block *b,
		     int d)
{
	uint32_t k, i;

	for (k = 0; k < b->n_replicas; k++) {
		unsigned r = hyde_rack_of(ci, b->replica[k]);

		for (i = 0; i < k && hyde_rack_of(ci, b->replica[i]) != r; i++)
			;
		if (i == k)
			gain[r] += (unsigned)d;
	}
}

/* Greedy set cover: racks, one at a time the one holding a replica of
 * most blocks not yet covered (each rack's count kept as blocks are
 * covered, not counted again over every rack and block: a job's cover
 * cost its maps x racks per rack taken, 6% of a scale-1 run). */
static void cover(struct hyde_sched *s, struct sw_priv *p, const struct hyde_job *j)
{
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	struct sw_job *sj = &p->jobs[j->idx];
	bool *done = hyde_calloc(j->n_maps + 1, sizeof(bool));
	uint32_t left = j->n_maps, m, k;
	unsigned r;

	sj->racks = hyde_calloc(ci->racks, sizeof(bool));
	sj->covered = true;
	memset(p->gain, 0, ci->racks * sizeof(unsigned));
	for (m = 0; m < j->n_maps; m++)
		gain_add(ci, p->gain, &j->blocks[m], 1);
	while (left) {
		unsigned best = 0, bestg = 0;

		for (r = 0; r < ci->racks; r++)
			if (p->gain[r] > bestg) {
				bestg = p->gain[r];
				best = r;
			}
		if (!bestg)
			break; /* blocks without replicas: any rack */
		sj->racks[best] = true;
		for (m = 0; m < j->n_maps; m++)
			if (!done[m] && hyde_block_on_rack(s, &j->blocks[m], best)) {
				done[m] = true;
				left--;
				gain_add(ci, p->gain, &j->blocks[m], -1);
			}
	}
	if (left) /* uncovered maps may run anywhere */
		for (k = 0; k < ci->racks; k++)
			sj->racks[k] = true;
	free(done);
}

/* May a reduce of j go to rack: its unclaimed share there > 0, or no
 * rack has output yet? */
static bool reduce_rack_ok(struct hyde_sched *s, struct sw_priv *p, const struct hyde_job *j,
			   unsigned rack)
{
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	double total = 0;
	unsigned placed, r;

	hyde_job_map_output(s, j->idx, p->per_rack, NULL);
	for (r = 0; r < ci->racks; r++)
		total += (double)p->per_rack[r];
	if (total <= 0)
		return true;
	placed = hyde_tasks_on_rack(s, j->idx, HYDE_REDUCE, rack);
	return j->n_reduces * (double)p->per_rack[rack] / total - placed > 0;
}

static const struct hyde_task *sw_pick(struct hyde_sched *s, unsigned host)
{
	struct sw_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	unsigned rack = hyde_rack_of(ci, host);
	size_t n = hyde_fair_order(s, p->order, p->user_running), i;
	int cong = -1; /* not asked yet */

	for (i = 0; i < n; i++) {
		const struct hyde_job *j = hyde_job(s, p->order[i]);
		struct sw_job *sj = &p->jobs[j->idx];
		enum hyde_locality lvl;
		const struct hyde_task *t;
		bool free_to_go = sj->skips >= p->o.d;

		if (hyde_job_has_pending(j, HYDE_MAP)) {
			if (!sj->covered && j->blocks)
				cover(s, p, j);
			if (free_to_go || !sj->racks || sj->racks[rack]) {
				t = hyde_pending_map(s, j, host,
						     free_to_go ? HYDE_OFF_RACK : HYDE_NODE_LOCAL, &lvl);
				if (t) {
					if (lvl == HYDE_NODE_LOCAL)
						sj->skips = 0;
					return t;
				}
			}
			sj->skips++;
			continue;
		}
		if (!hyde_pending_reduce(s, j, host))
			continue;
		if (cong < 0)
			cong = congested(s, p, rack);
		if (cong) {
			p->held++;
			continue; /* no shuffle starts while congested */
		}
		if (!free_to_go && !reduce_rack_ok(s, p, j, rack)) {
			sj->skips++;
			continue;
		}
		sj->skips = 0;
		return hyde_pending_reduce(s, j, host);
	}
	return NULL;
}

static void sw_job_finished(struct hyde_sched *s, const struct hyde_job *j)
{
	struct sw_priv *p = s->priv;

	free(p->jobs[j->idx].racks);
	p->jobs[j->idx].racks = NULL;
}

const struct hyde_sched_ops sched_shufflewatcher = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "shufflewatcher",
	.summary = "ShuffleWatcher on delay (reconstruction): no reduces while congested, "
		   "maps on few racks, reduces by map output",
	.priv_size = sizeof(struct sw_priv),
	.opts = sw_opts,
	.n_opts = sizeof(sw_opts) / sizeof(sw_opts[0]),
	.defaults = sw_defaults,
	.init = sw_init,
	.destroy = sw_destroy,
	.job_finished = sw_job_finished,
	.pick_task = sw_pick,
};
