/* The analyzer's outputs: flows.csv, coflows.csv, jobs.csv (columns fixed
 * by src/core/rundir.h) and summary.json, written through temporaries that
 * are renamed together at the end. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hyde/model.h>

#include "analyze/analyze_int.h"
#include "core/breakdown.h"
#include "core/coflow.h"
#include "core/rundir.h"

const char *const an_status_names[] = {
	[AN_NOT_CAPTURED] = "not_captured",
	[AN_DONE] = "done",
	[AN_UNFINISHED] = "unfinished",
	[AN_NO_SYN] = "no_syn",
	[AN_HOST] = "host_app_timestamps",
};

static int io_result(FILE *fp)
{
	return ferror(fp) ? -EIO : 0;
}

int an_write_flows(FILE *fp, void *arg)
{
	const struct an_state *st = arg;
	const struct an_run *r = st->run;
	size_t i;

	fprintf(fp, "%s\n", RUNDIR_FLOWS_HEADER);
	for (i = 0; i < r->n_flows; i++) {
		const struct an_flow *f = &r->flows[i];

		char src[32], dst[32];

		/* the data's source and destination */
		if (f->data_from_cli) {
			topo_host_name(r->topo, topo_host_id(r->topo, f->cli_rack, f->cli_host), src, sizeof(src));
			topo_host_name(r->topo, topo_host_id(r->topo, f->srv_rack, f->srv_host), dst, sizeof(dst));
		} else {
			topo_host_name(r->topo, topo_host_id(r->topo, f->srv_rack, f->srv_host), src, sizeof(src));
			topo_host_name(r->topo, topo_host_id(r->topo, f->cli_rack, f->cli_host), dst, sizeof(dst));
		}
		fprintf(fp, "%" PRIu64 ",%" PRIu64 ",%s,%s,%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64
			",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRId64 ",%s,%s,%s,%s\n",
			f->flow, f->coflow, r->jobs[f->job].job, an_path_names[f->path],
			f->bytes, f->start_ns, f->end_ns, an_flow_fct(f), f->ocs_bytes,
			f->eps_bytes, f->retrans_bytes, an_flow_app_fct(f), flow_kind_name(f->kind),
			src, dst, f->name ? f->name : "-");
	}
	return io_result(fp);
}

int an_write_coflows(FILE *fp, void *arg)
{
	const struct an_state *st = arg;
	const struct an_run *r = st->run;
	size_t i;

	fprintf(fp, "%s\n", RUNDIR_COFLOWS_HEADER);
	for (i = 0; i < r->n_coflows; i++) {
		const struct an_coflow *a = &r->coflows[i];
		const struct an_cfres *c = &st->cf[i];

		fprintf(fp, "%" PRIu64 ",%s,%" PRIu64 ",%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64
			",%" PRId64 ",%" PRIu64 ",%" PRIu64 ",%" PRId64 "\n",
			a->coflow, r->jobs[a->job].job, c->flows, c->bytes, c->start_ns,
			c->end_ns, c->cct_ns, a->lower_bound_ns, c->ocs_bytes,
			c->eps_bytes, c->app_cct_ns);
	}
	return io_result(fp);
}

int an_write_jobs(FILE *fp, void *arg)
{
	const struct an_state *st = arg;
	const struct an_run *r = st->run;
	size_t i;

	fprintf(fp, "%s\n", RUNDIR_JOBS_HEADER);
	for (i = 0; i < r->n_jobs; i++) {
		const struct an_job *j = &r->jobs[i];
		int64_t parts[BD_PARTS];
		/* the shuffle as the captures saw it: its coflow's first flow
		 * start and last flow end */
		struct job_milestones m = {
			.arrival = j->arrival_ns, .ready = j->ready_ns, .first_start = j->start_ns,
			.maps_done = j->maps_done_ns, .shuffle_start = -1, .shuffle_end = -1,
			.end = j->end_ns,
		};
		size_t k;

		for (k = 0; k < r->n_coflows; k++)
			if (r->coflows[k].job == i && st->cf[k].flows) {
				m.shuffle_start = st->cf[k].start_ns;
				m.shuffle_end = st->cf[k].end_ns;
				if (m.shuffle_start < 0 || m.shuffle_end < 0)
					m.end = -1; /* its shuffle is not all measured */
			}
		job_breakdown(&m, parts);
		fprintf(fp, "%s,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s",
			j->job, j->user, j->arrival_ns, j->start_ns, j->end_ns,
			j->end_ns >= 0 ? j->end_ns - j->arrival_ns : -1, j->maps,
			j->reduces, j->shuffle_bytes, st->job_cross[i],
			r->topo->t_e && j->shuffle_bytes >= r->topo->t_e ? "heavy" : "light");
		for (k = 0; k < BD_PARTS; k++)
			fprintf(fp, ",%" PRId64, parts[k]);
		fputc('\n', fp);
	}
	return io_result(fp);
}

