/* The cluster as Hadoop runs it, in the simulator: node heartbeats and
 * what a scheduler is offered when, remote input reads, output write
 * pipelines, data lineage between jobs, and the network view. Each case
 * has a known answer worked out from the model's rules. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hyde/sched.h>

#include "check_hyde.h"
#include "core/breakdown.h"
#include "core/csv.h"
#include "core/rundir.h"
#include "ctl/ctl_int.h"

struct run {
	struct ctl *c;
	char *tpath, *wpath;
};

/* Run topology text + workload text in the simulator (or topo_file: a
 * shipped topology). */
static void run_model(struct run *r, const char *topo, const char *topo_file, const char *wl,
		      const char *sched, const struct hyde_sched_ops *ops, char **kv, int n_kv,
		      uint64_t seed, bool no_io)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct ctl_opts o;

	r->tpath = topo ? test_write_tmp("model", topo, ".topo") : NULL;
	r->wpath = test_write_tmp("model", wl, ".wl");
	ctl_opts_default(&o);
	o.topo_path = topo ? r->tpath : test_srcpath(topo_file);
	o.wl_spec = r->wpath;
	if (sched)
		o.sched_name = sched;
	o.sched_ops = ops;
	o.sched_kv = kv;
	o.n_sched_kv = n_kv;
	o.seed = seed;
	o.no_io = no_io;
	ck_assert_msg(ctl_new(&o, &r->c, errbuf) == 0, "%s", errbuf);
	ck_assert_msg(ctl_run(r->c, errbuf) == 0, "%s", errbuf);
}

static void run_free(struct run *r)
{
	ctl_free(r->c);
	if (r->tpath)
		unlink(r->tpath);
	unlink(r->wpath);
	free(r->tpath);
	free(r->wpath);
}

/* ---- heartbeats ---- */

/* 40 maps of 10 s on an idle rack8 (32 hosts of 4 containers) under fair:
 * with one container per heartbeat the first round of heartbeats puts one
 * map on each of the 32 hosts, so the job covers every rack; with every
 * free container per heartbeat the first 10 hosts to heartbeat take 4
 * each. YARN's assignmultiple, which hyde's controller lacked: it packed. */
#define WIDE_JOB "job id=w arrival=0s input=400MB shuffle=0B output=0B maps=40 reduces=0 map_time=10s\n"

static void hosts_racks(const struct ctl *c, unsigned *hosts, unsigned *racks)
{
	const struct hyde_job *j = &c->c->jobs[0];
	bool h[64] = { false }, rk[8] = { false };
	uint32_t m;

	*hosts = *racks = 0;
	for (m = 0; m < j->n_maps; m++) {
		unsigned x = (unsigned)j->maps[m].host;

		*hosts += !h[x];
		*racks += !rk[x / 4];
		h[x] = rk[x / 4] = true;
	}
}

START_TEST(spread_one_per_heartbeat)
{
	struct run r;
	unsigned hosts, racks;

	run_model(&r, NULL, "topologies/rack8.topo", WIDE_JOB, "fair", NULL, NULL, 0, 1, true);
	hosts_racks(r.c, &hosts, &racks);
	ck_assert_uint_eq(hosts, 32);
	ck_assert_uint_eq(racks, 8);
	run_free(&r);
}
END_TEST

START_TEST(pack_with_assign_all)
{
	char *kv = "assign=all";
	struct run r;
	unsigned hosts, racks;

	run_model(&r, NULL, "topologies/rack8.topo", WIDE_JOB, "fair", NULL, &kv, 1, 1, true);
	hosts_racks(r.c, &hosts, &racks);
	ck_assert_uint_eq(hosts, 10);
	ck_assert_uint_le(racks, 8);
	run_free(&r);
}
END_TEST

/* Phases come from the seed: the same seed, the same phases, in [0,
 * period); another seed, others. The first map of a job alone goes to the
 * first host to heartbeat after its arrival, the one with the smallest
 * phase: which host that is follows the seed, not the host numbering. */
