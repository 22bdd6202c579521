/* The scheduler API (<hyde/sched.h>) on hyde's side: making a scheduler
 * from a name or a plugin, its options, and every hyde_* function a
 * scheduler may call. All of them live in this one object so that the
 * hyde executable, which exports them to plugins (-Wl,--dynamic-list),
 * links every one of them from libhyde.a. */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/sort.h"
#include "core/util.h"
#include "ctl/ctl_int.h"
#include "ctl/sched_host.h"
#include "net/netsched.h"

/* ---- making a scheduler ---- */

const struct hyde_sched_ops *sched_find(const char *name)
{
	size_t i;

	for (i = 0; sched_table[i]; i++)
		if (!strcmp(sched_table[i]->name, name))
			return sched_table[i];
	return NULL;
}

bool sched_is_plugin(const char *spec)
{
	size_t n = strlen(spec);

	return strchr(spec, '/') || (n > 3 && !strcmp(spec + n - 3, ".so"));
}

void sched_names(char *buf, size_t len)
{
	size_t i;

	buf[0] = '\0';
	for (i = 0; sched_table[i]; i++) {
		strncat(buf, i ? ", " : "", len - strlen(buf) - 1);
		strncat(buf, sched_table[i]->name, len - strlen(buf) - 1);
	}
}

static const struct opt_desc common_opts[] = {
	{ "slowstart", O_DOUBLE, offsetof(struct hyde_sched_host, slowstart), 0, 1,
	  "fraction of maps done before reduces may start (Hadoop's slowstart)" },
	{ "assign", O_UNS, offsetof(struct hyde_sched_host, assign), 0, 1e6,
	  "containers offered per node heartbeat (all, or N; YARN's assignmultiple)" },
};

static const enum opt_kind opt_kinds[] = {
	[HYDE_OPT_DOUBLE] = O_DOUBLE, [HYDE_OPT_SIZE] = O_SIZE, [HYDE_OPT_RATE] = O_RATE,
	[HYDE_OPT_TIME] = O_TIME,     [HYDE_OPT_U32] = O_U32,   [HYDE_OPT_UNS] = O_UNS,
	[HYDE_OPT_BOOL] = O_BOOL,     [HYDE_OPT_STR] = O_STR,
};

/* The ops' option table as core/opts reads it; NULL with a message if a
 * plugin's table is not one. */
static struct opt_desc *convert_opts(const struct hyde_sched_ops *ops, char *errbuf)
{
	struct opt_desc *d = xcalloc(ops->n_opts + 1, sizeof(*d));
	size_t i;

	for (i = 0; i < ops->n_opts; i++) {
		const struct hyde_opt *o = &ops->opts[i];

		if (!o->name || (unsigned)o->kind >= ARRAY_SIZE(opt_kinds) ||
		    o->offset >= ops->priv_size) {
			errbuf_set(errbuf, "scheduler %s: option %zu of its table is malformed", ops->name, i);
			free(d);
			return NULL;
		}
		d[i] = (struct opt_desc){ o->name, opt_kinds[o->kind], o->offset, o->min, o->max,
					  o->help ? o->help : "" };
	}
	return d;
}

static int load_plugin(const char *path, struct hyde_sched *s, char *errbuf)
{
	const struct hyde_sched_ops *ops;
	const char *err;
	void *dl;

	dlerror();
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		err = dlerror();
		errbuf_set(errbuf, "scheduler plugin %s: %s", path, err ? err : "cannot load");
		return -EINVAL;
	}
	ops = dlsym(dl, "hyde_sched_plugin");
	if (!ops) {
		errbuf_set(errbuf, "scheduler plugin %s: no symbol hyde_sched_plugin (expected 'const struct hyde_sched_ops hyde_sched_plugin = { ... }')",
			   path);
		dlclose(dl);
		return -EINVAL;
	}
	if (ops->api_version != HYDE_SCHED_API_VERSION && ops->api_version != 1) {
		errbuf_set(errbuf, "scheduler plugin %s: built for scheduler API version %u, this hyde has version %d (rebuild it against this hyde's <hyde/sched.h>)",
			   path, ops->api_version, HYDE_SCHED_API_VERSION);
		dlclose(dl);
		return -EINVAL;
	}
	if (ops->api_version == 1) {
		/* version 1's table ends before pick_task_in: read no further
		 * than its end, and leave the version 2 ops NULL */
		struct hyde_sched_ops *v1 = xcalloc(1, sizeof(*v1));

		memcpy(v1, ops, offsetof(struct hyde_sched_ops, pick_task_in));
		s->host->ops_copy = v1;
		ops = v1;
	}
	if (!ops->name || !ops->name[0] ||
	    !(ops->pick_task || (ops->next_task && ops->pick_host) || ops->pick_task_in)) {
		errbuf_set(errbuf, "scheduler plugin %s: its ops need a name and pick_task (or next_task and pick_host, or pick_task_in)",
			   path);
		dlclose(dl);
		return -EINVAL;
	}
	s->ops = ops;
	s->host->dl = dl;
	s->host->path = xstrdup(path);
	return 0;
}

/* assign=all or assign=N (N >= 1) */
static int set_assign(struct hyde_sched_host *h, const char *kv, char *errbuf)
{
	if (!strcmp(kv, "assign=all")) {
		h->assign = 0;
		return 0;
	}
	if (!strcmp(kv, "assign=0")) {
		errbuf_set(errbuf, "assign: expected 'all' or a number of containers from 1 up, got '0'");
		return -EINVAL;
	}
	return opts_set(h, &common_opts[1], 1, kv, errbuf);
}

