/* The baseline circuit policy: every period, a greedy maximum-weight
 * matching on the total OCS demand per rack pair (heaviest pair first),
 * held for one period; the pair goes to the coflow with the most bits on it
 * (ties: the older). Coflow-agnostic, the way a Hybrid-DCN without coflow
 * knowledge (c-Through, Helios) would configure circuits. */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>

#include "core/opts.h"
#include "core/util.h"
#include "net/csched.h"

#define GREEDY_PERIOD (100 * NSEC_PER_MSEC)

/* -C greedy:period=TIME */
struct greedy_opts {
	int64_t period; /* ns: how long a matching is held */
};

static const struct opt_desc greedy_opts[] = {
	OPT(greedy_opts, period, O_TIME, 1, 0, "how long each matching is held before the next"),
};

static void greedy_defaults(void *priv)
{
	((struct greedy_opts *)priv)->period = GREEDY_PERIOD;
}

struct gpair {
	uint32_t src, dst, owner;
	double bits, owner_bits;
};

static int cmp_gpair(const void *a, const void *b)
{
	const struct gpair *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return (x->dst > y->dst) - (x->dst < y->dst);
}

static int cmp_weight(const void *a, const void *b)
{
	const struct gpair *x = a, *y = b;

	if (x->bits != y->bits)
		return x->bits > y->bits ? -1 : 1;
	return cmp_gpair(a, b);
}

static int greedy_plan(const struct cs_input *in, struct cs_plan *out)
{
	struct gpair *g = xcalloc(in->n_d + 1, sizeof(*g));
	bool *out_used = xcalloc(in->ports, sizeof(bool));
	bool *in_used = xcalloc(in->ports, sizeof(bool));
	int64_t period = in->priv ? ((const struct greedy_opts *)in->priv)->period : GREEDY_PERIOD;
	size_t n = 0, i, k;

	cs_plan_reset(out);
	for (i = 0; i < in->n_d; i++) {
		if (in->d[i].bits <= 0)
			continue;
		g[n++] = (struct gpair){ in->d[i].src, in->d[i].dst, in->d[i].coflow,
					 in->d[i].bits, in->d[i].bits };
	}
	xqsort(g, n, sizeof(*g), cmp_gpair);
	for (i = 0, k = 0; i < n; i++) {
		if (k && g[k - 1].src == g[i].src && g[k - 1].dst == g[i].dst) {
			g[k - 1].bits += g[i].bits;
			if (g[i].owner_bits > g[k - 1].owner_bits ||
			    (g[i].owner_bits == g[k - 1].owner_bits && g[i].owner < g[k - 1].owner)) {
				g[k - 1].owner = g[i].owner;
				g[k - 1].owner_bits = g[i].owner_bits;
			}
		} else {
			g[k++] = g[i];
		}
	}
	n = k;
	xqsort(g, n, sizeof(*g), cmp_weight);
	for (i = 0; i < in->n_busy; i++)
		if (in->busy[i].until > in->now) {
			out_used[in->busy[i].src] = true;
			in_used[in->busy[i].dst] = true;
		}
	for (i = 0; i < n; i++) {
		if (out_used[g[i].src] || in_used[g[i].dst])
			continue;
		out_used[g[i].src] = in_used[g[i].dst] = true;
		cs_plan_add(out, g[i].owner, g[i].src, g[i].dst, in->now,
			    in->now + period);
	}
	out->replan_at = n ? in->now + period : -1;
	free(g);
	free(out_used);
	free(in_used);
	return 0;
}

const struct csched_ops csched_greedy = {
	.name = "greedy",
	.summary = "baseline: greedy max-weight matching on pair demand every 100ms",
	.plan = greedy_plan,
	.period = GREEDY_PERIOD,
	.priv_size = sizeof(struct greedy_opts),
	.opts = greedy_opts,
	.n_opts = sizeof(greedy_opts) / sizeof(greedy_opts[0]),
	.defaults = greedy_defaults,
};
