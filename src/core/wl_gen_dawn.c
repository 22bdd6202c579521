/* hyde gen dag preset=ml|tpch: Dawn's workloads ([Dawn §2.2, §5.2]) as
 * job DAGs whose children read their parents' output (input=parents).
 * Every DAG is one application (app=dN.NAME, NAME its benchmark or
 * query): its completion time is the
 * workload completion time (WCT) of the paper.
 *
 * preset=ml: each DAG is one of Table 2's fifteen benchmarks B1-B15,
 * drawn uniformly (§5.2: "we randomly choose a benchmark"), with Table
 * 2's input size and DAG depth. The job graphs are derived from how the
 * HiBench / Mahout implementations run (the paper gives depths, not
 * graphs):
 * - K-means (depth 11): vectorise the points (output ~ input), canopy
 *   seeds (tiny), 8 iterations and the final assignment, each reading the
 *   points and the previous centroids (two parents);
 * - PageRank (depth 11): build the graph, 10 iterations each reading the
 *   graph and the previous ranks;
 * - Bayes (depth 8): seqdirectory, tokenise, word count, tf vectors, df
 *   count, tf-idf, naive Bayes summation and weights (seq2sparse +
 *   trainnb), with the dictionary and df joins as two-parent jobs;
 * - MF (depth 21): prepare the ratings, 10 ALS iterations of two jobs
 *   (user then item factors), each reading the ratings and the other
 *   factors;
 * - LDA (depth 18): vectorise, 17 CVB iterations reading the corpus and
 *   the previous topic model.
 * Iterations shuffle and write about their input (Mahout's k-means, ALS
 * and CVB emit per point / rating / token); so, as Fig. 3 shows, the
 * dependent and intermediate data outweigh the input several times.
 *
 * preset=tpch: each DAG is one of the 22 TPC-H queries (in turn, so 22
 * DAGs are each query once) over 50 GB (§5.2), as Hive runs it on
 * MapReduce: a scan job per base table (filter and projection: bytes x
 * selectivity x 0.3), a join job per further table of a left-deep join
 * order (two parents: the running result and the table's scan), a
 * sub-query as its own branch (scans, joins, an aggregation) joined in
 * before the main group-by, then a group-by and an order-by. Tables at
 * scale factor 50 (dbgen's sizes): lineitem 37.5 GB, orders 8.5, partsupp
 * 5.9, part 1.2, customer 1.2, supplier 0.07; nation and region are
 * map-side joins (no job). Selectivities are read from the queries'
 * predicates, rounded. A join shuffles its input and writes half; a
 * group-by shuffles and writes a tenth; an order-by all of it.
 *
 * Arrivals: mean_gap > 0 gives Poisson DAG arrivals (the paper's 24.8 s
 * and 46.5 s mean gaps, 20-140 s in Fig. 15); else uniform in [0, span]
 * (the queries: "over a period of 10 minutes"). scale= multiplies every
 * size (to fit a smaller cluster). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "util.h"
#include "wl_gen.h"

#define GB 1e9

/* A DAG being built: its jobs' indices in the workload, by local number. */
struct dag_build {
	struct workload *wl;
	const struct gen_dag_opts *o;
	uint32_t dag;
	const char *name;
	char user[32];
	int64_t at;
	uint32_t *idx;
	size_t n, cap;
};

/* A job of the DAG: reads `input` bytes (first level) or its parents'
 * output (parents given); shuffles sir x what it reads, writes osr x
 * that. Returns its local number. */