START_TEST(phases_from_the_seed)
{
	bool seen[32] = { false };
	unsigned distinct = 0, h;
	uint64_t seed;

	for (seed = 1; seed <= 24; seed++) {
		struct run a, b;
		unsigned first = 0;

		run_model(&a, NULL, "topologies/rack8.topo",
			  "job id=one arrival=0s input=1MB shuffle=0B output=0B maps=1 reduces=0 map_time=1s\n",
			  "fair", NULL, NULL, 0, seed, true);
		run_model(&b, NULL, "topologies/rack8.topo",
			  "job id=one arrival=0s input=1MB shuffle=0B output=0B maps=1 reduces=0 map_time=1s\n",
			  "fair", NULL, NULL, 0, seed, true);
		for (h = 0; h < 32; h++) {
			ck_assert_int_eq(nodes_phase(a.c, h), nodes_phase(b.c, h));
			ck_assert_int_ge(nodes_phase(a.c, h), 0);
			ck_assert_int_lt(nodes_phase(a.c, h), NSEC_PER_SEC);
			if (nodes_phase(a.c, h) < nodes_phase(a.c, first))
				first = h;
		}
		ck_assert_int_eq(a.c->c->jobs[0].maps[0].host, (int32_t)first);
		ck_assert_int_eq(a.c->c->jobs[0].maps[0].start, a.c->t0 + nodes_phase(a.c, first));
		distinct += !seen[first];
		seen[first] = true;
		run_free(&a);
		run_free(&b);
	}
	ck_assert_uint_ge(distinct, 10);
}
END_TEST

/* A container freed between two heartbeats waits for the next: one host,
 * one container, two maps of 1.2 s. The second starts at the first
 * heartbeat after the first map ends, 2 s after it started. */
START_TEST(freed_container_waits_for_heartbeat)
{
	struct run r;
	const struct hyde_job *j;

	run_model(&r, "racks 1\nhosts 1\ncontainers 1\nreplicas 1\nhost_rate 1Gbit\noversub 1\nocs no\n", NULL,
		  "job id=a arrival=0s input=2MB shuffle=0B output=0B maps=2 reduces=0 map_time=1.2s\n",
		  "fair", NULL, NULL, 0, 1, true);
	j = &r.c->c->jobs[0];
	ck_assert_int_eq(j->maps[0].end - j->maps[0].start, 1200000000LL);
	ck_assert_int_eq(j->maps[1].start - j->maps[0].start, 2 * NSEC_PER_SEC);
	run_free(&r);
}
END_TEST

/* ---- HDFS traffic ---- */

/* Every block on rack 0 (input_racks=0), every map pinned to rack 1: each
 * map reads its whole block across the racks, and nothing else moves. */
START_TEST(remote_input_exact)
{
	struct run r;
	struct ctl_totals tt;
	struct flow *const *f;
	size_t n, i, reads = 0;
	uint64_t bytes = 0;

	run_model(&r, NULL, "topologies/tiny.topo",
		  "job id=far arrival=0s input=40000001B shuffle=0B output=0B maps=4 reduces=0 "
		  "map_time=1s map_racks=1,1,1,1 input_racks=0\n",
		  "fair", NULL, NULL, 0, 1, false);
	ctl_totals(r.c, &tt);
	ck_assert_uint_eq(tt.kind_bytes[HYDE_FLOW_INPUT], 40000001);
	ck_assert_uint_eq(tt.kind_cross[HYDE_FLOW_INPUT], 40000001);
	ck_assert_uint_eq(tt.kind_flows[HYDE_FLOW_INPUT], 4);
	f = ctl_flows(r.c, &n);
	for (i = 0; i < n; i++) {
		const struct hyde_job *j = &r.c->c->jobs[0];

		ck_assert_int_eq(f[i]->kind, HYDE_FLOW_INPUT);
		ck_assert_uint_eq(f[i]->src_rack, 0);
		ck_assert_uint_eq(f[i]->dst_rack, 1);
		/* from a replica holder, to the map, before it works */
		ck_assert(block_on_host(&j->blocks[f[i]->reduce], f[i]->src_host));
		ck_assert_int_eq(f[i]->dst_host, j->maps[f[i]->reduce].host);
		ck_assert_int_eq(f[i]->start, j->maps[f[i]->reduce].start);
		ck_assert_int_eq(j->maps[f[i]->reduce].end - f[i]->end, NSEC_PER_SEC);
		reads++;
		bytes += f[i]->bytes;
	}
	ck_assert_uint_eq(reads, 4);
	ck_assert_uint_eq(bytes, 40000001);
	run_free(&r);

	/* the same maps on rack 0, where the input is: no read at all */
	run_model(&r, NULL, "topologies/tiny.topo",
		  "job id=near arrival=0s input=40000001B shuffle=0B output=0B maps=2 reduces=0 "
		  "map_time=1s map_racks=0,0 input_racks=0\n",
		  "fair", NULL, NULL, 0, 1, false);
	ctl_totals(r.c, &tt);
	ck_assert_uint_eq(tt.kind_cross[HYDE_FLOW_INPUT], 0);
	run_free(&r);
}
END_TEST

