/* hyde gen flows: a flow-level workload (NEAT §6.1). Every job is one task
 * per flow: a map with no compute whose input block sits on one host (the
 * flow's source, drawn uniformly) and which may not run there (remote=yes),
 * so its input read is a flow whose destination the scheduler chooses. A
 * job of width k is a coflow of k such flows (the input reads of k maps,
 * NEAT §5.1.2-5.1.3). Sizes are drawn from an empirical CDF (piecewise
 * linear between its points, as the traffic generators that publish these
 * tables read them), arrivals are Poisson at the rate that loads the hosts'
 * edge links to `load` on average:
 *     lambda = load x n_hosts x host_rate / (8 x width x E[size]).
 * Each flow crosses one host uplink and one host downlink, so both
 * directions carry that load. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "rng.h"
#include "topo.h"
#include "units.h"
#include "wl_gen.h"

void flow_cdf_free(struct flow_cdf *c)
{
	if (!c)
		return;
	free(c->size);
	free(c->p);
	free(c);
}

int flow_cdf_load(const char *path, struct flow_cdf **out, char *errbuf)
{
	FILE *fp = fopen(path, "r");
	struct flow_cdf *c;
	char line[512];
	size_t cap = 0;
	unsigned ln = 0;

	*out = NULL;
	if (!fp) {
		errbuf_set(errbuf, "%s: %s", path, strerror(errno));
		return -errno;
	}
	c = xcalloc(1, sizeof(*c));
	while (fgets(line, sizeof(line), fp)) {
		char *h = strchr(line, '#'), *end;
		double sz, p;

		ln++;
		if (h)
			*h = '\0';
		if (strspn(line, " \t\r\n") == strlen(line))
			continue;
		sz = strtod(line, &end);
		if (end == line)
			goto bad;
		p = strtod(end, &h);
		if (h == end || strspn(h, " \t\r\n") != strlen(h))
			goto bad;
		if (!(sz >= 0 && sz <= 1e15 && p >= 0 && p <= 1) ||
		    (c->n && (sz < c->size[c->n - 1] || p < c->p[c->n - 1]))) {
			errbuf_set(errbuf, "%s:%u: expected sizes and probabilities that never decrease, probabilities in [0, 1]",
				   path, ln);
			goto err;
		}
		xgrow((void **)&c->size, &cap, c->n + 1, sizeof(double));
		c->p = xrealloc(c->p, cap * sizeof(double));
		c->size[c->n] = sz;
		c->p[c->n++] = p;
		continue;
bad:
		errbuf_set(errbuf, "%s:%u: expected 'SIZE_BYTES PROBABILITY'", path, ln);
		goto err;
	}
	if (c->n < 2 || c->p[c->n - 1] != 1.0) {
		errbuf_set(errbuf, "%s: expected at least two points, the last with probability 1",
			   path);
		goto err;
	}
	fclose(fp);
	*out = c;
	return 0;
err:
	fclose(fp);
	flow_cdf_free(c);
	return -EINVAL;
}

double flow_cdf_sample(const struct flow_cdf *c, double u)
{
	size_t i;

	if (u <= c->p[0])
		return c->size[0];
	for (i = 1; i < c->n; i++)
		if (u <= c->p[i]) {
			double dp = c->p[i] - c->p[i - 1];

			if (dp <= 0)
				return c->size[i];
			return c->size[i - 1] + (u - c->p[i - 1]) / dp * (c->size[i] - c->size[i - 1]);
		}
	return c->size[c->n - 1];
}

/* The mean of the piecewise-linear distribution: each segment is uniform
 * over its sizes, with its probability (the mass at the first point, if
 * any, sits at its size). */
double flow_cdf_mean(const struct flow_cdf *c)
{
	double m = c->p[0] * c->size[0];
	size_t i;

	for (i = 1; i < c->n; i++)
		m += (c->p[i] - c->p[i - 1]) * (c->size[i] + c->size[i - 1]) / 2;
	return m;
}

void gen_flows_opts_default(struct gen_flows_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->flows = 10000;
	o->width = 1;
	o->load = 0.5;
	o->scale = 1.0;
	o->min_size = 1;
	snprintf(o->cdf, sizeof(o->cdf), "websearch");
}

