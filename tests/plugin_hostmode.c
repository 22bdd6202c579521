/* A scheduler plugin in host mode (next_task + pick_host, NEAT's way), for
 * tests/plugin.sh: the first pending task in the Fair Scheduler's order
 * goes to the offered host with the fewest active flows in and out (the
 * network view), then the most free containers, then the lowest id. It
 * also checks, as it goes, what the API promises: a chosen host has an
 * offer, hyde_net_flows agrees with the per-host counts, and
 * hyde_net_flows_into with hyde_net_flows. */
#include <stdio.h>
#include <stdlib.h>

#include <hyde/sched.h>

struct hm_priv {
	uint32_t *order;
	unsigned *user_running;
	struct hyde_flow_state *flows, *into;
	size_t cap;
	unsigned placed, checks;
};

static int hm_init(struct hyde_sched *s, char *errbuf)
{
	struct hm_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);

	(void)errbuf;
	p->order = hyde_calloc(ci->n_jobs + 1, sizeof(uint32_t));
	p->user_running = hyde_calloc(ci->n_users + 1, sizeof(unsigned));
	return 0;
}

static void hm_destroy(struct hyde_sched *s)
{
	struct hm_priv *p = s->priv;

	hyde_log(s, "placed %u tasks, %u view checks", p->placed, p->checks);
	free(p->order);
	free(p->user_running);
	free(p->flows);
	free(p->into);
}

static const struct hyde_task *hm_next(struct hyde_sched *s)
{
	struct hm_priv *p = s->priv;
	size_t n = hyde_fair_order(s, p->order, p->user_running), i;

	for (i = 0; i < n; i++) {
		const struct hyde_job *j = hyde_job(s, p->order[i]);
		uint32_t k;

		for (k = 0; k < j->n_maps; k++)
			if (j->maps[k].state == HYDE_TASK_PENDING)
				return &j->maps[k];
		if (hyde_reduces_may_start(s, j))
			for (k = 0; k < j->n_reduces; k++)
				if (j->reduces[k].state == HYDE_TASK_PENDING)
					return &j->reduces[k];
	}
	return NULL;
}

/* the view's flows, counted per host, against hyde's own counts */
static void check_view(struct hyde_sched *s, unsigned host)
{
	struct hm_priv *p = s->priv;
	size_t n = hyde_net_flows(s, p->flows, p->cap), i, m, k;
	unsigned out = 0, in = 0;

	if (n > p->cap) {
		p->cap = n;
		p->flows = hyde_realloc(p->flows, p->cap, sizeof(*p->flows));
		p->into = hyde_realloc(p->into, p->cap, sizeof(*p->into));
		n = hyde_net_flows(s, p->flows, p->cap);
	}
	/* the flows into the host: those of the whole view, in its order
	 * (what they have left may move between the two reads) */
	m = hyde_net_flows_into(s, host, p->into, p->cap);
	for (i = 0, k = 0; i < n; i++) {
		const struct hyde_flow_state *f = &p->flows[i];

		if (f->dst_host != host || f->path == HYDE_PATH_HOST)
			continue;
		if (k >= m || p->into[k].id != f->id || p->into[k].kind != f->kind ||
		    p->into[k].path != f->path || p->into[k].src_host != f->src_host ||
		    p->into[k].dst_host != host || p->into[k].bytes != f->bytes) {
			fprintf(stderr, "plugin_hostmode: host %u: flow %u is not place %zu of "
				"its flows in\n", host, f->id, k);
			abort();
		}
		k++;
	}
	if (k != m) {
		fprintf(stderr, "plugin_hostmode: host %u: %zu flows in, the view has %zu\n", host,
			m, k);
		abort();
	}
	for (i = 0; i < n; i++) {
		out += p->flows[i].src_host == host && p->flows[i].path != HYDE_PATH_HOST;
		in += p->flows[i].dst_host == host && p->flows[i].path != HYDE_PATH_HOST;
		if (p->flows[i].sent + p->flows[i].left != p->flows[i].bytes) {
			fprintf(stderr, "plugin_hostmode: flow %u: sent + left != bytes\n",
				p->flows[i].id);
			abort();
		}
	}
	if (out > hyde_host_flows_out(s, host) || in > hyde_host_flows_in(s, host)) {
		fprintf(stderr, "plugin_hostmode: host %u: view %u/%u flows, counts %u/%u\n", host,
			out, in, hyde_host_flows_out(s, host), hyde_host_flows_in(s, host));
		abort();
	}
	p->checks++;
}

static int hm_pick_host(struct hyde_sched *s, const struct hyde_task *t)
{
	struct hm_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	unsigned h, best_load = ~0u, best_free = 0;
	int best = -1;

	for (h = 0; h < ci->n_hosts; h++) {
		unsigned load, fr;

		if (!hyde_host_offered(s, h) || !hyde_task_fits(s, t, h))
			continue;
		check_view(s, h);
		load = hyde_host_flows_in(s, h) + hyde_host_flows_out(s, h);
		fr = hyde_host_free(s, h);
		if (load < best_load || (load == best_load && fr > best_free)) {
			best = (int)h;
			best_load = load;
			best_free = fr;
		}
	}
	if (best >= 0)
		p->placed++;
	return best;
}

const struct hyde_sched_ops hyde_sched_plugin = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "hostmode",
	.summary = "test plugin: host mode, the least loaded offered host",
	.priv_size = sizeof(struct hm_priv),
	.init = hm_init,
	.destroy = hm_destroy,
	.next_task = hm_next,
	.pick_host = hm_pick_host,
};
