/* The simulator against cases whose answers are known exactly. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <hyde/sched.h>

#include "check_hyde.h"
#include "cli.h"
#include "core/rng.h"
#include "core/rundir.h"
#include "ctl/ctl.h"
#include "ctl/ctl_int.h"
#include "ctl/live.h"
#include "ctl/sched_host.h"
#include "net/csched.h"
#include "sim/maxmin.h"

struct simrun {
	struct ctl *c;
	char *tpath, *wpath;
};

/* run_sim_full's circuit plans a part at a time (ctl_opts.plan_chunk) */
static size_t sim_plan_chunk;

static void run_sim_full(struct simrun *r, const char *topo, const char *wl,
			 const char *csched, bool coflow_only, const char *rates)
{
	char errbuf[HYDE_ERRBUF_SIZE], kv[64], *kvs[1] = { kv };
	struct ctl_opts o;

	r->tpath = test_write_tmp("sim", topo, ".topo");
	r->wpath = test_write_tmp("sim", wl, ".wl");
	ctl_opts_default(&o);
	o.topo_path = r->tpath;
	o.wl_spec = r->wpath;
	o.csched_name = csched;
	o.coflow_only = coflow_only;
	o.plan_chunk = sim_plan_chunk;
	/* the fluid model and the circuits, on the shuffle alone: tasks
	 * placed at once, no HDFS reads or writes */
	o.heartbeat = 0;
	o.no_io = true;
	if (coflow_only)
		o.parallel_copies = 1000;
	if (rates) { /* the simulator's option (-B rates=) */
		snprintf(kv, sizeof(kv), "rates=%s", rates);
		o.backend_kv = kvs;
		o.n_backend_kv = 1;
	}
	ck_assert_msg(ctl_new(&o, &r->c, errbuf) == 0, "%s", errbuf);
	ck_assert_msg(ctl_run(r->c, errbuf) == 0, "%s", errbuf);
}

static void run_sim(struct simrun *r, const char *topo, const char *wl,
		    const char *csched)
{
	run_sim_full(r, topo, wl, csched, false, NULL);
}

static void done_sim(struct simrun *r)
{
	ctl_free(r->c);
	unlink(r->tpath);
	unlink(r->wpath);
	free(r->tpath);
	free(r->wpath);
}

/* the flow of a job (one fetch in these cases) */
static const struct flow *job_flow(struct ctl *c, uint32_t job)
{
	struct flow *const *f;
	size_t n, i;

	f = ctl_flows(c, &n);
	for (i = 0; i < n; i++)
		if (f[i]->job == job)
			return f[i];
	ck_abort_msg("job %u has no flow", job);
	return NULL;
}

#define TOPO3(extra) \
	"racks 3\nhosts 3\ncontainers 4\nhost_rate 10Gbit\nuplink_rate 1Gbit\n" extra
#define PIN(id, src, dst, size) \
	"job id=" id " arrival=0s input=1MB shuffle=" size " output=0B maps=1 reduces=1 " \
	"map_time=0s reduce_time=0s map_racks=" src " reduce_racks=" dst "\n"

/* hyde sim's interrupts: the first SIGINT or SIGTERM is caught (the run
 * ends between events and writes its files); a second of the same kind
 * ends the process, which a run stuck inside one event would not
 * otherwise notice. */
START_TEST(second_interrupt_ends_sim)
{
	static const int sigs[] = { SIGINT, SIGTERM };
	int sig = sigs[_i], fd[2], st;
	pid_t pid;
	char b = 0;

	ck_assert_int_eq(pipe(fd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		close(fd[0]);
		cli_catch_interrupts();
		raise(sig);
		if (write(fd[1], "1", 1) != 1)
			_exit(3);
		raise(sig);
		_exit(0);
	}
	close(fd[1]);
	ck_assert_msg(read(fd[0], &b, 1) == 1 && b == '1', "signal %d: the first ended it", sig);
	close(fd[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == sig,
		      "signal %d: the second did not end it (status %#x)", sig, st);
}
END_TEST

/* A plan's reservations are sorted stably by (start, src, dst): against
 * qsort by the same key and then the place each had (coflow holds it
 * here), with many equal keys, at sizes around the sort's runs of 16 and
 * its merges. */
static int cmp_resv_place(const void *a, const void *b)
{
	const struct cs_resv *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return (x->coflow > y->coflow) - (x->coflow < y->coflow);
}

START_TEST(plan_sorted_stably)
{
	static const size_t sizes[] = { 0, 1, 2, 15, 16, 17, 31, 32, 33, 100, 257, 1000 };
	struct cs_resv r[1000], want[1000], tmp[1000];
	struct rng g;
	size_t k, i;

	rng_seed(&g, 7);
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k];

		for (i = 0; i < n; i++)
			r[i] = (struct cs_resv){ (uint32_t)i, (uint32_t)rng_below(&g, 3),
						 (uint32_t)rng_below(&g, 3),
						 (int64_t)rng_below(&g, n / 8 + 2), 0 };
		memcpy(want, r, n * sizeof(*r));
		if (n)
			qsort(want, n, sizeof(*want), cmp_resv_place);
		cexec_sort_resv(r, n, tmp);
		for (i = 0; i < n; i++)
			ck_assert_msg(!cmp_resv_place(&r[i], &want[i]),
				      "%zu reservations: place %zu holds the one from %u, not %u", n, i,
				      r[i].coflow, want[i].coflow);
	}
}
END_TEST

/* One flow alone over the EPS finishes at size / bottleneck rate:
 * 125MB = 1Gbit through a 1Gbit/s uplink: exactly 1s. */
START_TEST(one_flow_alone)
{
	struct simrun r;
	const struct flow *f;

	run_sim(&r, TOPO3("ocs no\n"), PIN("a", "0", "1", "125MB"), "none");
	f = job_flow(r.c, 0);
	ck_assert_int_eq(f->path, PATH_EPS);
	ck_assert_int_eq(f->end - f->start, 1000000000LL);
	done_sim(&r);
}
END_TEST

/* Max-min, parking lot style. Rack 2's downlink carries X (0->2), Z and W
 * (1->2): a third of 1Gbit each. Rack 0's uplink carries X and Y (0->1): Y
 * gets what X cannot use, two thirds. With 125MB each (1Gbit): Y ends at
 * 1.5s; then X, Z, W still share rack 2's downlink and end at 3s. */
START_TEST(max_min_parking_lot)
{
	struct simrun r;
	const struct flow *x, *y, *z, *w;

	run_sim(&r, TOPO3("ocs no\n"),
		PIN("x", "0", "2", "125MB") PIN("y", "0", "1", "125MB")
		PIN("z", "1", "2", "125MB") PIN("w", "1", "2", "125MB"), "none");
	x = job_flow(r.c, 0);
	y = job_flow(r.c, 1);
	z = job_flow(r.c, 2);
	w = job_flow(r.c, 3);
	ck_assert_int_eq(y->end - y->start, 1500000000LL);
	ck_assert_int_eq(x->end - x->start, 3000000000LL);
	ck_assert_int_eq(z->end - z->start, 3000000000LL);
	ck_assert_int_eq(w->end - w->start, 3000000000LL);
	done_sim(&r);
}
END_TEST

/* Co-scheduler §III-B, Case 2: 3 racks, OCS at 1 unit per unit time (here
 * 1MB per s: bw_o = 8Mbit), Job1 with 9 maps (3 per rack) and 3 reduces (1
 * per rack), each map sending 1 unit to each reduce. Each rack sends 3
 * units to each other rack: T(C) = 6 + 2 delta, and Sunflow serves it in
 * two perfect matchings, so the CCT is T(C). */
START_TEST(paper_case2_cct_is_lower_bound)
{
	struct simrun r;
	int64_t s, e;

	run_sim(&r,
		"racks 3\nhosts 3\ncontainers 4\nhost_rate 10Gbit\nuplink_rate 1Gbit\n"
		"ocs yes\nocs_rate 8Mbit\ndelta 100ms\nt_e 3MB\n",
		"job id=job1 arrival=0s input=9MB shuffle=27MB output=0B maps=9 reduces=3 "
		"map_time=0s reduce_time=0s map_racks=0,0,0,1,1,1,2,2,2 reduce_racks=0,1,2\n",
		"sunflow");
	ctl_coflow_times(r.c, 0, &s, &e);
	/* in-rack fetches end at once; the OCS part takes 6s + 2 x 100ms */
	ck_assert_int_eq(e - s, 6200000000LL);
	done_sim(&r);
}
END_TEST

/* A single coflow served in one layer: CCT = T(C) exactly. Reduce 0 on
 * rack 1 gets 4MB (2MB from each map), reduce 1 on rack 0 gets 8MB (4MB
 * from each): OCS pairs 0 -> 1 (2MB), 2 -> 1 (2MB), 2 -> 0 (4MB); rack 2
 * sends 2MB + 4MB at 1MB/s with two circuits: T(C) = 6s + 2 x 10ms. */
START_TEST(one_layer_cct_is_lower_bound)
{
	struct simrun r;
	int64_t s, e;

	run_sim(&r,
		"racks 3\nhosts 1\ncontainers 4\nhost_rate 10Gbit\nuplink_rate 1Gbit\n"
		"ocs yes\nocs_rate 8Mbit\ndelta 10ms\nt_e 1MB\n",
		"job id=c arrival=0s input=2MB output=0B maps=2 reduces=2 map_time=0s reduce_time=0s "
		"map_racks=0,2 reduce_racks=1,0 reduce_bytes=4MB,8MB\n",
		"sunflow");
	ctl_coflow_times(r.c, 0, &s, &e);
	ck_assert_int_eq(e - s, 6020000000LL);
	done_sim(&r);
}
END_TEST

/* Two flows on one link (rack 0's 1Gbit/s uplink, 125MB/s): A starts at
 * 0, B at 0.5s, when A has sent 62.5MB. Ends, from A's start:
 * - maxmin, A 250MB, B 125MB: both at 62.5MB/s from 0.5s; B ends at
 *   2.5s, A (62.5MB left) at 3s;
 * - fcfs, the same flows: A first, alone, ends at 2s; B then at 3s;
 * - srpt, A 250MB, B 62.5MB: B has less left (62.5 < 187.5), takes the
 *   link, ends at 1s; A at 2.5s;
 * - las, A 250MB, B 125MB: B has sent less and takes the link until it
 *   has sent as much as A (62.5MB, at 1s); then they share, and B's last
 *   62.5MB end at 2s, A's at 3s. */
static const struct {
	const char *rates, *a, *b;
	int64_t end_a, end_b;
} two_flows[] = {
	{ "maxmin", "250MB", "125MB", 3000000000LL, 2500000000LL },
	{ "fcfs", "250MB", "125MB", 2000000000LL, 3000000000LL },
	{ "srpt", "250MB", "62.5MB", 2500000000LL, 1000000000LL },
	{ "las", "250MB", "125MB", 3000000000LL, 2000000000LL },
};

START_TEST(two_flows_one_link)
{
	char wl[512];
	struct simrun r;
	const struct flow *a, *b;

	snprintf(wl, sizeof(wl),
		 "job id=a arrival=0s input=1MB shuffle=%s output=0B maps=1 reduces=1 "
		 "map_time=0s reduce_time=0s map_racks=0 reduce_racks=1\n"
		 "job id=b arrival=0.5s input=1MB shuffle=%s output=0B maps=1 reduces=1 "
		 "map_time=0s reduce_time=0s map_racks=0 reduce_racks=1\n",
		 two_flows[_i].a, two_flows[_i].b);
	run_sim_full(&r, TOPO3("ocs no\n"), wl, "none", false, two_flows[_i].rates);
	a = job_flow(r.c, 0);
	b = job_flow(r.c, 1);
	ck_assert_int_eq(a->path, PATH_EPS);
	ck_assert_int_eq(b->start - a->start, 500000000LL);
	ck_assert_msg(a->end - a->start == two_flows[_i].end_a, "%s: A ends at %lld",
		      two_flows[_i].rates, (long long)(a->end - a->start));
	ck_assert_msg(b->end - a->start == two_flows[_i].end_b, "%s: B ends at %lld",
		      two_flows[_i].rates, (long long)(b->end - a->start));
	done_sim(&r);
}
END_TEST

/* Co-scheduler §III-B (Fig. 2) as a table. 3 racks, OCS at 1 unit per
 * unit time: 1 unit = 1MB, bw_o = 8Mbit/s, so a unit takes exactly 1s;
 * delta = 100ms. Job1 has 9 maps and 3 reduces, Job2 15 maps and 3
 * reduces; each map sends 1 unit to each reduce. A rack is one host
 * ('eps no': every cross-rack unit crosses a circuit; a map's unit to a
 * reduce of its own rack never leaves the host). Sunflow serves the
 * shorter T(C) first, without preemption; the paper's figure is not in the
 * text, so the placements below are built by hand to give its CCTs. With
 * m_i maps and r_j reduces on rack i and j, pair i -> j carries m_i x r_j
 * units. CCTs run from the jobs' arrival (both at 0). */
struct paper_case {
	const char *name;
	unsigned m1[3], r1[3], m2[3], r2[3]; /* tasks per rack; Job2 may be absent */
	unsigned units1, deltas1, units2, deltas2;
};