/* ---- summary.json ---- */

static void json_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(fp, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(fp, "\\u%04x", ch);
		else
			fputc(ch, fp);
	}
	fputc('"', fp);
}

static void json_num(FILE *fp, double v)
{
	/* -1 marks "unknown" everywhere, as in the CSVs */
	if (v < 0)
		fprintf(fp, "-1");
	else
		fprintf(fp, "%.6g", v);
}

static void json_dist(FILE *fp, const char *name, const struct analyze_dist *d,
		      const char *indent)
{
	fprintf(fp, "%s\"%s\": { \"n\": %zu, \"median_ns\": %" PRId64 ", \"p99_ns\": %" PRId64
		", \"max_ns\": %" PRId64 ", \"mean_ns\": ",
		indent, name, d->n, d->median, d->p99, d->max);
	json_num(fp, d->mean);
	fprintf(fp, " }");
}

static const char *const role_names[] = {
	[AN_ROLE_HOST] = "host_port", [AN_ROLE_UP] = "eps_uplink",
	[AN_ROLE_OCS] = "ocs_port", [AN_ROLE_OTHER] = "other",
};

/* The analyzer's figures: summary.json's "analysis" object. */
static int write_analysis(FILE *fp, const struct an_state *st)
{
	const struct analyze_result *r = st->res;
	char a[16], b[16];
	size_t i, n;

	fprintf(fp, "{\n  \"run\": ");
	json_str(fp, st->run->dir);
	/* an interrupted run: what was captured, jobs from its inputs */
	fprintf(fp, ",\n  \"complete\": %s", r->incomplete ? "false" : "true");
	if (r->incomplete) {
		bool cut = st->run->cut;

		for (i = 0; i < st->n_caps; i++)
			cut |= st->caps[i].cut;
		fprintf(fp, ",\n  \"incomplete\": \"");
		if (st->run->interrupted)
			fprintf(fp, "the run was interrupted (no %s): jobs from %s and %s; a job or coflow that did not finish has no JCT or CCT; flows that never started are in no file%s",
				RUNDIR_APP_JOBS, RUNDIR_INPUT_WL, RUNDIR_EVENTS,
				cut ? "; files that end inside a line or a packet were read up to there" : "");
		if (r->capture_drops)
			fprintf(fp, "%sthe captures dropped %" PRIu64 " frame(s) on %u port(s) (their rings were full): flows on those ports may be measured wrong or not at all; a longer --capture-window gives larger rings",
				st->run->interrupted ? "; " : "", r->capture_drops, r->capture_drop_ports);
		fprintf(fp, "\"");
	}
	fprintf(fp, ",\n  \"captures\": { \"files\": %u, \"packets\": %" PRIu64
		", \"tcp_packets\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"peak_connections\": %zu"
		", \"ring_bytes\": %" PRIu64 ", \"dropped\": %" PRIu64 ", \"drop_ports\": %u"
		", \"ports_without_counts\": %u, \"list\": [",
		r->captures, r->packets, r->tcp_packets, r->capture_bytes, r->peak_conns,
		r->capture_ring_bytes, r->capture_drops, r->capture_drop_ports, r->capture_no_stats);
	for (i = 0; i < st->n_caps; i++) {
		const struct an_capture *c = &st->caps[i];

		fprintf(fp, "%s\n    { \"file\": ", i ? "," : "");
		json_str(fp, c->name);
		fprintf(fp, ", \"role\": \"%s\", \"packets\": %" PRIu64 ", \"tcp\": %" PRIu64
			", \"matched\": %" PRIu64 ", \"other\": %" PRIu64 ", \"undecodable\": %" PRIu64
			", \"first_ns\": %" PRId64 ", \"last_ns\": %" PRId64,
			role_names[c->role], c->packets, c->tcp, c->matched, c->other,
			c->bad, c->first_ns, c->last_ns);
		if (c->has_stats)
			fprintf(fp, ", \"ring_bytes\": %" PRIu64 ", \"received\": %" PRIu64
				", \"dropped\": %" PRIu64 ", \"if_dropped\": %" PRIu64,
				c->ring_bytes, c->cap_received, c->cap_dropped, c->cap_ifdropped);
		fprintf(fp, " }");
	}
	fprintf(fp, "%s] },\n", st->n_caps ? "\n  " : "");

	fprintf(fp, "  \"flows\": { \"total\": %zu, \"done\": %zu, \"unfinished\": %zu, \"no_syn\": %zu"
		", \"not_captured\": %zu, \"host_app_timestamps\": %zu, \"path_mismatch\": %zu"
		", \"bytes_mismatch\": %zu,\n",
		r->flows, r->flows_done, r->flows_unfinished, r->flows_no_syn,
		r->flows_not_captured, r->flows_host, r->flows_path_mismatch,
		r->flows_bytes_mismatch);
	json_dist(fp, "fct", &r->fct, "    ");
	fprintf(fp, " },\n  \"coflows\": { \"total\": %zu, \"complete\": %zu,\n",
		r->coflows, r->coflows_complete);
	json_dist(fp, "cct", &r->cct, "    ");
	fprintf(fp, " },\n  \"jobs\": { \"total\": %zu, \"finished\": %zu, \"makespan_ns\": %" PRId64
		", \"throughput_jobs_per_hour\": ",
		r->jobs, r->jobs_finished, r->makespan_ns);
	json_num(fp, r->jobs_per_hour);
	fprintf(fp, ",\n");
	json_dist(fp, "jct", &r->jct, "    ");
	fprintf(fp, " },\n  \"bytes\": { \"shuffle\": %" PRIu64 ", \"ocs\": %" PRIu64
		", \"eps\": %" PRIu64 ", \"in_rack\": %" PRIu64 ", \"on_host\": %" PRIu64
		", \"cross_rack\": %" PRIu64 ", \"retransmitted\": %" PRIu64
		",\n    \"ocs_share_of_network\": ",
		r->shuffle_bytes, r->ocs_bytes, r->eps_bytes, r->rack_bytes,
		r->host_bytes, r->cross_rack_bytes, r->retrans_bytes);
	json_num(fp, r->ocs_share);
	fprintf(fp, ", \"ocs_share_of_shuffle\": ");
	json_num(fp, r->shuffle_bytes ? (double)r->ocs_bytes / (double)r->shuffle_bytes : -1);
	fprintf(fp, " },\n  \"by_kind\": {");
	for (i = 0; i < 3; i++)
		fprintf(fp, "%s \"%s\": { \"flows\": %" PRIu64 ", \"bytes\": %" PRIu64
			", \"cross_rack\": %" PRIu64 " }",
			i ? "," : "", flow_kind_name((int)i), r->kind_flows[i], r->kind_bytes[i],
			r->kind_cross[i]);
	fprintf(fp, " },\n");

	fprintf(fp, "  \"accuracy\": {\n    \"definition\": \"|pcap - app| per flow (FCT: first SYN to the client's first ACK of the last data byte, on the client's host port; app: connect_ns to last_byte_ns) and per coflow (CCT: first flow start to last flow end; app: start_ns to end_ns of app/coflows.csv); nearest-rank percentiles\",\n");
	json_dist(fp, "fct_abs_diff", &r->fct_err, "    ");
	fprintf(fp, ",\n");
	json_dist(fp, "cct_abs_diff", &r->cct_err, "    ");
	fprintf(fp, ",\n    \"goal_median_ns\": 1000000, \"goal_met\": %s\n  },\n",
		r->fct_err.n && r->fct_err.median <= NSEC_PER_MSEC &&
				(!r->cct_err.n || r->cct_err.median <= NSEC_PER_MSEC) ?
			"true" : "false");

	fprintf(fp, "  \"first_byte\": {\n    \"definition\": \"a measured flow's first SYN to its first data byte on the receiver's host port (the connection's set-up, the request and the sender's reply; on busy links the queues as well); nearest-rank percentiles\",\n");
	json_dist(fp, "all", &r->first_byte, "    ");
	fprintf(fp, ",\n");
	json_dist(fp, "under_100kb", &r->first_byte_small, "    ");
	fprintf(fp, "\n  },\n");
	fprintf(fp, "  \"unknown_connections\": { \"count\": %zu, \"extra_instances\": %zu, \"listed\": [",
		r->unknown_conns, r->stray_instances);
	for (i = n = 0; i < st->n_unknown && n < st->opts.list_unknown; i++, n++) {
		const struct an_unknown *u = st->unknown[i];

		fprintf(fp, "%s\n    { \"src\": \"%s:%u\", \"dst\": \"%s:%u\", \"first_capture\": ",
			n ? "," : "", topo_addr_str(u->k.a_ip, a, sizeof(a)), u->k.a_port,
			topo_addr_str(u->k.b_ip, b, sizeof(b)), u->k.b_port);
		json_str(fp, st->caps[u->capture].name);
		fprintf(fp, ", \"packets\": %" PRIu64 ", \"payload_bytes\": %" PRIu64
			", \"first_ns\": %" PRId64 ", \"last_ns\": %" PRId64 ", \"reason\": \"%s\" }",
			u->packets, u->payload, u->first_ns, u->last_ns,
			u->in_manifest ? "more instances of this 4-tuple than manifest lines" :
					 "in no manifest line");
	}
	fprintf(fp, "%s] },\n  \"plots\": %u,\n  \"warnings\": [", n ? "\n  " : "", r->plots);
	for (i = 0; i < st->n_warnings; i++) {
		fprintf(fp, "%s\n    ", i ? "," : "");
		json_str(fp, st->warnings[i]);
	}
	fprintf(fp, "%s]\n}\n", st->n_warnings ? "\n  " : "");
	return io_result(fp);
}

