/* NEAT (papers: Munir et al., CoNEXT'16): its predictors on the paper's
 * worked example and by hand, the compressed state, the coflow rate
 * models it is evaluated under, the flow-level workload, and Fig. 1 end
 * to end in the simulator (the scheduler's choice and the flow's actual
 * completion under each network policy). */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_hyde.h"
#include "core/util.h"
#include "core/wl_gen.h"
#include "core/workload.h"
#include "ctl/ctl.h"
#include "ctl/sched_host.h"
#include "net/netsched.h"
#include "sched/neat_predict.h"

#define GB8 (1e9 / 8) /* bytes in one Gb */

/* ---- Fig. 1: 1 Gbit/s links, 4 Gb left on 2 -> 3, two flows of 10 Gb on
 * 2 -> 1, a new flow of 5 Gb: predicted completion on node 3 and node 1,
 * and the others' delay (eq. 2's second term) ---- */

static const struct {
	enum neat_model m;
	double t3, d3, t1, d1;
} fig1[] = {
	{ NEAT_FCFS, 9, 0, 25, 0 },   /* eq. (3): FCFS 9 s vs 25 s */
	{ NEAT_FAIR, 9, 4, 15, 10 },  /* eq. (4), (5): Fair 9 vs 15 */
	{ NEAT_SRPT, 9, 0, 5, 10 },   /* eq. (7), (8): SRPT 9 vs 5; with eq. (2): 9 vs 15 */
	{ NEAT_LAS, 9, 4, 15, 10 },   /* nothing sent yet: LAS is Fair */
};

START_TEST(fig1_predict)
{
	struct neat_comp on3[] = { { 4 * GB8, 4 * GB8, 0, 0 } };
	struct neat_comp on1[] = { { 10 * GB8, 10 * GB8, 0, 0 }, { 10 * GB8, 10 * GB8, 0, 0 } };
	struct neat_link l3 = { 1e9, on3, 1, NULL }, l1 = { 1e9, on1, 2, NULL };
	struct neat_pred p3, p1;

	neat_predict_flow(fig1[_i].m, &l3, 5 * GB8, &p3);
	neat_predict_flow(fig1[_i].m, &l1, 5 * GB8, &p1);
	ck_assert_double_eq_tol(p3.t, fig1[_i].t3, 1e-9);
	ck_assert_double_eq_tol(p3.delta, fig1[_i].d3, 1e-9);
	ck_assert_double_eq_tol(p1.t, fig1[_i].t1, 1e-9);
	ck_assert_double_eq_tol(p1.delta, fig1[_i].d1, 1e-9);
	/* eq. (9): under SRPT, FCT + delta is the Fair FCT */
	if (fig1[_i].m == NEAT_SRPT) {
		ck_assert_double_eq_tol(p3.t + p3.delta, 9, 1e-9);
		ck_assert_double_eq_tol(p1.t + p1.delta, 15, 1e-9);
	}
}
END_TEST

/* LAS with what flows sent: a flow that sent 3 of its 4 Gb waits for
 * the new flow to catch up with it, then shares. */
START_TEST(las_attained)
{
	struct neat_comp c[] = { { 1 * GB8, 1 * GB8, 3 * GB8, 0 }, /* sent 3, 1 left */
				 { 2 * GB8, 2 * GB8, 0, 0 } };
	struct neat_link l = { 1e9, c, 2, NULL };
	struct neat_pred p;

	/* new flow of 2 Gb: the first flow is at 3 Gb: untouched; the
	 * second (sent 0, 2 left) shares all the way: 2 + 2 = 4 s */
	neat_predict_flow(NEAT_LAS, &l, 2 * GB8, &p);
	ck_assert_double_eq_tol(p.t, 4, 1e-9);
	/* the first is delayed by the new flow's 2 Gb, the second by 2 */
	ck_assert_double_eq_tol(p.delta, 4, 1e-9);
	/* a new flow of 3.5 Gb: reaches 3 Gb, then shares 0.5 with the
	 * first: 3.5 + 0.5 + 2 = 6 s */
	neat_predict_flow(NEAT_LAS, &l, 3.5 * GB8, &p);
	ck_assert_double_eq_tol(p.t, 6, 1e-9);
}
END_TEST

/* Coflows, eq. (10)-(17), on a link of 1 Gbit/s: c1 (2 Gb in all, 1 on
 * the link), c2 (8 Gb, 4 on the link); the new coflow 4 Gb in all, 2 on
 * the link. */
START_TEST(coflow_predict)
{
	struct neat_comp c[] = { { 2 * GB8, 1 * GB8, 0, 2 * GB8 }, { 8 * GB8, 4 * GB8, 0, 8 * GB8 } };
	struct neat_link l = { 1e9, c, 2, NULL };
	struct neat_pred p;

	neat_predict_coflow(NEAT_CF_FCFS, &l, 4 * GB8, 2 * GB8, 0, &p); /* (10) */
	ck_assert_double_eq_tol(p.t, 7, 1e-9);
	ck_assert_double_eq_tol(p.delta, 0, 1e-9);
	/* (11): 2 + 1 + 4 x 4 / 8 = 5; (13): 2 x 2 / 4 + 2 = 3 */
	neat_predict_coflow(NEAT_CF_FAIR, &l, 4 * GB8, 2 * GB8, 0, &p);
	ck_assert_double_eq_tol(p.t, 5, 1e-9);
	ck_assert_double_eq_tol(p.delta, 3, 1e-9);
	/* (17), TCF (key = size): 2 + 1 = 3, and c2 waits 2 more */
	neat_predict_coflow(NEAT_CF_PERM, &l, 4 * GB8, 2 * GB8, 4 * GB8, &p);
	ck_assert_double_eq_tol(p.t, 3, 1e-9);
	ck_assert_double_eq_tol(p.delta, 2, 1e-9);
	/* a permutation that puts the new coflow first: 2 s, both wait */
	neat_predict_coflow(NEAT_CF_PERM, &l, 4 * GB8, 2 * GB8, 0, &p);
	ck_assert_double_eq_tol(p.t, 2, 1e-9);
	ck_assert_double_eq_tol(p.delta, 4, 1e-9);
}
END_TEST