static const struct paper_case paper_cases[] = {
	/* Case 2, Job1: 3 maps and 1 reduce per rack. Each rack sends 3
	 * units to each other rack: T(C) = 6 + 2 delta, and Sunflow serves
	 * it in two perfect matchings (0>1 1>2 2>0, then 0>2 1>0 2>1). */
	{ "case2 job1 alone", { 3, 3, 3 }, { 1, 1, 1 }, { 0, 0, 0 }, { 0, 0, 0 },
	  6, 2, 0, 0 },
	/* Case 2, both. Job2: 10 maps on rack 0, 5 on rack 1, 2 reduces on
	 * rack 0 and 1 on rack 1: 0 -> 1 and 1 -> 0 carry 10 units each, one
	 * circuit per port, T(C) = 10 + delta > 6 + 2 delta, so Job1 goes
	 * first and leaves no gap (its matchings fill every port). Then 1 -> 0
	 * is still up from Job1's second matching (no delta), 0 -> 1 pays
	 * one: Job2 = 6 + 2 delta + delta + 10 = 16 + 3 delta. */
	{ "case2 both", { 3, 3, 3 }, { 1, 1, 1 }, { 10, 5, 0 }, { 2, 1, 0 },
	  6, 2, 16, 3 },
	/* Case 1, Job1: maps concentrated on two racks (6 on rack 0, 3 on
	 * rack 2), 1 reduce per rack. Rack 0 sends 6 units to each of racks
	 * 1 and 2 over two circuits in turn: T(C) = 12 + 2 delta, which
	 * Sunflow reaches (0 -> 1 with 2 -> 0, then 0 -> 2 with 2 -> 1). */
	{ "case1 job1 alone", { 6, 0, 3 }, { 1, 1, 1 }, { 0, 0, 0 }, { 0, 0, 0 },
	  12, 2, 0, 0 },
	/* Case 1, both. Job2: 8 maps on rack 0, 7 on rack 1, 2 reduces on
	 * rack 0 and 1 on rack 1: 0 -> 1 carries 8 units, 1 -> 0 carries 14
	 * (T(C) = 14 + delta, after Job1's 12 + 2 delta). 1 -> 0 fills the
	 * gap of rack 1's port (unused by Job1) and rack 0's (free once 2 -> 0
	 * ends at 3 + delta) up to Job1's end; but 0 -> 1 needs rack 0's port,
	 * which Job1 holds for 12 + 2 delta: then delta + 8 more, so Job2 =
	 * 20 + 3 delta (the rest of 1 -> 0, on its circuit still up, ends
	 * sooner). */
	{ "case1 both", { 6, 0, 3 }, { 1, 1, 1 }, { 8, 7, 0 }, { 2, 1, 0 },
	  12, 2, 20, 3 },
};

static void paper_job(char *buf, size_t len, const char *id, const unsigned m[3],
		      const unsigned r[3])
{
	unsigned nm = m[0] + m[1] + m[2], nr = r[0] + r[1] + r[2], k, i;
	size_t off;

	off = (size_t)snprintf(buf, len, "job id=%s arrival=0s input=%uMB output=0B maps=%u reduces=%u "
			       "map_time=0s reduce_time=0s map_racks=", id, nm, nm, nr);
	for (k = 0; k < 3; k++)
		for (i = 0; i < m[k]; i++)
			off += (size_t)snprintf(buf + off, len - off, "%s%u", off && buf[off - 1] == '=' ? "" : ",", k);
	off += (size_t)snprintf(buf + off, len - off, " reduce_racks=");
	for (k = 0; k < 3; k++)
		for (i = 0; i < r[k]; i++)
			off += (size_t)snprintf(buf + off, len - off, "%s%u", buf[off - 1] == '=' ? "" : ",", k);
	off += (size_t)snprintf(buf + off, len - off, " reduce_bytes=");
	for (k = 0; k < nr; k++) /* each map sends 1 unit to each reduce */
		off += (size_t)snprintf(buf + off, len - off, "%s%uMB", k ? "," : "", nm);
	snprintf(buf + off, len - off, "\n");
}

#define PAPER_TOPO \
	"racks 3\nhosts 1\ncontainers 100\nreplicas 1\nhost_rate 10Gbit\n" \
	"eps no\nocs yes\nocs_rate 8Mbit\ndelta 100ms\n"
#define UNIT_NS 1000000000LL
#define PAPER_DELTA_NS 100000000LL

/* T(C) of a job's cross-rack traffic (Co-scheduler eq. 2). */
static int64_t paper_lower_bound(const unsigned m[3], const unsigned r[3])
{
	struct tmatrix tm;
	unsigned i, j;
	int64_t lb;

	tm_init(&tm, 3);
	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++)
			if (i != j)
				tm_add(&tm, i, j, (uint64_t)m[i] * r[j] * 1000000);
	lb = tm_lower_bound(&tm, 8000000, PAPER_DELTA_NS, 0);
	tm_free(&tm);
	return lb;
}

START_TEST(paper_section3b)
{
	const struct paper_case *pc = &paper_cases[_i];
	bool two = pc->m2[0] + pc->m2[1] + pc->m2[2] > 0;
	char wl[2048];
	struct simrun r;
	int64_t s, e, want;

	paper_job(wl, sizeof(wl), "job1", pc->m1, pc->r1);
	if (two)
		paper_job(wl + strlen(wl), sizeof(wl) - strlen(wl), "job2", pc->m2, pc->r2);
	run_sim_full(&r, PAPER_TOPO, wl, "sunflow", true, NULL);
	ctl_coflow_times(r.c, 0, &s, &e);
	want = pc->units1 * UNIT_NS + pc->deltas1 * PAPER_DELTA_NS;
	ck_assert_msg(e - s == want, "%s: Job1's CCT is %lld ns, expected %u + %u delta = %lld ns",
		      pc->name, (long long)(e - s), pc->units1, pc->deltas1, (long long)want);
	/* Job1 goes first in every case: it takes its T(C) */
	ck_assert_int_eq(paper_lower_bound(pc->m1, pc->r1), want);
	if (two) {
		ctl_coflow_times(r.c, 1, &s, &e);
		want = pc->units2 * UNIT_NS + pc->deltas2 * PAPER_DELTA_NS;
		ck_assert_msg(e - s == want, "%s: Job2's CCT is %lld ns, expected %u + %u delta = %lld ns",
			      pc->name, (long long)(e - s), pc->units2, pc->deltas2, (long long)want);
	}
	done_sim(&r);
}
END_TEST

/* Lines of a file, sorted (flows.csv streamed is in the order flows end). */
static char *sorted_lines(const char *path)
{
	char cmd[512], *buf = NULL;
	size_t n = 0, cap = 0, got;
	FILE *fp;

	snprintf(cmd, sizeof(cmd), "LC_ALL=C sort '%s'", path);
	fp = popen(cmd, "r");
	ck_assert_ptr_nonnull(fp);
	do {
		xgrow((void **)&buf, &cap, n + (1 << 20) + 1, 1);
		got = fread(buf + n, 1, 1 << 20, fp);
		n += got;
	} while (got);
	buf[n] = '\0';
	ck_assert_int_eq(pclose(fp), 0);
	return buf;
}

/* A streamed flows.csv of a run cut at its horizon: the flows that never
 * ended (end_ns -1, the seventh field) come after every flow that did,
 * the newest (highest id) first, as the report writes them; their number.
 * (hyde sim keeps no list of them: it finds them among its records.) */
static size_t never_ended_last(const char *path)
{
	FILE *fp = fopen(path, "r");
	char line[4096];
	long long prev = 0;
	size_t n = 0;

	ck_assert_ptr_nonnull(fp);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), fp)); /* the header */
	while (fgets(line, sizeof(line), fp)) {
		long long id = strtoll(line, NULL, 10);
		const char *p = line;
		int k;

		for (k = 0; k < 6 && p; k++)
			if ((p = strchr(p, ',')))
				p++;
		ck_assert_ptr_nonnull(p);
		if (strncmp(p, "-1,", 3)) {
			ck_assert_msg(!n, "%s: flow %lld ended, after %zu that never did", path, id, n);
			continue;
		}
		ck_assert_msg(!n || id < prev, "%s: flow %lld, never ended, after flow %lld", path, id, prev);
		prev = id;
		n++;
	}
	fclose(fp);
	return n;
}

/* What the circuit planner reads of a pair, its bytes not started, must be
 * what its waiting flows hold (for one waiting to batch outputs, what it
 * holds so far: ctl_flow_bytes_now), on every source host: those waiting
 * for the circuit and, with --ocs-fetch copies, those it released that
 * wait for a copy. At a run's end (every flow started: 0) or its horizon.
 * A batched run adds a pair's share of each output as it comes, for all
 * the fetches that hold it at once: a byte too many or too few there
 * moves the plans by nanoseconds, which no file may show, but this does. */
static void pairs_wait_match(struct ctl *c)
{
	size_t i, k, w;
	uint32_t r;

	for (i = 0; i < c->wl->n_jobs; i++) {
		struct jstate *j = &c->js[i];
		uint64_t *want = xcalloc(j->n_pairs + 1, sizeof(uint64_t));
		uint64_t *host = xcalloc((j->n_pairs + 1) * c->t->hosts, sizeof(uint64_t));
		const struct flow *f;

		for (k = 0; k < j->n_pairs; k++)
			for (w = 0; w < j->pairs[k].n_wait; w++) {
				f = j->pairs[k].wait[w];
				want[k] += ctl_flow_bytes_now(c, f);
				host[k * c->t->hosts + f->src_host % c->t->hosts] += ctl_flow_bytes_now(c, f);
			}
		for (r = 0; j->red && r < c->wl->jobs[i].reduces; r++)
			for (f = j->red[r].wait_head; f; f = f->next)
				if (f->path == PATH_OCS) {
					want[f->pair] += ctl_flow_bytes_now(c, f);
					host[f->pair * c->t->hosts + f->src_host % c->t->hosts] +=
						ctl_flow_bytes_now(c, f);
				}
		for (k = 0; k < j->n_pairs; k++) {
			unsigned h;

			ck_assert_msg(j->pairs[k].wait_bytes == want[k],
				      "job %zu pair %u->%u: %" PRIu64 " B waiting, its flows hold %" PRIu64, i,
				      j->pairs[k].src, j->pairs[k].dst, j->pairs[k].wait_bytes, want[k]);
			for (h = 0; j->pairs[k].src_wait && h < c->t->hosts; h++)
				ck_assert_uint_eq(j->pairs[k].src_wait[h], host[k * c->t->hosts + h]);
		}
		free(want);
		free(host);
	}
}

/* hyde sim streams flows.csv and frees flows as they end (stream_flows),
 * and with -B fetch=rack batches a waiting rack fetch's outputs when it
 * starts (struct jrack), not map by map: its files are those of a run that
 * keeps every flow to the end and offers outputs one by one, byte for
 * byte: flows.csv, jobs.csv, coflows.csv, whole runs and runs cut at a
 * horizon with fetches still waiting. With one copy per reduce rack
 * fetches wait while maps end on several hosts of a rack: two jobs on 3 x
 * 3 hosts (some fetches hold several outputs), and the main job, whose
 * circuit fetches also wait for a copy. */
/* Circuit fetches that hold their rack's outputs while maps end (slow
 * circuits, reduces first), twelve maps a job and partitions of uneven
 * sizes: a pair's holders' remainders are many and often the index of the
 * map that ends (where an output's share is one byte more or not). */
static const char holders_wl[] =
	"job id=j0 arrival=0.0s input=240MB output=0B maps=12 reduces=6 map_time=0.5s reduce_time=0.5s "
	"reduce_bytes=40000000B,43000005B,46000010B,49000003B,52000008B,55000001B\n"
	"job id=j1 arrival=0.4s input=240MB output=0B maps=12 reduces=6 map_time=0.5s reduce_time=0.5s "
	"reduce_bytes=47000001B,50000006B,53000011B,56000004B,59000009B,62000002B\n"
	"job id=j2 arrival=0.8s input=240MB output=0B maps=12 reduces=6 map_time=0.5s reduce_time=0.5s "
	"reduce_bytes=54000002B,57000007B,60000000B,63000005B,66000010B,69000003B\n"
	"job id=j3 arrival=1.2s input=240MB output=0B maps=12 reduces=6 map_time=0.5s reduce_time=0.5s "
	"reduce_bytes=61000003B,64000008B,67000001B,70000006B,73000011B,76000004B\n"
	"job id=j4 arrival=1.6s input=240MB output=0B maps=12 reduces=6 map_time=0.5s reduce_time=0.5s "
	"reduce_bytes=68000004B,71000009B,74000002B,77000007B,80000000B,83000005B\n"
	"job id=j5 arrival=2.0s input=240MB output=0B maps=12 reduces=6 map_time=0.5s reduce_time=0.5s "
	"reduce_bytes=75000005B,78000010B,81000003B,84000008B,87000001B,90000006B\n"
	"job id=j6 arrival=2.4s input=240MB output=0B maps=12 reduces=6 map_time=0.5s reduce_time=0.5s "
	"reduce_bytes=82000006B,85000011B,88000004B,91000009B,94000002B,97000007B\n"
	"job id=j7 arrival=2.8s input=240MB output=0B maps=12 reduces=6 map_time=0.5s reduce_time=0.5s "
	"reduce_bytes=89000007B,92000000B,95000005B,98000010B,101000003B,104000008B\n";

/* A reduce on rack 2 opens after every map (late), with one copy: of its
 * fetches from rack 0 (m0, m2, m4 and m6 on one host, m8 on another) the
 * first, m0's, takes the copy and m2's waits, settled at m4; its fetch
 * from rack 1 waits from m1, settled at m3. The scan stops there, and of
 * rack 0's outputs counted, not read, m8 is its host's only one: the
 * fetch holds several hosts' outputs (HYDE_SIM_VERIFY reads them). */