static uint32_t job(struct dag_build *b, double input, const uint32_t *par, uint32_t np,
		    double sir, double osr)
{
	struct wl_job *j;
	char id[64], app[48];
	uint32_t k;

	snprintf(id, sizeof(id), "d%" PRIu32 ".%s.j%zu", b->dag, b->name, b->n);
	snprintf(app, sizeof(app), "d%" PRIu32 ".%s", b->dag, b->name);
	j = wl_add_job(b->wl, id, b->user);
	j->app = xstrdup(app);
	j->arrival = b->at;
	if (np) {
		j->parents = xcalloc(np, sizeof(uint32_t));
		j->n_parents = np;
		j->input = 0;
		for (k = 0; k < np; k++) {
			j->parents[k] = b->idx[par[k]];
			j->input += b->wl->jobs[b->idx[par[k]]].output;
		}
		j->input_from_parents = j->input > 0;
		if (!j->input)
			j->input = 1;
	} else {
		j->input = (uint64_t)llround(fmax(1, input * b->o->derive.scale));
	}
	j->shuffle = (uint64_t)llround((double)j->input * sir);
	j->output = (uint64_t)llround(fmax(1, (double)j->shuffle * osr));
	swim_derive(&b->o->derive, j);
	j->arrival = (b->at + NSEC_PER_MSEC / 2) / NSEC_PER_MSEC * NSEC_PER_MSEC;
	j->map_time = (j->map_time + NSEC_PER_MSEC / 2) / NSEC_PER_MSEC * NSEC_PER_MSEC;
	j->reduce_time = (j->reduce_time + NSEC_PER_MSEC / 2) / NSEC_PER_MSEC * NSEC_PER_MSEC;
	xgrow((void **)&b->idx, &b->cap, b->n + 1, sizeof(uint32_t));
	b->idx[b->n] = (uint32_t)(b->wl->n_jobs - 1);
	return (uint32_t)b->n++;
}

#define P1(a) ((const uint32_t[]){ (a) }), 1
#define P2(a, c) ((const uint32_t[]){ (a), (c) }), 2

/* Table 2: input sizes (GB) of B1-B15, three per benchmark. */
static const double ml_input[15] = { 2.5, 6.5, 10.2, 5.8, 7.8, 11.9, 3.4, 6.6,
				     8.8, 4.5, 5.5, 7.3, 6.2, 8.4, 10.1 };
static const char *const ml_name[5] = { "kmeans", "bayes", "pagerank", "mf", "lda" };

static void ml_dag(struct dag_build *b, unsigned bench)
{
	double in = ml_input[bench] * GB;
	uint32_t d, c, k, u, m;

	b->name = ml_name[bench / 3];
	switch (bench / 3) {
	case 0: /* K-means: depth 11 */
		d = job(b, in, NULL, 0, 1.0, 1.0);     /* vectorise */
		c = job(b, 0, P1(d), 0.05, 0.01);      /* canopy seeds */
		for (k = 0; k < 9; k++)		       /* 8 iterations + assignment */
			c = job(b, 0, P2(d, c), 1.0, k < 8 ? 0.001 : 1.0);
		break;
	case 1: { /* Bayes: depth 8 */
		uint32_t s, t, wc, tf, df, idf, sum;

		s = job(b, in, NULL, 0, 1.0, 1.0);    /* seqdirectory */
		t = job(b, 0, P1(s), 1.0, 1.0);	      /* tokenise */
		wc = job(b, 0, P1(t), 0.3, 0.3);      /* dictionary */
		tf = job(b, 0, P2(t, wc), 1.0, 1.0);  /* tf vectors */
		df = job(b, 0, P1(tf), 0.2, 0.5);     /* df count */
		idf = job(b, 0, P2(tf, df), 1.0, 1.0); /* tf-idf */
		sum = job(b, 0, P1(idf), 0.5, 0.5);    /* trainnb: summation */
		job(b, 0, P2(sum, idf), 0.3, 0.1);     /* trainnb: weights */
		break;
	}
	case 2: /* PageRank: depth 11 */
		d = job(b, in, NULL, 0, 1.0, 1.0);	     /* graph */
		c = job(b, 0, P1(d), 1.0, 0.2);		     /* iteration 1 */
		for (k = 1; k < 10; k++)
			c = job(b, 0, P2(d, c), 1.0, 0.2);
		break;
	case 3: /* MF (ALS): depth 21 */
		d = job(b, in, NULL, 0, 1.0, 1.0); /* ratings */
		m = job(b, 0, P1(d), 1.0, 0.3);	   /* first user factors */
		u = m;
		for (k = 1; k < 20; k++)
			u = job(b, 0, P2(d, u), 1.0, 0.3);
		break;
	default: /* LDA (CVB): depth 18 */
		d = job(b, in, NULL, 0, 1.0, 1.0);
		c = job(b, 0, P1(d), 0.5, 0.5);
		for (k = 1; k < 17; k++)
			c = job(b, 0, P2(d, c), 0.5, 0.5);
		break;
	}
}

