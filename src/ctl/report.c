/* What a run writes into its directory (formats in core/rundir.h). Every
 * file is written to a temporary name and renamed when complete, so a
 * reader never sees half a file. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/breakdown.h"
#include "core/rundir.h"
#include "ctl/ctl_int.h"

static int out_open(struct ctl *c, struct outfile *o, const char *name,
		    const char *header, char *errbuf)
{
	snprintf(o->path, sizeof(o->path), "%s/%s", c->outdir, name);
	snprintf(o->tmp, sizeof(o->tmp), "%s.tmp", o->path);
	o->fp = fopen(o->tmp, "w");
	if (!o->fp) {
		errbuf_set(errbuf, "%s: %s", o->tmp, strerror(errno));
		return -errno;
	}
	if (header)
		fprintf(o->fp, "%s\n", header);
	return 0;
}

static int out_close(struct outfile *o, char *errbuf)
{
	int bad = ferror(o->fp);

	if (fclose(o->fp) || bad || rename(o->tmp, o->path)) {
		errbuf_set(errbuf, "%s: %s", o->path, strerror(errno ? errno : EIO));
		unlink(o->tmp);
		return -EIO;
	}
	return 0;
}

/* A coflow's end: its last flow's, once it is over; -1 while it is open
 * (a run stopped early, at its horizon or interrupted). */
static int64_t coflow_end(const struct ctl *c, size_t job)
{
	return ctl_coflow_done(c, (uint32_t)job) ? c->js[job].cf_end : -1;
}

int report_write_app(struct ctl *c, char *errbuf)
{
	struct outfile o;
	size_t i;
	int r;

	if ((r = out_open(c, &o, RUNDIR_APP_JOBS, RUNDIR_APP_JOBS_HEADER, errbuf)))
		return r;
	for (i = 0; i < c->wl->n_jobs; i++) {
		const struct hyde_job *jb = &c->c->jobs[i];
		const struct jstate *j = &c->js[i];
		const struct wl_job *w = jb->wl;

		fprintf(o.fp, "%s,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
			",%" PRIu32 ",%" PRIu32 ",%" PRIu64 "\n",
			w->id, w->user, c->t0 + w->arrival, jb->ready_at, j->start,
			j->maps_done_at, jb->state == HYDE_JOB_DONE ? jb->end : -1, w->maps,
			w->reduces, w->shuffle);
	}
	if ((r = out_close(&o, errbuf)))
		return r;
	if ((r = out_open(c, &o, RUNDIR_APP_COFLOWS, RUNDIR_APP_COFLOWS_HEADER, errbuf)))
		return r;
	for (i = 0; i < c->wl->n_jobs; i++) {
		const struct jstate *j = &c->js[i];

		if (!j->flows)
			continue;
		fprintf(o.fp, "%zu,%s,%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRId64 ",%" PRId64
			",%" PRId64 "\n",
			i, c->wl->jobs[i].id, j->flows, j->bytes, j->ocs_bytes,
			ocspairs_lower_bound(c, (uint32_t)i), j->cf_start, coflow_end(c, i));
	}
	if ((r = out_close(&o, errbuf)))
		return r;
	if ((r = out_open(c, &o, RUNDIR_APP_PAPER_METRICS, "{", errbuf)))
		return r;
	metrics_json(c, o.fp);
	fprintf(o.fp, "}\n");
	if ((r = out_close(&o, errbuf)))
		return r;
	/* emulation: hyde analyze puts these beside its own in summary.json
	 * (the simulator writes summary.json itself) */
	return c->be.ops == &backend_sim ? 0 : report_write_summary(c, RUNDIR_APP_SUMMARY, errbuf);
}

/* A host's name, r<rack>h<host> (topo_host_name), or a rack's, r<rack>. */
static char *put_host(char *p, const struct topo *t, unsigned host, bool rack)
{
	*p++ = 'r';
	if (rack)
		return put_u64(p, host);
	p = put_u64(p, host / t->hosts);
	*p++ = 'h';
	return put_u64(p, host % t->hosts);
}

/* flows.csv's line of f, written by hand (a line per flow: fprintf and
 * the names' snprintf were most of the simulator's output time); the
 * name as ctl_flow_name makes it, cut to CTL_FLOW_NAME_MAX - 1. */