static int sched_make(const char *name, const struct hyde_sched_ops *ops, char *const *kv,
		      int n_kv, struct hyde_sched **out, char *errbuf)
{
	struct hyde_sched *s = xcalloc(1, sizeof(*s));
	int i, r;

	s->host = xcalloc(1, sizeof(*s->host));
	s->host->slowstart = 0.05; /* mapreduce.job.reduce.slowstart.completedmaps */
	s->host->assign = 1;	   /* one container per heartbeat, as YARN's FairScheduler */
	s->host->placing_job = -1;
	if (ops) {
		if (ops->api_version != HYDE_SCHED_API_VERSION || !ops->name ||
		    !(ops->pick_task || (ops->next_task && ops->pick_host) || ops->pick_task_in)) {
			errbuf_set(errbuf, "scheduler %s: not an ops table of API version %d with pick_task (or next_task and pick_host, or pick_task_in)",
				   ops->name ? ops->name : "?", HYDE_SCHED_API_VERSION);
			r = -EINVAL;
			goto err;
		}
		s->ops = ops;
	} else if (sched_is_plugin(name)) {
		if ((r = load_plugin(name, s, errbuf)))
			goto err;
	} else if (!(s->ops = sched_find(name))) {
		char names[256];

		sched_names(names, sizeof(names));
		errbuf_set(errbuf, "unknown scheduler '%s' (expected one of: %s, or a plugin's path such as ./mysched.so)",
			   name, names);
		r = -EINVAL;
		goto err;
	}
	if (!(s->host->opts = convert_opts(s->ops, errbuf))) {
		r = -EINVAL;
		goto err;
	}
	s->priv = xcalloc(1, s->ops->priv_size ? s->ops->priv_size : 1);
	if (s->ops->defaults)
		s->ops->defaults(s->priv);
	for (i = 0; i < n_kv; i++) {
		char msg[HYDE_ERRBUF_SIZE];

		if (!strncmp(kv[i], "assign=", 7))
			r = set_assign(s->host, kv[i], msg);
		else
			r = opts_try_set(s->host, common_opts, 1, kv[i], msg);
		if (r == -ENOENT)
			r = s->ops->n_opts ? opts_try_set(s->priv, s->host->opts, s->ops->n_opts, kv[i], msg)
					   : -ENOENT;
		if (r == -ENOENT) {
			char names[512] = "slowstart, assign";
			size_t k;

			for (k = 0; k < s->ops->n_opts; k++) {
				strncat(names, ", ", sizeof(names) - strlen(names) - 1);
				strncat(names, s->ops->opts[k].name, sizeof(names) - strlen(names) - 1);
			}
			errbuf_set(errbuf, "scheduler %s: unknown option '%.*s' (expected one of: %s)",
				   s->ops->name, (int)strcspn(kv[i], "="), kv[i], names);
			r = -EINVAL;
			goto err;
		}
		if (r) {
			errbuf_set(errbuf, "scheduler %s: %s", s->ops->name, msg);
			r = -EINVAL;
			goto err;
		}
	}
	*out = s;
	return 0;
err:
	sched_free(s);
	return r;
}

int sched_new(const char *name, char *const *kv, int n_kv, struct hyde_sched **out,
	      char *errbuf)
{
	return sched_make(name, NULL, kv, n_kv, out, errbuf);
}

int sched_new_ops(const struct hyde_sched_ops *ops, char *const *kv, int n_kv,
		  struct hyde_sched **out, char *errbuf)
{
	return sched_make(NULL, ops, kv, n_kv, out, errbuf);
}

int sched_bind(struct hyde_sched *s, struct ctl *ctl, struct cluster *c, const struct topo *t,
	       uint64_t seed, int64_t heartbeat, char *errbuf)
{
	struct hyde_sched_host *h = s->host;
	struct hyde_cluster_info *ci = &h->info;
	char msg[HYDE_SCHED_ERRBUF] = "";
	int r;

	h->ctl = ctl;
	h->c = c;
	h->t = t;
	rng_seed2(&h->rng, seed, 2);
	*ci = (struct hyde_cluster_info){
		.racks = t->racks,
		.hosts_per_rack = t->hosts,
		.n_hosts = topo_n_hosts(t),
		.containers = t->containers,
		.replicas = t->replicas,
		.output_replication = t->output_replication,
		.host_rate = t->host_rate,
		.has_eps = t->has_eps,
		.uplink_rate = t->uplink_rate,
		.has_ocs = t->has_ocs,
		.ocs_rate = t->ocs_rate,
		.delta = t->delta,
		.t_e = t->t_e,
		.heartbeat = heartbeat,
		.assign = h->assign,
		.slowstart = h->slowstart,
		.n_jobs = c->n_jobs,
		.n_users = (unsigned)c->wl->n_users,
		.users = (const char *const *)c->wl->users,
		.host_capacity = { { t->cores, (double)t->memory } },
		.container_size = { { t->cores / t->containers, (double)t->memory / t->containers } },
		.n_apps = c->wl->n_apps,
		.container_delay = t->container_delay.mean,
	};
	if (ctl) { /* what the network does, for the schedulers that model it */
		const struct ctl_opts *o = ctl_options(ctl);
		const struct backend_ops *b = o->backend;
		int v;

		if (o->net && (v = netsched_net_parse(o->net)) >= 0)
			ci->net = (enum hyde_net_policy)v;
		else if (!o->net && b->net_policy && (v = b->net_policy(ctl_backend_priv(ctl))) >= 0)
			ci->net = (enum hyde_net_policy)v;
		if (o->coflow && (v = netsched_coflow_parse(o->coflow)) >= 0)
			ci->coflow = (enum hyde_coflow_policy)v;
	}
	h->offered = xcalloc(ci->n_hosts, sizeof(unsigned));
	if (s->ops->init && (r = s->ops->init(s, msg))) {
		errbuf_set(errbuf, "scheduler %s: %s", s->ops->name, msg[0] ? msg : strerror(-r));
		return r < 0 ? r : -EINVAL;
	}
	return 0;
}