static const char lasthost_wl[] =
	"job id=a arrival=0s input=9MB shuffle=4500KB output=0B maps=9 reduces=1 map_time=0.5s "
	"reduce_time=0.5s map_racks=0,1,0,1,0,1,0,1,0 reduce_racks=2\n";

static const struct {
	const char *topo, *wl; /* files of the tree (a gen: spec, "holders" or "lasthost": the texts above), or NULL: the 3 x 3 */
	int64_t horizon;
	bool slow;	 /* reduces first (slowstart 0, no heartbeat), slow links */
	bool ocs_copies; /* --ocs-fetch copies: circuit fetches wait for a copy too */
	bool host;	 /* per host (the default), five copies: stream_flows alone */
	bool late;	 /* slow, but reduces after every map: a reduce's opening
			  * settles its fetches on the first outputs and counts
			  * the rest, a host of one output among them */
} stream_cases[] = {
	{ NULL, NULL, 0, false, false, true, false },
	{ NULL, NULL, 0, false, false, false, false },
	/* both shuffles under way (9.5-12.3 s) */
	{ NULL, NULL, 10450 * NSEC_PER_MSEC, false, false, false, false },
	{ NULL, NULL, 0, true, false, false, false },
	{ NULL, NULL, 3 * NSEC_PER_SEC, true, false, false, false },
	{ "topologies/rack8.topo", "workloads/fb-small.wl", 0, false, false, false, false },
	{ "topologies/rack8.topo", "workloads/fb-small.wl", 75 * NSEC_PER_SEC, false, false, false, false },
	{ "topologies/rack8.topo", "workloads/fb-small.wl", 100 * NSEC_PER_SEC, false, false, false, false },
	/* a circuit fetch waiting for a copy takes outputs map by map */
	{ "topologies/rack8.topo", "workloads/fb-small.wl", 0, false, true, false, false },
	/* a reduce's own host's outputs end while its rack's fetch waits */
	{ "topologies/paper60.topo", "gen:fb,jobs=400,seed=1,scale=0.01", 0, false, false, false, false },
	{ NULL, "holders", 0, true, false, false, false },
	{ NULL, "holders", 2500 * NSEC_PER_MSEC, true, false, false, false },
	{ NULL, "holders", 0, true, false, false, true },
	{ NULL, "lasthost", 0, true, false, false, true },
};

/* The hosts a batched fetch's outputs are on, counted as they come: one
 * host keeps its link, a second host anywhere in the run means several
 * (no source host's link), whatever comes after. */
START_TEST(batched_fetch_hosts)
{
	static const struct {
		uint32_t seq[4], n, want;
	} cases[] = {
		{ { 0 }, 0, RK_NO_HOST }, { { 5 }, 1, 5 },	       { { 5, 5, 5 }, 3, 5 },
		{ { 5, 7 }, 2, UINT32_MAX }, { { 5, 7, 5 }, 3, UINT32_MAX }, { { 7, 5, 5, 5 }, 4, UINT32_MAX },
	};
	size_t k, i;

	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		uint32_t h = RK_NO_HOST;

		for (i = 0; i < cases[k].n; i++)
			h = jobbatch_hosts(h, cases[k].seq[i]);
		ck_assert_msg(h == cases[k].want, "case %zu: %u, not %u", k, h, cases[k].want);
	}
}
END_TEST

/* A job done keeps no pair record (they go with it: memory follows the
 * jobs under way, not the workload), only its T(C), and the hash finds
 * every record of the jobs not done, at its own place, and holds nothing
 * else. gone: jobs done whose pairs went; live: records looked up. */
static void pairs_of_done_gone(struct ctl *c, size_t *gone, size_t *live)
{
	size_t i, k, kept = 0;

	*gone = *live = 0;
	for (i = 0; i < c->wl->n_jobs; i++) {
		struct jstate *j = &c->js[i];

		if (c->c->jobs[i].state == HYDE_JOB_DONE) {
			ck_assert_msg(j->pairs_gone && !j->n_pairs && !j->pairs,
				      "job %zu is done and keeps %zu pair records", i, j->n_pairs);
			if (j->ocs_bytes) {
				ck_assert_msg(j->lower_bound > 0, "job %zu: T(C) %" PRId64 " for %" PRIu64 " B",
					      i, j->lower_bound, j->ocs_bytes);
				/* (what the report writes) */
				ck_assert_int_eq(ocspairs_lower_bound(c, (uint32_t)i), j->lower_bound);
				(*gone)++;
			}
			continue;
		}
		for (k = 0; k < j->n_pairs; k++) {
			size_t n = j->n_pairs;
			struct ocs_pair *p = ctl_pair(c, (uint32_t)i, j->pairs[k].src, j->pairs[k].dst);

			ck_assert_msg(j->n_pairs == n && p == &j->pairs[k],
				      "job %zu: pair %u->%u not found in the hash", i, j->pairs[k].src,
				      j->pairs[k].dst);
		}
		kept += j->n_pairs;
	}
	*live = kept;
	ck_assert_uint_eq(c->ptab_n, kept);
}

/* The hash of pair records after jobs' pairs go: thousands of keys
 * (collisions in every run of the table) and a run that wraps past the
 * table's end (keys picked by their home: the hash is ocspairs.c's, key
 * (job x racks + src) x racks + dst + 1 mixed by splitmix64), the job in
 * its last slot taken out first, then every other job, the rest found at
 * their place, and the table empty at the end. */
START_TEST(pair_hash_after_jobs_done)
{
	char errbuf[HYDE_ERRBUF_SIZE], *tpath, *wpath, *wl = NULL;
	struct ctl_opts o;
	struct ctl *c;
	size_t len = 0, k, kept, near = 0;
	uint32_t job, src, dst, racks = 16, most = 200, base = 16;

	tpath = test_write_tmp("sim", "racks 16\nhosts 1\ncontainers 4\nhost_rate 100Mbit\n"
				      "uplink_rate 300Mbit\nocs yes\nocs_rate 200Mbit\ndelta 10ms\nt_e 4MB\n",
			       ".topo");
	for (job = 0; job < most; job++)
		test_appendf(&wl, &len,
			     "job id=j%u arrival=0s input=2MB shuffle=1MB output=0B maps=2 reduces=1 "
			     "map_time=1s reduce_time=1s\n",
			     job);
	wpath = test_write_tmp("sim", wl, ".wl");
	ctl_opts_default(&o);
	o.topo_path = tpath;
	o.wl_spec = wpath;
	ck_assert_msg(ctl_new(&o, &c, errbuf) == 0, "%s", errbuf);
	for (job = 0; job < base; job++)
		for (src = 0; src < racks; src++)
			for (dst = 0; dst < racks; dst++)
				ctl_pair(c, job, src, dst);
	ck_assert_uint_eq(c->ptab_n, base * racks * racks);
	/* the other jobs' keys whose home is one of the last four slots (a
	 * few: the table does not grow) */
	for (job = base; job < most; job++)
		for (src = 0; src < racks; src++)
			for (dst = 0; dst < racks; dst++) {
				uint64_t h = ((uint64_t)job * racks + src) * racks + dst + 1;

				if ((splitmix64(&h) & c->ptab_mask) + 4 > c->ptab_mask) {
					ctl_pair(c, job, src, dst);
					near++;
				}
			}
	ck_assert_uint_gt(near, 5);
	ck_assert_msg(c->ptab_key[c->ptab_mask] && c->ptab_key[0], "no run of keys wraps");
	ocspairs_job_done(c, (uint32_t)((c->ptab_key[c->ptab_mask] - 1) / (racks * racks)));
	for (job = 0; job < most; job += 2)
		ocspairs_job_done(c, job);
	kept = 0;
	for (job = 0; job < most; job++) {
		struct jstate *j = &c->js[job];
		size_t n = j->n_pairs;

		for (k = 0; k < n; k++)
			ck_assert_msg(ctl_pair(c, job, j->pairs[k].src, j->pairs[k].dst) == &j->pairs[k] &&
					      j->n_pairs == n,
				      "job %u: pair %u->%u not found after other jobs' went", job,
				      j->pairs[k].src, j->pairs[k].dst);
		kept += n;
	}
	ck_assert_uint_gt(kept, 0);
	ck_assert_uint_eq(c->ptab_n, kept);
	for (job = 1; job < most; job += 2) {
		struct jstate *j = &c->js[job];

		ocspairs_job_done(c, job);
		/* a reservation that ends after its job releases nothing and
		 * makes no record again */
		ctl_release_pair(c, job, 0, 1);
		ck_assert(j->pairs_gone && !j->n_pairs && !j->pairs);
	}
	ck_assert_uint_eq(c->ptab_n, 0);
	for (k = 0; k <= c->ptab_mask; k++)
		ck_assert_uint_eq(c->ptab_key[k], 0);
	ctl_free(c);
	unlink(tpath);
	unlink(wpath);
	free(tpath);
	free(wpath);
	free(wl);
}
END_TEST

START_TEST(streamed_same_files)
{
	static const char *const files[] = { "flows.csv", RUNDIR_JOBS, RUNDIR_COFLOWS };
	char errbuf[HYDE_ERRBUF_SIZE], dir[2][64], path[128], *text[2][3];
	size_t gone[2], live[2];
	const char *wl = "job id=a arrival=0s input=640MB shuffle=600MB output=0B maps=60 reduces=6 map_time=1s reduce_time=1s\n"
			 "job id=b arrival=0.5s input=320MB shuffle=300MB output=0B maps=30 reduces=5 map_time=1.5s reduce_time=1s\n";
	char *tpath = stream_cases[_i].topo  ? xstrdup(test_srcpath(stream_cases[_i].topo))
		      : stream_cases[_i].slow ? test_write_tmp("sim", "racks 3\nhosts 3\ncontainers 4\nhost_rate 100Mbit\n"
									   "uplink_rate 300Mbit\nocs yes\nocs_rate 200Mbit\n"
									   "delta 10ms\nt_e 4MB\n", ".topo")
					    : test_write_tmp("sim", TOPO3("ocs yes\nocs_rate 4Gbit\ndelta 10ms\nt_e 4MB\n"),
							     ".topo");
	char *skv[] = { stream_cases[_i].late ? "slowstart=1" : "slowstart=0" };
	bool tmp_wl = !stream_cases[_i].wl || !strcmp(stream_cases[_i].wl, "holders") ||
		      !strcmp(stream_cases[_i].wl, "lasthost");
	char *wpath = !stream_cases[_i].wl ? test_write_tmp("sim", wl, ".wl")
		      : !strcmp(stream_cases[_i].wl, "holders") ? test_write_tmp("sim", holders_wl, ".wl")
		      : tmp_wl ? test_write_tmp("sim", lasthost_wl, ".wl")
		      : !strncmp(stream_cases[_i].wl, "gen:", 4) ? xstrdup(stream_cases[_i].wl)
							       : xstrdup(test_srcpath(stream_cases[_i].wl));
	char *bkv[] = { "fetch=rack" };
	struct ctl_totals tt[2];
	uint64_t most = 0;
	size_t records = 0;
	int k, i;

	for (k = 0; k < 2; k++) {
		struct ctl_opts o;
		struct ctl *c;

		snprintf(dir[k], sizeof(dir[k]), "/tmp/hyde-simstream-XXXXXX");
		ck_assert_ptr_nonnull(mkdtemp(dir[k]));
		ctl_opts_default(&o);
		o.topo_path = tpath;
		o.wl_spec = wpath;
		o.outdir = dir[k];
		o.stream_flows = k == 1;
		if (!stream_cases[_i].host) {
			o.parallel_copies = 1;
			o.backend_kv = bkv;
			o.n_backend_kv = 1;
		}
		o.horizon = stream_cases[_i].horizon;
		o.ocs_fetch_slots = stream_cases[_i].ocs_copies;
		if (stream_cases[_i].slow) {
			o.heartbeat = 0;
			o.sched_kv = skv;
			o.n_sched_kv = 1;
		}
		/* the batched run checks what it counts (and the solver),
		 * but on paper60, whose checks take long */
		if (k == 1 && !(stream_cases[_i].wl && !strncmp(stream_cases[_i].wl, "gen:", 4)))
			setenv("HYDE_SIM_VERIFY", "1", 1);
		ck_assert_msg(ctl_new(&o, &c, errbuf) == 0, "%s", errbuf);
		ck_assert_msg(ctl_run(c, errbuf) == 0, "%s", errbuf);
		unsetenv("HYDE_SIM_VERIFY");
		ctl_totals(c, &tt[k]);
		pairs_wait_match(c);
		pairs_of_done_gone(c, &gone[k], &live[k]);
		/* a whole run keeps none: every job is done */
		if (!stream_cases[_i].horizon)
			ck_assert_uint_eq(live[k], 0);
		if (k == 1)
			records = c->n_flow_blocks ? (c->n_flow_blocks - 1) * CTL_FLOW_BLOCK + c->block_fill : 0;
		ctl_free(c);
		for (i = 0; i < 3; i++) {
			snprintf(path, sizeof(path), "%s/%s", dir[k], files[i]);
			text[k][i] = sorted_lines(path);
		}
	}
	ck_assert_uint_gt(tt[0].flows, stream_cases[_i].wl && !strcmp(stream_cases[_i].wl, "lasthost") ? 5 : 20);
	ck_assert_uint_eq(tt[0].flows, tt[1].flows);
	/* memory follows the flows not done: a done flow's record is used
	 * again (the blocks hold 18,117 for 23,347 flows on paper60, 41 for
	 * 187 on the 3 x 3; a run that never reused one makes them all) */
	if (tt[1].flows >= 150)
		ck_assert_uint_lt(records, tt[1].flows);
	ck_assert_uint_eq(tt[1].jobs_done == tt[1].jobs, !stream_cases[_i].horizon);
	for (i = 0; i < 3; i++)
		ck_assert_msg(!strcmp(text[0][i], text[1][i]), "%s differs:\n%s\n---\n%s", files[i],
			      text[0][i], text[1][i]);
	/* a fetch holding outputs of several maps (job a's partition: 1.67
	 * MB; bytes is the fifth field of flows.csv, kind the thirteenth) */
	for (char *p = text[1][0]; !stream_cases[_i].wl && (p = strstr(p, ",shuffle,")); p++) {
		char *q = p;
		int commas = 0;

		while (q > text[1][0] && commas < 8)
			if (*--q == ',')
				commas++;
		if (strtoull(q + 1, NULL, 10) > most)
			most = strtoull(q + 1, NULL, 10);
	}
	ck_assert_msg(stream_cases[_i].wl || stream_cases[_i].host || most > 2 * 1666666,
		      "no rack fetch held two outputs (largest %" PRIu64 " B)", most);
	if (stream_cases[_i].horizon) { /* (fetches still waiting: several) */
		snprintf(path, sizeof(path), "%s/flows.csv", dir[1]);
		ck_assert_uint_gt(never_ended_last(path), 1);
	}
	for (k = 0; k < 2; k++) {
		char cmd[256];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir[k]);
		ck_assert_int_eq(system(cmd), 0);
		for (i = 0; i < 3; i++)
			free(text[k][i]);
	}
	if (!stream_cases[_i].topo)
		unlink(tpath);
	if (tmp_wl)
		unlink(wpath);
	free(tpath);
	free(wpath);
}
END_TEST