/* The compressed state (eq. 18): with one flow per bin it is exact; a
 * flow in the new flow's bin counts whole. */
START_TEST(bins_eq18)
{
	struct neat_comp c[] = { { 2e3, 2e3, 0, 0 }, { 5e5, 5e5, 0, 0 }, { 3e8, 3e8, 0, 0 } };
	struct neat_link exact = { 1e9, c, 3, NULL };
	struct neat_bins b;
	struct neat_link comp = { 1e9, NULL, 0, &b };
	struct neat_pred pe, pc;
	size_t i;
	int m;

	neat_bins_init(&b, 8);
	ck_assert_uint_eq(neat_bins_index(&b, 10), 0);
	ck_assert_uint_eq(neat_bins_index(&b, 2e10), 7);
	for (i = 0; i < 3; i++)
		neat_bins_add(&b, &c[i]);
	for (m = NEAT_FCFS; m <= NEAT_SRPT; m++) {
		neat_predict_flow((enum neat_model)m, &exact, 1e7, &pe);
		neat_predict_flow((enum neat_model)m, &comp, 1e7, &pc);
		ck_assert_double_eq_tol(pc.t, pe.t, 1e-12);
		ck_assert_double_eq_tol(pc.delta, pe.delta, 1e-12);
	}
	/* a new flow of 4e8 shares a bin with the 3e8 one... */
	neat_predict_flow(NEAT_FAIR, &comp, 2.5e8, &pc);
	neat_predict_flow(NEAT_FAIR, &exact, 2.5e8, &pe);
	/* exact: 2.5e8 + 2e3 + 5e5 + 2.5e8; binned: the 3e8 flow whole */
	ck_assert_double_eq_tol(pe.t, (5e8 + 2e3 + 5e5) * 8 / 1e9, 1e-12);
	ck_assert_double_eq_tol(pc.t, (2.5e8 + 2e3 + 5e5 + 3e8) * 8 / 1e9, 1e-12);
}
END_TEST

/* ---- the coflow allocations (netsched.h) ---- */

/* Two links of capacity 1. Coflow 0: a flow of 4 on link 0 and one of 2
 * on link 1; coflow 1: a flow of 1 on link 1. */
START_TEST(coflow_rates)
{
	struct ns_flow f[] = { { { 0 }, 1, 4, 0 }, { { 1 }, 1, 2, 0 }, { { 1 }, 1, 1, 1 } };
	double cap[] = { 1, 1 }, r[3];

	/* Varys: coflow 1 (Gamma 1) before coflow 0 (Gamma 4): it takes
	 * link 1 whole; coflow 0 waits on link 1 (full), so MADD gives it
	 * nothing; work conservation then gives its flow on the idle link 0
	 * all of it */
	netsched_coflow_rates(HYDE_COFLOW_VARYS, f, 3, 2, cap, 2, r);
	ck_assert_double_eq_tol(r[2], 1, 1e-12);
	ck_assert_double_eq_tol(r[1], 0, 1e-12);
	ck_assert_double_eq_tol(r[0], 1, 1e-12);
	/* fair: weights: coflow 0 (6 left) loads link 0 with 4/6 R0 and link
	 * 1 with 2/6 R0; coflow 1 link 1 with R1. Filling: link 1 full at
	 * R (1/3 + 1) = 1, R = 3/4: flow rates 4/6 x 3/4 = 1/2, 2/6 x 3/4 =
	 * 1/4, 3/4; then the rest of link 0 (1/2) to coflow 0's first flow */
	netsched_coflow_rates(HYDE_COFLOW_FAIR, f, 3, 2, cap, 2, r);
	ck_assert_double_eq_tol(r[1], 0.25, 1e-9);
	ck_assert_double_eq_tol(r[2], 0.75, 1e-9);
	ck_assert_double_eq_tol(r[0], 1.0, 1e-9);
}
END_TEST

/* MADD: a coflow alone finishes all its flows at its bottleneck time. */
START_TEST(coflow_madd)
{
	struct ns_flow f[] = { { { 0, 2 }, 2, 3, 0 }, { { 1, 2 }, 2, 1, 0 } };
	double cap[] = { 1, 1, 1 }, r[2];

	/* link 2 carries both: 4 bits, Gamma = 4: rates 3/4 and 1/4 (then
	 * nothing is left on link 2 for work conservation) */
	netsched_coflow_rates(HYDE_COFLOW_VARYS, f, 2, 1, cap, 3, r);
	ck_assert_double_eq_tol(r[0], 0.75, 1e-12);
	ck_assert_double_eq_tol(r[1], 0.25, 1e-12);
}
END_TEST

START_TEST(policy_names)
{
	ck_assert_int_eq(netsched_net_parse("maxmin"), HYDE_NET_FAIR);
	ck_assert_int_eq(netsched_net_parse("srpt"), HYDE_NET_SRPT);
	ck_assert_int_eq(netsched_net_parse("pfabric"), -1);
	ck_assert_int_eq(netsched_coflow_parse("varys"), HYDE_COFLOW_VARYS);
	ck_assert_int_eq(netsched_coflow_parse("none"), HYDE_COFLOW_NONE);
	ck_assert_str_eq(netsched_coflow_name(HYDE_COFLOW_SCF), "scf");
}
END_TEST

/* ---- files ---- */

static void rm_tmp(char *path)
{
	unlink(path);
	free(path);
}

