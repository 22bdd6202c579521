/* timeline.png: links, circuits and job phases over time (timeline.h). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/pcap_read.h"
#include "analyze/plot.h"
#include "analyze/timeline.h"
#include "core/rundir.h"
#include "core/units.h"
#include "core/util.h"
#include "inspect/runlog.h"

int64_t timeline_bin_width(int64_t w)
{
	static const int steps[] = { 1, 2, 5 };
	int64_t p = NSEC_PER_MSEC;

	for (;;) {
		size_t i;

		for (i = 0; i < ARRAY_SIZE(steps); i++)
			if (w / (p * steps[i]) <= 400)
				return p * steps[i];
		if (p > INT64_MAX / 100)
			return p * 10;
		p *= 10;
	}
}

/* The rack of an address of the EPS or OCS plan, or -1. */
static int addr_rack(const struct topo *t, uint32_t a)
{
	const struct topo_net *nets[2] = { &t->eps_net, &t->ocs_net };
	int k;

	for (k = 0; k < 2; k++) {
		uint32_t mask = nets[k]->plen ? ~0u << (32 - nets[k]->plen) : 0;

		if ((a & mask) == (nets[k]->addr & mask)) {
			uint32_t rack = (a - nets[k]->addr) >> t->host_bits;

			return rack < t->racks ? (int)rack : -1;
		}
	}
	return -1;
}

/* Bin one capture of ToR k's port: frames from the rack go out, frames
 * to it come in. A capture that is missing (an EPS-less topology has no
 * uplink) is no traffic; one cut inside a packet (an interrupted run) is
 * read up to there. */
static int bin_capture(struct timeline *tl, const struct topo *t, const char *dir,
		       unsigned k, const char *port, double *in, double *out, char *errbuf)
{
	char *path = xasprintf("%s/%s/tor%u-%s.pcap", dir, RUNDIR_PCAP_DIR, k, port);
	struct capfile *c = NULL;
	struct pkt_tcp p;
	enum pkt_kind kind;
	uint32_t wl;
	int r;
	FILE *probe = fopen(path, "r");

	if (!probe) {
		free(path);
		return 0;
	}
	fclose(probe);
	r = capfile_open(path, &c, errbuf);
	free(path);
	if (r)
		return r;
	while ((r = capfile_next(c, &p, &kind, &wl, errbuf)) == 1) {
		int sr, dr;
		size_t b;

		if (kind != PKT_TCP || p.ts < tl->from || p.ts >= tl->to)
			continue;
		b = (size_t)((p.ts - tl->from) / tl->bin);
		if (b >= tl->n_bins)
			continue;
		sr = addr_rack(t, p.saddr);
		dr = addr_rack(t, p.daddr);
		if (sr == (int)k && dr != (int)k)
			out[b] += wl;
		else if (dr == (int)k && sr != (int)k)
			in[b] += wl;
		tl->packets++;
	}
	capfile_close(c);
	return r == -ENODATA ? 0 : r;
}

static void add_span(struct tl_span **arr, size_t *n, int64_t a, int64_t b, unsigned peer)
{
	*arr = xrealloc(*arr, (*n + 1) * sizeof(**arr));
	(*arr)[(*n)++] = (struct tl_span){ a, b, peer };
}