/* -B flow_log=no leaves out flows.csv (and removes one an earlier run left
 * in the directory) and events.log's flow_start and flow_done, and
 * nothing else: jobs.csv, coflows.csv and summary.json byte for byte, the
 * rest of events.log but its backend_options line, and summary.json's
 * bytes (rundir_flow_bytes, hyde compare's OCS share without flows.csv)
 * add up to flows.csv's ocs_bytes and eps_bytes columns. On the main job,
 * with circuits, inputs across racks and a waiting rack fetch (the
 * streamed run, as hyde sim makes it, and the one that keeps every flow). */
START_TEST(flow_log_off)
{
	static const char *const files[] = { RUNDIR_JOBS, RUNDIR_COFLOWS, RUNDIR_SUMMARY, "events.nf" };
	char errbuf[HYDE_ERRBUF_SIZE], dir[2][64], path[256], cmd[512], *text[2][4];
	char *tpath = xstrdup(test_srcpath("topologies/rack8.topo"));
	char *wpath = xstrdup(test_srcpath("workloads/fb-small.wl"));
	char *bkv[2][2] = { { "fetch=rack" }, { "fetch=rack", "flow_log=no" } };
	uint64_t ocs = 0, eps = 0, focs = 0, feps = 0;
	struct stat st;
	FILE *fp;
	int k, i;

	for (k = 0; k < 2; k++) {
		struct ctl_opts o;
		struct ctl *c;

		snprintf(dir[k], sizeof(dir[k]), "/tmp/hyde-flowlog-XXXXXX");
		ck_assert_ptr_nonnull(mkdtemp(dir[k]));
		snprintf(path, sizeof(path), "%s/flows.csv", dir[k]);
		fp = fopen(path, "w"); /* an earlier run's */
		ck_assert_ptr_nonnull(fp);
		fputs("flow\n", fp);
		fclose(fp);
		ctl_opts_default(&o);
		o.topo_path = tpath;
		o.wl_spec = wpath;
		o.outdir = dir[k];
		o.stream_flows = _i == 0;
		o.backend_kv = bkv[k];
		o.n_backend_kv = k + 1;
		ck_assert_msg(ctl_new(&o, &c, errbuf) == 0, "%s", errbuf);
		ck_assert_msg(ctl_run(c, errbuf) == 0, "%s", errbuf);
		ctl_free(c);
		snprintf(cmd, sizeof(cmd),
			 "grep -v ' flow_start \\| flow_done \\| backend_options ' '%s/events.log' >'%s/events.nf'",
			 dir[k], dir[k]);
		ck_assert_int_eq(system(cmd), 0);
		for (i = 0; i < 4; i++) {
			snprintf(path, sizeof(path), "%s/%s", dir[k], files[i]);
			text[k][i] = sorted_lines(path);
		}
	}
	snprintf(path, sizeof(path), "%s/flows.csv", dir[1]);
	ck_assert_msg(stat(path, &st) && errno == ENOENT, "flow_log=no left a flows.csv");
	snprintf(cmd, sizeof(cmd), "grep -q ' flow_start \\| flow_done ' '%s/events.log'", dir[1]);
	ck_assert_int_ne(system(cmd), 0); /* grep found none */
	for (i = 0; i < 4; i++)
		ck_assert_msg(!strcmp(text[0][i], text[1][i]), "%s differs:\n%s\n---\n%s", files[i],
			      text[0][i], text[1][i]);
	snprintf(cmd, sizeof(cmd), "awk -F, 'NR > 1 { o += $9; e += $10 } END { printf \"%%d %%d\", o, e }' '%s/flows.csv'",
		 dir[0]);
	fp = popen(cmd, "r");
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(fscanf(fp, "%" SCNu64 " %" SCNu64, &focs, &feps), 2);
	pclose(fp);
	ck_assert(rundir_flow_bytes(dir[1], &ocs, &eps));
	ck_assert_uint_gt(focs, 0);
	ck_assert_uint_gt(feps, 0);
	ck_assert_uint_eq(ocs, focs);
	ck_assert_uint_eq(eps, feps);
	for (k = 0; k < 2; k++) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir[k]);
		ck_assert_int_eq(system(cmd), 0);
		for (i = 0; i < 4; i++)
			free(text[k][i]);
	}
	free(tpath);
	free(wpath);
}
END_TEST

/* Property: a coflow alone whose shape lets Sunflow's one layer keep its
 * busiest port busy from the start finishes at T(C) exactly, through the
 * whole controller (pinned tasks, coflow-only mode). Random placements on
 * 8 racks of one host ('eps no', 1Gbit circuits: a byte is exactly 8ns,
 * delta 10ms), with fixed seeds, of four shapes:
 * - incast: maps on 1-7 racks, every reduce on one other rack: the
 *   reduce rack's port takes the pairs one after the other;
 * - outcast: every map on one rack, reduces on other racks;
 * - swap: maps and reduces on the same two racks: a -> b and b -> a at
 *   once (a matching);
 * - square: k maps on each of k racks A, k reduces on each of k other
 *   racks B, equal sizes: every pair is the same size, and each round is
 *   a perfect matching between A and B.
 * Sizes are random (the reduces of a job differ, except for square). */
enum shape { SH_INCAST, SH_OUTCAST, SH_SWAP, SH_SQUARE, SH_N };

static void pick_racks(struct rng *g, uint32_t *perm, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		perm[i] = i;
	rng_shuffle_u32(g, perm, n);
}

START_TEST(one_layer_random_at_lower_bound)
{
	const unsigned R = 8;
	struct rng g;
	unsigned shape = (unsigned)_i % SH_N;
	uint32_t perm[8], mr[64], rr[64];
	uint64_t rb[64];
	unsigned nm = 0, nr = 0, i, k;
	char wl[4096];
	size_t off;
	struct tmatrix tm;
	struct simrun r;
	int64_t s, e, lb;

	rng_seed(&g, 1000 + (uint64_t)_i);
	pick_racks(&g, perm, R);
	switch (shape) {
	case SH_INCAST:
		k = 1 + (unsigned)rng_below(&g, R - 1); /* map racks */
		for (i = 0; i < k; i++) {
			unsigned m = 1 + (unsigned)rng_below(&g, 3);

			while (m--)
				mr[nm++] = perm[1 + i];
		}
		for (nr = 0; nr < 1 + rng_below(&g, 3); nr++)
			rr[nr] = perm[0];
		break;
	case SH_OUTCAST:
		for (nm = 0; nm < 1 + rng_below(&g, 3); nm++)
			mr[nm] = perm[0];
		k = 1 + (unsigned)rng_below(&g, R - 1);
		for (i = 0; i < k; i++)
			rr[nr++] = perm[1 + i];
		break;
	case SH_SWAP:
		for (i = 0; i < 2; i++) {
			unsigned m = 1 + (unsigned)rng_below(&g, 3), n = 1 + (unsigned)rng_below(&g, 2);

			while (m--)
				mr[nm++] = perm[i];
			while (n--)
				rr[nr++] = perm[i];
		}
		break;
	default: /* SH_SQUARE */
		k = 2 + (unsigned)rng_below(&g, 3);
		for (i = 0; i < k * k; i++) {
			mr[nm++] = perm[i / k];
			rr[nr++] = perm[k + i / k];
		}
		break;
	}
	for (i = 0; i < nr; i++) /* whole bytes per map: exact ns */
		rb[i] = nm * (shape == SH_SQUARE && i ? rb[0] / nm : 100000 + rng_below(&g, 4000000));
	off = (size_t)snprintf(wl, sizeof(wl),
			       "job id=c arrival=0s input=1MB output=0B maps=%u reduces=%u map_time=0s reduce_time=0s map_racks=",
			       nm, nr);
	for (i = 0; i < nm; i++)
		off += (size_t)snprintf(wl + off, sizeof(wl) - off, "%s%u", i ? "," : "", mr[i]);
	off += (size_t)snprintf(wl + off, sizeof(wl) - off, " reduce_racks=");
	for (i = 0; i < nr; i++)
		off += (size_t)snprintf(wl + off, sizeof(wl) - off, "%s%u", i ? "," : "", rr[i]);
	off += (size_t)snprintf(wl + off, sizeof(wl) - off, " reduce_bytes=");
	for (i = 0; i < nr; i++)
		off += (size_t)snprintf(wl + off, sizeof(wl) - off, "%s%luB", i ? "," : "",
					(unsigned long)rb[i]);
	snprintf(wl + off, sizeof(wl) - off, "\n");
	tm_init(&tm, R);
	for (i = 0; i < nm; i++)
		for (k = 0; k < nr; k++)
			if (mr[i] != rr[k])
				tm_add(&tm, mr[i], rr[k], rb[k] / nm);
	lb = tm_lower_bound(&tm, 1000000000, 10000000, 0);
	tm_free(&tm);
	run_sim_full(&r,
		     "racks 8\nhosts 1\ncontainers 100\nreplicas 1\nhost_rate 10Gbit\n"
		     "eps no\nocs yes\nocs_rate 1Gbit\ndelta 10ms\n",
		     wl, "sunflow", true, NULL);
	ctl_coflow_times(r.c, 0, &s, &e);
	ck_assert_msg(e - s == lb, "seed %d (%s): CCT %lld ns, T(C) %lld ns; %s", 1000 + _i,
		      (const char *[]){ "incast", "outcast", "swap", "square" }[shape],
		      (long long)(e - s), (long long)lb, wl);
	done_sim(&r);
}
END_TEST

/* The same seed gives the same run, to the nanosecond. */
START_TEST(deterministic)
{
	struct simrun a, b;
	struct flow *const *fa, *const *fb;
	size_t na, nb, i;
	const char *wl = "job id=a arrival=0s input=64MB shuffle=48MB output=0B maps=6 reduces=3 map_time=1s reduce_time=1s\n"
			 "job id=b arrival=0.5s input=32MB shuffle=30MB output=0B maps=4 reduces=2 map_time=1s reduce_time=1s\n";

	run_sim(&a, TOPO3("ocs yes\nocs_rate 4Gbit\ndelta 10ms\nt_e 4MB\n"), wl, "sunflow");
	run_sim(&b, TOPO3("ocs yes\nocs_rate 4Gbit\ndelta 10ms\nt_e 4MB\n"), wl, "sunflow");
	fa = ctl_flows(a.c, &na);
	fb = ctl_flows(b.c, &nb);
	ck_assert_uint_eq(na, nb);
	for (i = 0; i < na; i++) {
		ck_assert_int_eq(fa[i]->src_host, fb[i]->src_host);
		ck_assert_int_eq(fa[i]->dst_host, fb[i]->dst_host);
		ck_assert_int_eq(fa[i]->start, fb[i]->start);
		ck_assert_int_eq(fa[i]->end, fb[i]->end);
	}
	done_sim(&a);
	done_sim(&b);
}
END_TEST

/* The incremental water-filling (maxmin.c) against water-filling from
 * scratch: random links (a third of the runs with every capacity equal,
 * so that shares tie), random classes of 1-4 links coming, going and
 * changing their number of flows, links' capacities changing between
 * their own and 8 times it, a few changes between solves; in half the
 * runs a new class often starts at its provisional level. After
 * every solve each level must be the one from scratch, and mm_solve must
 * name exactly the classes whose level changed. */