/* The flow-level keys read back as written, and bad ones are refused. */
START_TEST(wl_flow_keys)
{
	char *p = test_write_tmp("neat", "job id=a arrival=0s input=7MB shuffle=0B output=0B maps=2 reduces=0 "
			    "map_time=0s input_hosts=r1h2,r0h0 block_bytes=3MB,4MB remote=yes\n",
			    ".wl");
	char errbuf[HYDE_ERRBUF_SIZE], *back, buf[4096];
	struct workload *wl, *wl2;
	FILE *fp;
	size_t n;

	ck_assert_msg(wl_load(p, &wl, errbuf) == 0, "%s", errbuf);
	ck_assert(wl->jobs[0].remote);
	ck_assert_uint_eq(wl->jobs[0].n_input_hosts, 2);
	ck_assert_uint_eq(wl->jobs[0].input_hosts[0].rack, 1);
	ck_assert_uint_eq(wl->jobs[0].input_hosts[0].host, 2);
	ck_assert_uint_eq(wl_block_bytes(&wl->jobs[0], 1), 4000000);
	fp = fmemopen(buf, sizeof(buf), "w");
	ck_assert_int_eq(wl_write(wl, fp), 0);
	n = (size_t)ftell(fp);
	fclose(fp);
	buf[n] = '\0';
	back = test_write_tmp("neat", buf, ".wl");
	ck_assert_msg(wl_load(back, &wl2, errbuf) == 0, "%s", errbuf);
	ck_assert(wl2->jobs[0].remote);
	ck_assert_uint_eq(wl2->jobs[0].block_bytes[0], 3000000);
	ck_assert_uint_eq(wl2->jobs[0].input_hosts[1].rack, 0);
	wl_free(wl);
	wl_free(wl2);
	rm_tmp(back);
	rm_tmp(p);
}
END_TEST

static const struct {
	const char *line, *msg;
} bad_flow_keys[] = {
	{ "input_hosts=r1x2", "input_hosts: expected host names" },
	{ "input_hosts=r1h2, ", "input_hosts: expected host names" },
	{ "block_bytes=3MB", "block_bytes: expected 2 sizes" },
	{ "block_bytes=3MB,3MB", "block_bytes add up to 6000000 bytes but input=7MB" },
	{ "block_bytes=7MB,0B", "every block needs bytes" },
	{ "remote=maybe", "remote: expected 'yes' or 'no'" },
};

START_TEST(wl_flow_keys_bad)
{
	char line[512], errbuf[HYDE_ERRBUF_SIZE];
	struct workload *wl = NULL;
	char *p;

	snprintf(line, sizeof(line),
		 "job id=a arrival=0s input=7MB shuffle=0B output=0B maps=2 reduces=0 map_time=0s %s\n",
		 bad_flow_keys[_i].line);
	p = test_write_tmp("neat", line, ".wl");
	ck_assert_int_lt(wl_load(p, &wl, errbuf), 0);
	ck_assert_ptr_null(wl);
	ck_assert_msg(strstr(errbuf, bad_flow_keys[_i].msg) && strstr(errbuf, ":1:"),
		      "got '%s'", errbuf);
	rm_tmp(p);
}
END_TEST

#define FIG1_TOPO                                                                      \
	"racks 1\nhosts 6\ncontainers 3\nreplicas 1\nhost_rate 1Gbit\nuplink_rate 10Gbit\n" \
	"ocs no\n"

/* The generator: a CDF's mean, the load it offers, determinism. */
START_TEST(gen_flows_load)
{
	char *tp = test_write_tmp("neat", FIG1_TOPO, ".topo");
	char *cp = test_write_tmp("neat", "# two points\n1000 0\n3000 1\n", ".cdf");
	char errbuf[HYDE_ERRBUF_SIZE], kv[700];
	struct gen_flows_opts o;
	struct workload *wl, *wl2;
	struct flow_cdf *cdf;
	double bytes = 0, span;
	size_t i;

	ck_assert_int_eq(flow_cdf_load(cp, &cdf, errbuf), 0);
	ck_assert_double_eq_tol(flow_cdf_mean(cdf), 2000, 1e-9);
	ck_assert_double_eq_tol(flow_cdf_sample(cdf, 0.25), 1500, 1e-9);
	flow_cdf_free(cdf);
	gen_flows_opts_default(&o);
	snprintf(kv, sizeof(kv), "topo=%s", tp);
	ck_assert_int_eq(gen_flows_opts_set(&o, kv, errbuf), 0);
	snprintf(kv, sizeof(kv), "cdf=%s", cp);
	ck_assert_int_eq(gen_flows_opts_set(&o, kv, errbuf), 0);
	ck_assert_int_eq(gen_flows_opts_set(&o, "flows=20000", errbuf), 0);
	ck_assert_int_eq(gen_flows_opts_set(&o, "load=0.4", errbuf), 0);
	ck_assert_msg(wl_gen_flows(&o, &wl, errbuf) == 0, "%s", errbuf);
	ck_assert_msg(wl_gen_flows(&o, &wl2, errbuf) == 0, "%s", errbuf);
	ck_assert_uint_eq(wl->n_jobs, 20000);
	for (i = 0; i < wl->n_jobs; i++) {
		ck_assert(wl->jobs[i].remote && wl->jobs[i].maps == 1);
		ck_assert(wl->jobs[i].input >= 1000 && wl->jobs[i].input <= 3000);
		ck_assert_uint_eq(wl->jobs[i].input, wl2->jobs[i].input);
		ck_assert_int_eq(wl->jobs[i].arrival, wl2->jobs[i].arrival);
		bytes += (double)wl->jobs[i].input;
	}
	/* 6 hosts x 1 Gbit/s x 0.4: the offered load, within 3% */
	span = (double)wl->jobs[wl->n_jobs - 1].arrival / 1e9;
	ck_assert_double_eq_tol(bytes * 8 / span / 6e9, 0.4, 0.012);
	wl_free(wl);
	wl_free(wl2);
	rm_tmp(tp);
	rm_tmp(cp);
}
END_TEST

/* ---- Fig. 1 end to end: hosts r0h0 = node 1, r0h1 = node 3; the flows
 * come from r0h2..r0h5, whose containers fillers hold, so that the new
 * task has node 1 and node 3 to choose from. The test's scheduler puts
 * the fillers and the three flows of the example where Fig. 1 has them
 * and asks NEAT for the new task. ---- */

