/* Controller internals shared by ctl.c, circuits.c and report.c. */
#ifndef HYDE_CTL_INT_H
#define HYDE_CTL_INT_H

#include "ctl/ctl.h"

/* OCS demand of one job on one rack pair, with the flows waiting for the
 * pair's circuit. */
struct ocs_pair {
	uint32_t src, dst;
	uint64_t bytes_left;	 /* of flows not done (from the backend when known) */
	unsigned flows_left;
	struct flow *wait_head, *wait_tail;
	struct flow **flows; /* all of them, for the demand left */
	size_t n_flows, cap_flows;
};

struct rstate {
	unsigned active;	     /* parallel copies in use */
	struct flow *wait_head, *wait_tail; /* flows waiting for a copy */
	struct flow **open;	     /* waiting flows per source host, for batching */
	uint32_t maps_seen;	     /* map outputs handed to this reduce */
	uint32_t flows_left;	     /* flows created and not done */
	uint64_t bytes_done;	     /* of its fetches done, for its progress */
	int64_t compute_start;	     /* when its work began */
	bool computing;
};

struct jstate {
	struct rstate *red;
	uint32_t *maps_done_rack;	 /* finished maps per rack */
	uint64_t *red_bytes_rack;	 /* shuffle bytes of placed reduces per rack */
	uint32_t reduces_placed;
	bool shuffle_open;	 /* reduces may fetch (barrier passed) */
	bool arrived;
	int64_t start, maps_done_at;
	/* the coflow */
	uint32_t flows, flows_done;
	uint64_t bytes, ocs_bytes, bytes_done, cross_rack_bytes;
	int64_t cf_start, cf_end, lower_bound;
	struct ocs_pair *pairs;
	size_t n_pairs, cap_pairs;
	uint32_t *pair_tab;	 /* hash of pairs by (src, dst): index + 1, 0 empty */
	size_t pair_mask;
	uint32_t ocs_flows_left; /* OCS flows made and not done */
	bool ocs_active;
};

/* The circuit executor (circuits.c). */
struct cexec {
	const struct csched_ops *cs;
	int32_t *out_of, *in_of; /* the matching asked for */
	bool *up;		 /* out_of[i] is carrying data */
	int32_t *owner;		 /* by source port: the coflow of the reservation */
	int64_t *resv_end;
	struct cs_plan plan;
	size_t next;		 /* next reservation to start */
	struct evtimer resv_timer, replan_timer, soon_timer;
	uint64_t reconfigs;
	uint64_t plans;
};

struct ctl {
	struct ctl_opts opts;
	struct topo *t;
	struct workload *wl;
	struct cluster *c;
	struct evloop loop;
	struct backend be;
	struct sched *sched;
	struct rng rng;
	struct jstate *js;
	struct flow **flows;
	size_t n_flows, cap_flows;
	uint32_t *arrival_order;
	size_t next_arrival;
	struct evtimer arrival_timer, sched_timer, heartbeat_timer, progress_timer;
	unsigned host_rr;
	uint64_t tasks_started;
	size_t jobs_done, jobs_failed;
	int64_t t0; /* loop time at start */
	int64_t first_arrival, last_end;
	uint64_t ocs_bytes, eps_bytes, rack_bytes, host_bytes, bytes_done;
	unsigned *host_out, *host_in;
	double *up_load, *down_load; /* bytes/s of EPS flows started, per rack */
	struct cexec cx;
	bool failed;
	char failmsg[HYDE_ERRBUF_SIZE];
	FILE *events;
	char *outdir;
	int64_t wall_start;
};

/* circuits.c */
int cexec_init(struct ctl *c, const char *name, char *errbuf);
void cexec_destroy(struct ctl *c);
/* Demand changed (a coflow's OCS flows appeared): re-plan soon. */
void cexec_demand_changed(struct ctl *c);
/* An OCS flow ended: re-plan if it was its coflow's last (Sunflow re-plans
 * when a coflow arrives or finishes, and at T_plan; not per flow). */
void cexec_flow_done(struct ctl *c, const struct flow *f);
/* The circuit of flow f's pair is up and owned by its coflow: may start? */
bool cexec_may_send(struct ctl *c, const struct flow *f);
void cexec_circuit_up(struct ctl *c, unsigned src, unsigned dst);

/* ctl.c: start an OCS flow that was waiting for its circuit. */
void ctl_release_pair(struct ctl *c, uint32_t job, uint32_t src, uint32_t dst);
struct ocs_pair *ctl_pair(struct ctl *c, uint32_t job, uint32_t src, uint32_t dst);

/* report.c */
int report_write_app(struct ctl *c, char *errbuf);
int report_write_analysis(struct ctl *c, char *errbuf);

#endif