/* The run's figures as its controller counted them (app/summary.json,
 * the keys a simulated run's summary.json has), each line as written but
 * the outer braces and the schema's; 0 if there is none (a run directory from
 * before schema 1, or one made by hand). */
static int copy_run_figures(FILE *fp, const char *dir)
{
	char *path = xasprintf("%s/%s", dir, RUNDIR_APP_SUMMARY), *line = NULL, *prev = NULL;
	FILE *in = fopen(path, "r");
	size_t cap = 0;
	long n;

	free(path);
	if (!in)
		return 0;
	/* every line inside the outer braces (an object such as
	 * paper_metrics spans several), held back one so that the last
	 * gets the comma the analysis that follows needs */
	while ((n = read_line(in, &line, &cap)) >= 0) {
		if (!strcmp(line, "{") || !strcmp(line, "}") || !strncmp(line, "  \"schema\":", 11))
			continue;
		if (prev)
			fprintf(fp, "%s\n", prev);
		free(prev);
		prev = xstrdup(line);
	}
	if (prev) {
		size_t k = strlen(prev);

		fprintf(fp, "%s%s\n", prev, k && prev[k - 1] == ',' ? "" : ",");
		free(prev);
	}
	free(line);
	fclose(in);
	return 0;
}

/* summary.json, schema RUNDIR_SUMMARY_SCHEMA (docs/summary-json.md): the
 * run's figures in the keys of a simulated run's, then the analyzer's
 * own under "analysis". */