#define FIG1_WL                                                                               \
	"job id=fill2 arrival=0s input=3B shuffle=0B output=0B maps=3 reduces=0 map_time=100s "    \
	"input_hosts=r0h2\n"                                                                  \
	"job id=fill3 arrival=0s input=3B shuffle=0B output=0B maps=3 reduces=0 map_time=100s "    \
	"input_hosts=r0h3\n"                                                                  \
	"job id=fill4 arrival=0s input=3B shuffle=0B output=0B maps=3 reduces=0 map_time=100s "    \
	"input_hosts=r0h4\n"                                                                  \
	"job id=fill5 arrival=0s input=3B shuffle=0B output=0B maps=3 reduces=0 map_time=100s "    \
	"input_hosts=r0h5\n"                                                                  \
	"job id=bg0 arrival=0s input=500MB shuffle=0B output=0B maps=1 reduces=0 map_time=0s "     \
	"input_hosts=r0h2 remote=yes\n"                                                       \
	"job id=bg1 arrival=0s input=1250MB shuffle=0B output=0B maps=1 reduces=0 map_time=0s "    \
	"input_hosts=r0h3 remote=yes\n"                                                       \
	"job id=bg2 arrival=0s input=1250MB shuffle=0B output=0B maps=1 reduces=0 map_time=0s "    \
	"input_hosts=r0h4 remote=yes\n"                                                       \
	"job id=new arrival=1ms input=625MB shuffle=0B output=0B maps=1 reduces=0 map_time=0s "    \
	"input_hosts=r0h5 remote=yes\n"

extern const struct hyde_sched_ops sched_neat;
static int fig1_force = -1; /* the new task's host, or -1: NEAT's choice */

static int fig1_pick(struct hyde_sched *s, const struct hyde_task *t)
{
	const struct hyde_job *j = hyde_job(s, t->job);

	if (!strncmp(j->id, "fill", 4))
		return (int)j->blocks[t->idx].replica[0];
	if (!strcmp(j->id, "bg0"))
		return 1; /* node 3 */
	if (!strncmp(j->id, "bg", 2))
		return 0; /* node 1 */
	if (fig1_force >= 0)
		return fig1_force;
	return sched_neat.pick_host(s, t);
}

static const struct {
	const char *net, *kv[3];
	int force;
	int host;   /* 0: node 1, 1: node 3 */
	double fct; /* of the new flow, seconds (it arrives 1 ms after the others) */
} fig1_runs[] = {
	/* the predictor alone (preferred=no, minFCT), as Fig. 1 argues */
	{ "fair", { "preferred=no" }, -1, 1, 8.999 },			/* Fair: node 3, 9 s */
	{ "fcfs", { "preferred=no", "predictor=net" }, -1, 1, 8.999 },	/* FCFS: node 3 */
	{ "srpt", { "preferred=no", "predictor=net", "objective=fct" }, -1, 0, 5 }, /* node 1, 5 s */
	{ "srpt", { "preferred=no", "predictor=net", "objective=sum" }, -1, 1, 8.999 }, /* eq. (2) */
	{ "srpt", { "preferred=no" }, -1, 1, 8.999 },	/* the Fair predictor (Prop. 4.1) */
	{ "las", { "preferred=no", "predictor=net" }, -1, 1, 8.999 },
	/* NEAT whole: node 3 carries a flow smaller than the new one, so
	 * only node 1 is preferred (Alg. 1): Fair gives it 15 s */
	{ "fair", { NULL }, -1, 0, 15 },
	{ "srpt", { NULL }, -1, 0, 5 },
	/* what the other node would have given */
	{ "fcfs", { NULL }, 0, 0, 24.999 },
	{ "srpt", { NULL }, 1, 1, 8.999 },
};

START_TEST(fig1_sim)
{
	char *tp = test_write_tmp("neat", FIG1_TOPO, ".topo");
	char *wp = test_write_tmp("neat", FIG1_WL, ".wl");
	char errbuf[HYDE_ERRBUF_SIZE], *kv[3], rates_kv[32], *bkv[1] = { rates_kv };
	struct hyde_sched_ops ops = sched_neat;
	struct flow *const *fl;
	struct ctl_opts o;
	struct ctl *c;
	size_t n, i;
	int nkv = 0, seen = 0;

	ops.pick_host = fig1_pick;
	fig1_force = fig1_runs[_i].force;
	for (i = 0; i < 3 && fig1_runs[_i].kv[i]; i++)
		kv[nkv++] = (char *)fig1_runs[_i].kv[i];
	ctl_opts_default(&o);
	o.topo_path = tp;
	o.wl_spec = wp;
	o.sched_ops = &ops;
	o.sched_kv = kv;
	o.n_sched_kv = nkv;
	o.heartbeat = 0;
	o.net = fig1_runs[_i].net;
	/* the simulator's rate model, as hyde sim --net sets it */
	snprintf(rates_kv, sizeof(rates_kv), "rates=%s", strcmp(o.net, "fair") ? o.net : "maxmin");
	o.backend_kv = bkv;
	o.n_backend_kv = 1;
	ck_assert_msg(ctl_new(&o, &c, errbuf) == 0, "%s", errbuf);
	ck_assert_msg(ctl_run(c, errbuf) == 0, "%s", errbuf);
	fl = ctl_flows(c, &n);
	for (i = 0; i < n; i++) {
		if (fl[i]->job != 7) /* "new" */
			continue;
		seen++;
		ck_assert_uint_eq(fl[i]->src_host, 5);
		ck_assert_msg(fl[i]->dst_host == (uint32_t)fig1_runs[_i].host,
			      "run %d: placed on host %u", _i, fl[i]->dst_host);
		ck_assert_msg(fabs((double)(fl[i]->end - fl[i]->start) / 1e9 - fig1_runs[_i].fct) < 2e-3,
			      "run %d: FCT %.6f s, expected %.3f", _i,
			      (double)(fl[i]->end - fl[i]->start) / 1e9, fig1_runs[_i].fct);
	}
	ck_assert_int_eq(seen, 1);
	ctl_free(c);
	rm_tmp(tp);
	rm_tmp(wp);
}
END_TEST

/* ---- the coflow policies in the simulator: on one downlink of 1 Gbit/s,
 * coflow a (two flows of 50 MB) and, 1 ms later, coflow b (one of 30 MB);
 * every task on r0h0 ---- */