void sched_free(struct hyde_sched *s)
{
	if (!s)
		return;
	if (s->host->ctl && s->ops->destroy)
		s->ops->destroy(s);
	free(s->priv);
	free(s->host->opts);
	free(s->host->offered);
	free(s->host->active);
	free(s->host->by_ready);
	free(s->host->fo_tmp);
	free(s->host->fo_cnt);
	free(s->host->in_by_ready);
	if (s->host->dl)
		dlclose(s->host->dl);
	free(s->host->ops_copy);
	free(s->host->path);
	free(s->host);
	free(s);
}

void sched_print_options(FILE *fp)
{
	struct hyde_sched_host common = { .slowstart = 0.05, .assign = 1 };
	size_t i;

	fprintf(fp, "Scheduler options (-S KEY=VALUE; defaults shown):\n all:\n");
	opts_print(&common, common_opts, ARRAY_SIZE(common_opts), fp);
	for (i = 0; sched_table[i]; i++) {
		const struct hyde_sched_ops *ops = sched_table[i];
		struct opt_desc *d;
		void *priv;

		if (!ops->n_opts)
			continue;
		d = convert_opts(ops, (char[HYDE_ERRBUF_SIZE]){ 0 });
		priv = xcalloc(1, ops->priv_size);
		if (ops->defaults)
			ops->defaults(priv);
		fprintf(fp, " %s:\n", ops->name);
		opts_print(priv, d, ops->n_opts, fp);
		free(priv);
		free(d);
	}
}

void sched_placing(struct hyde_sched *s, int32_t job)
{
	s->host->placing_job = job;
}

/* ---- the cluster ---- */

const struct hyde_cluster_info *hyde_cluster(const struct hyde_sched *s)
{
	return &s->host->info;
}

/* The time of the event being handled (evloop_event_time): in a tick or
 * a node's heartbeat its deadline, not the clock, which a real-time loop
 * reads a few ms late by a different amount each time. drs set a
 * deadline a second on from one tick's clock and missed it at the next
 * by microseconds when that tick was less late: its first executor came
 * a second after the simulator's (tiny x small.wl: average JCT 1.165x
 * the model's in three of three runs). */
int64_t hyde_now(const struct hyde_sched *s)
{
	return evloop_event_time(ctl_loop(s->host->ctl));
}

const struct hyde_job *hyde_job(const struct hyde_sched *s, uint32_t idx)
{
	return idx < s->host->c->n_jobs ? &s->host->c->jobs[idx] : NULL;
}

const uint32_t *hyde_active_jobs(const struct hyde_sched *s, size_t *n)
{
	struct hyde_sched_host *h = s->host;
	const uint32_t *all = ctl_arrived_jobs(h->ctl, n);
	size_t i, k = 0;

	hyde_grow((void **)&h->active, &h->cap_active, *n + 1, sizeof(uint32_t));
	for (i = 0; i < *n; i++) {
		const struct hyde_job *j = &h->c->jobs[all[i]];

		if (j->state != HYDE_JOB_DONE && j->state != HYDE_JOB_FAILED)
			h->active[k++] = all[i];
	}
	*n = k;
	return h->active;
}

unsigned hyde_host_free(const struct hyde_sched *s, unsigned host)
{
	return host < s->host->c->n_hosts ? s->host->c->free_slots[host] : 0;
}

unsigned hyde_rack_free(const struct hyde_sched *s, unsigned rack)
{
	return rack < s->host->t->racks ? s->host->c->rack_free[rack] : 0;
}

unsigned hyde_total_free(const struct hyde_sched *s)
{
	return s->host->c->total_free;
}

unsigned hyde_host_offered(const struct hyde_sched *s, unsigned host)
{
	return host < s->host->c->n_hosts ? s->host->offered[host] : 0;
}

/* ---- data ---- */

int hyde_place_block(struct hyde_sched *s, const struct hyde_job *j, uint32_t b,
		     const uint32_t *hosts, unsigned n)
{
	struct hyde_sched_host *h = s->host;
	struct hyde_job *jm;
	unsigned k, i;

	if (!j || h->placing_job != (int32_t)j->idx || j->input_from_parents)
		return -EPERM;
	if (b >= j->n_maps || n == 0 || n > HYDE_MAX_REPLICAS)
		return -EINVAL;
	for (k = 0; k < n; k++) {
		if (hosts[k] >= h->c->n_hosts)
			return -EINVAL;
		for (i = 0; i < k; i++)
			if (hosts[i] == hosts[k])
				return -EINVAL;
	}
	jm = &h->c->jobs[j->idx];
	jm->blocks[b].n_replicas = n;
	memcpy(jm->blocks[b].replica, hosts, n * sizeof(uint32_t));
	jm->blocks_version++;
	return 0;
}