/* output_replication 3 on rack8: every reduce writes its part through the
 * pipeline writer -> second replica (another rack) -> third (the second's
 * rack, another host): two flows of the part's bytes each, all at once. */
START_TEST(output_pipeline)
{
	static const char topo[] =
		"racks 8\nhosts 4\ncontainers 4\nhost_rate 100Mbit\noversub 10\nocs no\noutput_replication 3\n";
	struct run r;
	struct ctl_totals tt;
	struct flow *const *f;
	const struct hyde_job *j;
	size_t n, i, hops = 0;
	uint32_t k;

	run_model(&r, topo, NULL,
		  "job id=w arrival=0s input=8MB shuffle=4MB output=3000001B maps=4 reduces=3 "
		  "map_time=1s reduce_time=1s\n",
		  "fair", NULL, NULL, 0, 1, false);
	j = &r.c->c->jobs[0];
	ctl_totals(r.c, &tt);
	ck_assert_uint_eq(tt.kind_flows[HYDE_FLOW_OUTPUT], 6);
	ck_assert_uint_eq(tt.kind_bytes[HYDE_FLOW_OUTPUT], 2 * 3000001ULL);
	/* cross-rack: the first hop of each pipeline, never the second */
	ck_assert_uint_eq(tt.kind_cross[HYDE_FLOW_OUTPUT], 3000001);
	for (k = 0; k < j->n_reduces; k++) {
		const struct hyde_block *b = &j->outputs[k];

		ck_assert_uint_eq(b->n_replicas, 3);
		ck_assert_int_eq(b->replica[0], j->reduces[k].host);
		ck_assert_uint_ne(b->replica[1] / 4, b->replica[0] / 4);
		ck_assert_uint_eq(b->replica[2] / 4, b->replica[1] / 4);
		ck_assert_uint_ne(b->replica[2], b->replica[1]);
		ck_assert_uint_eq(b->bytes, 1000000 + (k < 1));
	}
	f = ctl_flows(r.c, &n);
	for (i = 0; i < n; i++) {
		const struct hyde_block *b;

		if (f[i]->kind != HYDE_FLOW_OUTPUT)
			continue;
		b = &j->outputs[f[i]->reduce];
		ck_assert_uint_eq(f[i]->bytes, b->bytes);
		ck_assert(f[i]->src_host == b->replica[0] || f[i]->src_host == b->replica[1]);
		ck_assert_uint_eq(f[i]->dst_host,
				  b->replica[f[i]->src_host == b->replica[0] ? 1 : 2]);
		/* the reduce is done when its last hop is */
		ck_assert_int_le(f[i]->end, j->reduces[f[i]->reduce].end);
		hops++;
	}
	ck_assert_uint_eq(hops, 6);
	run_free(&r);
}
END_TEST

