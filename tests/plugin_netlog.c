/* A scheduler plugin for tests/netview.sh: Hadoop's fair rule, and at
 * every tick one line in the run's events.log with what the network view
 * says of a few links over its last interval:
 *   sched netlog: view FROM TO TOR_UP0_BYTES TOR_UP0_UTIL TOR_DOWN1_BYTES HOST_UP0_BYTES FLOWS */
#include <inttypes.h>
#include <stdlib.h>

#include <hyde/sched.h>

struct nl_priv {
	uint32_t *order;
	unsigned *user_running;
};

static int nl_init(struct hyde_sched *s, char *errbuf)
{
	struct nl_priv *p = s->priv;

	(void)errbuf;
	p->order = hyde_calloc(hyde_cluster(s)->n_jobs + 1, sizeof(uint32_t));
	p->user_running = hyde_calloc(hyde_cluster(s)->n_users + 1, sizeof(unsigned));
	return 0;
}

static void nl_destroy(struct hyde_sched *s)
{
	struct nl_priv *p = s->priv;

	free(p->order);
	free(p->user_running);
}

static const struct hyde_task *nl_pick(struct hyde_sched *s, unsigned host)
{
	struct nl_priv *p = s->priv;
	size_t n = hyde_fair_order(s, p->order, p->user_running), i;

	for (i = 0; i < n; i++) {
		const struct hyde_job *j = hyde_job(s, p->order[i]);
		enum hyde_locality l;
		const struct hyde_task *t = hyde_pending_map(s, j, host, HYDE_OFF_RACK, &l);

		if (!t)
			t = hyde_pending_reduce(s, j, host);
		if (t)
			return t;
	}
	return NULL;
}

static void nl_tick(struct hyde_sched *s)
{
	struct hyde_link_state up0, down1, host0;
	int64_t from, to;

	hyde_net_interval(s, &from, &to);
	if (from < 0 || hyde_net_link(s, HYDE_LINK_TOR_UP, 0, &up0) ||
	    hyde_net_link(s, HYDE_LINK_TOR_DOWN, 1, &down1) ||
	    hyde_net_link(s, HYDE_LINK_HOST_UP, 0, &host0))
		return;
	hyde_log(s, "view %" PRId64 " %" PRId64 " %" PRIu64 " %.6f %" PRIu64 " %" PRIu64 " %u", from,
		 to, up0.bytes, up0.utilisation, down1.bytes, host0.bytes, up0.flows);
}

const struct hyde_sched_ops hyde_sched_plugin = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "netlog",
	.summary = "test plugin: fair, and the network view logged every tick",
	.priv_size = sizeof(struct nl_priv),
	.init = nl_init,
	.destroy = nl_destroy,
	.pick_task = nl_pick,
	.tick = nl_tick,
};