int hyde_place_blocks_racks(struct hyde_sched *s, const struct hyde_job *j,
			    const uint32_t *const *sets, unsigned n_racks)
{
	struct hyde_sched_host *h = s->host;
	unsigned k, i, want = h->t->replicas < HYDE_MAX_REPLICAS ? h->t->replicas : HYDE_MAX_REPLICAS;

	if (!j || h->placing_job != (int32_t)j->idx || j->input_from_parents)
		return -EPERM;
	if (!n_racks)
		return -EINVAL;
	for (k = 0; k < want; k++)
		for (i = 0; i < n_racks; i++)
			if (sets[k][i] >= h->t->racks)
				return -EINVAL;
	cluster_place_blocks_racks(h->c, &h->c->jobs[j->idx], sets, n_racks, &h->rng);
	return 0;
}

bool hyde_block_on_host(const struct hyde_block *b, unsigned host)
{
	return block_on_host(b, host);
}

bool hyde_block_on_rack(const struct hyde_sched *s, const struct hyde_block *b, unsigned rack)
{
	return block_on_rack(s->host->c, b, rack);
}

uint64_t hyde_input_bytes_on_host(const struct hyde_sched *s, const struct hyde_job *j,
				  uint32_t m, unsigned host)
{
	return cluster_input_bytes_on(s->host->c, j, m, host, false);
}

uint64_t hyde_input_bytes_on_rack(const struct hyde_sched *s, const struct hyde_job *j,
				  uint32_t m, unsigned rack)
{
	return cluster_input_bytes_on(s->host->c, j, m, rack, true);
}

void hyde_job_map_output(const struct hyde_sched *s, uint32_t job, uint64_t *per_rack,
			 uint64_t *per_host)
{
	ctl_job_map_output(s->host->ctl, job, per_rack, per_host);
}

uint32_t hyde_tasks_on_rack(const struct hyde_sched *s, uint32_t job, enum hyde_task_kind kind,
			    unsigned rack)
{
	const struct cluster *c = s->host->c;

	if (job >= c->n_jobs || rack >= c->topo->racks || !c->placed[job])
		return 0;
	return c->placed[job][(kind == HYDE_MAP ? 0 : c->topo->racks) + rack];
}

uint64_t hyde_map_output_bytes(const struct hyde_sched *s, uint32_t job, uint32_t m)
{
	return ctl_map_output_bytes(s->host->ctl, job, m);
}

int hyde_task_progress(const struct hyde_sched *s, const struct hyde_task *t,
		       int64_t *elapsed, double *p)
{
	return ctl_task_progress(s->host->ctl, t, elapsed, p);
}

/* ---- the network view ---- */

int hyde_net_link(const struct hyde_sched *s, enum hyde_link_kind kind, unsigned idx,
		  struct hyde_link_state *out)
{
	return ctl_net_link(s->host->ctl, kind, idx, out);
}

void hyde_net_interval(const struct hyde_sched *s, int64_t *from, int64_t *to)
{
	ctl_net_interval(s->host->ctl, from, to);
}

size_t hyde_net_flows(const struct hyde_sched *s, struct hyde_flow_state *out, size_t max)
{
	return ctl_net_flows(s->host->ctl, out, max);
}

size_t hyde_net_flows_into(const struct hyde_sched *s, unsigned host, struct hyde_flow_state *out,
			   size_t max)
{
	return ctl_net_flows_into(s->host->ctl, host, out, max);
}

uint64_t hyde_net_bytes_into(const struct hyde_sched *s, unsigned host)
{
	return ctl_net_bytes_into(s->host->ctl, host);
}

uint64_t hyde_net_into_version(const struct hyde_sched *s, unsigned host)
{
	return ctl_net_into_version(s->host->ctl, host);
}

bool hyde_flow_crosses(const struct hyde_sched *s, const struct hyde_flow_state *f,
		       enum hyde_link_kind kind, unsigned idx)
{
	return ctl_flow_crosses(s->host->ctl, f, kind, idx);
}

unsigned hyde_host_flows_out(const struct hyde_sched *s, unsigned host)
{
	return ctl_host_flows_out(s->host->ctl, host);
}

unsigned hyde_host_flows_in(const struct hyde_sched *s, unsigned host)
{
	return ctl_host_flows_in(s->host->ctl, host);
}

/* ---- applications and their containers ---- */

const struct hyde_app *hyde_app(const struct hyde_sched *s, uint32_t idx)
{
	return cont_app(s->host->ctl, idx);
}

void hyde_host_unreserved(const struct hyde_sched *s, unsigned host, struct hyde_res *out)
{
	cont_host_unreserved(s->host->ctl, host, out);
}

int hyde_container_request(struct hyde_sched *s, uint32_t app, unsigned host,
			   const struct hyde_res *size)
{
	return cont_request(s->host->ctl, app, host, size);
}

int hyde_container_release(struct hyde_sched *s, uint32_t id)
{
	return cont_release(s->host->ctl, id);
}

const struct hyde_container *hyde_container(const struct hyde_sched *s, uint32_t id)
{
	return cont_get(s->host->ctl, id);
}

const uint32_t *hyde_app_containers(const struct hyde_sched *s, uint32_t app, size_t *n)
{
	return cont_app_list(s->host->ctl, app, n);
}

void hyde_app_held(const struct hyde_sched *s, uint32_t app, struct hyde_res *held)
{
	cont_app_held(s->host->ctl, app, held);
}

uint64_t hyde_container_changes(const struct hyde_sched *s)
{
	return cont_changes(s->host->ctl);
}

const uint32_t *hyde_host_containers(const struct hyde_sched *s, unsigned host, size_t *n)
{
	return cont_host_list(s->host->ctl, host, n);
}