/* Circuits as spans per rack, and the delta before each came up. */
static void circuits(struct timeline *tl, const struct runlog *rl)
{
	int64_t *since = xcalloc(tl->racks + 1, sizeof(*since));
	int *dst = xcalloc(tl->racks + 1, sizeof(*dst));
	unsigned s;
	size_t i;

	for (s = 0; s < tl->racks; s++)
		dst[s] = -1;
	for (i = 0; i < rl->n_circ; i++) {
		const struct rl_circuit *c = &rl->circ[i];

		if (c->src >= tl->racks || c->dst >= tl->racks)
			continue;
		if (c->up) {
			if (dst[c->src] >= 0) /* an up without its down: close it */
				add_span(&tl->rack[c->src].circ_out, &tl->rack[c->src].n_out,
					 since[c->src], c->t, (unsigned)dst[c->src]);
			since[c->src] = c->t;
			dst[c->src] = (int)c->dst;
			add_span(&tl->rack[c->src].stall, &tl->rack[c->src].n_stall,
				 c->t - tl->delta, c->t, c->dst);
			if (c->dst != c->src)
				add_span(&tl->rack[c->dst].stall, &tl->rack[c->dst].n_stall,
					 c->t - tl->delta, c->t, c->src);
		} else if (dst[c->src] == (int)c->dst) {
			add_span(&tl->rack[c->src].circ_out, &tl->rack[c->src].n_out,
				 since[c->src], c->t, c->dst);
			add_span(&tl->rack[c->dst].circ_in, &tl->rack[c->dst].n_in,
				 since[c->src], c->t, c->src);
			dst[c->src] = -1;
		}
	}
	for (s = 0; s < tl->racks; s++)
		if (dst[s] >= 0) {
			add_span(&tl->rack[s].circ_out, &tl->rack[s].n_out, since[s], tl->to,
				 (unsigned)dst[s]);
			add_span(&tl->rack[dst[s]].circ_in, &tl->rack[dst[s]].n_in, since[s], tl->to, s);
		}
	free(since);
	free(dst);
}

static void jobs(struct timeline *tl, const struct runlog *rl)
{
	size_t i;

	tl->jobs = xcalloc(rl->n_jobs + 1, sizeof(*tl->jobs));
	for (i = 0; i < rl->n_jobs; i++) {
		const struct rl_job *j = &rl->jobs[i];
		struct tl_job *o = &tl->jobs[tl->n_jobs];
		/* a phase under way when the run ended runs to its end */
		int64_t end = tl->to;

		o->map[0] = j->map_start;
		o->map[1] = j->map_start >= 0 ? (j->map_end >= j->map_start ? j->map_end : end) : -1;
		o->shuffle[0] = j->shuffle_start;
		o->shuffle[1] = j->shuffle_start >= 0 ?
			(j->shuffle_end >= j->shuffle_start ? j->shuffle_end : end) : -1;
		o->reduce[0] = j->reduce_start;
		o->reduce[1] = j->reduce_start >= 0 ?
			(j->reduce_end >= j->reduce_start ? j->reduce_end : end) : -1;
		/* only the jobs with something in the window */
		if ((o->map[0] < 0 || o->map[1] < tl->from || o->map[0] >= tl->to) &&
		    (o->shuffle[0] < 0 || o->shuffle[1] < tl->from || o->shuffle[0] >= tl->to) &&
		    (o->reduce[0] < 0 || o->reduce[1] < tl->from || o->reduce[0] >= tl->to))
			continue;
		o->id = xstrdup(j->id);
		tl->n_jobs++;
	}
}

/* The run's last instant: run_end, else (an interrupted run) the last of
 * its jobs' and circuits' times. */
static int64_t run_end(const struct runlog *rl)
{
	int64_t e = rl->t0;
	size_t i;

	if (rl->t_end >= 0)
		return rl->t_end;
	for (i = 0; i < rl->n_jobs; i++) {
		const struct rl_job *j = &rl->jobs[i];
		int64_t v[] = { j->done, j->map_end, j->reduce_end, j->shuffle_end,
				j->map_start, j->reduce_start, j->shuffle_start };
		size_t k;

		for (k = 0; k < ARRAY_SIZE(v); k++)
			if (v[k] > e)
				e = v[k];
	}
	if (rl->n_circ && rl->circ[rl->n_circ - 1].t > e)
		e = rl->circ[rl->n_circ - 1].t;
	return e + NSEC_PER_SEC; /* what its last tasks sent after */
}

