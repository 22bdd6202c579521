/* delay: delay scheduling on top of the Fair Scheduler [Delay], in
 * Hadoop's wait-time form (docs/REFERENCES.md, "Readings"). Jobs are taken
 * in fair order; a job whose next map cannot run at the locality it is
 * allowed is skipped (the container goes to the next job) and starts
 * waiting. A job whose last launch was node-local may launch rack-local
 * after node_wait and anywhere after node_wait + rack_wait; after a
 * rack-local launch, anywhere after rack_wait; a launch resets the wait.
 * Reduces have no input to be near: as in fair, once the slowstart
 * fraction of the job's maps is done and all its maps have started.
 *
 * Options: node_wait, rack_wait (default 1.5s each: Hadoop's fair
 * scheduler default locality delay of 1.5 heartbeats, at hyde's 1s
 * heartbeat).
 *
 * form=skip: the paper's own form (Zaharia et al., Algorithm 1; the
 * Delay baseline of NAS, [NAS §IV-A], D = 135): a job without a
 * node-local map for the container is skipped and its skip count grows;
 * once it has been skipped d times it launches its best-placed map (rack-
 * local before remote); a node-local launch resets the count (a non-local
 * one does not: the job keeps launching anywhere until it launches
 * locally again, as the paper's pseudo-code has it). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hyde/sched.h>

#include "sched/policy.h"

#define NSEC_PER_SEC 1000000000LL

struct delay_opts {
	int64_t node_wait, rack_wait;
	char form[8]; /* wait | skip */
	uint32_t d;
};

struct delay_job {
	enum pol_locality last; /* locality of the last launch */
	int64_t wait_since;	/* skipped since; -1: not waiting */
	uint32_t skips;		/* form=skip: times skipped */
};

struct delay_priv {
	struct delay_opts o; /* first: opts[] offsets are relative to it */
	uint32_t *order;
	unsigned *user_running;
	struct delay_job *jobs;
	bool skip_form;
};

_Static_assert((int)POL_NODE == (int)HYDE_NODE_LOCAL && (int)POL_RACK == (int)HYDE_RACK_LOCAL &&
	       (int)POL_ANY == (int)HYDE_OFF_RACK, "locality levels differ");

static const struct hyde_opt delay_opts[] = {
	{ "node_wait", HYDE_OPT_TIME, offsetof(struct delay_opts, node_wait), 0, 1e15,
	  "wait before a job launches rack-local (after a node-local launch)" },
	{ "rack_wait", HYDE_OPT_TIME, offsetof(struct delay_opts, rack_wait), 0, 1e15,
	  "further wait before a job launches on any node" },
	{ "form", HYDE_OPT_STR, offsetof(struct delay_opts, form), 0, 8,
	  "wait (Hadoop's wait times) or skip (the paper's skip counts, d)" },
	{ "d", HYDE_OPT_U32, offsetof(struct delay_opts, d), 0, 1e9,
	  "form=skip: times a job is skipped before it may launch non-locally" },
};

static void delay_defaults(void *priv)
{
	struct delay_priv *p = priv;

	p->o.node_wait = 3 * NSEC_PER_SEC / 2;
	p->o.rack_wait = 3 * NSEC_PER_SEC / 2;
	strcpy(p->o.form, "wait");
	p->o.d = 135; /* NAS §IV-A */
}

static int delay_init(struct hyde_sched *s, char *errbuf)
{
	struct delay_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	size_t i;

	if (!strcmp(p->o.form, "skip")) {
		p->skip_form = true;
	} else if (strcmp(p->o.form, "wait")) {
		snprintf(errbuf, HYDE_SCHED_ERRBUF, "form: expected wait or skip, got '%s'",
			 p->o.form);
		return -EINVAL;
	}
	p->order = hyde_calloc(ci->n_jobs + 1, sizeof(uint32_t));
	p->user_running = hyde_calloc(ci->n_users + 1, sizeof(unsigned));
	p->jobs = hyde_calloc(ci->n_jobs + 1, sizeof(*p->jobs));
	for (i = 0; i < ci->n_jobs; i++)
		p->jobs[i] = (struct delay_job){ .last = POL_NODE, .wait_since = -1 };
	return 0;
}

static void delay_destroy(struct hyde_sched *s)
{
	struct delay_priv *p = s->priv;

	free(p->order);
	free(p->user_running);
	free(p->jobs);
}

static const struct hyde_task *delay_pick(struct hyde_sched *s, unsigned host)
{
	struct delay_priv *p = s->priv;
	int64_t now = hyde_now(s);
	size_t n = hyde_fair_order(s, p->order, p->user_running), i;

	for (i = 0; i < n; i++) {
		const struct hyde_job *j = hyde_job(s, p->order[i]);
		struct delay_job *dj = &p->jobs[j->idx];
		enum hyde_locality lvl;
		enum pol_locality allowed;
		const struct hyde_task *t;

		if (hyde_job_has_pending(j, HYDE_MAP) && p->skip_form) {
			t = hyde_pending_map(s, j, host,
					     dj->skips >= p->o.d ? HYDE_OFF_RACK : HYDE_NODE_LOCAL, &lvl);
			if (t) {
				if (lvl == HYDE_NODE_LOCAL)
					dj->skips = 0;
				return t;
			}
			dj->skips++;
			continue;
		}
		if (hyde_job_has_pending(j, HYDE_MAP)) {
			allowed = pol_delay_level(dj->last,
						  dj->wait_since < 0 ? 0 : (double)(now - dj->wait_since),
						  (double)p->o.node_wait, (double)p->o.rack_wait);
			t = hyde_pending_map(s, j, host, (enum hyde_locality)allowed, &lvl);
			if (t) {
				dj->last = (enum pol_locality)lvl;
				dj->wait_since = -1;
				return t;
			}
			/* skipped: the container goes to the next job, not to
			 * this job's reduces (as in fair, reduces come after
			 * the maps have all started: reduces taking the
			 * containers of waiting maps can hold every container) */
			if (dj->wait_since < 0)
				dj->wait_since = now;
			continue;
		}
		t = hyde_pending_reduce(s, j, host);
		if (t)
			return t;
	}
	return NULL;
}

const struct hyde_sched_ops sched_delay = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "delay",
	.summary = "delay scheduling on top of fair: node-local, then rack-local, then any",
	.priv_size = sizeof(struct delay_priv),
	.opts = delay_opts,
	.n_opts = sizeof(delay_opts) / sizeof(delay_opts[0]),
	.defaults = delay_defaults,
	.init = delay_init,
	.destroy = delay_destroy,
	.pick_task = delay_pick,
};
