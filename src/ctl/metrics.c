/* The metrics NAS reports ([NAS §IV-B]), for every scheduler, kept
 * as the run goes and written into summary.json ("paper_metrics"):
 * - rack congestion occurrences (Fig. 3(f), 4(d)): at each network-view
 *   sample (one per heartbeat period), the racks whose EPS uplink or
 *   downlink carried at least METRICS_CONGESTION (0.8, §IV-A) of its
 *   capacity over the interval;
 * - congested nodes (Fig. 3(e)): at each sample, the hosts whose running
 *   maps will output more than TrafficThreshold, eq. (3) with the jobs'
 *   true shuffle (m x sum(S) / sum(K) over the jobs in the cluster);
 * - MapProgressRate when a job's first reduce is placed (Fig. 3(d));
 * - cross-rack bytes of every kind (input reads included, Fig. 3(c));
 * - throughput and average JCT per shuffle class (Fig. 5: light < 1 MB,
 *   heavy > 100 MB of true shuffle; a job's class= if the workload gives
 *   it, as hyde gen fb does for jobs scaled out of their drawn class).
 * And Dawn's ([Dawn §5.3, Fig. 11-12]), when the workload has job DAGs
 * (some job has parents): a DAG is an application of the workload (app=,
 * what `hyde gen dag` writes: one per DAG); its completion time (WCT)
 * runs from its first job's submission to its last job's end; and the
 * cross-rack bytes of each finished DAG, split into first-level input
 * reads, dependent data (reads of parents' output), shuffle and output
 * replicas. Throughput within a horizon H is the DAGs whose end is at
 * most H: the run up to H does not depend on what comes after, so that
 * is what a run stopped at H would count. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "ctl/ctl_int.h"

void metrics_init(struct ctl *c)
{
	memset(&c->pm, 0, sizeof(c->pm));
	c->pm.host_mo = xcalloc(topo_n_hosts(c->t) + 1, sizeof(uint64_t));
	c->pm.job_cross = xcalloc((c->wl->n_jobs + 1) * METRICS_DATA, sizeof(uint64_t));
}

void metrics_free(struct ctl *c)
{
	free(c->pm.host_mo);
	c->pm.host_mo = NULL;
	free(c->pm.job_cross);
	c->pm.job_cross = NULL;
}

void metrics_flow_ended(struct ctl *c, const struct flow *f)
{
	int d;

	if (f->src_rack == f->dst_rack || !c->pm.job_cross || f->job >= c->wl->n_jobs)
		return;
	switch (f->kind) {
	case HYDE_FLOW_INPUT:
		d = c->wl->jobs[f->job].input_from_parents ? MD_DEPENDENT : MD_INPUT;
		break;
	case HYDE_FLOW_SHUFFLE:
		d = MD_SHUFFLE;
		break;
	default:
		d = MD_OUTPUT;
		break;
	}
	c->pm.job_cross[(size_t)f->job * METRICS_DATA + d] += f->bytes;
}

void metrics_task_started(struct ctl *c, const struct hyde_task *t, unsigned host,
			  bool first_reduce)
{
	const struct hyde_job *jb = &c->c->jobs[t->job];

	if (t->kind == HYDE_MAP) {
		c->pm.host_mo[host] += wl_map_output_bytes(jb->wl, t->idx);
		return;
	}
	if (!first_reduce)
		return;
	c->pm.first_reduces++;
	c->pm.mpr_sum += jb->n_maps ? (double)jb->maps_done / jb->n_maps : 1.0;
}

void metrics_map_ended(struct ctl *c, const struct hyde_task *t, unsigned host)
{
	uint64_t b = wl_map_output_bytes(c->c->jobs[t->job].wl, t->idx);

	c->pm.host_mo[host] -= b <= c->pm.host_mo[host] ? b : c->pm.host_mo[host];
}

void metrics_sample(struct ctl *c)
{
	unsigned H = topo_n_hosts(c->t), h, r;
	double ss = 0, kk = 0, tt;
	size_t i;

	if (c->net.t_prev < 0)
		return;
	if (c->t->has_eps)
		for (r = 0; r < c->t->racks; r++) {
			struct hyde_link_state up, down;

			if (ctl_net_link(c, HYDE_LINK_TOR_UP, r, &up) ||
			    ctl_net_link(c, HYDE_LINK_TOR_DOWN, r, &down))
				continue;
			c->pm.rack_intervals++;
			if (up.utilisation >= METRICS_CONGESTION ||
			    down.utilisation >= METRICS_CONGESTION)
				c->pm.rack_congested++;
		}
	for (i = 0; i < c->n_arrived; i++) {
		const struct hyde_job *j = &c->c->jobs[c->arrived[i]];

		if (j->state == HYDE_JOB_DONE || j->state == HYDE_JOB_FAILED)
			continue;
		ss += (double)j->shuffle;
		kk += j->n_maps;
	}
	if (kk <= 0)
		return; /* no job in the cluster: no wave to share */
	tt = c->t->containers * ss / kk; /* eq. (3) */
	for (h = 0; h < H; h++) {
		c->pm.node_samples++;
		if ((double)c->pm.host_mo[h] > tt)
			c->pm.node_congested++;
	}
}

static const char *const class_name[] = { "light", "medium", "heavy" };
static const char *const data_name[METRICS_DATA] = { "input", "dependent", "shuffle", "output" };