int timeline_build(const char *dir, const struct topo *t, int64_t from, int64_t to,
		   struct timeline **out, char *errbuf)
{
	struct timeline *tl = xcalloc(1, sizeof(*tl));
	struct runlog *rl = NULL;
	char win[80] = "";
	int64_t end;
	unsigned k;
	int r;

	if ((r = runlog_load(dir, &rl, errbuf)))
		goto err;
	if (rl->t0 < 0) {
		errbuf_set(errbuf, "%s/%s: no run_start line: the run's start is unknown", dir,
			   RUNDIR_EVENTS);
		r = -EINVAL;
		goto err;
	}
	tl->t0 = rl->t0;
	end = run_end(rl);
	tl->from = from == INT64_MIN ? rl->t0 : rl->t0 + from;
	tl->to = to == INT64_MAX ? end : rl->t0 + to;
	if (tl->from < rl->t0)
		tl->from = rl->t0;
	if (tl->to > end && to == INT64_MAX)
		tl->to = end;
	if (tl->to <= tl->from) {
		char a[32];

		errbuf_set(errbuf, "--window: the run lasted %s: the window holds none of it",
			   unit_human_time((double)(end - rl->t0), a, sizeof(a)));
		r = -EINVAL;
		goto err;
	}
	tl->bin = timeline_bin_width(tl->to - tl->from);
	tl->n_bins = (size_t)((tl->to - tl->from + tl->bin - 1) / tl->bin);
	tl->racks = t->racks;
	tl->bw_e = t->has_eps ? t->uplink_rate : 0;
	tl->bw_o = t->has_ocs ? t->ocs_rate : 0;
	tl->delta = t->delta;
	tl->circ_from_ocs = rl->circ_from_ocs;
	tl->rack = xcalloc(t->racks, sizeof(*tl->rack));
	for (k = 0; k < t->racks; k++) {
		struct tl_rack *rk = &tl->rack[k];

		rk->eps_in = xcalloc(tl->n_bins, sizeof(double));
		rk->eps_out = xcalloc(tl->n_bins, sizeof(double));
		rk->ocs_in = xcalloc(tl->n_bins, sizeof(double));
		rk->ocs_out = xcalloc(tl->n_bins, sizeof(double));
		if ((r = bin_capture(tl, t, dir, k, "up", rk->eps_in, rk->eps_out, errbuf)) ||
		    (r = bin_capture(tl, t, dir, k, "ocs", rk->ocs_in, rk->ocs_out, errbuf)))
			goto err;
	}
	circuits(tl, rl);
	jobs(tl, rl);
	if (from != INT64_MIN || to != INT64_MAX) {
		char a[32], b[32];

		snprintf(win, sizeof(win), ", window %s-%s",
			 unit_human_time((double)(tl->from - rl->t0), a, sizeof(a)),
			 unit_human_time((double)(tl->to - rl->t0), b, sizeof(b)));
	}
	{
		char bin[32];

		tl->title = xasprintf("%s: topology %s%s; throughput per %s from the captures, circuits from the %s",
				      dir, t->name, win, unit_human_time((double)tl->bin, bin, sizeof(bin)),
				      rl->circ_from_ocs ? "crossbar's events" : "controller's log");
	}
	runlog_free(rl);
	*out = tl;
	return 0;
err:
	runlog_free(rl);
	timeline_free(tl);
	return r < 0 ? r : -EINVAL;
}

void timeline_free(struct timeline *tl)
{
	size_t i;

	if (!tl)
		return;
	for (i = 0; tl->rack && i < tl->racks; i++) {
		struct tl_rack *rk = &tl->rack[i];

		free(rk->eps_in);
		free(rk->eps_out);
		free(rk->ocs_in);
		free(rk->ocs_out);
		free(rk->circ_out);
		free(rk->circ_in);
		free(rk->stall);
	}
	free(tl->rack);
	for (i = 0; i < tl->n_jobs; i++)
		free(tl->jobs[i].id);
	free(tl->jobs);
	free(tl->title);
	free(tl);
}