int hyde_container_usage(const struct hyde_sched *s, uint32_t id, struct hyde_res *util)
{
	return cont_usage(s->host->ctl, id, util);
}

/* ---- helpers: pending tasks ---- */

bool hyde_task_fits(const struct hyde_sched *s, const struct hyde_task *t, unsigned host)
{
	const struct hyde_job *j = &s->host->c->jobs[t->job];
	const uint32_t *pin = t->kind == HYDE_MAP ? j->map_racks : j->reduce_racks;

	/* a remote map (flow-level workloads) reads its block over the
	 * network: never where the block is */
	if (t->kind == HYDE_MAP && j->wl->remote && block_on_host(&j->blocks[t->idx], host))
		return false;
	return !pin || pin[t->idx] == topo_host_rack(s->host->t, host);
}

/* Pending maps of a job by where their input is (Hadoop's task cache):
 * per host, the maps with a replica there; per rack, the same by rack (or,
 * for maps pinned to racks, by pin); and all of them. Lists (CSR) are in
 * map order, and each entry has a "next pending" pointer: nxt[k] is an
 * entry at or after k, and no map between k and nxt[k] is pending. A map
 * never becomes pending again (a failure fails the run), so the pointers
 * only move forward; they are compressed as they are followed, and a scan
 * costs the pending maps it looks at, not the started ones before and
 * between them (which maps started from another list leave). */
struct map_index {
	unsigned version;
	uint32_t *host_off, *host_maps, *host_nxt;
	uint32_t *rack_off, *rack_maps, *rack_nxt;
	uint32_t *any_nxt; /* over the maps in index order */
	uint32_t red_cur; /* reduces before it have started */
	bool pinned;
};

void map_index_free(struct map_index *mi)
{
	if (!mi)
		return;
	free(mi->host_off);
	free(mi->host_maps);
	free(mi->host_nxt);
	free(mi->rack_off);
	free(mi->rack_maps);
	free(mi->rack_nxt);
	free(mi->any_nxt);
	free(mi);
}

/* 0, 1, ..., n - 1 */
static uint32_t *identity(uint32_t n)
{
	uint32_t *v = xcalloc(n, sizeof(uint32_t)), i;

	for (i = 0; i < n; i++)
		v[i] = i;
	return v;
}

/* CSR lists: key(m, k) gives the k-th key of map m, or -1; each with its
 * next-pending pointers (struct map_index). */
static void csr_build(uint32_t n_keys, uint32_t n_maps, unsigned per_map,
		      long (*key)(const struct hyde_job *, uint32_t, unsigned, const struct topo *),
		      const struct hyde_job *j, const struct topo *t,
		      uint32_t **off, uint32_t **list, uint32_t **nxt)
{
	uint32_t m, *fill;
	unsigned k;

	*off = xcalloc(n_keys + 1, sizeof(uint32_t));
	for (m = 0; m < n_maps; m++)
		for (k = 0; k < per_map; k++) {
			long v = key(j, m, k, t);

			if (v >= 0)
				(*off)[v + 1]++;
		}
	for (k = 0; k < n_keys; k++)
		(*off)[k + 1] += (*off)[k];
	*list = xcalloc((*off)[n_keys] + 1, sizeof(uint32_t));
	fill = xcalloc(n_keys + 1, sizeof(uint32_t));
	for (m = 0; m < n_maps; m++)
		for (k = 0; k < per_map; k++) {
			long v = key(j, m, k, t);

			if (v >= 0)
				(*list)[(*off)[v] + fill[v]++] = m;
		}
	free(fill);
	*nxt = identity((*off)[n_keys] + 1);
}

static long key_host(const struct hyde_job *j, uint32_t m, unsigned k, const struct topo *t)
{
	const struct hyde_block *b = &j->blocks[m];
	unsigned i;

	(void)t;
	if (k >= b->n_replicas)
		return -1;
	for (i = 0; i < k; i++) /* count a host once */
		if (b->replica[i] == b->replica[k])
			return -1;
	return b->replica[k];
}

static long key_rack(const struct hyde_job *j, uint32_t m, unsigned k, const struct topo *t)
{
	const struct hyde_block *b = &j->blocks[m];
	unsigned i;

	if (j->map_racks)
		return k == 0 ? (long)j->map_racks[m] : -1;
	if (k >= b->n_replicas)
		return -1;
	for (i = 0; i < k; i++)
		if (topo_host_rack(t, b->replica[i]) == topo_host_rack(t, b->replica[k]))
			return -1;
	return topo_host_rack(t, b->replica[k]);
}

static struct map_index *map_index_of(struct hyde_sched *s, struct hyde_job *j)
{
	struct map_index *mi = j->map_idx;
	const struct topo *t = s->host->t;

	if (mi && mi->version == j->blocks_version)
		return mi;
	map_index_free(mi);
	mi = xcalloc(1, sizeof(*mi));
	mi->version = j->blocks_version;
	mi->pinned = j->map_racks != NULL;
	csr_build(topo_n_hosts(t), j->n_maps, HYDE_MAX_REPLICAS, key_host, j, t,
		  &mi->host_off, &mi->host_maps, &mi->host_nxt);
	csr_build(t->racks, j->n_maps, HYDE_MAX_REPLICAS, key_rack, j, t, &mi->rack_off,
		  &mi->rack_maps, &mi->rack_nxt);
	mi->any_nxt = identity(j->n_maps + 1);
	j->map_idx = mi;
	return mi;
}