/* A chain: the parent's reduces on rack 0 write its output there; the
 * child reads it (input=parents) with maps pinned to rack 1: each of its
 * reads comes from a host where a parent's reduce wrote, and together
 * they carry exactly the parent's output. */
START_TEST(lineage_chain)
{
	struct run r;
	struct flow *const *f;
	const struct hyde_job *p, *ch;
	size_t n, i;
	uint64_t bytes = 0;
	uint32_t k;

	run_model(&r, NULL, "topologies/tiny.topo",
		  "job id=p arrival=0s input=4MB shuffle=2MB output=3000002B maps=2 reduces=2 "
		  "map_time=1s reduce_time=1s reduce_racks=0,0\n"
		  "job id=c arrival=0s input=parents shuffle=1MB output=0B maps=3 reduces=1 "
		  "map_time=1s reduce_time=1s parents=p map_racks=1,1,1\n",
		  "fair", NULL, NULL, 0, 1, false);
	p = &r.c->c->jobs[0];
	ch = &r.c->c->jobs[1];
	ck_assert_uint_eq(ch->input, 3000002);
	ck_assert_int_ge(ch->ready_at, p->end);
	f = ctl_flows(r.c, &n);
	for (i = 0; i < n; i++) {
		bool from_parent = false;

		if (f[i]->kind != HYDE_FLOW_INPUT || f[i]->job != 1)
			continue;
		for (k = 0; k < p->n_reduces; k++)
			from_parent |= f[i]->src_host == (unsigned)p->reduces[k].host;
		ck_assert_msg(from_parent, "child read from r%uh%u, where no parent reduce wrote",
			      f[i]->src_rack, f[i]->src_host % 2);
		ck_assert(f[i]->blk_output && f[i]->blk_job == 0);
		bytes += f[i]->bytes;
	}
	ck_assert_uint_eq(bytes, 3000002);
	/* the splits' locations are the parents' reduce hosts */
	for (k = 0; k < ch->n_maps; k++)
		ck_assert_uint_ge(ch->blocks[k].n_replicas, 1);
	run_free(&r);
}
END_TEST

/* ---- hyde_pending_map against a plain scan ---- */

/* The map hyde_pending_map must give: the first pending map, in index
 * order, that fits host and has a replica on it; else one with a replica
 * in its rack (its pinned rack, if any); else any (none if pinned). */
static const struct hyde_task *plain_pending_map(struct hyde_sched *s, const struct hyde_job *j,
						 unsigned host, enum hyde_locality max,
						 enum hyde_locality *level)
{
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	unsigned rack = hyde_rack_of(ci, host), r;
	enum hyde_locality l;
	uint32_t m;

	for (l = HYDE_NODE_LOCAL; l <= max; l++) {
		if (l == HYDE_OFF_RACK && j->map_racks)
			break;
		for (m = 0; m < j->n_maps; m++) {
			const struct hyde_task *t = &j->maps[m];
			const struct hyde_block *b = &j->blocks[m];
			bool here = l == HYDE_OFF_RACK;

			if (t->state != HYDE_TASK_PENDING || !hyde_task_fits(s, t, host))
				continue;
			if (l == HYDE_RACK_LOCAL && j->map_racks)
				here = j->map_racks[m] == rack;
			else
				for (r = 0; r < b->n_replicas && !here; r++)
					here = l == HYDE_NODE_LOCAL ? b->replica[r] == host
								    : hyde_rack_of(ci, b->replica[r]) == rack;
			if (here) {
				*level = l;
				return t;
			}
		}
	}
	return NULL;
}

static unsigned scan_picks, scan_levels[3];

/* Jobs from a rotating start, each at a locality bound that cycles, so
 * that maps start out of every list's order; every answer checked. */