START_TEST(maxmin_incremental_is_waterfilling)
{
	struct rng g;
	int trial;

	rng_seed(&g, 7000 + (uint64_t)_i);
	for (trial = 0; trial < 400; trial++) {
		unsigned L = 2 + (unsigned)rng_below(&g, 12), i, k;
		uint64_t caps[16], before[40];
		struct mm_class cl[40];
		bool in[40] = { false };
		struct mm *m;
		int step, steps = 1 + (int)rng_below(&g, 50);

		for (i = 0; i < L; i++)
			caps[i] = _i % 3 == 0 ? 12 : rng_below(&g, 4) == 0 ? 1ULL << 40
				  : (1 + rng_below(&g, 1000)) * (rng_below(&g, 3) ? 1 : 1000003ULL);
		m = mm_new(L, caps);
		memset(cl, 0, sizeof(cl));
		for (step = 0; step < steps; step++) {
			struct mm_class *const *chg;
			size_t n, c;
			int ops = 1 + (int)rng_below(&g, 3);

			while (ops--) {
				i = (unsigned)rng_below(&g, 40);
				if (!in[i]) {
					cl[i].nlinks = 1 + (unsigned)rng_below(&g, 4 < L ? 4 : L);
					for (k = 0; k < cl[i].nlinks; k++) {
						unsigned j;

						do {
							cl[i].links[k] = (uint32_t)rng_below(&g, L);
							for (j = 0; j < k && cl[i].links[j] != cl[i].links[k]; j++)
								;
						} while (j < k);
					}
					cl[i].n = 1 + rng_below(&g, 5);
					mm_add(m, &cl[i]);
					in[i] = true;
					/* half the seeds: it runs at once at
					 * what its links offer (-B join_share),
					 * which the solve must put right */
					if (_i % 2 && rng_below(&g, 2))
						mm_provisional(m, &cl[i]);
				} else if (rng_below(&g, 2)) {
					mm_remove(m, &cl[i]);
					in[i] = false;
				} else {
					mm_set_n(m, &cl[i], 1 + rng_below(&g, 5));
				}
				/* a link's capacity changes (-B burst's buckets) */
				if (rng_below(&g, 4) == 0) {
					unsigned l = (unsigned)rng_below(&g, L);

					mm_set_cap(m, l, rng_below(&g, 2) ? caps[l] : caps[l] * 8);
				}
			}
			for (i = 0; i < 40; i++)
				before[i] = in[i] ? cl[i].lv : 0;
			chg = mm_solve(m, &n);
			ck_assert_msg(mm_verify(m), "seed %d trial %d step %d", 7000 + _i, trial, step);
			for (i = 0; i < 40; i++) {
				bool named = false;

				for (c = 0; c < n; c++)
					named |= chg[c] == &cl[i];
				ck_assert_msg(named == (in[i] && cl[i].lv != before[i]),
					      "seed %d trial %d step %d: class %u %s", 7000 + _i, trial,
					      step, i, named ? "named but unchanged" : "changed, not named");
			}
		}
		mm_free(m);
	}
}
END_TEST

/* -B join_share's provisional level: what each link has left (less what
 * earlier provisional classes took) over the new class's flows, no more
 * than the level a link held its classes at in the last solve; the lowest
 * of its links'. The next solve gives what water-filling gives. */
START_TEST(maxmin_provisional_offers)
{
	uint64_t caps[2] = { 100, 1000 };
	struct mm_class a = { .links = { 0, 1 }, .nlinks = 2, .n = 1 };
	struct mm_class e = { .links = { 0 }, .nlinks = 1, .n = 3 };
	struct mm_class b = { .links = { 1 }, .nlinks = 1, .n = 2 };
	struct mm_class c = { .links = { 1 }, .nlinks = 1, .n = 1 };
	struct mm_class d = { .links = { 0 }, .nlinks = 1, .n = 1 };
	struct mm_class f = { .links = { 0 }, .nlinks = 1, .n = 2 };
	struct mm_class g = { .links = { 0 }, .nlinks = 1, .n = 1 };
	struct mm *m = mm_new(2, caps);
	size_t n;

	mm_add(m, &a);
	mm_add(m, &e);
	mm_solve(m, &n);
	ck_assert_uint_eq(a.lv, 25); /* link 0 held both; link 1 did not fire */
	mm_remove(m, &e);	     /* link 0 has 75 left */
	mm_add(m, &b);
	ck_assert_uint_eq(mm_provisional(m, &b), 487); /* (1000 - 25) / 2 */
	ck_assert_uint_eq(mm_provisional(m, &b), 487); /* once only */
	ck_assert_uint_eq(mm_link_load(m, 1), 25 + 974);
	mm_add(m, &c);
	ck_assert_uint_eq(mm_provisional(m, &c), 1); /* what b left */
	mm_add(m, &d);
	ck_assert_uint_eq(mm_provisional(m, &d), 25); /* 75 left, held at 25 */
	mm_add(m, &f);
	ck_assert_uint_eq(mm_provisional(m, &f), 25); /* 50 left over 2 */
	mm_add(m, &g);
	ck_assert_uint_eq(mm_provisional(m, &g), 0); /* nothing left */
	ck_assert_uint_eq(mm_link_load(m, 0), 100);
	mm_solve(m, &n);
	ck_assert(mm_verify(m));
	ck_assert_uint_eq(a.lv, 20); /* link 0: 100 over 5 flows */
	ck_assert_uint_eq(d.lv, 20);
	ck_assert_uint_eq(f.lv, 20);
	ck_assert_uint_eq(g.lv, 20);
	ck_assert_uint_eq(b.lv, 326); /* (1000 - 20) / 3 */
	ck_assert_uint_eq(c.lv, 326);
	mm_free(m);
}
END_TEST

/* Through whole runs (EPS and circuits, heartbeats, HDFS traffic): with
 * HYDE_SIM_VERIFY the simulator checks every solve against water-filling
 * from scratch and stops the process at the first difference. */
START_TEST(sim_rates_verified_whole_run)
{
	static const char *const wl[] = {
		"job id=a arrival=0s input=64MB shuffle=48MB output=8MB maps=6 reduces=3 map_time=1s reduce_time=1s\n"
		"job id=b arrival=0.5s input=32MB shuffle=30MB output=4MB maps=4 reduces=2 map_time=1s reduce_time=1s\n"
		"job id=c arrival=1s input=96MB shuffle=90MB output=0B maps=8 reduces=5 map_time=0.5s reduce_time=1s\n",
	};
	char errbuf[HYDE_ERRBUF_SIZE];
	char *tpath = test_write_tmp("sim", TOPO3("ocs yes\nocs_rate 4Gbit\ndelta 10ms\nt_e 4MB\noutput_replication 3\n"), ".topo");
	char *wpath = test_write_tmp("sim", wl[0], ".wl");
	struct ctl_totals tt;
	struct ctl_opts o;
	struct ctl *c;

	setenv("HYDE_SIM_VERIFY", "1", 1);
	ctl_opts_default(&o);
	o.topo_path = tpath;
	o.wl_spec = wpath;
	ck_assert_msg(ctl_new(&o, &c, errbuf) == 0, "%s", errbuf);
	ck_assert_msg(ctl_run(c, errbuf) == 0, "%s", errbuf);
	ctl_totals(c, &tt);
	ck_assert_uint_eq(tt.jobs_done, 3);
	ck_assert_uint_gt(tt.ocs_bytes, 0);
	ck_assert_uint_gt(tt.eps_bytes, 0);
	ctl_free(c);
	unsetenv("HYDE_SIM_VERIFY");
	unlink(tpath);
	unlink(wpath);
	free(tpath);
	free(wpath);
}
END_TEST

/* hyde sim streaming its files (as the command line runs it) keeps the
 * tasks of the jobs in the cluster only: a job's tasks and blocks exist
 * from its arrival until it is done, its output parts until its children
 * are done. Seen from a scheduler: at each arrival and end, every job. */
static unsigned forget_checks, forget_tio_looks;
static struct ctl *forget_ctl;

/* A map holds a struct tio (its input reads) while it runs, its own, and
 * none before or after: the SWIM day's jobs in flight hold millions of
 * maps, mostly done. */
static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;

	return x < y ? -1 : x > y;
}

static void forget_tio(const struct hyde_job *j)
{
	struct jstate *js = &forget_ctl->js[j->idx];
	uint32_t m, running = 0;
	struct tio **io;

	ck_assert_ptr_nonnull(js->map_at);
	io = xcalloc(j->n_maps + 1, sizeof(*io));
	for (m = 0; m < j->n_maps; m++) {
		struct tio *x = taskio_map_tio(forget_ctl, js, m);

		if (j->maps[m].state != HYDE_TASK_RUNNING) {
			ck_assert_msg(!x && !js->map_at[m], "job %s: map %u, %s, holds its reads", j->id,
				      m, j->maps[m].state == HYDE_TASK_DONE ? "done" : "not started");
			continue;
		}
		ck_assert_msg(x && x->done <= x->bytes, "job %s: map %u, running, has no reads", j->id, m);
		/* its own: its block, read from another host, or nothing */
		ck_assert_msg(j->input_from_parents || !x->bytes || x->bytes == j->blocks[m].bytes,
			      "job %s: map %u reads %" PRIu64 " bytes of a %" PRIu64 "-byte block", j->id,
			      m, x->bytes, j->blocks[m].bytes);
		ck_assert_uint_le(js->map_at[m], forget_ctl->tio_pool.n);
		io[running++] = x;
	}
	qsort(io, running, sizeof(*io), cmp_ptr);
	for (m = 1; m < running; m++)
		ck_assert_msg(io[m] != io[m - 1], "job %s: two maps share their reads", j->id);
	free(io);
}

static void forget_look(struct hyde_sched *s, const struct hyde_job *now, bool done_now)
{
	uint32_t i, k;

	for (i = 0; i < hyde_cluster(s)->n_jobs; i++) {
		const struct hyde_job *j = hyde_job(s, i);
		bool kids_done = true;

		/* (the job ending now is forgotten after its job_finished) */
		for (k = 0; k < j->n_children; k++)
			kids_done &= hyde_job(s, j->children[k])->state == HYDE_JOB_DONE &&
				     !(done_now && hyde_job(s, j->children[k]) == now);
		if (!j->arrived) {
			ck_assert_msg(!j->maps && !j->reduces && !j->blocks && !j->outputs,
				      "job %s has tasks before it arrived", j->id);
		} else if (j->state == HYDE_JOB_DONE && !(done_now && j == now)) {
			ck_assert_msg(!j->maps && !j->reduces && !j->blocks,
				      "job %s, done, still has its tasks", j->id);
			ck_assert_msg(!j->outputs == kids_done, "job %s: outputs %s with %s children done",
				      j->id, j->outputs ? "kept" : "gone", kids_done ? "all" : "not all");
		} else {
			ck_assert_msg(j->maps && j->blocks && j->outputs, "job %s, in the cluster, has no tasks",
				      j->id);
			if (!(done_now && j == now))
				forget_tio(j);
		}
		forget_checks++;
	}
}

static void forget_arrived(struct hyde_sched *s, const struct hyde_job *j)
{
	forget_look(s, j, false);
}

static void forget_finished(struct hyde_sched *s, const struct hyde_job *j)
{
	forget_look(s, j, true);
}

/* The first ready job's first task for the host (a map of any locality,
 * else a reduce): the test schedulers' rule. */
static const struct hyde_task *first_task_for(struct hyde_sched *s, unsigned host)
{
	size_t n, i;
	const uint32_t *act = hyde_active_jobs(s, &n);

	for (i = 0; i < n; i++) {
		const struct hyde_job *j = hyde_job(s, act[i]);
		enum hyde_locality lvl;
		const struct hyde_task *t;

		if (j->state != HYDE_JOB_READY)
			continue;
		t = hyde_pending_map(s, j, host, HYDE_OFF_RACK, &lvl);
		if (!t)
			t = hyde_pending_reduce(s, j, host);
		if (t)
			return t;
	}
	return NULL;
}

/* (as a job's maps run, not only when jobs come and go) */
static void forget_task(struct hyde_sched *s, const struct hyde_task *t)
{
	const struct hyde_job *j = hyde_job(s, t->job);

	if (j->maps) {
		forget_tio(j);
		forget_tio_looks++;
	}
}

static const struct hyde_sched_ops forget_ops = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "forget",
	.job_arrived = forget_arrived,
	.job_finished = forget_finished,
	.task_finished = forget_task,
	.pick_task = first_task_for,
};

/* hyde_fair_next walks the order that hyde_fair_order sorts, job for job,
 * and fills user_running alike, at every pick of a run whose jobs of four
 * users queue (ties in both keys, jobs without a pending task, a first
 * job with no task for the host); the scheduler picks as fair does. Both
 * read the keys the cluster keeps beside the jobs: the order must be the
 * one the job records give, sorted here afresh. */
static size_t walk_picks, walk_longest;

/* a before b in the fair order, from the job records alone */
static bool walk_before(struct hyde_sched *s, uint32_t a, uint32_t b)
{
	const struct hyde_job *x = hyde_job(s, a), *y = hyde_job(s, b);
	unsigned ux = hyde_user_running(s, x->user_idx), uy = hyde_user_running(s, y->user_idx);
	uint32_t rx = x->maps_running + x->reduces_running, ry = y->maps_running + y->reduces_running;

	if (ux != uy)
		return ux < uy;
	if (rx != ry)
		return rx < ry;
	if (x->ready_at != y->ready_at)
		return x->ready_at < y->ready_at;
	return a < b;
}

static void walk_check_records(struct hyde_sched *s, const uint32_t *order, size_t n)
{
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	uint32_t *v = xcalloc(ci->n_jobs + 1, sizeof(*v)), x;
	size_t m = 0, i, k;

	for (x = 0; x < ci->n_jobs; x++) {
		const struct hyde_job *j = hyde_job(s, x);

		if (j->state != HYDE_JOB_READY ||
		    (!hyde_job_has_pending(j, HYDE_MAP) && !hyde_job_has_pending(j, HYDE_REDUCE)))
			continue;
		for (k = m++; k > 0 && walk_before(s, x, v[k - 1]); k--)
			v[k] = v[k - 1];
		v[k] = x;
	}
	ck_assert_uint_eq(m, n);
	for (i = 0; i < n; i++)
		ck_assert_msg(order[i] == v[i], "pick %zu: place %zu is job %u, the records' %u",
			      walk_picks, i, order[i], v[i]);
	free(v);
}