/* The first entry at or after k of a list (list NULL: the maps in index
 * order) whose map is pending, or end if none is before end; compresses
 * the path. The lists are cut in regions (a host's, a rack's) and end is
 * the region's: no path leaves its region, and what is past end is not
 * read (each entry read is likely a cache miss). */
static uint32_t next_pending(const struct hyde_job *j, const uint32_t *list, uint32_t *nxt,
			     uint32_t end, uint32_t k)
{
	uint32_t r = k, up;

	while (r < end && (nxt[r] != r || j->maps[list ? list[r] : r].state != HYDE_TASK_PENDING)) {
		if (nxt[r] == r)
			nxt[r] = r + 1; /* it has started: for good */
		r = nxt[r];
	}
	while (k < r) {
		up = nxt[k];
		nxt[k] = r;
		k = up;
	}
	return r;
}

/* First pending map in list[from .. end) that fits host. */
static const struct hyde_task *scan(struct hyde_sched *s, const struct hyde_job *j,
				    const uint32_t *list, uint32_t *nxt, uint32_t from, uint32_t end,
				    unsigned host)
{
	uint32_t k;

	for (k = next_pending(j, list, nxt, end, from); k < end;
	     k = next_pending(j, list, nxt, end, k + 1)) {
		const struct hyde_task *t = &j->maps[list ? list[k] : k];

		if (hyde_task_fits(s, t, host))
			return t;
	}
	return NULL;
}

const struct hyde_task *hyde_pending_map(struct hyde_sched *s, const struct hyde_job *jc,
					 unsigned host, enum hyde_locality max_level,
					 enum hyde_locality *level)
{
	struct hyde_job *j = &s->host->c->jobs[jc->idx]; /* its index is hyde's */
	const struct topo *tp = s->host->t;
	unsigned rack = topo_host_rack(tp, host);
	const struct hyde_task *t;
	struct map_index *mi;

	if (!j->maps || !hyde_job_has_pending(j, HYDE_MAP))
		return NULL; /* (not arrived, or done) */
	mi = map_index_of(s, j);
	t = scan(s, j, mi->host_maps, mi->host_nxt, mi->host_off[host], mi->host_off[host + 1], host);
	if (t) {
		*level = HYDE_NODE_LOCAL;
		return t;
	}
	if (max_level < HYDE_RACK_LOCAL)
		return NULL;
	t = scan(s, j, mi->rack_maps, mi->rack_nxt, mi->rack_off[rack],
		 mi->rack_off[rack + 1], host);
	if (t) {
		*level = HYDE_RACK_LOCAL;
		return t;
	}
	if (max_level < HYDE_OFF_RACK || mi->pinned)
		return NULL; /* a pinned map runs on its rack or nowhere */
	/* a remote job's maps may not run where their block is */
	t = scan(s, j, NULL, mi->any_nxt, 0, j->n_maps, host);
	if (t)
		*level = HYDE_OFF_RACK;
	return t;
}

bool hyde_reduces_may_start(struct hyde_sched *s, const struct hyde_job *j)
{
	if (s->ops->reduces_may_start)
		return s->ops->reduces_may_start(s, j);
	return j->maps_done >= (uint32_t)ceil(s->host->slowstart * j->n_maps);
}

const struct hyde_task *hyde_pending_reduce(struct hyde_sched *s, const struct hyde_job *jc,
					    unsigned host)
{
	struct hyde_job *j = &s->host->c->jobs[jc->idx];
	struct map_index *mi;
	uint32_t k;

	if (!j->maps || !hyde_job_has_pending(j, HYDE_REDUCE) || !hyde_reduces_may_start(s, j))
		return NULL;
	/* as the maps' cursors: a reduce never becomes pending again */
	mi = map_index_of(s, j);
	while (mi->red_cur < j->n_reduces && j->reduces[mi->red_cur].state != HYDE_TASK_PENDING)
		mi->red_cur++;
	for (k = mi->red_cur; k < j->n_reduces; k++)
		if (j->reduces[k].state == HYDE_TASK_PENDING && hyde_task_fits(s, &j->reduces[k], host))
			return &j->reduces[k];
	return NULL;
}

/* ---- helpers: fair order ---- */

unsigned hyde_user_running(const struct hyde_sched *s, uint32_t user)
{
	const struct cluster *c = s->host->c;
	unsigned n = 0;
	size_t i;

	for (i = 0; i < c->n_jobs; i++)
		if (c->jobs[i].user_idx == user)
			n += c->jobs[i].maps_running + c->jobs[i].reduces_running;
	return n;
}

/* Fair order: user's running tasks, then the job's, then readiness, then
 * index (a total order: runs are deterministic). It is worked out, without
 * comparing, as two stable counting sorts (by the job's running tasks,
 * then by its user's) of the READY jobs in (ready_at, index) order, which
 * is kept as jobs become ready: a pick costs the jobs in the cluster, not
 * a sort of them. */
static void fo_ready_add(struct hyde_sched_host *h, uint32_t job)
{
	const struct hyde_job *jb = h->c->jobs;
	size_t i;

	hyde_grow((void **)&h->by_ready, &h->cap_by_ready, h->n_by_ready + 1, sizeof(uint32_t));
	/* ready_at only grows: it goes last but for a tie at that instant */
	for (i = h->n_by_ready; i > 0; i--) {
		uint32_t o = h->by_ready[i - 1];

		if (jb[o].ready_at < jb[job].ready_at ||
		    (jb[o].ready_at == jb[job].ready_at && o < job))
			break;
		h->by_ready[i] = o;
	}
	h->by_ready[i] = job;
	h->n_by_ready++;
	h->in_by_ready[job] = 1;
}