#define CF_WL                                                                                 \
	"job id=a arrival=0s input=100MB shuffle=0B output=0B maps=2 reduces=0 map_time=0s "       \
	"input_hosts=r0h1,r0h2 remote=yes\n"                                                 \
	"job id=b arrival=1ms input=30MB shuffle=0B output=0B maps=1 reduces=0 map_time=0s "       \
	"input_hosts=r0h3 remote=yes\n"

static const struct hyde_task *first_pending(struct hyde_sched *s)
{
	size_t n, i;
	const uint32_t *act = hyde_active_jobs(s, &n);

	for (i = 0; i < n; i++) {
		const struct hyde_job *j = hyde_job(s, act[i]);
		uint32_t k;

		for (k = 0; k < j->n_maps; k++)
			if (j->maps[k].state == HYDE_TASK_PENDING && j->state == HYDE_JOB_READY)
				return &j->maps[k];
	}
	return NULL;
}

static int to_host0(struct hyde_sched *s, const struct hyde_task *t)
{
	(void)s;
	(void)t;
	return 0;
}

static const struct hyde_sched_ops all_on_h0 = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "h0",
	.next_task = first_pending,
	.pick_host = to_host0,
};

/* ---- the family's rules, held at every pick of a run: which task next
 * (a ready job's largest pending map, the first of equals, else its
 * first pending reduce once they may start: a scan of the job by hand),
 * and mindist's host (the fewest bytes across racks, then over the
 * network: a map's block, a reduce's share of the job's finished maps'
 * output from hyde_job_map_output now, with slowstart low maps end
 * between a job's reduces; of those, one in a rack where a task of the
 * job and kind runs or ran, found by a scan of its tasks), and NEAT's
 * (neat_rule: the least predicted completion from the flows in now) ---- */

extern const struct hyde_sched_ops sched_mindist, sched_minload;
static const struct hyde_sched_ops *rules_of;
static unsigned rules_next, rules_ties, rules_reduces, rules_near, rules_on_rack, rules_near_reduce;
/* reduce picks whose job's output per host was checked, and those where
 * it had grown since the job's last check */
static unsigned rules_out, rules_out_grew;
static uint64_t rules_out_last[64];

static const struct hyde_task *rules_next_task(struct hyde_sched *s)
{
	const struct hyde_task *t = rules_of->next_task(s), *want = NULL;
	size_t n, i;
	const uint32_t *act = hyde_active_jobs(s, &n);

	for (i = 0; i < n && !want; i++) {
		const struct hyde_job *j = hyde_job(s, act[i]);
		uint32_t k, eq = 0;

		if (j->state != HYDE_JOB_READY)
			continue;
		for (k = 0; k < j->n_maps; k++)
			if (j->maps[k].state == HYDE_TASK_PENDING) {
				if (!want || j->blocks[k].bytes > j->blocks[want->idx].bytes)
					want = &j->maps[k], eq = 0;
				else if (j->blocks[k].bytes == j->blocks[want->idx].bytes)
					eq++;
			}
		rules_ties += eq > 0;
		if (!want && hyde_reduces_may_start(s, j))
			for (k = 0; k < j->n_reduces && !want; k++)
				if (j->reduces[k].state == HYDE_TASK_PENDING)
					want = &j->reduces[k];
	}
	ck_assert_msg(t == want, "next: %s %u, the rule's %s %u", t ? hyde_job(s, t->job)->id : "-",
		      t ? t->idx : 0, want ? hyde_job(s, want->job)->id : "-", want ? want->idx : 0);
	rules_next++;
	return t;
}

/* NEAT's host, with its defaults (the Fair FCT of the task's bytes as one
 * flow on the candidate's downlink, Prop. 4.1; among the preferred hosts,
 * whose flows in all have at least the task's bytes left, if there is
 * one): h has the least prediction made here from the flows in now, read
 * afresh at each pick. rules_neat_busy: picks where candidates' predictions
 * differed. */
static unsigned rules_neat, rules_neat_busy, rules_neat_pref;
/* mode=path: every link of the candidate's flows is predicted (its
 * downlink and each source's uplink; across racks, the ToRs' EPS up and
 * down), each against the flows crossing it, and the candidate's
 * prediction is the most of them */
static bool rules_path;
static unsigned rules_path_links; /* picks where a prediction took > 1 link */

static double path_rule(struct hyde_sched *s, const struct hyde_task *t, unsigned x,
			const uint64_t *ph, const struct hyde_flow_state *all, size_t n_all,
			struct neat_comp *comp)
{
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	const struct hyde_job *j = hyde_job(s, t->job);
	struct {
		enum hyde_link_kind kind;
		unsigned idx;
		double on;
	} lk[4 * 64];
	unsigned src[64], y, nl = 0, ns = 0, a, k;
	double bytes[64], most = 0;

	if (t->kind == HYDE_MAP) { /* the replica in x's rack, else the first */
		const struct hyde_block *b = &j->blocks[t->idx];
		int from = -1;

		if (!b->n_replicas || !b->bytes || hyde_block_on_host(b, x))
			return 0;
		for (k = 0; k < b->n_replicas && from < 0; k++)
			if (hyde_rack_of(ci, b->replica[k]) == hyde_rack_of(ci, x))
				from = (int)b->replica[k];
		src[ns] = from >= 0 ? (unsigned)from : b->replica[0];
		bytes[ns++] = (double)b->bytes;
	} else {
		for (y = 0; y < ci->n_hosts; y++)
			if (y != x && ph[y]) {
				src[ns] = y;
				bytes[ns++] = (double)ph[y] / j->n_reduces;
			}
	}
	for (a = 0; a < ns; a++) {
		unsigned r_s = hyde_rack_of(ci, src[a]), r_x = hyde_rack_of(ci, x);
		struct {
			enum hyde_link_kind kind;
			unsigned idx;
		} on[4] = { { HYDE_LINK_HOST_DOWN, x }, { HYDE_LINK_HOST_UP, src[a] },
			    { HYDE_LINK_TOR_UP, r_s }, { HYDE_LINK_TOR_DOWN, r_x } };

		for (k = 0; k < (r_s != r_x ? 4u : 2u); k++) {
			unsigned m;

			for (m = 0; m < nl; m++)
				if (lk[m].kind == on[k].kind && lk[m].idx == on[k].idx)
					break;
			if (m == nl) {
				lk[nl].kind = on[k].kind;
				lk[nl].idx = on[k].idx;
				lk[nl++].on = 0;
			}
			lk[m].on += bytes[a];
		}
	}
	for (a = 0; a < nl; a++) {
		bool tor = lk[a].kind == HYDE_LINK_TOR_UP || lk[a].kind == HYDE_LINK_TOR_DOWN;
		struct neat_link l = { (double)(tor ? ci->uplink_rate : ci->host_rate), comp, 0, NULL };
		struct neat_pred pr;
		size_t i;

		for (i = 0; i < n_all; i++)
			if (hyde_flow_crosses(s, &all[i], lk[a].kind, lk[a].idx))
				comp[l.n++] = (struct neat_comp){ (double)all[i].left, (double)all[i].left,
								  (double)all[i].sent, 0 };
		neat_predict_flow(NEAT_FAIR, &l, lk[a].on, &pr);
		most = fmax(most, pr.t);
	}
	rules_path_links += nl > 1;
	return most;
}

