/* The backend interface: what the controller asks of the network and the
 * hosts, implemented by the simulator (src/sim/) and the emulator (emul/).
 * The controller drives everything through these calls and hears back
 * through the ctl_* callbacks (ctl.h); it cannot tell which backend runs.
 *
 * A task's life: task_start (its container is taken; the emulator starts
 * the process) -> task_compute (work for the duration; ctl_compute_done
 * when over) -> ... -> task_end. A reduce's fetches happen between start
 * and compute: flow_start (move the bytes; ctl_flow_done when the last
 * byte is in). Circuits: ocs_set asks for a matching; the backend stalls
 * exactly the changed ports for delta and reports ctl_circuit_up. */
#ifndef HYDE_BACKEND_H
#define HYDE_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "core/cluster.h"
#include "core/evloop.h"

struct ctl;
struct backend;
struct flow;
struct live_status;
struct opt_desc;

struct backend_ops {
	const char *name;
	size_t priv_size;
	enum evloop_clock clock;
	int (*init)(struct backend *b, char *errbuf);
	/* Tear down; also after a failure half-way. */
	void (*destroy)(struct backend *b);
	int (*task_start)(struct backend *b, struct hyde_task *t);
	int (*task_compute)(struct backend *b, struct hyde_task *t, int64_t duration);
	int (*task_end)(struct backend *b, struct hyde_task *t);
	int (*flow_start)(struct backend *b, struct flow *f);
	/* out_of[i]: the port rack i sends to, or -1 for none. */
	int (*ocs_set)(struct backend *b, const int32_t *out_of);
	/* Bytes of an active flow still to arrive, if the backend knows
	 * (may be NULL: the controller then counts the whole flow). */
	uint64_t (*flow_remaining)(struct backend *b, struct flow *f);
	/* The same for n flows at once, into left[] (may be NULL: one
	 * flow_remaining each); the fluid model reads them with their
	 * records' cache misses overlapped. */
	void (*flows_remaining)(struct backend *b, struct flow *const *f, size_t n, uint64_t *left);
	/* Bytes each link of the fabric has carried since the run began,
	 * in the network view's link order (netview.c): frames on the
	 * emulated fabric, payload in the fluid model (may be NULL).
	 * Returns when they were read, on the controller's clock (the
	 * middle of the read: a dump of every ToR takes milliseconds), or
	 * -1 for now (a model's counters are read at no time). */
	int64_t (*link_bytes)(struct backend *b, uint64_t *bytes);
	/* Figures to report (may be NULL). */
	void (*progress)(struct backend *b, char *buf, size_t len);
	/* Options it worked out itself, as KEY=VALUE words, into buf
	 * (empty: none; events.log's backend_derived line; may be NULL). */
	void (*derived)(struct backend *b, char *buf, size_t len);
	/* The live view's status, about every second of wall time while the
	 * run goes and once at its end (may be NULL; emulation: the state
	 * file hyde top reads). */
	void (*live)(struct backend *b, const struct live_status *s);
	/* Containers that schedulers hold (containers.c; each may be NULL:
	 * the simulator models their use itself). start: the container is
	 * granted (the emulator makes its cgroup; *priv is its own); stop:
	 * released, its tasks gone; usage: the CPU it used since it started
	 * (core-ns) and the memory it holds now (bytes), in emulated units,
	 * given the CPU its tasks declared so far (declared_ns, core-ns);
	 * raw_ns: the CPU as counted, everything at the tasks' scale. */
	int (*container_start)(struct backend *b, const struct hyde_container *c, void **priv);
	void (*container_stop)(struct backend *b, const struct hyde_container *c, void *priv);
	int (*container_usage)(struct backend *b, const struct hyde_container *c, void *priv,
			       double declared_ns, double *cpu_ns, double *raw_ns, double *mem);
	/* Options (-B KEY=VALUE; core/opts.h): opts describes the options
	 * struct at the start of priv, which is the backend's whole state
	 * (priv_size bytes, zeroed). defaults fills it before the options
	 * are set; check says whether they make a run (after every one is
	 * set; 0 or -EINVAL with a message). Each may be NULL. */
	const struct opt_desc *opts;
	size_t n_opts;
	void (*defaults)(void *priv);
	int (*check)(const void *priv, char *errbuf);
	/* The flow policy (enum hyde_net_policy) the options set, for the
	 * schedulers that model the network, or -1 (may be NULL): the
	 * controller's --net wins over it. */
	int (*net_policy)(const void *priv);
};

struct backend {
	const struct backend_ops *ops;
	struct ctl *ctl;
	struct evloop *loop;
	void *priv;
};

extern const struct backend_ops backend_sim;

/* Set a backend's options on priv (priv_size bytes, zeroed) as a run
 * does: defaults, each KEY=VALUE in order (a later one wins), check. 0,
 * or -EINVAL with "backend NAME: ..." in errbuf. */
int backend_opts_apply(const struct backend_ops *ops, void *priv, char *const *kv, int n_kv,
		       char *errbuf);
/* The same on a scratch state, to check options before a run. */
int backend_opts_check(const struct backend_ops *ops, char *const *kv, int n_kv, char *errbuf);
/* Every option with its default and help, for --help. */
void backend_print_options(const struct backend_ops *ops, void *fp);

#endif