static void flow_line(struct ctl *c, FILE *fp, const struct flow *f)
{
	int64_t fct = f->state == FLOW_DONE ? f->end - f->start : -1;
	uint64_t bytes = ctl_flow_bytes_now(c, f);
	const char *id = c->wl->jobs[f->job].id;
	size_t need = 2 * strlen(id) + 512;
	char small[1024], *line = need <= sizeof(small) ? small : xmalloc(need), *p, *name, src[32];

	p = f->from_rack ? put_host(src, c->t, f->src_rack, true) : put_host(src, c->t, f->src_host, false);
	*p = '\0';
	p = put_u64(line, f->id);
	*p++ = ',';
	p = put_u64(p, f->job);
	*p++ = ',';
	p = put_str(p, id);
	*p++ = ',';
	p = put_str(p, flow_path_name(f->path));
	*p++ = ',';
	p = put_u64(p, bytes);
	*p++ = ',';
	p = put_i64(p, f->start);
	*p++ = ',';
	p = put_i64(p, f->end);
	*p++ = ',';
	p = put_i64(p, fct);
	*p++ = ',';
	p = put_u64(p, f->path == PATH_OCS ? bytes : 0);
	*p++ = ',';
	p = put_u64(p, f->path == PATH_EPS ? bytes : 0);
	p = put_str(p, ",0,");
	p = put_i64(p, fct);
	*p++ = ',';
	p = put_str(p, flow_kind_name(f->kind));
	*p++ = ',';
	p = put_str(p, src);
	*p++ = ',';
	p = put_host(p, c->t, f->dst_host, false);
	*p++ = ',';
	name = p;
	p = put_str(p, id);
	*p++ = '/';
	p = put_str(p, flow_kind_name(f->kind));
	*p++ = '/';
	*p++ = f->kind == HYDE_FLOW_INPUT ? 'm' : 'r';
	p = put_u64(p, f->reduce);
	*p++ = '/';
	if (f->kind == HYDE_FLOW_SHUFFLE)
		*p++ = 'm';
	p = put_u64(p, f->nth);
	*p++ = '@';
	p = put_str(p, src);
	if (p - name > CTL_FLOW_NAME_MAX - 1)
		p = name + CTL_FLOW_NAME_MAX - 1;
	*p++ = '\n';
	fwrite(line, 1, (size_t)(p - line), fp);
	if (line != small)
		free(line);
}

/* -B flow_log=no: no flows.csv. One left by an earlier run in the same
 * directory goes, so that no reader takes it for this run's. */
static int report_no_flows(struct ctl *c, char *errbuf)
{
	char *path = xasprintf("%s/%s", c->outdir, RUNDIR_FLOWS);
	int r = unlink(path) && errno != ENOENT ? -errno : 0;

	if (r)
		errbuf_set(errbuf, "%s: %s", path, strerror(-r));
	free(path);
	return r;
}

/* By id, the highest first (ids are given in order: the newest first). */
static int cmp_flow_newest(const void *a, const void *b)
{
	uint32_t x = (*(struct flow *const *)a)->id, y = (*(struct flow *const *)b)->id;

	return (x < y) - (x > y);
}

/* stream_flows: flows.csv is written as flows end (in that order), so
 * that no flow is kept to the end of the run. */
int report_flows_begin(struct ctl *c, char *errbuf)
{
	int r;

	if (!c->outdir || !c->opts.stream_flows)
		return 0;
	if (c->no_flow_log)
		return report_no_flows(c, errbuf);
	if ((r = out_open(c, &c->flows_out, RUNDIR_FLOWS, RUNDIR_FLOWS_HEADER, errbuf)))
		return r;
	c->flows_fp = c->flows_out.fp;
	return 0;
}

void report_flow_line(struct ctl *c, const struct flow *f)
{
	if (c->flows_fp)
		flow_line(c, c->flows_fp, f);
}

/* The simulator knows every flow's exact start and end: it writes the files
 * `hyde analyze` derives from packet captures in an emulation. */