static const struct opt_desc flows_desc[] = {
	OPT(gen_flows_opts, seed, O_U64, 0, 1.8e19, "random seed"),
	OPT(gen_flows_opts, topo, O_STR, 0, 512, "topology whose hosts send and receive (required)"),
	OPT(gen_flows_opts, cdf, O_STR, 0, 512,
	    "flow sizes: websearch (DCTCP), datamining (VL2), or a CDF file"),
	OPT(gen_flows_opts, load, O_DOUBLE, 1e-6, 10, "average load of the host links"),
	OPT(gen_flows_opts, flows, O_U32, 1, 10000000, "number of flows"),
	OPT(gen_flows_opts, width, O_U32, 1, 1000, "flows per job (a coflow of input reads)"),
	OPT(gen_flows_opts, scale, O_DOUBLE, 1e-9, 1e6, "sizes x scale"),
	OPT(gen_flows_opts, min_size, O_SIZE, 1, 1e15, "smallest flow (after scaling)"),
	OPT(gen_flows_opts, max_size, O_SIZE, 0, 1e15, "largest flow (0: no cap)"),
	OPT(gen_flows_opts, start, O_TIME, 0, 0, "first arrival no earlier than this"),
};

int gen_flows_opts_set(struct gen_flows_opts *o, const char *kv, char *errbuf)
{
	return opts_set(o, flows_desc, ARRAY_SIZE(flows_desc), kv, errbuf);
}

void gen_flows_opts_print(const struct gen_flows_opts *o, FILE *fp)
{
	opts_print(o, flows_desc, ARRAY_SIZE(flows_desc), fp);
}

/* A shipped CDF by name (workloads/traces/NAME.cdf), or a path. */
static int cdf_open(const char *spec, struct flow_cdf **out, char *errbuf)
{
	char path[1024];

	if (!strchr(spec, '/') && !strchr(spec, '.')) {
		char name[600];

		snprintf(name, sizeof(name), "%s.cdf", spec);
		if (wl_trace_path(name, path, sizeof(path))) {
			errbuf_set(errbuf, "cdf=%s: no such shipped distribution (websearch, datamining) and no such file",
				   spec);
			return -EINVAL;
		}
		spec = path;
	}
	return flow_cdf_load(spec, out, errbuf);
}

static uint64_t draw_size(const struct gen_flows_opts *o, const struct flow_cdf *c,
			  struct rng *rng)
{
	double b = flow_cdf_sample(c, rng_unit(rng)) * o->scale;
	uint64_t v = (uint64_t)llround(b);

	if (v < o->min_size)
		v = o->min_size;
	if (o->max_size && v > o->max_size)
		v = o->max_size;
	return v;
}

int wl_gen_flows(const struct gen_flows_opts *o, struct workload **out, char *errbuf)
{
	struct flow_cdf *cdf = NULL;
	struct topo *t = NULL;
	struct workload *wl;
	struct rng rng;
	double mean, rate, at;
	unsigned H;
	uint32_t i, k, n_jobs;
	int r;

	*out = NULL;
	if (!o->topo[0]) {
		errbuf_set(errbuf, "gen flows: topo= is required (the hosts that send and receive)");
		return -EINVAL;
	}
	if ((r = topo_load(o->topo, &t, errbuf)))
		return r;
	if ((r = cdf_open(o->cdf, &cdf, errbuf))) {
		topo_free(t);
		return r;
	}
	H = topo_n_hosts(t);
	if (H < 2) {
		errbuf_set(errbuf, "gen flows: topology %s has one host: a flow needs two", o->topo);
		r = -EINVAL;
		goto out;
	}
	mean = flow_cdf_mean(cdf) * o->scale;
	if (mean < (double)o->min_size)
		mean = (double)o->min_size;
	/* jobs per ns */
	rate = o->load * (double)H * (double)t->host_rate / 1e9 / (8.0 * mean * o->width);
	n_jobs = (o->flows + o->width - 1) / o->width;
	rng_seed(&rng, o->seed);
	wl = wl_new();
	at = (double)o->start;
	for (i = 0; i < n_jobs; i++) {
		uint32_t w = o->width, left = o->flows - i * o->width;
		struct wl_job *j;
		char id[32];

		if (w > left)
			w = left;
		at += rng_exp(&rng, 1.0 / rate);
		snprintf(id, sizeof(id), "f%" PRIu32, i);
		j = wl_add_job(wl, id, "default");
		j->arrival = (int64_t)llround(at);
		j->maps = w;
		j->reduces = 0;
		j->map_time = j->reduce_time = 0;
		j->remote = true;
		j->input_hosts = xcalloc(w, sizeof(*j->input_hosts));
		j->n_input_hosts = w;
		if (w > 1)
			j->block_bytes = xcalloc(w, sizeof(uint64_t));
		for (k = 0; k < w; k++) {
			unsigned h = (unsigned)rng_below(&rng, H);
			uint64_t b = draw_size(o, cdf, &rng);

			j->input_hosts[k].rack = topo_host_rack(t, h);
			j->input_hosts[k].host = h % t->hosts;
			if (j->block_bytes)
				j->block_bytes[k] = b;
			j->input += b;
		}
	}
	r = wl_finish(wl, "gen flows", errbuf);
	if (r)
		wl_free(wl);
	else
		*out = wl;
out:
	flow_cdf_free(cdf);
	topo_free(t);
	return r;
}