static const struct hyde_task *walk_pick(struct hyde_sched *s, unsigned host)
{
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	uint32_t *order = xcalloc(ci->n_jobs + 1, sizeof(*order)), x;
	unsigned *ur = xcalloc(ci->n_users + 1, sizeof(*ur)), *ur2 = xcalloc(ci->n_users + 1, sizeof(*ur2));
	size_t n = hyde_fair_order(s, order, ur), i = 0;
	const struct hyde_task *t = NULL;

	walk_check_records(s, order, n);
	for (x = hyde_fair_next(s, ur2); x != UINT32_MAX; x = hyde_fair_next(s, NULL), i++) {
		ck_assert_msg(i < n && x == order[i], "pick %zu: place %zu is job %u, the order's %u",
			      walk_picks, i, x, i < n ? order[i] : UINT32_MAX);
		if (!t) {
			enum hyde_locality lvl;

			t = hyde_pending_map(s, hyde_job(s, x), host, HYDE_OFF_RACK, &lvl);
			if (!t)
				t = hyde_pending_reduce(s, hyde_job(s, x), host);
		}
	}
	ck_assert_uint_eq(i, n);
	ck_assert(!memcmp(ur, ur2, ci->n_users * sizeof(*ur)));
	/* after the whole order, the walk is over */
	ck_assert_uint_eq(hyde_fair_next(s, NULL), UINT32_MAX);
	/* and a walk begun, then hyde_fair_order: over too (its first, kept
	 * as the candidates are collected, is not given again) */
	if (n > 1) {
		ck_assert_uint_eq(hyde_fair_next(s, ur2), order[0]);
		ck_assert_uint_eq(hyde_fair_order(s, order, ur2), n);
		ck_assert_uint_eq(hyde_fair_next(s, NULL), UINT32_MAX);
	}
	walk_picks++;
	walk_longest = n > walk_longest ? n : walk_longest;
	free(order);
	free(ur);
	free(ur2);
	return t;
}

static const struct hyde_sched_ops walk_ops = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "walk",
	.pick_task = walk_pick,
};

/* A whole run of o (its scheduler and options set) on a topology and a
 * workload given as text. */
static void run_text(struct ctl_opts *o, const char *topo, const char *wl)
{
	char errbuf[HYDE_ERRBUF_SIZE], *tpath = test_write_tmp("sim", topo, ".topo");
	char *wpath = test_write_tmp("sim", wl, ".wl");
	struct ctl *c;

	o->topo_path = tpath;
	o->wl_spec = wpath;
	ck_assert_msg(ctl_new(o, &c, errbuf) == 0, "%s", errbuf);
	ck_assert_msg(ctl_run(c, errbuf) == 0, "%s", errbuf);
	ctl_free(c);
	unlink(tpath);
	unlink(wpath);
	free(tpath);
	free(wpath);
}

START_TEST(fair_next_walks_order)
{
	char *wl = NULL;
	struct ctl_opts o;
	size_t len = 0;
	int k;

	for (k = 0; k < 40; k++) {
		if (k % 9 == 4) /* pinned: no task for a host off rack 2 */
			test_appendf(&wl, &len,
				     "job id=j%d user=u%d arrival=%d.%ds input=2MB shuffle=1MB output=0B maps=3 "
				     "reduces=1 map_time=2s reduce_time=1s map_racks=2,2,2\n",
				     k, k % 4, k / 10, k % 10);
		else
			test_appendf(&wl, &len,
				     "job id=j%d user=u%d arrival=%d.%ds input=%dMB shuffle=%dMB output=0B maps=%d "
				     "reduces=%d map_time=%ds reduce_time=1s\n",
				     k, k % 4, k / 10, k % 10, 2 + k % 5, 1 + k % 3, 2 + k % 7, 1 + k % 3,
				     1 + k % 4);
	}
	ctl_opts_default(&o);
	o.stream_flows = true;
	o.sched_ops = &walk_ops;
	walk_picks = walk_longest = 0;
	run_text(&o, TOPO3("ocs no\n"), wl);
	ck_assert_uint_gt(walk_picks, 100);
	ck_assert_uint_gt(walk_longest, 15);
	free(wl);
}
END_TEST

/* hyde_net_flows_into is hyde_net_flows's flows into the host over its
 * link, in the same order with the same fields, for every host at every
 * pick of a run with reads, fetches and writes on every path (host,
 * rack, EPS, OCS; per host and, with -B fetch=rack, per rack), and
 * hyde_net_bytes_into the sum of what they have left, also when a flow
 * in moved since the host's last read in the same event, kept between
 * reads where nothing moved (read afresh under HYDE_SIM_VERIFY), and
 * hyde_net_into_version the same only for the same flows, one per host,
 * kept between picks where nothing moved. The live view's flows on each
 * path (counted as flows start and end) are the view's too. */
static size_t into_checks, into_paths[4], into_multi, into_moved, into_sums, into_fresh;
/* per host, the event and bytes of its last hyde_net_bytes_into; the
 * version of its last hyde_net_into_version and a digest of the flows it
 * was for; the reads that found the version kept, and those that found
 * it moved with the flows in the same event */
static uint64_t into_at[64], into_sum[64], into_ver[64], into_dig[64];
static size_t into_vkept, into_vmoved;

static const struct hyde_task *into_pick(struct hyde_sched *s, unsigned host)
{
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	size_t n = hyde_net_flows(s, NULL, 0), m, i, k;
	struct hyde_flow_state *all = xcalloc(n + 1, sizeof(*all)), *in = xcalloc(n + 1, sizeof(*in));
	size_t on[4] = { 0 };
	struct live_status ls;
	unsigned h;

	ck_assert_uint_eq(hyde_net_flows(s, all, n), n);
	for (i = 0; i < n; i++) {
		into_paths[all[i].path]++;
		on[all[i].path]++;
	}
	ctl_live(s->host->ctl, false, &ls);
	ck_assert_uint_eq(ls.flows_host, on[HYDE_PATH_HOST]);
	ck_assert_uint_eq(ls.flows_rack, on[HYDE_PATH_RACK]);
	ck_assert_uint_eq(ls.flows_eps, on[HYDE_PATH_EPS]);
	ck_assert_uint_eq(ls.flows_ocs, on[HYDE_PATH_OCS]);
	for (h = 0; h < ci->n_hosts; h++) {
		m = hyde_net_flows_into(s, h, in, n);
		for (i = 0, k = 0; i < n; i++) {
			if (all[i].dst_host != h || all[i].path == HYDE_PATH_HOST)
				continue;
			ck_assert_msg(k < m, "host %u: flow %u not in its view", h, all[i].id);
			ck_assert_msg(in[k].id == all[i].id, "host %u: place %zu is flow %u, not %u", h,
				      k, in[k].id, all[i].id);
			ck_assert(in[k].job == all[i].job && in[k].task == all[i].task &&
				  in[k].kind == all[i].kind && in[k].path == all[i].path &&
				  in[k].src_host == all[i].src_host && in[k].dst_host == h &&
				  in[k].bytes == all[i].bytes && in[k].sent == all[i].sent &&
				  in[k].left == all[i].left && in[k].start == all[i].start);
			k++;
		}
		ck_assert_uint_eq(k, m);
		/* their sum, kept within an event: a flow in that started,
		 * ended or grew since the last read in the same event counts
		 * (into_moved: such reads happen) */
		{
			uint64_t sum = 0, ev = s->host->ctl->loop.events + 1;

			for (k = 0; k < m; k++)
				sum += in[k].left;
			ck_assert_uint_lt(h, 64);
			ck_assert_uint_eq(hyde_net_bytes_into(s, h), sum);
			/* once more, nothing moved: kept (but under
			 * HYDE_SIM_VERIFY, read afresh) */
			ck_assert_uint_eq(hyde_net_bytes_into(s, h), sum);
			into_sums += 2;
			/* the version: the same only for the same flows, kept
			 * while they are (a scheduler's copy of them holds) */
			{
				uint64_t ver = hyde_net_into_version(s, h), dig = 14695981039346656037ull;
				unsigned g;

				for (k = 0; k < m; k++)
					dig = ((dig ^ in[k].id) * 1099511628211ull ^ in[k].left) *
					      1099511628211ull;
				ck_assert_uint_ne(ver, 0);
				ck_assert_uint_eq(hyde_net_into_version(s, h), ver);
				for (g = 0; g < h; g++)
					ck_assert_msg(into_ver[g] != ver, "hosts %u and %u: one version", g, h);
				if (into_ver[h] == ver)
					ck_assert_msg(into_dig[h] == dig,
						      "host %u: version %llu kept, its flows in moved", h,
						      (unsigned long long)ver);
				into_vkept += into_ver[h] == ver;
				into_vmoved += into_at[h] == ev && into_dig[h] != dig;
				into_ver[h] = ver;
				into_dig[h] = dig;
			}
			into_fresh = s->host->ctl->net.sums_read;
			into_moved += into_at[h] == ev && into_sum[h] != sum;
			into_at[h] = ev;
			into_sum[h] = sum;
			k = m;
		}
		if (m > 1) { /* a short buffer: the count, the first only */
			struct hyde_flow_state one;

			ck_assert_uint_eq(hyde_net_flows_into(s, h, &one, 1), m);
			ck_assert_uint_eq(one.id, in[0].id);
			into_multi++;
		}
		into_checks += m;
	}
	ck_assert_uint_eq(hyde_net_flows_into(s, ci->n_hosts, in, n), 0);
	ck_assert_uint_eq(hyde_net_bytes_into(s, ci->n_hosts), 0);
	ck_assert_uint_eq(hyde_net_into_version(s, ci->n_hosts), 0);
	free(all);
	free(in);
	return first_task_for(s, host);
}

static const struct hyde_sched_ops into_ops = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "into",
	.pick_task = into_pick,
};

START_TEST(net_flows_into_is_the_view)
{
	char *wl = NULL, *bkv[] = { "fetch=rack" };
	struct ctl_opts o;
	size_t len = 0;
	int k;

	for (k = 0; k < 24; k++)
		test_appendf(&wl, &len,
			     "job id=j%d arrival=%d.%ds input=%dMB shuffle=%dMB output=%dMB maps=%d "
			     "reduces=%d map_time=1s reduce_time=1s\n",
			     k, k / 4, (k % 4) * 2, 4 + k % 5, 20 + 30 * (k % 3), k % 2, 3 + k % 6,
			     1 + k % 3);
	ctl_opts_default(&o);
	o.sched_ops = &into_ops;
	o.heartbeat = 0; /* a pick at every change */
	if (_i & 1) {
		o.backend_kv = bkv;
		o.n_backend_kv = 1;
	}
	if (_i & 2) /* every read made, and checked against the kept sum */
		setenv("HYDE_SIM_VERIFY", "1", 1);
	into_checks = into_multi = into_moved = into_sums = into_fresh = 0;
	into_vkept = into_vmoved = 0;
	memset(into_paths, 0, sizeof(into_paths));
	memset(into_at, 0, sizeof(into_at));
	memset(into_ver, 0, sizeof(into_ver));
	run_text(&o, TOPO3("ocs yes\nocs_rate 10Gbit\ndelta 1ms\nt_e 2MB\n"), wl);
	unsetenv("HYDE_SIM_VERIFY");
	ck_assert_uint_gt(into_checks, 1000);
	ck_assert_uint_gt(into_multi, 200);
	ck_assert_uint_gt(into_moved, 0);
	/* versions kept between picks of an event, and moved within one */
	ck_assert_uint_gt(into_vkept, 100);
	ck_assert_uint_gt(into_vmoved, 0);
	/* kept: at most one fresh read per host and event, at least every
	 * second call answered from the kept sum */
	if (_i & 2)
		ck_assert_uint_eq(into_fresh, into_sums);
	else
		ck_assert_uint_le(2 * into_fresh, into_sums);
	for (k = 0; k < 4; k++)
		ck_assert_msg(into_paths[k] > 0, "no flow seen on path %d", k);
	free(wl);
}
END_TEST