/* ---- drawing ---- */

static double secs(const struct timeline *tl, int64_t t)
{
	return (double)(t - tl->t0) / 1e9;
}

static double mbps(const struct timeline *tl, double bytes)
{
	return bytes * 8 / ((double)tl->bin / 1e9) / 1e6;
}

/* Spans as boxxyerror rows "x dx y dy" on the y2 axis (0 to 1) between
 * y2 lo and hi; at least minw seconds wide, to be seen. Labels (the
 * peer's rack) only on spans wide enough to hold them. */
static void spans_block(FILE *fp, const struct timeline *tl, const char *name,
			const struct tl_span *s, size_t n, double lo, double hi, double minw,
			bool label)
{
	double wide = secs(tl, tl->to) / 40 - secs(tl, tl->from) / 40;
	size_t i;

	fprintf(fp, "$%s << EOD\n", name);
	for (i = 0; i < n; i++) {
		double a = secs(tl, s[i].a), b = secs(tl, s[i].b);

		if (s[i].b < tl->from || s[i].a > tl->to)
			continue;
		if (b - a < minw) {
			double m = (a + b) / 2;

			a = m - minw / 2;
			b = m + minw / 2;
		}
		fprintf(fp, "%.9f %.9f %.4f %.4f", (a + b) / 2, (b - a) / 2, (lo + hi) / 2, (hi - lo) / 2);
		if (label && b - a >= wide)
			fprintf(fp, " \"%s%u\"", lo > 0.85 ? ">" : "<", s[i].peer);
		else if (label)
			fprintf(fp, " \"\"");
		fputc('\n', fp);
	}
	/* never empty: gnuplot refuses a plot of nothing */
	fprintf(fp, "NaN NaN NaN NaN%s\nEOD\n", label ? " \"\"" : "");
}

static void rack_blocks(FILE *fp, const struct timeline *tl, unsigned k, double minw)
{
	const struct tl_rack *rk = &tl->rack[k];
	size_t b;
	char name[32];

	fprintf(fp, "$tput%u << EOD\n", k);
	for (b = 0; b < tl->n_bins; b++) {
		double x = secs(tl, tl->from + (int64_t)b * tl->bin);

		/* a step per bin: its start and its end at the same height */
		fprintf(fp, "%.9f %.6g %.6g %.6g %.6g\n", x, mbps(tl, rk->eps_in[b]),
			mbps(tl, rk->eps_out[b]), mbps(tl, rk->ocs_in[b]), mbps(tl, rk->ocs_out[b]));
		fprintf(fp, "%.9f %.6g %.6g %.6g %.6g\n", x + (double)tl->bin / 1e9,
			mbps(tl, rk->eps_in[b]), mbps(tl, rk->eps_out[b]),
			mbps(tl, rk->ocs_in[b]), mbps(tl, rk->ocs_out[b]));
	}
	fprintf(fp, "EOD\n");
	snprintf(name, sizeof(name), "cout%u", k);
	spans_block(fp, tl, name, rk->circ_out, rk->n_out, 0.90, 0.99, 0, true);
	snprintf(name, sizeof(name), "cin%u", k);
	spans_block(fp, tl, name, rk->circ_in, rk->n_in, 0.80, 0.89, 0, true);
	snprintf(name, sizeof(name), "stall%u", k);
	spans_block(fp, tl, name, rk->stall, rk->n_stall, 0.0, 1.0, minw, false);
}

static double peak(const struct timeline *tl)
{
	double m = 1;
	size_t b;
	unsigned k;

	for (k = 0; k < tl->racks; k++)
		for (b = 0; b < tl->n_bins; b++) {
			const struct tl_rack *rk = &tl->rack[k];
			double v[4] = { rk->eps_in[b], rk->eps_out[b], rk->ocs_in[b], rk->ocs_out[b] };
			int i;

			for (i = 0; i < 4; i++)
				if (mbps(tl, v[i]) > m)
					m = mbps(tl, v[i]);
		}
	return m;
}

