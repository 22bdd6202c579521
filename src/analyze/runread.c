/* Reading and cross-checking a run directory's manifest and app files. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hyde/model.h>

#include "analyze/runread.h"
#include "core/coflow.h"
#include "core/csv.h"
#include "core/rundir.h"
#include "core/util.h"
#include "core/workload.h"

const char *const an_path_names[] = { "eps", "ocs", "rack", "host" };

static char *path_join(const char *dir, const char *rel)
{
	return xasprintf("%s/%s", dir, rel);
}

/* ---- lookups (sorted index arrays; the files are small next to the
 * captures) ---- */

static const struct an_run *sort_run;

static int cmp_job_idx(const void *a, const void *b)
{
	return strcmp(sort_run->jobs[*(const size_t *)a].job,
		      sort_run->jobs[*(const size_t *)b].job);
}

static int cmp_cf_idx(const void *a, const void *b)
{
	uint64_t x = sort_run->coflows[*(const size_t *)a].coflow;
	uint64_t y = sort_run->coflows[*(const size_t *)b].coflow;

	return x < y ? -1 : x > y;
}

static int cmp_flow_idx(const void *a, const void *b)
{
	uint64_t x = sort_run->flows[*(const size_t *)a].flow;
	uint64_t y = sort_run->flows[*(const size_t *)b].flow;

	return x < y ? -1 : x > y;
}

static int cmp_conn_idx(const void *a, const void *b)
{
	return strcmp(sort_run->flows[*(const size_t *)a].conn,
		      sort_run->flows[*(const size_t *)b].conn);
}

static size_t *sorted_index(const struct an_run *r, size_t n,
			    int (*cmp)(const void *, const void *))
{
	size_t *idx = xmalloc((n ? n : 1) * sizeof(*idx));
	size_t i;

	for (i = 0; i < n; i++)
		idx[i] = i;
	sort_run = r;
	xqsort(idx, n, sizeof(*idx), cmp);
	return idx;
}

/* Compares element i of a table of r with a key: <0, 0, >0, in the order
 * the table's index was sorted by. */
typedef int (*key_cmp_fn)(const struct an_run *r, size_t i, const void *key);

/* The element of the n-element table whose sorted index is idx that
 * compares equal to key, or SIZE_MAX. */