static const struct hyde_task *scan_pick(struct hyde_sched *s, unsigned host)
{
	const uint32_t *act;
	size_t n, i;

	act = hyde_active_jobs(s, &n);
	for (i = 0; i < n; i++) {
		const struct hyde_job *j = hyde_job(s, act[(i + scan_picks) % n]);
		enum hyde_locality max = (enum hyde_locality)((scan_picks / 3 + i) % 3), l1 = 0, l2 = 0;
		const struct hyde_task *want = plain_pending_map(s, j, host, max, &l2);
		const struct hyde_task *t = hyde_pending_map(s, j, host, max, &l1);

		ck_assert_ptr_eq(t, want);
		if (t) {
			ck_assert_int_eq(l1, l2);
			scan_levels[l1]++;
			scan_picks++;
			return t;
		}
	}
	scan_picks++;
	return NULL;
}

static const struct hyde_sched_ops scan_ops = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "scantest",
	.pick_task = scan_pick,
};

/* Three jobs of 150 maps on rack8, one pinned to racks 2 and 5: every map
 * hyde_pending_map hands out, at every level, is the one a plain scan
 * finds; all 450 run. */
START_TEST(pending_map_is_a_plain_scan)
{
	char wl[2048];
	struct run r;
	size_t k, len;

	scan_picks = 0;
	memset(scan_levels, 0, sizeof(scan_levels));
	len = (size_t)snprintf(wl, sizeof(wl), "%s",
			       "job id=a arrival=0s input=1500MB shuffle=0B output=0B maps=150 reduces=0 map_time=2s\n"
			       "job id=b arrival=1s input=1500MB shuffle=0B output=0B maps=150 reduces=0 map_time=3s "
			       "input_racks=0\n"
			       "job id=c arrival=2s input=1500MB shuffle=0B output=0B maps=150 reduces=0 map_time=1s "
			       "map_racks=");
	for (k = 0; k < 150; k++)
		len += (size_t)snprintf(wl + len, sizeof(wl) - len, "%s%d", k ? "," : "", k % 2 ? 5 : 2);
	snprintf(wl + len, sizeof(wl) - len, "\n");
	run_model(&r, NULL, "topologies/rack8.topo", wl, NULL, &scan_ops, NULL, 0, 1, true);
	for (k = 0; k < 3; k++) {
		ck_assert_int_eq(r.c->c->jobs[k].state, HYDE_JOB_DONE);
		ck_assert_uint_eq(r.c->c->jobs[k].maps_done, 150);
	}
	/* every level was handed out, so the lists were consumed out of order */
	for (k = 0; k < 3; k++)
		ck_assert_uint_gt(scan_levels[k], 10);
	run_free(&r);
}
END_TEST

/* ---- the network view ---- */

/* A test scheduler: fair's rule, and at every tick a look at the view. */
struct look {
	int64_t from, to;
	struct hyde_link_state up0, down1, up1, host0;
	size_t flows;
	uint64_t sent;
};

static struct look looks[64];
static size_t n_looks;

static const struct hyde_task *view_pick(struct hyde_sched *s, unsigned host)
{
	const uint32_t *act;
	size_t n, i;

	act = hyde_active_jobs(s, &n);
	for (i = 0; i < n; i++) {
		const struct hyde_job *j = hyde_job(s, act[i]);
		enum hyde_locality l;
		const struct hyde_task *t = hyde_pending_map(s, j, host, HYDE_OFF_RACK, &l);

		if (!t)
			t = hyde_pending_reduce(s, j, host);
		if (t)
			return t;
	}
	return NULL;
}

static void view_tick(struct hyde_sched *s)
{
	struct look *lk = &looks[n_looks < 64 ? n_looks++ : 63];
	struct hyde_flow_state fs[4];

	hyde_net_interval(s, &lk->from, &lk->to);
	ck_assert_int_eq(hyde_net_link(s, HYDE_LINK_TOR_UP, 0, &lk->up0), 0);
	ck_assert_int_eq(hyde_net_link(s, HYDE_LINK_TOR_DOWN, 1, &lk->down1), 0);
	ck_assert_int_eq(hyde_net_link(s, HYDE_LINK_TOR_UP, 1, &lk->up1), 0);
	ck_assert_int_eq(hyde_net_link(s, HYDE_LINK_HOST_UP, 0, &lk->host0), 0);
	ck_assert_int_lt(hyde_net_link(s, HYDE_LINK_TOR_UP, 2, &lk->up1), 0); /* no rack 2 */
	lk->flows = hyde_net_flows(s, fs, 4);
	if (lk->flows == 1) {
		ck_assert_uint_eq(fs[0].sent + fs[0].left, fs[0].bytes);
		ck_assert(hyde_flow_crosses(s, &fs[0], HYDE_LINK_TOR_UP, 0));
		ck_assert(!hyde_flow_crosses(s, &fs[0], HYDE_LINK_TOR_UP, 1));
		lk->sent = fs[0].sent;
	}
}