static void neat_rule(struct hyde_sched *s, const struct hyde_task *t, int h)
{
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	const struct hyde_job *j = hyde_job(s, t->job);
	size_t cap = hyde_net_flows(s, NULL, 0) + 1, n, i, n_all;
	struct hyde_flow_state *in = xcalloc(cap, sizeof(*in)), *all = xcalloc(cap, sizeof(*all));
	struct neat_comp *comp = xcalloc(cap, sizeof(*comp));
	uint64_t *ph = xcalloc(ci->n_hosts, sizeof(*ph));
	double size = 0, pt[64], best = INFINITY, lo = INFINITY, hi = 0;
	bool cand[64] = { false }, pref[64], any_pref = false;
	unsigned x, y;

	ck_assert_uint_le(ci->n_hosts, 64);
	n_all = rules_path ? hyde_net_flows(s, all, cap) : 0; /* (every flow, for path_rule) */
	ck_assert_uint_lt(n_all, cap);
	if (t->kind == HYDE_REDUCE) {
		hyde_job_map_output(s, t->job, NULL, ph);
		for (y = 0; y < ci->n_hosts; y++)
			size += (double)ph[y] / j->n_reduces;
	} else {
		size = (double)j->blocks[t->idx].bytes;
	}
	for (x = 0; x < ci->n_hosts; x++) {
		struct neat_link l = { (double)ci->host_rate, comp, 0, NULL };
		struct neat_pred pr;
		double on = 0, least = INFINITY;

		if (!(cand[x] = hyde_host_offered(s, x) > 0 && hyde_task_fits(s, t, x)))
			continue;
		if (t->kind == HYDE_MAP) {
			const struct hyde_block *b = &j->blocks[t->idx];

			if (b->n_replicas && !hyde_block_on_host(b, x))
				on = (double)b->bytes;
		} else {
			for (y = 0; y < ci->n_hosts; y++)
				on += y != x ? (double)ph[y] / j->n_reduces : 0;
		}
		n = hyde_net_flows_into(s, x, in, cap);
		ck_assert_uint_lt(n, cap);
		for (i = 0; i < n; i++) {
			comp[i] = (struct neat_comp){ (double)in[i].left, (double)in[i].left,
						      (double)in[i].sent, 0 };
			least = fmin(least, (double)in[i].left);
		}
		l.n = n;
		pt[x] = 0;
		if (rules_path) {
			pt[x] = path_rule(s, t, x, ph, all, n_all, comp);
		} else if (on > 0) {
			neat_predict_flow(NEAT_FAIR, &l, on, &pr);
			pt[x] = pr.t;
		}
		pref[x] = least >= size;
		any_pref |= pref[x];
		lo = fmin(lo, pt[x]);
		hi = fmax(hi, pt[x]);
	}
	for (x = 0; x < ci->n_hosts; x++)
		if (cand[x] && (pref[x] || !any_pref))
			best = fmin(best, pt[x]);
	ck_assert_msg(cand[h] && (pref[h] || !any_pref), "%s %u of %s on host %d: not %s",
		      t->kind == HYDE_MAP ? "map" : "reduce", t->idx, j->id, h,
		      cand[h] ? "a preferred host" : "a candidate");
	ck_assert_msg(pt[h] <= best + 1e-9 * fmax(best, 1),
		      "%s %u of %s on host %d: predicted %.9f s, the least %.9f s",
		      t->kind == HYDE_MAP ? "map" : "reduce", t->idx, j->id, h, pt[h], best);
	rules_neat++;
	rules_neat_busy += hi > lo;
	rules_neat_pref += any_pref;
	free(in);
	free(all);
	free(comp);
	free(ph);
}

