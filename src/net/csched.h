/* Circuit schedulers: given the OCS demand of the active coflows (bytes
 * left per rack pair), plan timed circuit reservations. The controller
 * executes the plan (ctl/circuits.c): it sets the matching at each
 * reservation's start (the backend stalls the changed ports for delta) and
 * lets the owning coflow's flows use the circuit. */
#ifndef HYDE_CSCHED_H
#define HYDE_CSCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* OCS demand of one coflow on one rack pair. */
struct cs_demand {
	uint32_t coflow; /* also its arrival rank: lower is older */
	uint32_t src, dst;
	double bits;
};

/* A circuit already carrying data when the plan is made: it keeps its
 * ports until `until` (plans are non-preemptive for what has started). */
struct cs_busy {
	uint32_t src, dst, coflow;
	int64_t until;
};

struct cs_input {
	int64_t now;
	unsigned ports;
	double bw;     /* bits per ns */
	int64_t delta; /* ns */
	const struct cs_demand *d;
	size_t n_d;
	/* d lists coflows in ascending order and a coflow's pair at most
	 * once (the controller's); false: any order, a pair's entries are
	 * summed */
	bool unique;
	const struct cs_busy *busy;
	size_t n_busy;
	const int32_t *out_of; /* circuits up or being set up now: dst or -1 */
	/* 0: plan everything now; else a scheduler with a `more` may stop
	 * once it has this many reservations (whole instants) and set
	 * cs_plan.more: the rest, which starts later, is the same whether
	 * it is made now or asked for as it is reached */
	size_t chunk;
	/* the scheduler's state (priv_size bytes), its options first;
	 * NULL when it has none */
	const void *priv;
};

struct cs_resv {
	uint32_t coflow, src, dst;
	int64_t start, end;
};

struct cs_plan {
	struct cs_resv *r;
	size_t n, cap;
	int64_t replan_at; /* re-plan then even if nothing changes; -1 none */
	/* the plan goes on after its last reservation (cs_input.chunk): ask
	 * for more before that one starts; replan_at is set only once there
	 * is no more */
	bool more;
	/* what a scheduler keeps from one plan to the next (work it need
	 * not redo), freed by cs_plan_free */
	void *cache;
	void (*cache_free)(void *cache);
};

struct csched_ops {
	const char *name;
	const char *summary;
	/* Plan from scratch. Reservations may start at in->now or later. */
	int (*plan)(const struct cs_input *in, struct cs_plan *out);
	/* The plan's next part (out->more), at least want reservations
	 * (0: all the rest), appended: they start after those it had.
	 * NULL: plans are made whole. */
	int (*more)(struct cs_plan *out, size_t want);
	/* Re-plan every period (greedy), 0 for none. */
	int64_t period;
	/* Options (-C NAME:KEY=VALUE; core/opts.h): opts describes the
	 * options struct at the start of the state (priv_size bytes,
	 * zeroed; cs_input.priv), defaults fills it before them. */
	size_t priv_size;
	const struct opt_desc *opts;
	size_t n_opts;
	void (*defaults)(void *priv);
};

extern const struct csched_ops csched_sunflow;
extern const struct csched_ops csched_greedy;
extern const struct csched_ops *const csched_table[];
const struct csched_ops *csched_find(const char *name);
/* A circuit scheduler from its spec, NAME[:KEY=VALUE...]: its ops, and
 * its state with the options set (NULL if it has none; the caller frees
 * it). 0, or -EINVAL with a message. */
int csched_new(const char *spec, const struct csched_ops **ops, void **priv, char *errbuf);
/* Each scheduler's options with their defaults, for --help. */
void csched_print_options(void *fp);

void cs_plan_reset(struct cs_plan *p);
void cs_plan_add(struct cs_plan *p, uint32_t coflow, uint32_t src,
		 uint32_t dst, int64_t start, int64_t end);
void cs_plan_free(struct cs_plan *p);

#endif