static void jobs_block(FILE *fp, const struct timeline *tl)
{
	size_t i;

	fprintf(fp, "$jobs << EOD\n");
	for (i = 0; i < tl->n_jobs; i++) {
		const struct tl_job *j = &tl->jobs[i];
		const int64_t *ph[3] = { j->map, j->shuffle, j->reduce };
		int k;

		/* y: job i from the top; per phase "x dx y dy" or NaN */
		for (k = 0; k < 3; k++) {
			double y = (double)(tl->n_jobs - 1 - i) + 0.27 - 0.27 * k;

			if (ph[k][0] < 0)
				fprintf(fp, "NaN NaN NaN NaN ");
			else
				fprintf(fp, "%.9f %.9f %.3f 0.12 ",
					(secs(tl, ph[k][0]) + secs(tl, ph[k][1])) / 2,
					(secs(tl, ph[k][1]) - secs(tl, ph[k][0])) / 2, y);
		}
		fputc('\n', fp);
	}
	fprintf(fp, "NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN\nEOD\n");
}

void timeline_script(FILE *fp, const struct timeline *tl, const char *png)
{
	unsigned k, R = tl->racks;
	double x0 = secs(tl, tl->from), x1 = secs(tl, tl->to);
	double pk = peak(tl), minw = (x1 - x0) / 1500;
	int rack_h = 150, jobs_h = 60 + 16 * (int)(tl->n_jobs ? tl->n_jobs : 1);
	int H = 90 + rack_h * (int)R + jobs_h, width = 1400;
	double top = 1.0 - 50.0 / H, y;
	size_t i;

	char stall_title[96], d[32], m[32];

	if (jobs_h > 900)
		jobs_h = 900, H = 90 + rack_h * (int)R + jobs_h;
	/* delta is milliseconds in a window of minutes: its shading is
	 * widened to be seen, and the key says so */
	snprintf(stall_title, sizeof(stall_title), "'delta stall (%s, drawn >= %s)'",
		 unit_human_time((double)tl->delta, d, sizeof(d)),
		 unit_human_time(minw * 1e9, m, sizeof(m)));
	fprintf(fp, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		    "  set terminal pngcairo size %d,%d noenhanced font ',9'\n"
		    "} else {\n"
		    "  set terminal png size %d,%d noenhanced\n"
		    "}\n", width, H, width, H);
	fprintf(fp, "set output ");
	plot_quote(fp, png);
	fprintf(fp, "\nset datafile missing 'NaN'\n");
	for (k = 0; k < R; k++)
		rack_blocks(fp, tl, k, minw);
	jobs_block(fp, tl);
	fprintf(fp, "set multiplot title ");
	plot_quote(fp, tl->title);
	fprintf(fp, "\nset lmargin at screen 0.06\nset rmargin at screen 0.84\n"
		    "set xrange [%.9f:%.9f]\nset grid xtics ytics\n"
		    "set y2range [0:1]\nunset y2tics\n"
		    "set yrange [%.6g:%.6g]\nset ytics scale 0.5\n"
		    "set key outside right top vertical samplen 2\n"
		    "set style fill transparent solid 0.45 noborder\n",
		    x0, x1, -pk * 1.05, pk * 1.7);
	y = top;
	for (k = 0; k < R; k++) {
		double h = (double)rack_h / H;

		fprintf(fp, "set tmargin at screen %.5f\nset bmargin at screen %.5f\n", y, y - h + 6.0 / H);
		y -= h;
		fprintf(fp, "set ylabel 'tor%u  Mbit/s' offset 1,0\n", k);
		fprintf(fp, "set format x ''\nunset xlabel\n");
		fprintf(fp, "unset arrow\n");
		if (tl->bw_e)
			fprintf(fp, "set arrow from graph 0, first %.6g to graph 1, first %.6g nohead dashtype 3 lc rgb '#1f77b4'\n"
				    "set arrow from graph 0, first %.6g to graph 1, first %.6g nohead dashtype 3 lc rgb '#1f77b4'\n",
				(double)tl->bw_e / 1e6, (double)tl->bw_e / 1e6,
				-(double)tl->bw_e / 1e6, -(double)tl->bw_e / 1e6);
		fprintf(fp, "plot $stall%u using 1:3:2:4 axes x1y2 with boxxyerror fc rgb '#d62728' fs transparent solid 0.35 noborder title %s, \\\n"
			    "  $cout%u using 1:3:2:4 axes x1y2 with boxxyerror fc rgb '#2ca02c' fs solid 0.5 noborder title %s, \\\n"
			    "  $cout%u using 1:3:5 axes x1y2 with labels font ',7' notitle, \\\n"
			    "  $cin%u using 1:3:2:4 axes x1y2 with boxxyerror fc rgb '#98df8a' fs solid 0.5 noborder title %s, \\\n"
			    "  $cin%u using 1:3:5 axes x1y2 with labels font ',7' notitle, \\\n"
			    "  $tput%u using 1:4 with filledcurves y=0 fc rgb '#ff7f0e' title %s, \\\n"
			    "  $tput%u using 1:(-$5) with filledcurves y=0 fc rgb '#ff7f0e' notitle, \\\n"
			    "  $tput%u using 1:2 with filledcurves y=0 fc rgb '#1f77b4' title %s, \\\n"
			    "  $tput%u using 1:(-$3) with filledcurves y=0 fc rgb '#1f77b4' notitle\n",
			k, k == 0 ? stall_title : "''", k, k == 0 ? "'circuit out'" : "''", k,
			k, k == 0 ? "'circuit in'" : "''", k,
			k, k == 0 ? "'OCS (in +, out -)'" : "''", k,
			k, k == 0 ? "'EPS (in +, out -)'" : "''", k);
	}
	fprintf(fp, "unset arrow\nset tmargin at screen %.5f\nset bmargin at screen %.5f\n",
		y - 4.0 / H, 45.0 / H);
	fprintf(fp, "set format x '%%g'\nset xlabel 's from the run''s start'\nset ylabel 'jobs' offset 1,0\n"
		    "set yrange [-0.6:%.3f]\nset ytics scale 0 font ',8' (",
		    (double)(tl->n_jobs ? tl->n_jobs : 1) - 0.4);
	/* every job named while they fit, else every fifth */
	for (i = 0; i < tl->n_jobs; i++)
		if (tl->n_jobs <= 60 || i % 5 == 0) {
			fprintf(fp, "%s", i ? ", " : "");
			plot_quote(fp, tl->jobs[i].id);
			fprintf(fp, " %zu", tl->n_jobs - 1 - i);
		}
	fprintf(fp, ")\n");
	fprintf(fp, "plot $jobs using 1:3:2:4 with boxxyerror fc rgb '#1f77b4' fs solid 0.8 noborder title 'maps', \\\n"
		    "  $jobs using 5:7:6:8 with boxxyerror fc rgb '#ff7f0e' fs solid 0.8 noborder title 'shuffle', \\\n"
		    "  $jobs using 9:11:10:12 with boxxyerror fc rgb '#2ca02c' fs solid 0.8 noborder title 'reduces'\n");
	fprintf(fp, "unset multiplot\n");
}

struct tl_args {
	const struct timeline *tl;
	const char *png;
};

static void tl_body(FILE *fp, const void *arg)
{
	const struct tl_args *a = arg;

	timeline_script(fp, a->tl, a->png);
}

int timeline_plot(const struct timeline *tl, const char *png, char *errbuf)
{
	struct tl_args a = { tl, png };

	return plot_script(png, tl_body, &a, errbuf);
}