/* ---- TPC-H over 50 GB ---- */

enum { T_L, T_O, T_PS, T_P, T_C, T_S, T_NONE };
static const double tpch_gb[6] = { 37.5, 8.5, 5.9, 1.2, 1.2, 0.07 };

struct scan {
	int table;
	double sel; /* rows kept */
};

/* A query: the main left-deep join order, and an optional sub-query
 * branch joined in before the group-by. */
struct query {
	struct scan main[5], branch[3];
};

static const struct query tpch_q[22] = {
	{ { { T_L, 0.98 }, { T_NONE, 0 } }, { { T_NONE, 0 } } },				     /* Q1 */
	{ { { T_P, 0.004 }, { T_PS, 1 }, { T_S, 1 }, { T_NONE, 0 } }, { { T_PS, 1 }, { T_S, 0.2 }, { T_NONE, 0 } } }, /* Q2 */
	{ { { T_C, 0.2 }, { T_O, 0.48 }, { T_L, 0.54 }, { T_NONE, 0 } }, { { T_NONE, 0 } } },	     /* Q3 */
	{ { { T_O, 0.04 }, { T_NONE, 0 } }, { { T_L, 0.63 }, { T_NONE, 0 } } },		     /* Q4 */
	{ { { T_C, 1 }, { T_O, 0.15 }, { T_L, 1 }, { T_S, 1 }, { T_NONE, 0 } }, { { T_NONE, 0 } } },  /* Q5 */
	{ { { T_L, 0.02 }, { T_NONE, 0 } }, { { T_NONE, 0 } } },				     /* Q6 */
	{ { { T_S, 1 }, { T_L, 0.3 }, { T_O, 1 }, { T_C, 1 }, { T_NONE, 0 } }, { { T_NONE, 0 } } },   /* Q7 */
	{ { { T_P, 0.007 }, { T_L, 1 }, { T_S, 1 }, { T_O, 0.3 }, { T_C, 1 } }, { { T_NONE, 0 } } }, /* Q8 */
	{ { { T_P, 0.05 }, { T_L, 1 }, { T_S, 1 }, { T_PS, 1 }, { T_O, 1 } }, { { T_NONE, 0 } } },   /* Q9 */
	{ { { T_C, 1 }, { T_O, 0.04 }, { T_L, 0.25 }, { T_NONE, 0 } }, { { T_NONE, 0 } } },	     /* Q10 */
	{ { { T_PS, 1 }, { T_S, 0.04 }, { T_NONE, 0 } }, { { T_PS, 1 }, { T_S, 0.04 }, { T_NONE, 0 } } }, /* Q11 */
	{ { { T_O, 1 }, { T_L, 0.005 }, { T_NONE, 0 } }, { { T_NONE, 0 } } },		     /* Q12 */
	{ { { T_C, 1 }, { T_O, 0.98 }, { T_NONE, 0 } }, { { T_NONE, 0 } } },		     /* Q13 */
	{ { { T_L, 0.012 }, { T_P, 1 }, { T_NONE, 0 } }, { { T_NONE, 0 } } },		     /* Q14 */
	{ { { T_S, 1 }, { T_NONE, 0 } }, { { T_L, 0.04 }, { T_NONE, 0 } } },		     /* Q15 */
	{ { { T_PS, 1 }, { T_P, 0.15 }, { T_NONE, 0 } }, { { T_S, 0.0005 }, { T_NONE, 0 } } }, /* Q16 */
	{ { { T_L, 1 }, { T_P, 0.001 }, { T_NONE, 0 } }, { { T_L, 1 }, { T_NONE, 0 } } },	     /* Q17 */
	{ { { T_C, 1 }, { T_O, 1 }, { T_L, 1 }, { T_NONE, 0 } }, { { T_L, 1 }, { T_NONE, 0 } } }, /* Q18 */
	{ { { T_L, 0.02 }, { T_P, 0.002 }, { T_NONE, 0 } }, { { T_NONE, 0 } } },		     /* Q19 */
	{ { { T_S, 0.04 }, { T_NONE, 0 } }, { { T_PS, 1 }, { T_P, 0.01 }, { T_L, 0.15 } } },   /* Q20 */
	{ { { T_S, 0.04 }, { T_L, 0.5 }, { T_O, 0.5 }, { T_NONE, 0 } }, { { T_L, 1 }, { T_NONE, 0 } } }, /* Q21 */
	{ { { T_C, 0.1 }, { T_NONE, 0 } }, { { T_O, 1 }, { T_NONE, 0 } } },			     /* Q22 */
};