static const struct hyde_sched_ops view_ops = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "viewtest",
	.pick_task = view_pick,
	.tick = view_tick,
};

/* One 100 MB flow from rack 0 to rack 1 over a 100 Mbit/s uplink (hosts
 * at 1 Gbit/s): for 8 s the uplink and the downlink it crosses are full,
 * the host's link a tenth used, the other rack's uplink idle; before and
 * after, all idle. */
START_TEST(netview_in_the_model)
{
	static const char topo[] =
		"racks 2\nhosts 1\ncontainers 2\nreplicas 1\nhost_rate 1Gbit\nuplink_rate 100Mbit\nocs no\n";
	struct run r;
	size_t i, full = 0;
	uint64_t prev_sent = 0;

	n_looks = 0;
	run_model(&r, topo, NULL,
		  "job id=x arrival=0s input=1MB shuffle=100MB output=0B maps=1 reduces=1 "
		  "map_time=0.5s reduce_time=0s map_racks=0 reduce_racks=1\n",
		  NULL, &view_ops, NULL, 0, 1, true);
	ck_assert_uint_ge(n_looks, 9);
	ck_assert_int_eq(looks[0].from, r.c->t0);
	for (i = 0; i < n_looks; i++) {
		const struct look *lk = &looks[i];

		ck_assert_int_eq(lk->to - lk->from, NSEC_PER_SEC);
		ck_assert_uint_eq(lk->up0.capacity, 100000000);
		ck_assert_uint_eq(lk->host0.capacity, 1000000000);
		ck_assert_double_eq_tol(lk->up1.utilisation, 0, 1e-12);
		if (lk->up0.bytes == 12500000) { /* a whole second at 100 Mbit/s */
			ck_assert_double_eq_tol(lk->up0.utilisation, 1, 1e-9);
			ck_assert_double_eq_tol(lk->down1.utilisation, 1, 1e-9);
			ck_assert_double_eq_tol(lk->host0.utilisation, 0.1, 1e-9);
			ck_assert_uint_eq(lk->up0.flows, 1);
			ck_assert_uint_eq(lk->flows, 1);
			ck_assert_uint_gt(lk->sent, prev_sent);
			prev_sent = lk->sent;
			full++;
		}
	}
	/* 8 s of transfer: at least 7 whole seconds seen full */
	ck_assert_uint_ge(full, 7);
	ck_assert_uint_eq(looks[n_looks - 1].flows == 0 || looks[n_looks - 1].flows == 1, 1);
	run_free(&r);
}
END_TEST

/* ---- where a job's time goes ---- */

static const struct {
	const char *what;
	struct job_milestones m;
	int64_t parts[BD_PARTS];
} bd_cases[] = {
	{ "one after the other", { 0, 0, 2, 10, 12, 20, 25 }, { 0, 2, 8, 2, 8, 5 } },
	/* slowstart: the shuffle began during the maps; only its part after
	 * them is shuffle time */
	{ "shuffle overlaps the maps", { 0, 0, 1, 10, 4, 15, 18 }, { 0, 1, 9, 0, 5, 3 } },
	{ "shuffle over before the maps", { 0, 0, 1, 10, 4, 8, 12 }, { 0, 1, 9, 0, 0, 2 } },
	{ "no shuffle", { 5, 5, 6, 9, -1, -1, 11 }, { 0, 1, 3, 0, 0, 2 } },
	{ "a DAG child", { 0, 30, 31, 40, 41, 50, 51 }, { 30, 1, 9, 1, 9, 1 } },
	/* the last flow ends with the job (its end is the flow's) */
	{ "shuffle to the end", { 0, 0, 1, 3, 3, 9, 9 }, { 0, 1, 2, 0, 6, 0 } },
	{ "not finished", { 0, 0, 1, 3, 3, 9, -1 }, { -1, -1, -1, -1, -1, -1 } },
	/* an emulated map-only job whose last map is logged just after the
	 * job's end (records from several processes) */
	{ "maps logged after the end", { 0, 0, 1, 11, -1, -1, 10 }, { 0, 1, 9, 0, 0, 0 } },
};