int report_write_analysis(struct ctl *c, char *errbuf)
{
	struct outfile o;
	size_t i;
	int r;

	if (c->no_flow_log) {
		if (!c->opts.stream_flows && (r = report_no_flows(c, errbuf)))
			return r;
	} else if (c->opts.stream_flows) {
		struct flow **v = NULL;
		size_t n = 0, cap = 0, b, k;

		if (!c->flows_fp)
			return 0;
		/* the flows done are in already: the rest never ended, the
		 * newest first */
		for (b = 0; b < c->n_flow_blocks; b++)
			for (k = 0; k < ctl_block_len(c, b); k++)
				if (!c->flow_blocks[b][k].forgotten) {
					xgrow((void **)&v, &cap, n + 1, sizeof(*v));
					v[n++] = &c->flow_blocks[b][k];
				}
		if (n > 1)
			xqsort(v, n, sizeof(*v), cmp_flow_newest);
		for (k = 0; k < n; k++)
			flow_line(c, c->flows_fp, v[k]);
		free(v);
		o = c->flows_out;
		o.fp = c->flows_fp;
		c->flows_fp = NULL;
		if ((r = out_close(&o, errbuf)))
			return r;
	} else {
		if ((r = out_open(c, &o, RUNDIR_FLOWS, RUNDIR_FLOWS_HEADER, errbuf)))
			return r;
		for (i = 0; i < c->n_flows; i++)
			flow_line(c, o.fp, c->flows[i]);
		if ((r = out_close(&o, errbuf)))
			return r;
	}
	if ((r = out_open(c, &o, RUNDIR_COFLOWS, RUNDIR_COFLOWS_HEADER, errbuf)))
		return r;
	for (i = 0; i < c->wl->n_jobs; i++) {
		const struct jstate *j = &c->js[i];
		int64_t end = coflow_end(c, i);
		int64_t cct = end >= 0 && j->cf_start >= 0 ? end - j->cf_start : -1;

		if (!j->flows)
			continue;
		fprintf(o.fp, "%zu,%s,%" PRIu32 ",%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64
			",%" PRId64 ",%" PRIu64 ",%" PRIu64 ",%" PRId64 "\n",
			i, c->wl->jobs[i].id, j->flows, j->bytes, j->cf_start, end, cct,
			ocspairs_lower_bound(c, (uint32_t)i), j->ocs_bytes,
			j->cross_rack_bytes - j->ocs_bytes, cct);
	}
	if ((r = out_close(&o, errbuf)))
		return r;
	if ((r = out_open(c, &o, RUNDIR_JOBS, RUNDIR_JOBS_HEADER, errbuf)))
		return r;
	for (i = 0; i < c->wl->n_jobs; i++) {
		const struct hyde_job *jb = &c->c->jobs[i];
		const struct wl_job *w = jb->wl;
		const struct jstate *js = &c->js[i];
		int64_t arr = c->t0 + w->arrival, parts[BD_PARTS];
		struct job_milestones m = {
			.arrival = arr, .ready = jb->ready_at, .first_start = js->start,
			.maps_done = js->maps_done_at, .shuffle_start = js->flows ? js->cf_start : -1,
			.shuffle_end = js->flows ? coflow_end(c, i) : -1,
			.end = jb->state == HYDE_JOB_DONE ? jb->end : -1,
		};
		int k;

		job_breakdown(&m, parts);
		fprintf(o.fp, "%s,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRIu32
			",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%s",
			w->id, w->user, arr, js->start, m.end, m.end >= 0 ? m.end - arr : -1, w->maps,
			w->reduces, w->shuffle, js->cross_rack_bytes,
			c->t->t_e && w->shuffle >= c->t->t_e ? "heavy" : "light");
		for (k = 0; k < BD_PARTS; k++)
			fprintf(o.fp, ",%" PRId64, parts[k]);
		fputc('\n', o.fp);
	}
	if ((r = out_close(&o, errbuf)))
		return r;
	return report_write_summary(c, RUNDIR_SUMMARY, errbuf);
}

/* The run's figures as the controller counted them: summary.json's keys
 * (docs/summary-json.md) in both backends. */