START_TEST(sim_memory_follows_jobs)
{
	const char *wl =
		"job id=p arrival=0s input=4MB shuffle=2MB output=3MB maps=2 reduces=2 map_time=1s reduce_time=1s\n"
		"job id=q arrival=1s input=2MB shuffle=1MB output=1MB maps=2 reduces=1 map_time=1s reduce_time=1s\n"
		"job id=c arrival=20s input=parents shuffle=1MB output=0B maps=3 reduces=1 map_time=1s reduce_time=1s parents=p\n"
		"job id=d arrival=40s input=1MB shuffle=1MB output=0B maps=1 reduces=1 map_time=1s reduce_time=1s\n"
		/* more maps than the cluster runs at once: their reads'
		 * records are used again */
		"job id=e arrival=41s input=120MB shuffle=2MB output=0B maps=120 reduces=1 map_time=1s reduce_time=1s\n";
	char errbuf[HYDE_ERRBUF_SIZE], dir[64], cmd[128];
	char *tpath = test_write_tmp("sim", TOPO3("ocs no\n"), ".topo");
	char *wpath = test_write_tmp("sim", wl, ".wl");
	struct ctl_opts o;
	struct ctl *c;
	const struct cluster *cl;
	uint32_t i;

	snprintf(dir, sizeof(dir), "/tmp/hyde-simmem-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ctl_opts_default(&o);
	o.topo_path = tpath;
	o.wl_spec = wpath;
	o.outdir = dir;
	o.stream_flows = true;
	o.sched_ops = &forget_ops;
	forget_checks = 0;
	ck_assert_msg(ctl_new(&o, &c, errbuf) == 0, "%s", errbuf);
	forget_ctl = c;
	forget_tio_looks = 0;
	ck_assert_msg(ctl_run(c, errbuf) == 0, "%s", errbuf);
	ck_assert_uint_eq(forget_checks, 10 * 5);
	ck_assert_uint_ge(forget_tio_looks, 120);
	/* every map's record went back, and the pool is what ran at once */
	ck_assert_uint_eq(c->tio_pool.n_free, c->tio_pool.n);
	ck_assert_uint_gt(c->tio_pool.n, 0);
	ck_assert_uint_lt(c->tio_pool.n, 120);
	ck_assert_uint_gt(c->tio_pool.n_block, 1); /* (records in more than one block) */
	cl = ctl_cluster(c);
	for (i = 0; i < cl->n_jobs; i++)
		ck_assert(!cl->jobs[i].maps && !cl->jobs[i].outputs);
	ctl_free(c);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	unlink(tpath);
	unlink(wpath);
	free(tpath);
	free(wpath);
}
END_TEST

/* Sunflow's plan on random demand, and again later on what is left (its
 * cache at work): no two reservations (nor a circuit that is busy) share
 * a port's side at once, none starts before now, a pair is reserved once,
 * the later layers end by T_plan (the first layer's end, when the plan
 * asks to be made again), and the shortest coflow has every pair. */
static void check_sunflow_plan(const struct cs_input *in, const struct cs_plan *pl)
{
	size_t a, b;
	int64_t t_plan = in->now;

	for (a = 0; a < pl->n; a++)
		if (pl->r[a].end > t_plan)
			t_plan = pl->r[a].end;
	for (a = 0; a < pl->n; a++) {
		const struct cs_resv *x = &pl->r[a];

		ck_assert_int_ge(x->start, in->now);
		ck_assert_int_gt(x->end, x->start);
		for (b = 0; b < in->n_busy; b++) {
			const struct cs_busy *y = &in->busy[b];

			if (y->src == x->src || y->dst == x->dst)
				ck_assert_msg(x->start >= y->until, "reservation %u->%u at %lld over busy %u->%u to %lld",
					      x->src, x->dst, (long long)x->start, y->src, y->dst,
					      (long long)y->until);
		}
		for (b = a + 1; b < pl->n; b++) {
			const struct cs_resv *y = &pl->r[b];

			ck_assert_msg(!(x->coflow == y->coflow && x->src == y->src && x->dst == y->dst),
				      "pair %u->%u of coflow %u reserved twice", x->src, x->dst, x->coflow);
			if (x->src == y->src || x->dst == y->dst)
				ck_assert_msg(x->end <= y->start || y->end <= x->start,
					      "%u->%u [%lld, %lld) and %u->%u [%lld, %lld) share a port",
					      x->src, x->dst, (long long)x->start, (long long)x->end, y->src,
					      y->dst, (long long)y->start, (long long)y->end);
		}
	}
	ck_assert(pl->n == 0 || pl->replan_at == t_plan);
}

/* The first layer (coflow c0) is list-scheduled, with a maximal matching
 * at every instant a side frees (Sunflow's pairs whose two ports are idle
 * start together): at now and at each end of one of c0's reservations or
 * of a busy circuit, no pair of c0 that starts later has both sides free
 * (the later layers fill c0's gaps, so only c0's own reservations count). */
static void check_first_layer_maximal(const struct cs_input *in, const struct cs_plan *pl,
				      uint32_t c0)
{
	size_t a, b, e;

	for (e = 0; e <= pl->n + in->n_busy; e++) {
		int64_t t = in->now;

		if (e > 0 && e <= pl->n) {
			if (pl->r[e - 1].coflow != c0)
				continue;
			t = pl->r[e - 1].end;
		} else if (e > pl->n) {
			t = in->busy[e - 1 - pl->n].until;
			if (t <= in->now)
				continue;
		}
		for (a = 0; a < pl->n; a++) {
			const struct cs_resv *x = &pl->r[a];
			bool out_busy = false, in_busy = false;

			if (x->coflow != c0 || x->start <= t)
				continue;
			for (b = 0; b < pl->n; b++) {
				const struct cs_resv *y = &pl->r[b];

				if (y->coflow == c0 && y->start <= t && t < y->end) {
					out_busy |= y->src == x->src;
					in_busy |= y->dst == x->dst;
				}
			}
			for (b = 0; b < in->n_busy; b++)
				if (in->busy[b].until > t) {
					out_busy |= in->busy[b].src == x->src;
					in_busy |= in->busy[b].dst == x->dst;
				}
			ck_assert_msg(out_busy || in_busy,
				      "%u->%u of the first layer starts at %lld, both sides free at %lld",
				      x->src, x->dst, (long long)x->start, (long long)t);
		}
	}
}

/* Every other run has 130 ports, its pairs among 16 of them on both sides
 * of the first layer's 64-port words (the planner keeps a side's pairs as
 * bits), so that they still contend. */
START_TEST(sunflow_plan_random_is_feasible)
{
	enum { RMAX = 130, ND = 300 };
	static const uint32_t wide[16] = { 0, 1, 5, 31, 62, 63, 64, 65, 66, 70, 100, 110, 126, 127, 128, 129 };
	const unsigned R = _i % 2 ? RMAX : 12;
	struct rng g;
	struct cs_demand d[ND];
	struct cs_busy busy[RMAX];
	int32_t out_of[RMAX];
	struct cs_plan pl = { 0 };
	struct cs_input in = { .ports = R, .bw = 1.0, .delta = 1000 };
	unsigned ncf, i, k, round;
	size_t nd = 0, nb = 0;
	bool used_in[RMAX] = { false };

	rng_seed(&g, 7000 + (uint64_t)_i);
	ncf = 2 + (unsigned)rng_below(&g, 6);
	for (i = 0; i < ncf; i++) {
		unsigned np = 1 + (unsigned)rng_below(&g, 40);

		for (k = 0; k < np && nd < ND; k++) {
			uint32_t s = (uint32_t)rng_below(&g, R), t = (uint32_t)rng_below(&g, R);

			if (R == RMAX) {
				s = wide[rng_below(&g, 16)];
				t = wide[rng_below(&g, 16)];
			}

			if (s == t)
				continue;
			/* a few sizes, so that pairs end together and line up */
			d[nd++] = (struct cs_demand){ i, s, t, 1000.0 * (double)(1 + rng_below(&g, 4)) };
		}
	}
	for (i = 0; i < R; i++) {
		uint32_t t = (uint32_t)rng_below(&g, R);

		out_of[i] = -1;
		if (t != i && !used_in[t] && rng_below(&g, 3) == 0) {
			used_in[t] = true;
			out_of[i] = (int32_t)t;
			if (rng_below(&g, 2))
				busy[nb++] = (struct cs_busy){ i, t, ncf, 500 + (int64_t)rng_below(&g, 4000) };
		}
	}
	in.d = d;
	in.busy = busy;
	in.out_of = out_of;
	for (round = 0; round < 3; round++) {
		static double agg[8][RMAX][RMAX];
		double best = -1;
		unsigned c0 = 0, c, want = 0, got = 0;

		in.n_d = nd;
		in.n_busy = nb;
		ck_assert_int_eq(csched_sunflow.plan(&in, &pl), 0);
		check_sunflow_plan(&in, &pl);
		/* the shortest coflow by T(C) (sums of whole numbers: exact)
		 * has every pair with demand in the plan */
		memset(agg, 0, sizeof(agg));
		for (k = 0; k < nd; k++)
			agg[d[k].coflow][d[k].src][d[k].dst] += d[k].bits;
		for (c = 0; c < ncf; c++) {
			double row[RMAX] = { 0 }, col[RMAX] = { 0 }, al = 0;
			unsigned s2, t2;

			for (s2 = 0; s2 < R; s2++)
				for (t2 = 0; t2 < R; t2++)
					if (agg[c][s2][t2] > 0) {
						row[s2] += agg[c][s2][t2] / in.bw + (double)in.delta;
						col[t2] += agg[c][s2][t2] / in.bw + (double)in.delta;
					}
			for (s2 = 0; s2 < R; s2++) {
				al = row[s2] > al ? row[s2] : al;
				al = col[s2] > al ? col[s2] : al;
			}
			if (al > 0 && (best < 0 || al < best)) {
				best = al;
				c0 = c;
			}
		}
		if (best > 0) {
			unsigned s2, t2;

			for (s2 = 0; s2 < R; s2++)
				for (t2 = 0; t2 < R; t2++)
					want += agg[c0][s2][t2] > 0;
			for (k = 0; k < pl.n; k++)
				got += pl.r[k].coflow == c0;
			ck_assert_uint_eq(got, want);
			check_first_layer_maximal(&in, &pl, c0);
		}
		/* later: some pairs moved data, the busy circuits ended */
		in.now += 700;
		for (k = 0; k < nd; k++)
			if (rng_below(&g, 4) == 0)
				d[k].bits = d[k].bits > 500 ? d[k].bits - 500 : 0;
		nb = 0;
	}
	cs_plan_free(&pl);
}
END_TEST

/* Sunflow's later layers use the gaps of both ports inside [now, T_plan]:
 * the shortest coflow (1->2, 3000 bits at 1 bit/ns, delta 100) holds its
 * ports to T_plan = 3100; the next coflow's 0->1 waits for a busy circuit
 * on port 0 (to 1000) and takes [1000, 3100); its 2->3 waits for the same
 * circuit's port 3 and takes what it needs, [1000, 1600); its 3->2 has
 * its destination held to T_plan and gets nothing. The last coflow's 2->3
 * gets nothing either, though both ports are free from 1600: a pair is
 * the first coflow's to use it. */
START_TEST(sunflow_later_layer_fills_gap)
{
	const struct cs_demand d[] = { { 0, 1, 2, 3000.0 }, { 1, 0, 1, 5000.0 }, { 1, 3, 2, 100.0 },
				       { 1, 2, 3, 500.0 }, { 2, 2, 3, 9000.0 } };
	const struct cs_busy busy[] = { { 0, 3, 7, 1000 } };
	struct cs_input in = { .ports = 4, .bw = 1.0, .delta = 100, .d = d, .n_d = 5,
			       .unique = true, .busy = busy, .n_busy = 1 };
	struct cs_plan pl = { 0 };

	ck_assert_int_eq(csched_sunflow.plan(&in, &pl), 0);
	ck_assert_uint_eq(pl.n, 3);
	ck_assert(pl.r[0].coflow == 0 && pl.r[0].src == 1 && pl.r[0].dst == 2);
	ck_assert_int_eq(pl.r[0].start, 0);
	ck_assert_int_eq(pl.r[0].end, 3100);
	ck_assert(pl.r[1].coflow == 1 && pl.r[1].src == 0 && pl.r[1].dst == 1);
	ck_assert_int_eq(pl.r[1].start, 1000);
	ck_assert_int_eq(pl.r[1].end, 3100);
	ck_assert(pl.r[2].coflow == 1 && pl.r[2].src == 2 && pl.r[2].dst == 3);
	ck_assert_int_eq(pl.r[2].start, 1000);
	ck_assert_int_eq(pl.r[2].end, 1600);
	ck_assert_int_eq(pl.replan_at, 3100);
	cs_plan_free(&pl);
}
END_TEST

/* A plan of one coflow made a part at a time (cs_input.chunk, then the
 * scheduler's more, as the controller asks for them) is the plan made
 * whole: put in start order part by part, the same reservations in the
 * same order, each part starting after the last, and no re-plan time
 * until the last part (then the whole plan's). A plan left unfinished is
 * dropped by the next (the scheduler's state kept across rounds). With a
 * second coflow the plan comes whole at once: later layers fill the
 * gaps of the first up to its end. */
START_TEST(sunflow_plan_in_parts)
{
	enum { R = 16, ND = 2 * R * R };
	static const size_t chunks[] = { 1, 2, 7, 64 };
	size_t chunk = chunks[_i % 4];
	static struct cs_demand d[ND];
	static struct cs_resv tmp[ND];
	struct cs_busy busy[R];
	int32_t out_of[R];
	struct cs_plan parts = { 0 };
	struct cs_input in = { .ports = R, .bw = 1.0, .delta = 1000, .unique = true };
	unsigned round, split = 0;
	struct rng g;

	rng_seed(&g, 9700 + (uint64_t)_i);
	for (round = 0; round < 12; round++) {
		struct cs_plan whole = { 0 };
		bool used_in[R] = { false };
		unsigned ncf = rng_below(&g, 4) ? 1 : 2, c, s, t, np = 0;
		size_t nd = 0, nb = 0, from, k;
		int64_t last_start = -1;

		for (c = 0; c < ncf; c++)
			for (s = 0; s < R; s++)
				for (t = 0; t < R; t++)
					if (s != t && rng_below(&g, 3))
						d[nd++] = (struct cs_demand){ c, s, t,
									      1000.0 * (double)(1 + rng_below(&g, 4)) };
		for (s = 0; s < R; s++) {
			t = (unsigned)rng_below(&g, R);
			out_of[s] = -1;
			if (t != s && !used_in[t] && rng_below(&g, 3) == 0) {
				used_in[t] = true;
				out_of[s] = (int32_t)t;
				if (rng_below(&g, 2))
					busy[nb++] = (struct cs_busy){ s, t, ncf,
								       in.now + 500 + (int64_t)rng_below(&g, 4000) };
			}
		}
		in.d = d;
		in.n_d = nd;
		in.busy = busy;
		in.n_busy = nb;
		in.out_of = out_of;
		in.chunk = 0;
		ck_assert_int_eq(csched_sunflow.plan(&in, &whole), 0);
		ck_assert(!whole.more);
		check_sunflow_plan(&in, &whole);
		cexec_sort_resv(whole.r, whole.n, tmp);
		in.chunk = chunk;
		ck_assert_int_eq(csched_sunflow.plan(&in, &parts), 0);
		if (ncf > 1)
			ck_assert_msg(!parts.more, "two coflows: the plan is whole at once");
		else
			ck_assert_msg(parts.more, "%zu pairs, %zu a part: made whole", nd, chunk);
		for (from = 0;;) {
			ck_assert_uint_gt(parts.n, from);
			if (parts.more)
				ck_assert_uint_ge(parts.n - from, chunk);
			cexec_sort_resv(parts.r + from, parts.n - from, tmp);
			ck_assert_int_gt(parts.r[from].start, last_start);
			last_start = parts.r[parts.n - 1].start;
			for (k = from; k < parts.n; k++) {
				const struct cs_resv *a = &parts.r[k], *b = &whole.r[k];

				ck_assert_uint_lt(k, whole.n);
				ck_assert_msg(a->coflow == b->coflow && a->src == b->src &&
						      a->dst == b->dst && a->start == b->start &&
						      a->end == b->end,
					      "round %u, reservation %zu, part from %zu: %u->%u [%lld, "
					      "%lld), whole %u->%u [%lld, %lld)",
					      round, k, from, a->src, a->dst, (long long)a->start,
					      (long long)a->end, b->src, b->dst, (long long)b->start,
					      (long long)b->end);
			}
			np++;
			if (!parts.more)
				break;
			ck_assert_int_eq(parts.replan_at, -1);
			if (round % 3 == 2 && np == 2) /* the next round's plan drops the rest */
				break;
			from = parts.n;
			ck_assert_int_eq(csched_sunflow.more(&parts, chunk), 0);
		}
		if (!parts.more) {
			ck_assert_uint_eq(parts.n, whole.n);
			ck_assert_int_eq(parts.replan_at, whole.replan_at);
			ck_assert_int_eq(csched_sunflow.more(&parts, chunk), -EINVAL);
		}
		split += np > 1;
		cs_plan_free(&whole);
		in.now += 3000;
	}
	ck_assert_uint_gt(split, 4);
	cs_plan_free(&parts);
}
END_TEST

/* The controller's circuit plans a part at a time are its plans made
 * whole: coflows of up to 132 pairs on 12 racks arriving while the last
 * plan is under way (plans replaced half made, plans of one coflow and of
 * several), every flow starts and ends at the same nanosecond, whatever
 * the part, with the parts held to the whole plan under HYDE_SIM_VERIFY. */
START_TEST(circuit_plans_in_parts)
{
	static const size_t chunk[] = { 1, 5, 0, 1 };
	char *wl = NULL;
	size_t len = 0, n, m, i;
	struct simrun whole, parts;
	struct flow *const *fw, *const *fp;
	unsigned k;

	for (k = 0; k < 6; k++) {
		char mr[64] = "", rr[64] = "", rb[128] = "";
		unsigned nm = k % 2 ? 3 + k : 12, nr = k % 2 ? 2 + k % 3 : 12, j;

		for (j = 0; j < nm; j++)
			snprintf(mr + strlen(mr), sizeof(mr) - strlen(mr), "%s%u", j ? "," : "",
				 (j * 5 + k) % 12);
		for (j = 0; j < nr; j++)
			snprintf(rr + strlen(rr), sizeof(rr) - strlen(rr), "%s%u", j ? "," : "",
				 (j * 7 + 3 * k + 1) % 12);
		/* pairs of 1 to 9 MB: reservations of many lengths, some
		 * ending where others start and at the plan's end */
		for (j = 0; j < nr; j++)
			snprintf(rb + strlen(rb), sizeof(rb) - strlen(rb), "%s%uMB", j ? "," : "",
				 nm * (j % 4 ? 1 + (3 * j + k) % 5 : 9));
		test_appendf(&wl, &len,
			     "job id=c%u arrival=%ums input=1MB output=0B maps=%u reduces=%u "
			     "map_time=0s reduce_time=0s map_racks=%s reduce_racks=%s reduce_bytes=%s\n",
			     k, 150 * k, nm, nr, mr, rr, rb);
	}
#define PARTS_TOPO \
	"racks 12\nhosts 1\ncontainers 100\nreplicas 1\nhost_rate 10Gbit\n" \
	"eps no\nocs yes\nocs_rate 1Gbit\ndelta 1ms\n"
	sim_plan_chunk = SIZE_MAX;
	run_sim_full(&whole, PARTS_TOPO, wl, "sunflow", true, NULL);
	ck_assert_uint_eq(whole.c->cx.plan_parts, 0);
	ck_assert_uint_gt(whole.c->cx.plans, 6);
	fw = ctl_flows(whole.c, &n);
	ck_assert_uint_gt(n, 200);
	if (_i == 3)
		setenv("HYDE_SIM_VERIFY", "1", 1);
	sim_plan_chunk = chunk[_i];
	run_sim_full(&parts, PARTS_TOPO, wl, "sunflow", true, NULL);
	unsetenv("HYDE_SIM_VERIFY");
	sim_plan_chunk = 0;
	/* parts made, the default's (CTL_PLAN_CHUNK) too */
	ck_assert_uint_gt(parts.c->cx.plan_parts, 4);
	ck_assert_uint_eq(parts.c->cx.plans, whole.c->cx.plans);
	ck_assert_uint_eq(parts.c->cx.reconfigs, whole.c->cx.reconfigs);
	fp = ctl_flows(parts.c, &m);
	ck_assert_uint_eq(m, n);
	for (i = 0; i < n; i++)
		ck_assert_msg(fp[i]->id == fw[i]->id && fp[i]->start == fw[i]->start &&
				      fp[i]->end == fw[i]->end,
			      "a part of %zu: flow %u of c%u %lld to %lld ns, whole plans %lld to %lld",
			      chunk[_i], fp[i]->id, fp[i]->job, (long long)fp[i]->start,
			      (long long)fp[i]->end, (long long)fw[i]->start, (long long)fw[i]->end);
#undef PARTS_TOPO
	done_sim(&whole);
	done_sim(&parts);
	free(wl);
}
END_TEST

/* Sunflow keeps each coflow's pairs in layer order from one plan to the
 * next and works out only what changed (pairs whose bits moved, pairs
 * gone, pairs new, a coflow's pairs listed in another order): over rounds
 * of such changes, with ties, its plans are those it makes from scratch,
 * reservation for reservation, from the input as the controller gives it
 * (unique) and with the pairs' entries split in two (summed). */
START_TEST(sunflow_kept_order_is_fresh)
{
	enum { R = 16, NC = 7, NP = 60 };
	struct pl_pair {
		uint32_t src, dst;
		double bits;
	} cf[NC][NP];
	unsigned n[NC] = { 0 }, c, k, round;
	struct cs_demand d[2 * NC * NP];
	struct cs_plan kept = { 0 };
	struct cs_input in = { .ports = R, .bw = 1.0, .delta = 1000 };
	struct rng g;

	rng_seed(&g, 9100 + (uint64_t)_i);
	for (round = 0; round < 10; round++) {
		struct cs_plan fresh = { 0 }, split = { 0 };
		size_t nd = 0, ns = 0;

		/* this round's changes: bits moved, pairs gone and new, an
		 * order changed, a coflow gone or come */
		for (c = 0; c < NC; c++) {
			unsigned m = 0;

			if (rng_below(&g, 8) == 0)
				n[c] = 0;
			for (k = 0; k < n[c]; k++) {
				if (rng_below(&g, 10) == 0)
					continue;
				if (rng_below(&g, 4) == 0)
					cf[c][k].bits = 1000.0 * (double)(1 + rng_below(&g, 3));
				cf[c][m++] = cf[c][k];
			}
			n[c] = m;
			if (n[c] > 1 && rng_below(&g, 6) == 0)
				for (k = n[c] - 1; k > 0; k--) {
					unsigned j = (unsigned)rng_below(&g, k + 1);
					struct pl_pair t = cf[c][k];

					cf[c][k] = cf[c][j];
					cf[c][j] = t;
				}
			for (k = (unsigned)rng_below(&g, round ? 4 : 40); k > 0 && n[c] < NP; k--) {
				uint32_t s = (uint32_t)rng_below(&g, R), t = (uint32_t)rng_below(&g, R);
				unsigned j;

				for (j = 0; j < n[c] && (cf[c][j].src != s || cf[c][j].dst != t); j++)
					;
				if (s != t && j == n[c])
					cf[c][n[c]++] = (struct pl_pair){ s, t, 1000.0 * (double)(1 + rng_below(&g, 3)) };
			}
		}
		for (c = 0; c < NC; c++)
			for (k = 0; k < n[c]; k++)
				d[nd++] = (struct cs_demand){ c, cf[c][k].src, cf[c][k].dst, cf[c][k].bits };
		in.d = d;
		in.n_d = nd;
		in.unique = true;
		ck_assert_int_eq(csched_sunflow.plan(&in, &kept), 0);
		check_sunflow_plan(&in, &kept);
		in.unique = false;
		ck_assert_int_eq(csched_sunflow.plan(&in, &fresh), 0);
		/* each pair's demand in two entries, the coflows backwards */
		for (c = NC; c-- > 0;)
			for (k = 0; k < n[c]; k++) {
				d[nd + ns++] = (struct cs_demand){ c, cf[c][k].src, cf[c][k].dst, 500.0 };
				d[nd + ns++] = (struct cs_demand){ c, cf[c][k].src, cf[c][k].dst,
								   cf[c][k].bits - 500.0 };
			}
		in.d = d + nd;
		in.n_d = ns;
		ck_assert_int_eq(csched_sunflow.plan(&in, &split), 0);
		ck_assert_uint_eq(kept.n, fresh.n);
		ck_assert_uint_eq(split.n, fresh.n);
		ck_assert(kept.replan_at == fresh.replan_at && split.replan_at == fresh.replan_at);
		for (k = 0; k < fresh.n; k++) {
			const struct cs_resv *a = &kept.r[k], *b = &fresh.r[k], *x = &split.r[k];

			ck_assert_msg(a->coflow == b->coflow && a->src == b->src && a->dst == b->dst &&
					      a->start == b->start && a->end == b->end,
				      "round %u, reservation %u: coflow %u %u->%u [%lld, %lld), from scratch "
				      "coflow %u %u->%u [%lld, %lld)",
				      round, k, a->coflow, a->src, a->dst, (long long)a->start,
				      (long long)a->end, b->coflow, b->src, b->dst, (long long)b->start,
				      (long long)b->end);
			ck_assert(x->coflow == b->coflow && x->src == b->src && x->dst == b->dst &&
				  x->start == b->start && x->end == b->end);
		}
		cs_plan_free(&fresh);
		cs_plan_free(&split);
		in.now += 700;
	}
	cs_plan_free(&kept);
}
END_TEST

Suite *sim_suite(void)
{
	Suite *s = suite_create("sim");
	TCase *tc = tcase_create("exact");

	tcase_add_test(tc, one_flow_alone);
	tcase_add_test(tc, plan_sorted_stably);
	tcase_add_test(tc, max_min_parking_lot);
	tcase_add_test(tc, paper_case2_cct_is_lower_bound);
	tcase_add_test(tc, one_layer_cct_is_lower_bound);
	tcase_add_test(tc, deterministic);
	tcase_add_test(tc, batched_fetch_hosts);
	tcase_add_loop_test(tc, streamed_same_files, 0, ARRAY_SIZE(stream_cases));
	tcase_add_test(tc, pair_hash_after_jobs_done);
	tcase_add_loop_test(tc, flow_log_off, 0, 2);
	tcase_add_loop_test(tc, two_flows_one_link, 0, sizeof(two_flows) / sizeof(two_flows[0]));
	tcase_add_loop_test(tc, one_layer_random_at_lower_bound, 0, 40);
	tcase_add_loop_test(tc, sunflow_plan_random_is_feasible, 0, 200);
	tcase_add_loop_test(tc, sunflow_kept_order_is_fresh, 0, 100);
	tcase_add_loop_test(tc, sunflow_plan_in_parts, 0, 16);
	tcase_add_loop_test(tc, circuit_plans_in_parts, 0, 4);
	tcase_add_test(tc, sunflow_later_layer_fills_gap);
	tcase_add_loop_test(tc, paper_section3b, 0,
			    (int)(sizeof(paper_cases) / sizeof(paper_cases[0])));
	suite_add_tcase(s, tc);
	tc = tcase_create("maxmin");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, maxmin_incremental_is_waterfilling, 0, 12);
	tcase_add_test(tc, maxmin_provisional_offers);
	tcase_add_test(tc, sim_rates_verified_whole_run);
	tcase_add_test(tc, sim_memory_follows_jobs);
	tcase_add_test(tc, fair_next_walks_order);
	tcase_add_loop_test(tc, net_flows_into_is_the_view, 0, 4);
	suite_add_tcase(s, tc);
	tc = tcase_create("interrupt");
	tcase_add_loop_test(tc, second_interrupt_ends_sim, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