int an_write_summary(FILE *fp, void *arg)
{
	const struct an_state *st = arg;
	char *body = NULL, *p;
	size_t len = 0;
	FILE *mem = open_memstream(&body, &len);
	int r;

	if (!mem)
		return -errno;
	r = write_analysis(mem, st);
	if (fclose(mem) && !r)
		r = -EIO;
	if (r) {
		free(body);
		return r;
	}
	fprintf(fp, "{\n  \"schema\": %d,\n", RUNDIR_SUMMARY_SCHEMA);
	copy_run_figures(fp, st->run->dir);
	fprintf(fp, "  \"analysis\": ");
	/* the object one level in */
	for (p = body; *p; p++) {
		fputc(*p, fp);
		if (*p == '\n' && p[1])
			fputs("  ", fp);
	}
	fprintf(fp, "}\n");
	free(body);
	return io_result(fp);
}

/* ---- the output set ---- */

void an_outset_init(struct an_outset *o, const char *dir)
{
	memset(o, 0, sizeof(*o));
	o->dir = xstrdup(dir);
}

int an_outset_add(struct an_outset *o, const char *name, const char **tmp_path,
		  char *errbuf)
{
	char *fin, *tmp;
	int fd;

	fin = xasprintf("%s/%s", o->dir, name);
	tmp = xasprintf("%s/.%s.tmpXXXXXX", o->dir, name);
	fd = mkstemp(tmp);
	if (fd < 0) {
		int e = errno;

		errbuf_set(errbuf, "%s: %s", fin, strerror(e));
		free(fin);
		free(tmp);
		return -e;
	}
	close(fd);
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 8;
		o->final = xrealloc(o->final, o->cap * sizeof(*o->final));
		o->tmp = xrealloc(o->tmp, o->cap * sizeof(*o->tmp));
	}
	o->final[o->n] = fin;
	o->tmp[o->n] = tmp;
	o->n++;
	*tmp_path = tmp;
	return 0;
}