static int rules_pick_host(struct hyde_sched *s, const struct hyde_task *t)
{
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	int h = rules_of->pick_host(s, t);
	const struct hyde_job *j = hyde_job(s, t->job);
	const struct hyde_task *ts = t->kind == HYDE_MAP ? j->maps : j->reduces;
	uint32_t n = t->kind == HYDE_MAP ? j->n_maps : j->n_reduces, k;
	uint64_t *ph, cross_min = UINT64_MAX, tot_min = UINT64_MAX, cross[64], tot[64];
	bool near[64], tie_near = false;
	unsigned x, y;

	/* hyde_tasks_on_rack, for each kind and rack, against a scan */
	for (k = 0; k < 2; k++) {
		const struct hyde_task *v = k ? j->reduces : j->maps;
		uint32_t m = k ? j->n_reduces : j->n_maps, on[64] = { 0 }, i;
		unsigned r;

		ck_assert_uint_le(ci->racks, 64);
		for (i = 0; i < m; i++)
			if (v[i].host >= 0)
				on[hyde_rack_of(ci, (unsigned)v[i].host)]++;
		for (r = 0; r < ci->racks; r++)
			ck_assert_uint_eq(hyde_tasks_on_rack(s, t->job, k ? HYDE_REDUCE : HYDE_MAP, r),
					  on[r]);
	}
	rules_on_rack++;
	/* the job's finished maps' output per host (hyde_job_map_output),
	 * against a scan of its maps done: the controller keeps it as maps
	 * end once a scheduler has asked */
	if (t->kind == HYDE_REDUCE) {
		uint64_t *out = xcalloc(ci->n_hosts, sizeof(*out)), *scan = xcalloc(ci->n_hosts, sizeof(*scan));
		uint64_t sum = 0;

		ck_assert_uint_lt(t->job, 64);
		hyde_job_map_output(s, t->job, NULL, out);
		for (k = 0; k < j->n_maps; k++)
			if (j->maps[k].state == HYDE_TASK_DONE)
				scan[j->maps[k].host] += hyde_map_output_bytes(s, t->job, k);
		for (x = 0; x < ci->n_hosts; x++) {
			ck_assert_msg(out[x] == scan[x], "%s: host %u's output %" PRIu64 ", its maps' %" PRIu64,
				      j->id, x, out[x], scan[x]);
			sum += scan[x];
		}
		rules_out++;
		rules_out_grew += rules_out_last[t->job] && sum > rules_out_last[t->job];
		rules_out_last[t->job] = sum;
		free(out);
		free(scan);
	}
	if (rules_of == &sched_neat && h >= 0)
		neat_rule(s, t, h);
	if (rules_of != &sched_mindist || h < 0)
		return h;
	ck_assert_uint_le(ci->n_hosts, 64);
	ph = xcalloc(ci->n_hosts, sizeof(*ph));
	if (t->kind == HYDE_REDUCE)
		hyde_job_map_output(s, t->job, NULL, ph);
	for (x = 0; x < ci->n_hosts; x++) {
		cross[x] = tot[x] = 0;
		if (t->kind == HYDE_MAP) { /* its block's bytes, unless on x */
			const struct hyde_block *b = &j->blocks[t->idx];
			bool in_rack = false;

			for (k = 0; k < b->n_replicas; k++)
				in_rack |= hyde_rack_of(ci, b->replica[k]) == hyde_rack_of(ci, x);
			if (b->n_replicas && !hyde_block_on_host(b, x)) {
				tot[x] = b->bytes;
				cross[x] = in_rack ? 0 : b->bytes;
			}
		}
		for (y = 0; y < ci->n_hosts; y++) {
			cross[x] += hyde_rack_of(ci, y) != hyde_rack_of(ci, x) ? ph[y] : 0;
			tot[x] += y != x ? ph[y] : 0;
		}
		/* near: a rack where a task of its job and kind runs or ran */
		near[x] = false;
		for (k = 0; k < n; k++)
			near[x] |= ts[k].host >= 0 &&
				   hyde_rack_of(ci, (unsigned)ts[k].host) == hyde_rack_of(ci, x);
		if (hyde_host_offered(s, x) > 0 && hyde_task_fits(s, t, x) && cross[x] < cross_min)
			cross_min = cross[x];
	}
	for (x = 0; x < ci->n_hosts; x++)
		if (hyde_host_offered(s, x) > 0 && hyde_task_fits(s, t, x) && cross[x] == cross_min &&
		    tot[x] < tot_min)
			tot_min = tot[x];
	for (x = 0; x < ci->n_hosts; x++)
		if (hyde_host_offered(s, x) > 0 && hyde_task_fits(s, t, x) && cross[x] == cross_min &&
		    tot[x] == tot_min && near[x])
			tie_near = true;
	ck_assert_msg(cross[h] == cross_min && tot[h] == tot_min,
		      "%s %u of %s on host %d: %llu across racks, %llu in all; the least %llu, %llu",
		      t->kind == HYDE_MAP ? "map" : "reduce", t->idx, j->id, h,
		      (unsigned long long)cross[h], (unsigned long long)tot[h],
		      (unsigned long long)cross_min, (unsigned long long)tot_min);
	/* of the least, one in a rack of its coflow's if there is one */
	ck_assert_msg(near[h] || !tie_near, "%s %u of %s on host %d, not in a rack of its coflow's",
		      t->kind == HYDE_MAP ? "map" : "reduce", t->idx, j->id, h);
	rules_near += tie_near;
	rules_near_reduce += tie_near && t->kind == HYDE_REDUCE;
	rules_reduces += t->kind == HYDE_REDUCE;
	free(ph);
	return h;
}

#define RULES_TOPO                                                                            \
	"racks 3\nhosts 3\ncontainers 2\nhost_rate 1Gbit\nuplink_rate 1Gbit\nocs no\n"