static size_t index_find(const struct an_run *r, const size_t *idx, size_t n,
			 key_cmp_fn cmp, const void *key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = cmp(r, idx[mid], key);

		if (!c)
			return idx[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

static int job_key_cmp(const struct an_run *r, size_t i, const void *key)
{
	return strcmp(r->jobs[i].job, key);
}

static int coflow_key_cmp(const struct an_run *r, size_t i, const void *key)
{
	uint64_t v = r->coflows[i].coflow, id = *(const uint64_t *)key;

	return v < id ? -1 : v > id;
}

static int flow_key_cmp(const struct an_run *r, size_t i, const void *key)
{
	uint64_t v = r->flows[i].flow, id = *(const uint64_t *)key;

	return v < id ? -1 : v > id;
}

static size_t find_job(const struct an_run *r, const size_t *idx, const char *job)
{
	return index_find(r, idx, r->n_jobs, job_key_cmp, job);
}

static size_t find_coflow(const struct an_run *r, const size_t *idx, uint64_t id)
{
	return index_find(r, idx, r->n_coflows, coflow_key_cmp, &id);
}

static size_t find_flow(const struct an_run *r, const size_t *idx, uint64_t id)
{
	return index_find(r, idx, r->n_flows, flow_key_cmp, &id);
}

/* ---- the files ---- */

static int load_jobs(struct an_run *r, char *errbuf)
{
	size_t cap = 0, *idx, i;
	struct csv c;
	int k, ret;

	if ((ret = csv_open(&c, r->dir, RUNDIR_APP_JOBS, RUNDIR_APP_JOBS_HEADER, errbuf)))
		return ret;
	while ((k = csv_next(&c, errbuf)) == 1) {
		struct an_job *j;
		int64_t ready, maps_done;

		xgrow((void **)&r->jobs, &cap, r->n_jobs + 1, sizeof(*r->jobs));
		j = &r->jobs[r->n_jobs];
		/* job,user,arrival_ns,ready_ns,start_ns,maps_done_ns,end_ns,maps,reduces,shuffle_bytes */
		if ((ret = csv_word(&c, 0, errbuf)) || (ret = csv_word(&c, 1, errbuf)) ||
		    (ret = csv_ns(&c, 2, &j->arrival_ns, errbuf)) ||
		    (ret = csv_ns(&c, 3, &ready, errbuf)) ||
		    (ret = csv_ns(&c, 4, &j->start_ns, errbuf)) ||
		    (ret = csv_ns(&c, 5, &maps_done, errbuf)) ||
		    (ret = csv_ns(&c, 6, &j->end_ns, errbuf)) ||
		    (ret = csv_u64(&c, 7, UINT32_MAX, &j->maps, errbuf)) ||
		    (ret = csv_u64(&c, 8, UINT32_MAX, &j->reduces, errbuf)) ||
		    (ret = csv_u64(&c, 9, UINT64_MAX, &j->shuffle_bytes, errbuf)))
			goto out;
		if (j->arrival_ns < 0) {
			ret = csv_err(&c, 2, "the job's arrival time (every job arrives)", errbuf);
			goto out;
		}
		if (j->end_ns >= 0 && j->end_ns < j->arrival_ns) {
			ret = csv_err(&c, 6, "an end after the arrival", errbuf);
			goto out;
		}
		j->ready_ns = ready;
		j->maps_done_ns = maps_done;
		j->job = xstrdup(c.f[0]);
		j->user = xstrdup(c.f[1]);
		r->n_jobs++;
	}
	ret = k;
	if (ret)
		goto out;
	idx = sorted_index(r, r->n_jobs, cmp_job_idx);
	for (i = 1; i < r->n_jobs; i++)
		if (!strcmp(r->jobs[idx[i]].job, r->jobs[idx[i - 1]].job)) {
			errbuf_set(errbuf, "%s: job '%s' listed twice", c.path,
				   r->jobs[idx[i]].job);
			ret = -EINVAL;
			break;
		}
	free(idx);
out:
	csv_close(&c);
	return ret;
}

static int load_coflows(struct an_run *r, const size_t *job_idx, char *errbuf)
{
	size_t cap = 0, *idx, i;
	struct csv c;
	int k, ret;

	if ((ret = csv_open(&c, r->dir, RUNDIR_APP_COFLOWS, RUNDIR_APP_COFLOWS_HEADER, errbuf)))
		return ret;
	while ((k = csv_next(&c, errbuf)) == 1) {
		struct an_coflow *cf;

		xgrow((void **)&r->coflows, &cap, r->n_coflows + 1, sizeof(*r->coflows));
		cf = &r->coflows[r->n_coflows];
		/* coflow,job,flows,bytes,ocs_bytes,lower_bound_ns,start_ns,end_ns */
		if ((ret = csv_u64(&c, 0, UINT64_MAX, &cf->coflow, errbuf)) ||
		    (ret = csv_word(&c, 1, errbuf)) ||
		    (ret = csv_u64(&c, 2, UINT64_MAX, &cf->flows, errbuf)) ||
		    (ret = csv_u64(&c, 3, UINT64_MAX, &cf->bytes, errbuf)) ||
		    (ret = csv_u64(&c, 4, UINT64_MAX, &cf->ocs_bytes, errbuf)) ||
		    (ret = csv_ns(&c, 5, &cf->lower_bound_ns, errbuf)) ||
		    (ret = csv_ns(&c, 6, &cf->start_ns, errbuf)) ||
		    (ret = csv_ns(&c, 7, &cf->end_ns, errbuf)))
			goto out;
		cf->job = find_job(r, job_idx, c.f[1]);
		if (cf->job == SIZE_MAX) {
			ret = csv_err(&c, 1, "a job of " RUNDIR_APP_JOBS, errbuf);
			goto out;
		}
		r->n_coflows++;
	}
	ret = k;
	if (ret)
		goto out;
	idx = sorted_index(r, r->n_coflows, cmp_cf_idx);
	for (i = 1; i < r->n_coflows; i++)
		if (r->coflows[idx[i]].coflow == r->coflows[idx[i - 1]].coflow) {
			errbuf_set(errbuf, "%s: coflow %" PRIu64 " listed twice",
				   c.path, r->coflows[idx[i]].coflow);
			ret = -EINVAL;
			break;
		}
	free(idx);
out:
	csv_close(&c);
	return ret;
}

/* cli_ip must be one of the node's two addresses (EPS or OCS). */
static int check_node_ip(struct csv *c, const struct topo *t, int node_f,
			 int ip_f, unsigned *rack, unsigned *host,
			 uint32_t *ip, char *errbuf)
{
	struct topo_node n;
	struct in_addr a;
	char e[32], o[32], expect[96];
	unsigned id;

	if (topo_node_parse(t, c->f[node_f], &n) || n.kind != TOPO_NODE_HOST)
		return csv_err(c, node_f, "a host of the run's topology (r<rack>h<host>)", errbuf);
	if (inet_pton(AF_INET, c->f[ip_f], &a) != 1)
		return csv_err(c, ip_f, "an IPv4 address", errbuf);
	id = topo_host_id(t, n.rack, n.host);
	*ip = ntohl(a.s_addr);
	if (*ip != topo_host_addr(t, &t->eps_net, id) &&
	    (!t->has_ocs || *ip != topo_host_addr(t, &t->ocs_net, id))) {
		topo_addr_str(topo_host_addr(t, &t->eps_net, id), e, sizeof(e));
		topo_addr_str(topo_host_addr(t, &t->ocs_net, id), o, sizeof(o));
		snprintf(expect, sizeof(expect), "an address of %s (%s%s%s)",
			 c->f[node_f], e, t->has_ocs ? " or " : "",
			 t->has_ocs ? o : "");
		return csv_err(c, ip_f, expect, errbuf);
	}
	*rack = n.rack;
	*host = n.host;
	return 0;
}

static int load_manifest(struct an_run *r, const size_t *job_idx,
			 const size_t *cf_idx, char *errbuf)
{
	char errbuf2[HYDE_ERRBUF_SIZE];
	size_t cap = 0, *idx = NULL, i;
	struct csv c;
	int k, ret;

	if ((ret = (r->interrupted ? csv_open_partial : csv_open)(&c, r->dir, RUNDIR_MANIFEST,
								   RUNDIR_MANIFEST_HEADER, errbuf)) &&
	    (r->interrupted ? csv_open_partial : csv_open)(&c, r->dir, RUNDIR_MANIFEST,
							   RUNDIR_MANIFEST_HEADER_V1, errbuf2))
		return ret; /* the message of the current header */
	while ((k = csv_next(&c, errbuf)) == 1) {
		struct an_flow *f;
		uint64_t v;
		bool same_node;

		xgrow((void **)&r->flows, &cap, r->n_flows + 1, sizeof(*r->flows));
		f = &r->flows[r->n_flows];
		f->line = c.line;
		f->name = NULL;
		f->connect_ns = f->last_byte_ns = -1;
		f->start_ns = f->end_ns = f->data_ns = -1;
		/* conn,flow,coflow,job,maps,reduce,cli_node,cli_ip,cli_port,
		 * srv_node,srv_ip,srv_port,path,bytes,kind,req_bytes */
		if ((ret = csv_word(&c, 0, errbuf)) ||
		    (ret = csv_u64(&c, 1, UINT64_MAX, &f->flow, errbuf)) ||
		    (ret = csv_u64(&c, 2, UINT64_MAX, &f->coflow, errbuf)) ||
		    (ret = csv_word(&c, 3, errbuf)) ||
		    (ret = csv_u64(&c, 4, UINT32_MAX, &f->map, errbuf)) ||
		    (ret = csv_u64(&c, 5, UINT32_MAX, &f->reduce, errbuf)) ||
		    (ret = check_node_ip(&c, r->topo, 6, 7, &f->cli_rack, &f->cli_host, &f->cli_ip, errbuf)))
			goto out;
		if (csv_u64(&c, 8, 65535, &v, errbuf) || !v) {
			ret = csv_err(&c, 8, "a port from 1 to 65535", errbuf);
			goto out;
		}
		f->cli_port = (uint16_t)v;
		if ((ret = check_node_ip(&c, r->topo, 9, 10, &f->srv_rack, &f->srv_host, &f->srv_ip, errbuf)))
			goto out;
		if (csv_u64(&c, 11, 65535, &v, errbuf) || !v) {
			ret = csv_err(&c, 11, "a port from 1 to 65535", errbuf);
			goto out;
		}
		f->srv_port = (uint16_t)v;
		for (i = 0; i < ARRAY_SIZE(an_path_names); i++)
			if (!strcmp(c.f[12], an_path_names[i]))
				break;
		if (i == ARRAY_SIZE(an_path_names)) {
			ret = csv_err(&c, 12, "eps, ocs, rack or host", errbuf);
			goto out;
		}
		f->path = (enum an_path)i;
		if ((ret = csv_u64(&c, 13, UINT64_MAX, &f->bytes, errbuf)))
			goto out;
		f->kind = flow_kind_parse(c.f[14]);
		if (f->kind < 0) {
			ret = csv_err(&c, 14, "input, shuffle or output", errbuf);
			goto out;
		}
		/* an output hop's client sends its request, then the data */
		f->data_from_cli = f->kind == HYDE_FLOW_OUTPUT;
		if ((ret = csv_u64(&c, 15, f->data_from_cli ? 1 << 20 : 0, &f->req_bytes, errbuf)))
			goto out;
		f->rcv_rack = f->data_from_cli ? f->srv_rack : f->cli_rack;
		f->rcv_host = f->data_from_cli ? f->srv_host : f->cli_host;
		f->cross_rack = f->cli_rack != f->srv_rack;
		same_node = !f->cross_rack && f->cli_host == f->srv_host;
		/* The path must be one the fabric can take between these two
		 * hosts: else the manifest belongs to another topology. */
		if ((f->path == AN_PATH_HOST) != same_node ||
		    (f->path == AN_PATH_RACK && f->cross_rack) ||
		    ((f->path == AN_PATH_EPS || f->path == AN_PATH_OCS) && !f->cross_rack)) {
			ret = csv_err(&c, 12, f->cross_rack ? "eps or ocs between two racks" :
					      same_node ? "host for two ends on one host" :
							  "rack for two hosts of one rack",
				      errbuf);
			goto out;
		}
		if (f->path == AN_PATH_OCS && !r->topo->has_ocs) {
			ret = csv_err(&c, 12, "a path of a topology without OCS", errbuf);
			goto out;
		}
		/* only the shuffle's flows make a job's coflow */
		f->cf = f->kind == HYDE_FLOW_SHUFFLE ? find_coflow(r, cf_idx, f->coflow) : SIZE_MAX;
		if (f->kind == HYDE_FLOW_SHUFFLE && f->cf == SIZE_MAX) {
			ret = csv_err(&c, 2, "a coflow of " RUNDIR_APP_COFLOWS, errbuf);
			goto out;
		}
		f->job = find_job(r, job_idx, c.f[3]);
		if (f->job == SIZE_MAX || (f->cf != SIZE_MAX && f->job != r->coflows[f->cf].job)) {
			ret = csv_err(&c, 3, f->cf != SIZE_MAX ? "the job of its coflow in " RUNDIR_APP_COFLOWS
							       : "a job of " RUNDIR_APP_JOBS,
				      errbuf);
			goto out;
		}
		if (c.nfields > 16) {
			if (!*c.f[16] || strchr(c.f[16], ' ')) {
				ret = csv_err(&c, 16, "a flow name (JOB/KIND/TASK/WHAT@HOST)", errbuf);
				goto out;
			}
			f->name = xstrdup(c.f[16]);
		}
		f->conn = xstrdup(c.f[0]);
		r->n_flows++;
	}
	ret = k;
	if (ret)
		goto out;
	r->cut |= c.cut;
	idx = sorted_index(r, r->n_flows, cmp_flow_idx);
	for (i = 1; i < r->n_flows; i++)
		if (r->flows[idx[i]].flow == r->flows[idx[i - 1]].flow) {
			errbuf_set(errbuf, "%s:%zu: flow %" PRIu64 " already on line %zu",
				   c.path, r->flows[idx[i]].line, r->flows[idx[i]].flow,
				   r->flows[idx[i - 1]].line);
			ret = -EINVAL;
			goto out;
		}
	free(idx);
	idx = sorted_index(r, r->n_flows, cmp_conn_idx);
	for (i = 1; i < r->n_flows; i++)
		if (!strcmp(r->flows[idx[i]].conn, r->flows[idx[i - 1]].conn)) {
			errbuf_set(errbuf, "%s:%zu: connection '%s' already on line %zu",
				   c.path, r->flows[idx[i]].line, r->flows[idx[i]].conn,
				   r->flows[idx[i - 1]].line);
			ret = -EINVAL;
			goto out;
		}
out:
	free(idx);
	csv_close(&c);
	return ret;
}

static int load_fetches(struct an_run *r, char *errbuf)
{
	size_t *idx, at;
	bool *seen;
	struct csv c;
	int k, ret;

	if ((ret = (r->interrupted ? csv_open_partial : csv_open)(&c, r->dir, RUNDIR_APP_FETCHES,
								   RUNDIR_APP_FETCHES_HEADER, errbuf)))
		return ret;
	idx = sorted_index(r, r->n_flows, cmp_flow_idx);
	seen = xcalloc(r->n_flows ? r->n_flows : 1, sizeof(*seen));
	while ((k = csv_next(&c, errbuf)) == 1) {
		int64_t connect, established, first, last;
		uint64_t id, bytes, verified;
		struct an_flow *f;

		/* flow,conn,connect_ns,established_ns,first_byte_ns,last_byte_ns,bytes,verified */
		if ((ret = csv_u64(&c, 0, UINT64_MAX, &id, errbuf)) ||
		    (ret = csv_ns(&c, 2, &connect, errbuf)) ||
		    (ret = csv_ns(&c, 3, &established, errbuf)) ||
		    (ret = csv_ns(&c, 4, &first, errbuf)) ||
		    (ret = csv_ns(&c, 5, &last, errbuf)) ||
		    (ret = csv_u64(&c, 6, UINT64_MAX, &bytes, errbuf)) ||
		    (ret = csv_u64(&c, 7, 1, &verified, errbuf)))
			goto out;
		at = find_flow(r, idx, id);
		if (at == SIZE_MAX) {
			ret = csv_err(&c, 0, "a flow of " RUNDIR_MANIFEST, errbuf);
			goto out;
		}
		f = &r->flows[at];
		if (strcmp(c.f[1], f->conn)) {
			char expect[128];

			snprintf(expect, sizeof(expect), "'%.64s' (its connection in " RUNDIR_MANIFEST ")",
				 f->conn);
			ret = csv_err(&c, 1, expect, errbuf);
			goto out;
		}
		if (seen[at]) {
			errbuf_set(errbuf, "%s:%zu: flow %" PRIu64 " listed twice",
				   c.path, c.line, id);
			ret = -EINVAL;
			goto out;
		}
		seen[at] = true;
		if (connect >= 0 && last >= 0 && last < connect) {
			ret = csv_err(&c, 5, "a last byte after connect_ns", errbuf);
			goto out;
		}
		f->connect_ns = connect;
		f->last_byte_ns = last;
	}
	ret = k;
	r->cut |= c.cut;
out:
	free(seen);
	free(idx);
	csv_close(&c);
	return ret;
}

/* ---- an interrupted run ---- */

/* Times from events.log, whole lines only (the last may be cut short):
 * the run's start and each job's arrival and end, by workload index. */
static void load_events(struct an_run *r, const struct workload *wl, int64_t *t0,
			int64_t *arrive, int64_t *start, int64_t *done)
{
	char *path = path_join(r->dir, RUNDIR_EVENTS), *buf = NULL;
	size_t cap = 0, i;
	FILE *fp = fopen(path, "r");

	*t0 = -1;
	for (i = 0; i < wl->n_jobs; i++)
		arrive[i] = start[i] = done[i] = -1;
	free(path);
	if (!fp)
		return;
	while (read_line(fp, &buf, &cap) >= 0) {
		char what[32], id[256];
		long long ns;

		if (feof(fp)) {
			r->cut = true; /* no end of line: cut short */
			break;
		}
		if (sscanf(buf, "%lld %31s %255s", &ns, what, id) < 2 || ns < 0)
			continue;
		if (!strcmp(what, "run_start")) {
			*t0 = ns;
			continue;
		}
		if (strcmp(what, "job_arrive") && strcmp(what, "job_done") &&
		    strcmp(what, "task_start"))
			continue;
		for (i = 0; i < wl->n_jobs; i++)
			if (!strcmp(wl->jobs[i].id, id))
				break;
		if (i == wl->n_jobs)
			continue;
		if (!strcmp(what, "job_arrive"))
			arrive[i] = ns;
		else if (!strcmp(what, "job_done"))
			done[i] = ns;
		else if (start[i] < 0)
			start[i] = ns; /* the job's first task */
	}
	free(buf);
	fclose(fp);
}

/* The jobs of inputs/workload.wl, with what events.log says of them, and
 * one coflow per job (a coflow is its job's shuffle; the manifest names
 * them by job index, as app/coflows.csv does). */
static int load_interrupted(struct an_run *r, char *errbuf)
{
	char *path = path_join(r->dir, RUNDIR_INPUT_WL);
	int64_t t0, *arrive, *start, *done;
	struct workload *wl;
	size_t i;
	int ret;

	ret = wl_load(path, &wl, errbuf);
	free(path);
	if (ret)
		return -EINVAL;
	arrive = xcalloc(wl->n_jobs + 1, sizeof(*arrive));
	start = xcalloc(wl->n_jobs + 1, sizeof(*start));
	done = xcalloc(wl->n_jobs + 1, sizeof(*done));
	load_events(r, wl, &t0, arrive, start, done);
	r->jobs = xcalloc(wl->n_jobs + 1, sizeof(*r->jobs));
	r->coflows = xcalloc(wl->n_jobs + 1, sizeof(*r->coflows));
	for (i = 0; i < wl->n_jobs; i++) {
		const struct wl_job *w = &wl->jobs[i];
		struct an_job *j = &r->jobs[i];
		struct an_coflow *cf = &r->coflows[i];

		j->job = xstrdup(w->id);
		j->user = xstrdup(w->user);
		/* as the controller writes it: the run's start + the
		 * workload's arrival */
		j->arrival_ns = t0 >= 0 ? t0 + w->arrival : arrive[i];
		j->start_ns = start[i];
		j->end_ns = done[i];
		j->ready_ns = j->maps_done_ns = -1; /* not in events.log's lines */
		if (j->arrival_ns < 0 || j->end_ns < j->arrival_ns)
			j->end_ns = -1;
		j->maps = w->maps;
		j->reduces = w->reduces;
		j->shuffle_bytes = w->shuffle;
		cf->coflow = i;
		cf->job = i;
		cf->lower_bound_ns = cf->start_ns = cf->end_ns = -1;
	}
	r->n_jobs = r->n_coflows = wl->n_jobs;
	free(arrive);
	free(start);
	free(done);
	wl_free(wl);
	return 0;
}

/* After the manifest and the fetches: each coflow's flows and bytes from
 * the manifest, its application times (first connect, last byte) when
 * its job finished; coflows without a flow are dropped. */
static void finish_interrupted(struct an_run *r)
{
	size_t *map = xcalloc(r->n_coflows + 1, sizeof(*map)), i, n = 0;
	bool *all = xcalloc(r->n_coflows + 1, sizeof(*all));

	for (i = 0; i < r->n_coflows; i++)
		all[i] = true;
	for (i = 0; i < r->n_flows; i++) {
		const struct an_flow *f = &r->flows[i];
		struct an_coflow *cf;

		if (f->cf == SIZE_MAX)
			continue; /* input and output flows make no coflow */
		cf = &r->coflows[f->cf];
		cf->flows++;
		cf->bytes += f->bytes;
		if (f->path == AN_PATH_OCS)
			cf->ocs_bytes += f->bytes;
		if (f->connect_ns < 0 || f->last_byte_ns < 0) {
			all[f->cf] = false;
			continue;
		}
		if (cf->start_ns < 0 || f->connect_ns < cf->start_ns)
			cf->start_ns = f->connect_ns;
		if (f->last_byte_ns > cf->end_ns)
			cf->end_ns = f->last_byte_ns;
	}
	for (i = 0; i < r->n_coflows; i++) {
		struct an_coflow *cf = &r->coflows[i];

		if (!all[i] || r->jobs[cf->job].end_ns < 0)
			cf->start_ns = cf->end_ns = -1;
		map[i] = n;
		if (cf->flows)
			r->coflows[n++] = *cf;
	}
	for (i = 0; i < r->n_flows; i++)
		if (r->flows[i].cf != SIZE_MAX)
			r->flows[i].cf = map[r->flows[i].cf];
	r->n_coflows = n;
	free(map);
	free(all);
}

/* The instant of events.log's "NS horizon ..." line (a run stopped at
 * its --horizon), or -1. */
static int64_t load_horizon(const char *dir)
{
	char *path = path_join(dir, RUNDIR_EVENTS), *buf = NULL;
	FILE *fp = fopen(path, "r");
	int64_t h = -1;
	size_t cap = 0;

	free(path);
	if (!fp)
		return -1;
	while (read_line(fp, &buf, &cap) >= 0) {
		char what[16];
		long long ns;

		if (sscanf(buf, "%lld %15s", &ns, what) == 2 && ns >= 0 && !strcmp(what, "horizon"))
			h = ns;
	}
	free(buf);
	fclose(fp);
	return h;
}

static bool run_interrupted(const char *dir)
{
	char *jobs = path_join(dir, RUNDIR_APP_JOBS), *wl = path_join(dir, RUNDIR_INPUT_WL);
	bool yes = access(jobs, F_OK) && errno == ENOENT && !access(wl, R_OK);

	free(jobs);
	free(wl);
	return yes;
}

int an_run_load(const char *dir, struct an_run **out, char *errbuf)
{
	size_t *job_idx = NULL, *cf_idx = NULL;
	struct an_run *r = xcalloc(1, sizeof(*r));
	char *topo_path;
	int ret;

	r->dir = xstrdup(dir);
	topo_path = path_join(dir, RUNDIR_INPUT_TOPO);
	ret = topo_load(topo_path, &r->topo, errbuf);
	free(topo_path);
	if (ret) {
		ret = -EINVAL;
		goto err;
	}
	r->interrupted = run_interrupted(dir);
	r->horizon_ns = load_horizon(dir);
	if ((ret = r->interrupted ? load_interrupted(r, errbuf) : load_jobs(r, errbuf)))
		goto err;
	job_idx = sorted_index(r, r->n_jobs, cmp_job_idx);
	if (!r->interrupted && (ret = load_coflows(r, job_idx, errbuf)))
		goto err;
	cf_idx = sorted_index(r, r->n_coflows, cmp_cf_idx);
	if ((ret = load_manifest(r, job_idx, cf_idx, errbuf)))
		goto err;
	if ((ret = load_fetches(r, errbuf)))
		goto err;
	if (r->interrupted)
		finish_interrupted(r);
	free(job_idx);
	free(cf_idx);
	*out = r;
	return 0;
err:
	free(job_idx);
	free(cf_idx);
	an_run_free(r);
	return ret;
}

void an_run_free(struct an_run *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n_flows; i++) {
		free(r->flows[i].conn);
		free(r->flows[i].name);
	}
	for (i = 0; i < r->n_jobs; i++) {
		free(r->jobs[i].job);
		free(r->jobs[i].user);
	}
	free(r->flows);
	free(r->coflows);
	free(r->jobs);
	topo_free(r->topo);
	free(r->dir);
	free(r);
}