START_TEST(breakdown_table)
{
	int64_t parts[BD_PARTS], sum = 0;
	int k, r = job_breakdown(&bd_cases[_i].m, parts);

	for (k = 0; k < BD_PARTS; k++) {
		ck_assert_msg(parts[k] == bd_cases[_i].parts[k], "%s: %s is %lld, expected %lld",
			      bd_cases[_i].what, breakdown_part_names[k], (long long)parts[k],
			      (long long)bd_cases[_i].parts[k]);
		sum += parts[k];
	}
	if (r == 0)
		ck_assert_int_eq(sum, bd_cases[_i].m.end - bd_cases[_i].m.arrival);
	else
		ck_assert_int_eq(bd_cases[_i].m.end, -1);
}
END_TEST

/* Every finished job of a real run: its parts add up to its JCT, the
 * shuffle-heavy ones (shuffle >= T_e) are called heavy. */
static void breakdown_adds_up(const char *sched)
{
	char errbuf[HYDE_ERRBUF_SIZE], dir[] = "/tmp/hyde-bd-XXXXXX";
	struct ctl_opts o;
	struct ctl *c;
	struct csv f;
	size_t n = 0, heavy = 0;
	int r;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ctl_opts_default(&o);
	o.topo_path = test_srcpath("topologies/rack8.topo");
	o.wl_spec = test_srcpath("workloads/fb-small.wl");
	o.sched_name = sched;
	o.outdir = dir;
	o.stream_flows = true;
	ck_assert_msg(ctl_new(&o, &c, errbuf) == 0, "%s", errbuf);
	ck_assert_msg(ctl_run(c, errbuf) == 0, "%s", errbuf);
	ck_assert_msg(csv_open(&f, dir, RUNDIR_JOBS, RUNDIR_JOBS_HEADER, errbuf) == 0, "%s", errbuf);
	while ((r = csv_next(&f, errbuf)) > 0) {
		int64_t jct, part, sum = 0;
		uint64_t shuffle;
		int k;

		ck_assert_int_eq(csv_ns(&f, 5, &jct, errbuf), 0);
		ck_assert_int_eq(csv_u64(&f, 8, UINT64_MAX, &shuffle, errbuf), 0);
		ck_assert_str_eq(f.f[10], shuffle >= 4500000 ? "heavy" : "light");
		heavy += !strcmp(f.f[10], "heavy");
		for (k = 0; k < BD_PARTS; k++) {
			ck_assert_int_eq(csv_ns(&f, 11 + k, &part, errbuf), 0);
			ck_assert_int_ge(part, 0);
			sum += part;
		}
		ck_assert_int_eq(sum, jct);
		n++;
	}
	ck_assert_int_eq(r, 0);
	csv_close(&f);
	ck_assert_uint_eq(n, 30);
	ck_assert_uint_eq(heavy, 4); /* fb-small: 4 jobs of at least T_e */
	ctl_free(c);
	{
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		ck_assert_int_eq(system(cmd), 0);
	}
}

START_TEST(breakdown_adds_up_fair)
{
	breakdown_adds_up("fair");
}
END_TEST

START_TEST(breakdown_adds_up_coscheduler)
{
	breakdown_adds_up("coscheduler");
}
END_TEST