START_TEST(family_rules)
{
	/* (the fourth: neat with mode=path) */
	static const struct hyde_sched_ops *const of[] = { &sched_neat, &sched_mindist,
							   &sched_minload, &sched_neat };
	char errbuf[HYDE_ERRBUF_SIZE], *kv[] = { "slowstart=0.05", "mode=path" }, *wl = NULL, *tp,
						   *wp;
	struct hyde_sched_ops ops = *of[_i];
	struct ctl_opts o;
	struct ctl *c;
	size_t len = 0;
	int k;

	/* maps of unequal blocks, some equal, written by unequal sizes
	 * (outputs per host unequal), on unequal times */
	for (k = 0; k < 16; k++)
		test_appendf(&wl, &len,
			     "job id=j%d arrival=%ds input=%dMB shuffle=%dMB output=0B maps=4 "
			     "reduces=%d map_time=%ds reduce_time=1s block_bytes=%dMB,%dMB,%dMB,%dMB\n",
			     k, k, 10 + 4 * (k % 3) + 3 + 3 * (k % 2), 40 + 10 * k, 2 + k % 3, 1 + k % 3,
			     10, 4 * (k % 3) + 1, 3 * (k % 2) + 1, 1);
	/* then, alone, jobs of more maps and reduces than containers: a
	 * job's reduces placed as its last maps end, between them */
	for (k = 0; k < 3; k++) {
		int m;

		test_appendf(&wl, &len,
			     "job id=w%d arrival=%ds input=300MB shuffle=%dMB output=0B maps=24 "
			     "reduces=24 map_time=2s reduce_time=10s block_bytes=",
			     k, 100 + 100 * k, 100 + 50 * k);
		for (m = 0; m < 24; m++) /* 1 to 24 MB, shuffled */
			test_appendf(&wl, &len, "%dMB%s", (m * 7 + k) % 24 + 1, m < 23 ? "," : "\n");
	}
	/* and jobs of no shuffle: every host ties for a reduce, but for the
	 * racks where the job's reduces run */
	for (k = 0; k < 2; k++)
		test_appendf(&wl, &len,
			     "job id=z%d arrival=%ds input=6MB shuffle=0B output=0B maps=1 reduces=16 "
			     "map_time=1s reduce_time=%ds\n",
			     k, 400 + 30 * k, 3 + k);
	tp = test_write_tmp("neat", RULES_TOPO, ".topo");
	wp = test_write_tmp("neat", wl, ".wl");
	rules_of = of[_i];
	ops.next_task = rules_next_task;
	ops.pick_host = rules_pick_host;
	rules_next = rules_ties = rules_reduces = rules_near = rules_on_rack = rules_near_reduce = 0;
	rules_neat = rules_neat_busy = rules_neat_pref = rules_path_links = 0;
	rules_path = _i == 3;
	rules_out = rules_out_grew = 0;
	memset(rules_out_last, 0, sizeof(rules_out_last));
	ctl_opts_default(&o);
	o.topo_path = tp;
	o.wl_spec = wp;
	o.sched_ops = &ops;
	o.sched_kv = kv;
	o.n_sched_kv = rules_path ? 2 : 1;
	o.heartbeat = 0;
	ck_assert_msg(ctl_new(&o, &c, errbuf) == 0, "%s", errbuf);
	ck_assert_msg(ctl_run(c, errbuf) == 0, "%s", errbuf);
	ctl_free(c);
	ck_assert_uint_gt(rules_next, 100);
	if (rules_path)
		ck_assert_uint_gt(rules_path_links, 100);
	ck_assert_uint_gt(rules_ties, 5);
	ck_assert_uint_gt(rules_on_rack, 100);
	ck_assert_uint_gt(rules_out, 30);
	ck_assert_uint_gt(rules_out_grew, 5);
	if (of[_i] == &sched_neat) {
		ck_assert_uint_gt(rules_neat, 200);
		ck_assert_uint_gt(rules_neat_busy, 100);
		ck_assert_uint_gt(rules_neat_pref, 100);
		ck_assert_uint_gt(rules_neat - rules_neat_pref, 10);
	}
	if (of[_i] == &sched_mindist) {
		ck_assert_uint_gt(rules_reduces, 30);
		ck_assert_uint_gt(rules_near, 30);
		ck_assert_uint_gt(rules_near_reduce, 5);
	}
	rm_tmp(tp);
	rm_tmp(wp);
	free(wl);
}
END_TEST

static const struct {
	const char *net, *coflow;
	double a_end, b_end; /* seconds */
} cf_runs[] = {
	/* SCF and Varys (b's bottleneck time 0.24 s < a's 0.8 s): b first */
	{ "fair", "scf", 1.04, 0.241 },
	{ "fair", "varys", 1.04, 0.241 },
	/* FCFS: a first, b after it */
	{ "fair", "fcfs", 0.8, 1.04 },
	/* coflow-fair: a and b share in bytes, 0.5 Gbit/s each: b's 30 MB
	 * at 0.481 s, a the rest */
	{ "fair", "fair", 1.04, 0.481 },
	/* flows fair: a third each; b at 0.721 s, a's two at 1.04 s */
	{ "fair", NULL, 1.04, 0.721 },
};

START_TEST(coflow_sim)
{
	char *tp = test_write_tmp("neat", FIG1_TOPO, ".topo");
	char *wp = test_write_tmp("neat", CF_WL, ".wl");
	char errbuf[HYDE_ERRBUF_SIZE];
	struct ctl_opts o;
	struct ctl *c;

	ctl_opts_default(&o);
	o.topo_path = tp;
	o.wl_spec = wp;
	o.sched_ops = &all_on_h0;
	o.heartbeat = 0;
	o.coflow = cf_runs[_i].coflow;
	ck_assert_msg(ctl_new(&o, &c, errbuf) == 0, "%s", errbuf);
	ck_assert_msg(ctl_run(c, errbuf) == 0, "%s", errbuf);
	ck_assert_msg(fabs((double)ctl_job_end(c, 0) / 1e9 - cf_runs[_i].a_end) < 2e-3,
		      "%s: a ends at %.6f s, expected %.3f", cf_runs[_i].coflow,
		      (double)ctl_job_end(c, 0) / 1e9, cf_runs[_i].a_end);
	ck_assert_msg(fabs((double)ctl_job_end(c, 1) / 1e9 - cf_runs[_i].b_end) < 2e-3,
		      "%s: b ends at %.6f s, expected %.3f", cf_runs[_i].coflow,
		      (double)ctl_job_end(c, 1) / 1e9, cf_runs[_i].b_end);
	ctl_free(c);
	rm_tmp(tp);
	rm_tmp(wp);
}
END_TEST

Suite *neat_suite(void)
{
	Suite *s = suite_create("neat");
	TCase *tc = tcase_create("predict");
	TCase *ts = tcase_create("sim");

	tcase_add_loop_test(tc, fig1_predict, 0, ARRAY_SIZE(fig1));
	tcase_add_test(tc, las_attained);
	tcase_add_test(tc, coflow_predict);
	tcase_add_test(tc, bins_eq18);
	tcase_add_test(tc, coflow_rates);
	tcase_add_test(tc, coflow_madd);
	tcase_add_test(tc, policy_names);
	tcase_add_test(tc, wl_flow_keys);
	tcase_add_loop_test(tc, wl_flow_keys_bad, 0, ARRAY_SIZE(bad_flow_keys));
	suite_add_tcase(s, tc);
	tcase_add_test(ts, gen_flows_load);
	tcase_add_loop_test(ts, fig1_sim, 0, ARRAY_SIZE(fig1_runs));
	tcase_add_loop_test(ts, coflow_sim, 0, ARRAY_SIZE(cf_runs));
	tcase_add_loop_test(ts, family_rules, 0, 4);
	suite_add_tcase(s, ts);
	return s;
}
