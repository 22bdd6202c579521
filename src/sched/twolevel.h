/* Two-level scheduling over containers that applications hold (COBRA §II-A
 * and §III): a job scheduler (YARN's Fair Scheduler) gives containers to
 * applications whose desire is unmet, and each application's task
 * scheduler places its tasks in the containers it holds. The schedulers
 * cobra, default, srs, drs and tetris share this; each is written, as
 * this is, against the public API (<hyde/sched.h>) alone. The pure rules
 * (Af, Pdelay's test, Tetris's score, Spark's ramp, Theorem 6's bound)
 * are functions of numbers, for the tests. */
#ifndef HYDE_TWOLEVEL_H
#define HYDE_TWOLEVEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hyde/sched.h>

/* ---- pure rules ---- */

/* COBRA Alg. 1 (Af): the desire for period q from period q-1's. */
enum tl_af_case {
	TL_AF_FIRST,	   /* q = 1: d = 1 */
	TL_AF_INEFFICIENT, /* u < delta and no waiting task: d / rho */
	TL_AF_DEPRIVED,	   /* efficient, a < d: d */
	TL_AF_SATISFIED,   /* efficient, a >= d: d x rho */
};
/* satisfied: the allocation met the desire (a >= the containers asked
 * for); u: the period's utilisation, max over resources; waiting: a task
 * waited in the period. */
double tl_af(double d_prev, bool satisfied, double u, bool waiting, double rho,
	     double delta_u, enum tl_af_case *why);
/* The containers a desire asks for: ceil(d) within [1, most]. */
unsigned tl_af_want(double d, unsigned most);

/* COBRA Alg. 2 (Pdelay): may a waiting task at this locality (node-local,
 * rack-local, or elsewhere) run in a container now? wait: how long it has
 * waited; p: its processing time; free_frac: the container's free share,
 * least over resources (line 8: n.free >= 1 - delta). Whether its demand
 * fits is the caller's test. */
bool tl_pdelay_ok(enum hyde_locality level, double wait, double p, double tau,
		  double free_frac, double delta_u);

/* Tetris's packing score ([Tetris], a reconstruction: docs/REFERENCES.md,
 * "Readings"): the
 * alignment sum_k demand_k / cap_k x free_k / cap_k, 0 if the demand does
 * not fit what is free. */
double tl_alignment(const struct hyde_res *demand, const struct hyde_res *free,
		    const struct hyde_res *cap);

/* COBRA Theorem 6: the makespan bound (2 / (1 - delta) + (1 + rho) /
 * delta + 2 tau / theta) T* + L log_rho P + 2L, with T* >= max(span +
 * release, work / P): lb is that lower bound. */
double tl_theorem6(double lb, double delta_u, double rho, double tau, double theta, double l,
		   double p);

/* ---- the framework ---- */

/* An application as the framework sees it. */
struct tl_app {
	bool active;   /* arrived, not done */
	unsigned want; /* containers it asks the job scheduler for */
	double desire; /* COBRA's real-valued d(J, q) */
	int64_t arrived;
	/* COBRA's period: start, utilisation samples, whether a task waited */
	int64_t period_start;
	double u_sum[HYDE_RES_KINDS];
	unsigned u_n;
	bool waited;
	unsigned period;
	/* Spark dynamic allocation */
	int64_t backlog_since, next_add;
	unsigned to_add;
};

struct twolevel {
	struct hyde_sched *s;
	size_t n_apps;
	struct tl_app *apps;
	uint32_t *active; /* apps arrived and not done, by arrival */
	size_t n_active;
	struct hyde_res csize; /* the container apps ask for */
	struct hyde_res cluster; /* every host's resources together */
	int64_t *reduce_ready;	 /* per job: when its maps were all done */
	/* Spark's delay scheduling (spark.locality.wait), per job */
	enum hyde_locality *spark_level;
	int64_t *spark_last;
	/* changes of the apps' wants (tl_want) and of the active apps */
	uint64_t want_gen, active_gen;
	/* tl_allocate found no app wanting a container, with these counts
	 * (and hyde_container_changes): while they stay, none does */
	bool idle;
	uint64_t idle_want, idle_active, idle_conts;
};