/* Dawn's per-DAG metrics (the workload's apps), when it has DAGs. */
static void dag_json(struct ctl *c, FILE *fp)
{
	const struct workload *wl = c->wl;
	size_t n = wl->n_apps, i, a, done = 0;
	int64_t *sub = xcalloc(n + 1, sizeof(int64_t)), *end = xcalloc(n + 1, sizeof(int64_t));
	uint64_t *cross = xcalloc((n + 1) * METRICS_DATA, sizeof(uint64_t));
	uint64_t tot[METRICS_DATA] = { 0 };
	bool *fin = xcalloc(n + 1, sizeof(bool)), dags = false;
	double wct = 0;
	int k;

	for (i = 0; i < wl->n_jobs; i++)
		dags |= wl->jobs[i].n_parents > 0;
	if (!dags || !c->pm.job_cross)
		goto out;
	for (a = 0; a < n; a++) {
		sub[a] = INT64_MAX;
		fin[a] = true;
	}
	for (i = 0; i < wl->n_jobs; i++) {
		const struct hyde_job *jb = &c->c->jobs[i];

		a = wl->app_of[i];
		if (c->t0 + wl->jobs[i].arrival < sub[a])
			sub[a] = c->t0 + wl->jobs[i].arrival;
		if (jb->state != HYDE_JOB_DONE)
			fin[a] = false;
		else if (jb->end > end[a])
			end[a] = jb->end;
		for (k = 0; k < METRICS_DATA; k++)
			cross[a * METRICS_DATA + k] += c->pm.job_cross[i * METRICS_DATA + k];
	}
	fprintf(fp, ",\n    \"dags\": [");
	for (a = 0; a < n; a++) {
		fprintf(fp, "%s\n      { \"id\": \"%s\", \"submit_s\": %.6f, \"done\": %s, \"end_s\": %.6f,",
			a ? "," : "", wl->apps[a], (double)(sub[a] - c->t0) / 1e9, fin[a] ? "true" : "false",
			fin[a] ? (double)(end[a] - c->t0) / 1e9 : -1.0);
		fprintf(fp, " \"wct_s\": %.6f, \"cross_rack\": {",
			fin[a] ? (double)(end[a] - sub[a]) / 1e9 : -1.0);
		for (k = 0; k < METRICS_DATA; k++)
			fprintf(fp, "%s \"%s\": %" PRIu64, k ? "," : "", data_name[k],
				cross[a * METRICS_DATA + k]);
		fprintf(fp, " } }");
		if (!fin[a])
			continue;
		done++;
		wct += (double)(end[a] - sub[a]);
		for (k = 0; k < METRICS_DATA; k++)
			tot[k] += cross[a * METRICS_DATA + k];
	}
	fprintf(fp, "\n    ],\n    \"dags_done\": %zu,\n    \"avg_wct_s\": %.9f,\n"
		"    \"cross_rack_per_dag\": {",
		done, done ? wct / (double)done / 1e9 : 0);
	for (k = 0; k < METRICS_DATA; k++)
		fprintf(fp, "%s \"%s\": %.1f", k ? "," : "", data_name[k],
			done ? (double)tot[k] / (double)done : 0);
	fprintf(fp, " }");
out:
	free(sub);
	free(end);
	free(cross);
	free(fin);
}

void metrics_json(struct ctl *c, FILE *fp)
{
	uint64_t cross = 0, n[3] = { 0 };
	int64_t first[3] = { -1, -1, -1 }, last[3] = { -1, -1, -1 };
	double jct[3] = { 0 };
	size_t i;
	int k;

	for (k = 0; k < HYDE_FLOW_KINDS; k++)
		cross += c->kind_cross_bytes[k];
	for (i = 0; i < c->wl->n_jobs; i++) {
		const struct hyde_job *jb = &c->c->jobs[i];
		const struct wl_job *w = jb->wl;
		int64_t arr = c->t0 + w->arrival;
		int cl = (int)wl_job_class(w);

		if (jb->state != HYDE_JOB_DONE)
			continue;
		n[cl]++;
		jct[cl] += (double)(jb->end - arr);
		if (first[cl] < 0 || arr < first[cl])
			first[cl] = arr;
		if (jb->end > last[cl])
			last[cl] = jb->end;
	}
	fprintf(fp,
		"  \"paper_metrics\": {\n"
		"    \"congestion_threshold\": %.2f,\n"
		"    \"rack_intervals\": %" PRIu64 ",\n"
		"    \"rack_congestion_events\": %" PRIu64 ",\n"
		"    \"node_samples\": %" PRIu64 ",\n"
		"    \"congested_node_share\": %.6f,\n"
		"    \"cross_rack_bytes_all_kinds\": %" PRIu64 ",\n"
		"    \"jobs_with_reduces_placed\": %" PRIu64 ",\n"
		"    \"avg_map_progress_at_first_reduce\": %.6f,\n"
		"    \"by_class\": {",
		METRICS_CONGESTION, c->pm.rack_intervals, c->pm.rack_congested, c->pm.node_samples,
		c->pm.node_samples ? (double)c->pm.node_congested / (double)c->pm.node_samples : 0,
		cross, c->pm.first_reduces,
		c->pm.first_reduces ? c->pm.mpr_sum / (double)c->pm.first_reduces : 0);
	for (k = 0; k < 3; k++)
		fprintf(fp,
			"%s \"%s\": { \"jobs_done\": %" PRIu64 ", \"avg_jct_s\": %.9f,"
			" \"throughput_jobs_per_hour\": %.6f }",
			k ? "," : "", class_name[k], n[k], n[k] ? jct[k] / (double)n[k] / 1e9 : 0,
			last[k] > first[k] ? (double)n[k] * 3600e9 / (double)(last[k] - first[k]) : 0);
	fprintf(fp, " }");
	dag_json(c, fp);
	fprintf(fp, "\n  }\n");
}