/* Stable counting sort of the positions in[0..n) into out, by key[pos]
 * (at most kmax). */
static void fo_count_sort(struct hyde_sched_host *h, const uint32_t *in, uint32_t *out, size_t n,
			  const uint32_t *key, uint32_t kmax)
{
	size_t i;
	uint32_t k, sum = 0;

	hyde_grow((void **)&h->fo_cnt, &h->cap_fo_cnt, (size_t)kmax + 2, sizeof(uint32_t));
	memset(h->fo_cnt, 0, ((size_t)kmax + 2) * sizeof(uint32_t));
	for (i = 0; i < n; i++)
		h->fo_cnt[key[in[i]]]++;
	for (k = 0; k <= kmax; k++) {
		uint32_t c = h->fo_cnt[k];

		h->fo_cnt[k] = sum;
		sum += c;
	}
	for (i = 0; i < n; i++)
		out[h->fo_cnt[key[in[i]]]++] = in[i];
}

static uint64_t fo_key(const uint32_t *rkey, const uint32_t *ukey, uint32_t i)
{
	return (uint64_t)ukey[i] << 32 | rkey[i];
}

/* the keys of sched_fair_sort's merge */
struct fo_keys {
	const uint32_t *rkey, *ukey;
};

static inline bool fo_key_before(const struct fo_keys *k, const uint32_t *a, const uint32_t *b)
{
	return fo_key(k->rkey, k->ukey, *a) < fo_key(k->rkey, k->ukey, *b);
}

static HYDE_MSORT(fo_msort, uint32_t, const struct fo_keys *, fo_key_before)

void sched_fair_sort(struct hyde_sched_host *h, uint32_t *pos, uint32_t *tmp, size_t n,
		     const uint32_t *rkey, uint32_t rmax, const uint32_t *ukey, uint32_t umax,
		     enum sched_sort how)
{
	size_t i, lg = 1;

	for (i = 0; i < n; i++)
		pos[i] = (uint32_t)i;
	/* the counting sorts walk every count up to the largest key: a few
	 * hundred candidates among thousands of running tasks sort faster by
	 * merging (those walks were 4-8% of the SWIM day's time) */
	while (((size_t)1 << lg) < n)
		lg++;
	if (how == SCHED_SORT_ANY)
		how = 3 * n * lg < 2 * ((size_t)rmax + umax) ? SCHED_SORT_MERGE : SCHED_SORT_COUNT;
	if (how == SCHED_SORT_COUNT) { /* by the job's, then (stable) the user's */
		fo_count_sort(h, pos, tmp, n, rkey, rmax);
		fo_count_sort(h, tmp, pos, n, ukey, umax);
		return;
	}
	fo_msort(pos, n, tmp, &(struct fo_keys){ rkey, ukey }); /* stable */
}

/* The fair order of two candidates (positions in fo_tmp): by user's
 * running tasks, then the job's, then position (the stable sort's order);
 * fo_collect's first and hyde_fair_next's heap. */
static bool fo_before(const uint32_t *rkey, const uint32_t *ukey, uint32_t a, uint32_t b)
{
	if (ukey[a] != ukey[b])
		return ukey[a] < ukey[b];
	if (rkey[a] != rkey[b])
		return rkey[a] < rkey[b];
	return a < b;
}

/* The first few in the fair order so far (h->fo_top, h->fo_ntop of
 * them, in order), with the candidate at position n added: it comes after
 * every one kept, so it goes before one only on a smaller key. */
static void fo_keep_top(struct hyde_sched_host *h, const uint32_t *rkey, const uint32_t *ukey,
			uint32_t n)
{
	uint64_t key = fo_key(rkey, ukey, n);
	size_t t = h->fo_ntop;

	if (t == SCHED_FO_TOP) {
		if (key >= fo_key(rkey, ukey, h->fo_top[t - 1]))
			return;
		t--; /* the last kept drops out */
	} else {
		h->fo_ntop++;
	}
	for (; t > 0 && key < fo_key(rkey, ukey, h->fo_top[t - 1]); t--)
		h->fo_top[t] = h->fo_top[t - 1];
	h->fo_top[t] = n;
}

/* The fair order's candidates: the READY jobs with a pending task, in
 * (ready_at, index) order, in h->fo_tmp with their keys after them (cand,
 * rkey, ukey; pos and tmp past those, room each); user_running filled;
 * with top, the first few of them in the fair order in h->fo_top. */