int report_write_summary(struct ctl *c, const char *name, char *errbuf)
{
	struct ctl_totals tt;
	struct outfile o;
	int r;

	ctl_totals(c, &tt);
	if ((r = out_open(c, &o, name, NULL, errbuf)))
		return r;
	fprintf(o.fp,
		"{\n"
		"  \"schema\": %d,\n"
		"  \"backend\": \"%s\",\n"
		"  \"scheduler\": \"%s\",\n"
		"  \"circuit_scheduler\": \"%s\",\n"
		"  \"seed\": %" PRIu64 ",\n"
		"  \"topology\": \"%s\",\n"
		"  \"jobs\": %zu,\n"
		"  \"jobs_done\": %zu,\n"
		"  \"flows\": %" PRIu64 ",\n"
		"  \"makespan_s\": %.9f,\n"
		"  \"avg_jct_s\": %.9f,\n"
		"  \"avg_cct_s\": %.9f,\n"
		"  \"throughput_jobs_per_hour\": %.6f,\n"
		"  \"shuffle_bytes\": %" PRIu64 ",\n"
		"  \"ocs_bytes\": %" PRIu64 ",\n"
		"  \"eps_bytes\": %" PRIu64 ",\n"
		"  \"rack_bytes\": %" PRIu64 ",\n"
		"  \"host_bytes\": %" PRIu64 ",\n"
		"  \"cross_rack_bytes\": %" PRIu64 ",\n"
		"  \"by_kind\": {"
		" \"input\": { \"flows\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"cross_rack\": %" PRIu64 " },"
		" \"shuffle\": { \"flows\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"cross_rack\": %" PRIu64 " },"
		" \"output\": { \"flows\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"cross_rack\": %" PRIu64 " } },\n"
		"  \"ocs_share\": %.6f,\n"
		"  \"reconfigurations\": %" PRIu64 ",\n"
		"  \"events\": %" PRIu64 ",\n",
		RUNDIR_SUMMARY_SCHEMA, c->be.ops->name, c->sched->ops->name,
		c->cx.cs ? c->cx.cs->name : "none", c->opts.seed,
		c->t->name, tt.jobs, tt.jobs_done, tt.flows, (double)tt.makespan / 1e9,
		tt.avg_jct / 1e9, tt.avg_cct / 1e9,
		tt.makespan > 0 ? (double)tt.jobs_done * 3600e9 / (double)tt.makespan : 0,
		tt.kind_bytes[HYDE_FLOW_SHUFFLE], tt.ocs_bytes, tt.eps_bytes, tt.rack_bytes,
		tt.host_bytes, tt.cross_rack_bytes,
		tt.kind_flows[HYDE_FLOW_INPUT], tt.kind_bytes[HYDE_FLOW_INPUT],
		tt.kind_cross[HYDE_FLOW_INPUT], tt.kind_flows[HYDE_FLOW_SHUFFLE],
		tt.kind_bytes[HYDE_FLOW_SHUFFLE], tt.kind_cross[HYDE_FLOW_SHUFFLE],
		tt.kind_flows[HYDE_FLOW_OUTPUT], tt.kind_bytes[HYDE_FLOW_OUTPUT],
		tt.kind_cross[HYDE_FLOW_OUTPUT],
		tt.cross_rack_bytes ? (double)tt.ocs_bytes / (double)tt.cross_rack_bytes : 0,
		tt.reconfigurations, c->loop.events);
	/* only with --horizon, so that a run without one is as it was */
	if (tt.horizon > 0)
		fprintf(o.fp, "  \"horizon_s\": %.9f,\n  \"stopped_at_horizon\": %s,\n",
			(double)tt.horizon / 1e9, tt.at_horizon ? "true" : "false");
	/* only with --fetch-order random: its figures are not the default's */
	if (c->opts.fetch_random)
		fprintf(o.fp, "  \"fetch_order\": \"random\",\n");
	metrics_json(c, o.fp);
	fprintf(o.fp, "}\n");
	return out_close(&o, errbuf);
}

/* ctl_replay's files: its flows (the names of the run replayed) and the
 * coflows they make; T(C) is not worked out (-1): no circuit scheduler
 * planned this replay. */
int report_write_replay(struct ctl *c, char *errbuf)
{
	struct outfile o;
	size_t i;
	int r;

	if ((r = out_open(c, &o, RUNDIR_FLOWS, RUNDIR_FLOWS_HEADER, errbuf)))
		return r;
	for (i = 0; i < c->n_flows; i++)
		flow_line(c, o.fp, c->flows[i]);
	if ((r = out_close(&o, errbuf)))
		return r;
	if ((r = out_open(c, &o, RUNDIR_COFLOWS, RUNDIR_COFLOWS_HEADER, errbuf)))
		return r;
	for (i = 0; i < c->wl->n_jobs; i++) {
		const struct jstate *j = &c->js[i];
		int64_t cct = j->cf_end >= 0 && j->cf_start >= 0 && j->flows_done == j->flows ?
			j->cf_end - j->cf_start : -1;

		if (!j->flows)
			continue;
		fprintf(o.fp, "%zu,%s,%" PRIu32 ",%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64
			",-1,%" PRIu64 ",%" PRIu64 ",%" PRId64 "\n",
			i, c->wl->jobs[i].id, j->flows, j->bytes, j->cf_start, j->cf_end, cct,
			j->ocs_bytes, j->cross_rack_bytes - j->ocs_bytes, cct);
	}
	return out_close(&o, errbuf);
}