/* Set an app's want (every change of one goes through here). */
static inline void tl_want(struct twolevel *tl, struct tl_app *a, unsigned want)
{
	if (a->want != want) {
		a->want = want;
		tl->want_gen++;
	}
}

int tl_init(struct twolevel *tl, struct hyde_sched *s, char *errbuf);
/* Every task fits a default container (the schedulers that only ask for
 * those): 0, or -EINVAL with a message. */
int tl_check_fit(struct hyde_sched *s, char *errbuf);
void tl_destroy(struct twolevel *tl);
/* hooks every two-level scheduler forwards */
void tl_job_arrived(struct twolevel *tl, const struct hyde_job *j);
void tl_stage_finished(struct twolevel *tl, const struct hyde_job *j, enum hyde_task_kind k);
void tl_job_finished(struct twolevel *tl, const struct hyde_job *j);
/* Spark's stage barrier: a job's reduces wait for all its maps. */
bool tl_reduces_may_start(struct hyde_sched *s, const struct hyde_job *j);

/* The app's containers not released (starting or running). */
unsigned tl_held(const struct twolevel *tl, uint32_t app);
/* The app's waiting tasks (pending, of a job whose stage is available)
 * and running ones. */
unsigned tl_waiting(const struct twolevel *tl, uint32_t app);
unsigned tl_running(const struct twolevel *tl, uint32_t app);
/* When the task became waiting (its stage became available). */
int64_t tl_waiting_since(const struct twolevel *tl, const struct hyde_task *t);

/* YARN's Fair Scheduler at a host's heartbeat: while a container of
 * csize fits the host, give one to the active app with the smallest
 * share of the cluster (dominant share of what it holds, ties by
 * arrival) among those holding fewer than they want. */
void tl_allocate(struct twolevel *tl, unsigned host);

/* The next task of the app for a container on host, over its jobs with a
 * stage available (workload order): a map by its input's locality, no
 * further than max (*level says which), or a reduce (no input to be near:
 * node-local everywhere); only if its demand fits `room` (NULL: any)
 * and ok() says yes (NULL: always). NULL if none. */
typedef bool (*tl_ok_fn)(struct twolevel *tl, const struct hyde_task *t, enum hyde_locality level,
			 void *arg);
const struct hyde_task *tl_next_task(struct twolevel *tl, uint32_t app, unsigned host,
				     enum hyde_locality max, const struct hyde_res *room,
				     tl_ok_fn ok, void *arg, enum hyde_locality *level);
/* Spark's delay scheduling (TaskSetManager, spark.locality.wait = 3s per
 * level): the job's allowed level rises after `wait` without a launch at
 * the current one, and falls back to node-local on a node-local launch. */
const struct hyde_task *tl_spark_task(struct twolevel *tl, uint32_t app, unsigned host,
				      const struct hyde_res *room, int64_t wait);

/* A task for a Spark executor: Spark's slots (a task per core, whatever
 * it uses) or, with pack, by demands; none once the app is done (the
 * container then goes back). */
const struct hyde_task *tl_spark_pick_in(struct twolevel *tl, const struct hyde_container *c,
					 bool pack, int64_t wait);

/* What a container has left, and its least free share over resources. */
void tl_room(const struct hyde_container *c, struct hyde_res *room);
double tl_free_frac(const struct hyde_container *c);
/* Release the app's running containers with no task beyond `keep` held
 * in all, those idle longest first; how many released. */
unsigned tl_shrink(struct twolevel *tl, uint32_t app, unsigned keep);
/* Release every container of the app (it is done). */
void tl_release_all(struct twolevel *tl, uint32_t app);

#endif