int an_outset_write(struct an_outset *o, const char *name,
		    int (*fn)(FILE *fp, void *arg), void *arg, char *errbuf)
{
	const char *tmp;
	FILE *fp;
	int r;

	if ((r = an_outset_add(o, name, &tmp, errbuf)))
		return r;
	fp = fopen(tmp, "w");
	if (!fp) {
		r = -errno;
		goto err;
	}
	r = fn(fp, arg);
	if (fflush(fp) && !r)
		r = -errno;
	if (fsync(fileno(fp)) && !r)
		r = -errno;
	if (fclose(fp) && !r)
		r = -errno;
	if (!r)
		return 0;
err:
	errbuf_set(errbuf, "%s/%s: %s", o->dir, name, strerror(-r));
	return r;
}

static mode_t current_umask(void)
{
	mode_t m = umask(0);

	umask(m);
	return m;
}

int an_outset_commit(struct an_outset *o, char *errbuf)
{
	mode_t mode = 0666 & ~current_umask();
	size_t i;

	/* mkstemp made them 0600: give results the usual mode first, so a
	 * failure here still leaves every earlier output untouched. */
	for (i = 0; i < o->n; i++)
		if (chmod(o->tmp[i], mode)) {
			int e = errno;

			errbuf_set(errbuf, "%s: %s", o->tmp[i], strerror(e));
			an_outset_abort(o);
			return -e;
		}
	for (i = 0; i < o->n; i++) {
		if (rename(o->tmp[i], o->final[i])) {
			int e = errno;

			errbuf_set(errbuf, "%s: %s", o->final[i], strerror(e));
			an_outset_abort(o);
			return -e;
		}
		free(o->tmp[i]);
		o->tmp[i] = NULL;
	}
	return 0;
}

bool an_outset_has(const struct an_outset *o, const char *name)
{
	size_t i, dl = strlen(o->dir);

	for (i = 0; i < o->n; i++)
		if (!strcmp(o->final[i] + dl + 1, name))
			return true;
	return false;
}

void an_outset_free(struct an_outset *o)
{
	size_t i;

	for (i = 0; i < o->n; i++) {
		free(o->final[i]);
		free(o->tmp[i]);
	}
	free(o->final);
	free(o->tmp);
	free(o->dir);
	memset(o, 0, sizeof(*o));
}

void an_outset_abort(struct an_outset *o)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		if (o->tmp[i])
			unlink(o->tmp[i]);
	an_outset_free(o);
}
