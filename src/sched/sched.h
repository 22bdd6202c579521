/* Job/task schedulers: one file each, behind one ops table (STYLE.md), all
 * listed in sched_table[] (registry.c). A scheduler never touches the
 * network: it sees the cluster and the controller's read-only view and
 * returns decisions.
 *
 * Life cycle, all calls from the controller:
 *   init -> job_arrived (input blocks are already placed at random, HDFS
 *   style; a scheduler that places input itself, as Co-scheduler or Corral,
 *   re-places them here) -> pick_task, for each free container, until it
 *   returns NULL -> task_finished / stage_finished -> tick (every heartbeat
 *   when the ops table asks for it) -> destroy.
 */
#ifndef HYDE_SCHED_H
#define HYDE_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cluster.h"
#include "core/opts.h"
#include "core/rng.h"

struct ctl;
struct sched;

/* When a job's reduces may start and when its shuffle may begin. */
enum sched_reduce_start {
	/* Hadoop: reduces may start once a fraction (slowstart, default
	 * 0.05) of the maps is done; the shuffle overlaps the maps. */
	SCHED_SLOWSTART,
	/* Co-scheduler §IV-A: reduces only after all maps are done, and the
	 * shuffle only after all reduces are placed. */
	SCHED_AFTER_MAPS,
};

struct hyde_sched_ops {
	const char *name;
	const char *summary;
	/* Bytes of private state; it starts with the options struct that
	 * opts[] describes (offsets relative to the private state). */
	size_t priv_size;
	const struct opt_desc *opts;
	size_t n_opts;
	/* Defaults of the options (the paper's values), before -S. */
	void (*defaults)(void *priv);
	int (*init)(struct sched *s, char *errbuf);
	void (*destroy)(struct sched *s);
	void (*job_arrived)(struct sched *s, struct job *j);
	void (*task_finished)(struct sched *s, struct task *t);
	void (*stage_finished)(struct sched *s, struct job *j,
			       enum task_kind stage);
	/* A free container on host: the task to run there, or NULL. */
	struct task *(*pick_task)(struct sched *s, unsigned host);
	/* Periodic work; NULL if none. Called every heartbeat. */
	void (*tick)(struct sched *s, int64_t now);
	/* When reduces start; the slowstart fraction comes from -S
	 * slowstart= for schedulers that use SCHED_SLOWSTART. */
	enum sched_reduce_start (*reduce_start)(struct sched *s);
};

struct sched {
	const struct hyde_sched_ops *ops;
	struct ctl *ctl;
	struct cluster *c;
	const struct topo *t;
	struct rng rng;
	/* Options every scheduler has (-S slowstart=0.05). */
	double slowstart;
	void *priv;
};

/* NULL-terminated, in registry.c. */
extern const struct hyde_sched_ops *const sched_table[];
const struct hyde_sched_ops *sched_find(const char *name);

/* Allocate with defaults and apply "key=value" options; errors name the
 * option. The caller frees with sched_free. */
int sched_new(const char *name, char *const *kv, int n_kv, struct sched **out,
	      char *errbuf);
void sched_free(struct sched *s);
/* Every scheduler's options with their defaults, for --help. */
void sched_print_options(void *fp);

/* ---- helpers schedulers share (sched.c) ---- */

/* Pending tasks of a job: the next pending map, preferring one whose block
 * has a replica on host (node-local), then in the host's rack, then any;
 * level says which (0 node, 1 rack, 2 any). NULL if none pending. */
enum sched_locality { LOC_NODE, LOC_RACK, LOC_ANY };
struct task *sched_pending_map(struct sched *s, struct job *j, unsigned host,
			       enum sched_locality max_level,
			       enum sched_locality *level);
/* The next pending reduce of a job that may run on host, if the job's
 * reduces may start now. */
struct task *sched_pending_reduce(struct sched *s, struct job *j, unsigned host);
/* May the task run on host (a pinned task only on its rack)? */
bool sched_task_fits(const struct sched *s, const struct task *t, unsigned host);
/* Does the job have a pending task of that kind? */
bool sched_job_has_pending(const struct job *j, enum task_kind kind);
/* May the job's reduces start (slowstart fraction or all maps done)? */
bool sched_reduces_may_start(struct sched *s, const struct job *j);
/* Running tasks per user, for fair ordering. */
unsigned sched_user_running(struct sched *s, uint32_t user);
/* The Fair Scheduler's order (fair.c): the READY jobs with a pending task,
 * by their user's running tasks, then their own, then readiness, then
 * index. order[] has room for every job, user_running[] for every user
 * (filled here). Returns how many jobs. */
size_t sched_fair_order(struct sched *s, uint32_t *order, unsigned *user_running);

#endif