/* Scans and left-deep joins of a list; returns the last job. */
static uint32_t join_chain(struct dag_build *b, const struct scan *s, size_t max)
{
	uint32_t cur = 0, sc;
	size_t k;

	for (k = 0; k < max && s[k].table != T_NONE; k++) {
		sc = job(b, tpch_gb[s[k].table] * GB, NULL, 0, s[k].sel * 0.3, 1.0);
		cur = k ? job(b, 0, P2(cur, sc), 1.0, 0.5) : sc;
	}
	return cur;
}

static void tpch_dag(struct dag_build *b, unsigned q)
{
	static char names[22][8];
	uint32_t m, br, g;

	snprintf(names[q], sizeof(names[q]), "q%u", q + 1);
	b->name = names[q];
	m = join_chain(b, tpch_q[q].main, 5);
	if (tpch_q[q].branch[0].table != T_NONE) {
		br = join_chain(b, tpch_q[q].branch, 3);
		br = job(b, 0, P1(br), 0.1, 0.1); /* the sub-query's aggregate */
		m = job(b, 0, P2(m, br), 1.0, 0.5);
	}
	g = job(b, 0, P1(m), 0.1, 0.1); /* group-by */
	job(b, 0, P1(g), 1.0, 1.0);	/* order-by */
}

int wl_gen_dag_preset(const struct gen_dag_opts *o, struct workload **out, char *errbuf)
{
	struct dag_build b = { .o = o };
	struct rng rng;
	int64_t t = 0;
	bool ml = !strcmp(o->preset, "ml");
	int r;

	if (!ml && strcmp(o->preset, "tpch")) {
		errbuf_set(errbuf, "gen dag: preset: expected random, ml or tpch, got '%s'",
			   o->preset);
		return -EINVAL;
	}
	rng_seed(&rng, o->seed);
	b.wl = wl_new();
	for (b.dag = 0; b.dag < o->dags; b.dag++) {
		if (o->mean_gap > 0) {
			t += b.dag ? (int64_t)llround(rng_exp(&rng, (double)o->mean_gap)) : 0;
			b.at = t;
		} else {
			b.at = (int64_t)llround(rng_unit(&rng) * (double)o->span);
		}
		snprintf(b.user, sizeof(b.user), "u%u", b.dag % o->users);
		b.n = 0;
		if (ml)
			ml_dag(&b, (unsigned)rng_below(&rng, 15));
		else
			tpch_dag(&b, b.dag % 22);
	}
	free(b.idx);
	r = wl_finish(b.wl, "gen dag", errbuf);
	if (r) {
		wl_free(b.wl);
		return r;
	}
	*out = b.wl;
	return 0;
}