static size_t fo_collect(struct hyde_sched *s, unsigned *user_running, size_t *room,
			 uint32_t *rmax, uint32_t *umax, bool top)
{
	struct hyde_sched_host *h = s->host;
	const struct cluster *c = h->c;
	size_t n = 0, i, k;
	uint32_t *cand, *rkey, *ukey;

	/* the jobs not submitted or done run no task and have none pending,
	 * a failed one's tasks do not count: the cluster's count per user */
	memcpy(user_running, c->user_running, c->wl->n_users * sizeof(unsigned));
	if (!h->in_by_ready)
		h->in_by_ready = xcalloc(c->n_jobs + 1, 1);
	/* the jobs that became ready since the last look, still READY */
	for (; h->ready_seen < c->n_ready; h->ready_seen++) {
		uint32_t x = c->ready_log[h->ready_seen];

		if (c->jobs[x].state == HYDE_JOB_READY && !h->in_by_ready[x])
			fo_ready_add(h, x);
	}
	h->fo_ntop = 0;
	*room = h->fo_room = h->n_by_ready + 1;
	hyde_grow((void **)&h->fo_tmp, &h->cap_fo_tmp, 5 * *room, sizeof(uint32_t));
	cand = h->fo_tmp;
	rkey = cand + *room;
	ukey = rkey + *room;
	*rmax = *umax = 0;
	/* the ready jobs with pending tasks, in (ready_at, index) order; the
	 * list drops those no longer READY and those with every task started
	 * (neither comes back: a task never becomes pending again, and a job
	 * never gets more tasks), so a pick of an overloaded cluster does not
	 * walk the jobs in their shuffle */
	for (i = 0, k = 0; i < h->n_by_ready; i++) {
		uint32_t x = h->by_ready[i];
		const struct cluster_jkey *j = &c->jkey[x];

		if (!j->ready || !j->pending) {
			h->in_by_ready[x] = 2;
			continue;
		}
		h->by_ready[k++] = x;
		cand[n] = x;
		rkey[n] = j->running;
		ukey[n] = user_running[j->user_idx];
		if (rkey[n] > *rmax)
			*rmax = rkey[n];
		if (ukey[n] > *umax)
			*umax = ukey[n];
		if (top)
			fo_keep_top(h, rkey, ukey, (uint32_t)n);
		n++;
	}
	h->n_by_ready = k;
	return n;
}

size_t hyde_fair_order(struct hyde_sched *s, uint32_t *order, unsigned *user_running)
{
	struct hyde_sched_host *h = s->host;
	uint32_t rmax, umax, *cand, *rkey, *ukey, *pos;
	size_t room, n = fo_collect(s, user_running, &room, &rmax, &umax, false), i;

	cand = h->fo_tmp;
	rkey = cand + room;
	ukey = rkey + room;
	pos = ukey + room;
	h->fo_heap_n = 0;
	h->fo_built = true;
	sched_fair_sort(h, pos, pos + room, n, rkey, rmax, ukey, umax, SCHED_SORT_ANY);
	for (i = 0; i < n; i++)
		order[i] = cand[pos[i]];
	return n;
}

static void fo_sift(uint32_t *heap, size_t n, size_t i, const uint32_t *rkey, const uint32_t *ukey)
{
	uint32_t x = heap[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && fo_before(rkey, ukey, heap[c + 1], heap[c]))
			c++;
		if (!fo_before(rkey, ukey, heap[c], x))
			break;
		heap[i] = heap[c];
		i = c;
	}
	heap[i] = x;
}

uint32_t hyde_fair_next(struct hyde_sched *s, unsigned *user_running)
{
	struct hyde_sched_host *h = s->host;
	size_t room, i, k;
	uint32_t *cand, *rkey, *ukey, *heap, top, rmax, umax;

	if (user_running) { /* the first few found as they are collected */
		size_t n = fo_collect(s, user_running, &room, &rmax, &umax, true);

		h->fo_n = n;
		h->fo_built = false;
		h->fo_served = n ? 1 : 0;
		h->fo_heap_n = n ? n - 1 : 0;
		return n ? h->fo_tmp[h->fo_top[0]] : UINT32_MAX;
	}
	if (!h->fo_heap_n)
		return UINT32_MAX;
	if (!h->fo_built && h->fo_served < h->fo_ntop) {
		h->fo_heap_n--;
		return h->fo_tmp[h->fo_top[h->fo_served++]];
	}
	room = h->fo_room;
	cand = h->fo_tmp;
	rkey = cand + room;
	ukey = rkey + room;
	heap = ukey + room;
	if (!h->fo_built) { /* more asked for: the rest in a heap */
		size_t n = 0;

		for (i = 0; i < h->fo_n; i++) {
			for (k = 0; k < h->fo_ntop && h->fo_top[k] != i; k++)
				;
			if (k == h->fo_ntop)
				heap[n++] = (uint32_t)i;
		}
		for (i = n / 2; i-- > 0;)
			fo_sift(heap, n, i, rkey, ukey);
		h->fo_built = true;
	}
	top = heap[0];
	heap[0] = heap[--h->fo_heap_n];
	fo_sift(heap, h->fo_heap_n, 0, rkey, ukey);
	return cand[top];
}

/* ---- randomness, memory, log ---- */

uint64_t hyde_rand(struct hyde_sched *s)
{
	return rng_u64(&s->host->rng);
}

uint64_t hyde_rand_below(struct hyde_sched *s, uint64_t n)
{
	return n ? rng_below(&s->host->rng, n) : 0;
}

double hyde_rand_unit(struct hyde_sched *s)
{
	return rng_unit(&s->host->rng);
}

void hyde_shuffle(struct hyde_sched *s, uint32_t *v, size_t n)
{
	rng_shuffle_u32(&s->host->rng, v, (uint32_t)n);
}

void *hyde_calloc(size_t n, size_t size)
{
	return xcalloc(n ? n : 1, size ? size : 1);
}

void *hyde_realloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		fatalx("out of memory: %zu x %zu bytes", n, size);
	return xrealloc(p, n && size ? n * size : 1);
}

void hyde_grow(void **v, size_t *cap, size_t need, size_t size)
{
	xgrow(v, cap, need, size);
}

void hyde_log(const struct hyde_sched *s, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	/* (put_fmt where it can: NEAT logs a line per task placed) */
	va_start(ap, fmt);
	n = put_fmt(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n >= 0) {
		buf[n] = '\0';
	} else {
		va_start(ap, fmt);
		vsnprintf(buf, sizeof(buf), fmt, ap);
		va_end(ap);
	}
	ctl_event(s->host->ctl, "sched %s: %s", s->ops->name, buf);
}