/* ---- a circuit's fetches ---- */

/* 4 maps on the 4 hosts of rack 0, one reduce on rack 1, 40 MB over the
 * OCS (T_e 1 MB), every task placed at once (no heartbeat), 2 copies per
 * reduce. By default the circuit's 4 fetches start together when it is up
 * (its reservation is sized for all 40 MB); with --ocs-fetch copies at most
 * 2 move at a time, and the last two start only when the first end. */
static void ocs_fetch_starts(bool slots, int64_t *starts, unsigned *n, unsigned *hosts)
{
	static const char topo[] =
		"name t\nracks 2\nhosts 4\ncontainers 1\nhost_rate 1Gbit\nuplink_rate 400Mbit\n"
		"ocs yes\nocs_rate 4Gbit\ndelta 1ms\nt_e 1MB\n";
	char errbuf[HYDE_ERRBUF_SIZE];
	struct ctl_opts o;
	struct run r = { 0 };
	struct flow *const *f;
	bool seen[8] = { false };
	size_t nf, i;

	r.tpath = test_write_tmp("model", topo, ".topo");
	r.wpath = test_write_tmp("model", "job id=x arrival=0s input=40MB shuffle=40MB output=0B maps=4 reduces=1 "
			    "map_time=1s reduce_time=0s map_racks=0,0,0,0 reduce_racks=1\n", ".wl");
	ctl_opts_default(&o);
	o.topo_path = r.tpath;
	o.wl_spec = r.wpath;
	o.sched_name = "fair";
	o.heartbeat = 0;
	o.no_io = true;
	o.parallel_copies = 2;
	o.ocs_fetch_slots = slots;
	ck_assert_msg(ctl_new(&o, &r.c, errbuf) == 0, "%s", errbuf);
	ck_assert_msg(ctl_run(r.c, errbuf) == 0, "%s", errbuf);
	f = ctl_flows(r.c, &nf);
	*n = *hosts = 0;
	for (i = 0; i < nf; i++) {
		if (f[i]->kind != HYDE_FLOW_SHUFFLE)
			continue;
		ck_assert_int_eq(f[i]->path, PATH_OCS);
		ck_assert_uint_lt(*n, 4);
		starts[(*n)++] = f[i]->start;
		*hosts += !seen[f[i]->src_host];
		seen[f[i]->src_host] = true;
	}
	run_free(&r);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

START_TEST(ocs_fetches_fill_the_circuit)
{
	int64_t s[4];
	unsigned n, hosts;

	ocs_fetch_starts(false, s, &n, &hosts);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(hosts, 4);
	qsort(s, n, sizeof(*s), cmp_i64);
	ck_assert_int_eq(s[0], s[3]);

	ocs_fetch_starts(true, s, &n, &hosts);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(hosts, 4);
	qsort(s, n, sizeof(*s), cmp_i64);
	ck_assert_int_eq(s[0], s[1]);
	ck_assert_int_gt(s[2], s[1]);
}
END_TEST

Suite *model_suite(void)
{
	Suite *s = suite_create("model");
	TCase *tc = tcase_create("cluster");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, spread_one_per_heartbeat);
	tcase_add_test(tc, pack_with_assign_all);
	tcase_add_test(tc, phases_from_the_seed);
	tcase_add_test(tc, freed_container_waits_for_heartbeat);
	tcase_add_test(tc, remote_input_exact);
	tcase_add_test(tc, ocs_fetches_fill_the_circuit);
	tcase_add_test(tc, output_pipeline);
	tcase_add_test(tc, lineage_chain);
	tcase_add_test(tc, pending_map_is_a_plain_scan);
	tcase_add_test(tc, netview_in_the_model);
	tcase_add_loop_test(tc, breakdown_table, 0, sizeof(bd_cases) / sizeof(bd_cases[0]));
	tcase_add_test(tc, breakdown_adds_up_fair);
	tcase_add_test(tc, breakdown_adds_up_coscheduler);
	suite_add_tcase(s, tc);
	return s;
}
