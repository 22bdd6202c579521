#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_hyde.h"
#include "core/wl_gen.h"

static char *to_text(const struct workload *wl)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	ck_assert_int_eq(wl_write(wl, fp), 0);
	fclose(fp);
	return buf;
}

static struct workload *gen_fb(const char *const *kv, int n)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct gen_fb_opts o;
	struct workload *wl = NULL;
	int i;

	gen_fb_opts_default(&o);
	for (i = 0; i < n; i++)
		ck_assert_msg(gen_fb_opts_set(&o, kv[i], errbuf) == 0, "%s", errbuf);
	ck_assert_msg(wl_gen_fb(&o, &wl, errbuf) == 0, "%s", errbuf);
	return wl;
}

START_TEST(fb_same_seed_same_bytes)
{
	static const char *const a[] = { "seed=7", "jobs=300" };
	static const char *const b[] = { "seed=8", "jobs=300" };
	struct workload *w1 = gen_fb(a, 2), *w2 = gen_fb(a, 2), *w3 = gen_fb(b, 2);
	char *t1 = to_text(w1), *t2 = to_text(w2), *t3 = to_text(w3);

	ck_assert_str_eq(t1, t2);
	ck_assert_str_ne(t1, t3);
	free(t1);
	free(t2);
	free(t3);
	wl_free(w1);
	wl_free(w2);
	wl_free(w3);
}
END_TEST

/* The class mix follows the NAS paper's within sampling noise, arrivals stay
 * in [0, span], sizes are the trace's (scale 1), users are at most 20. */
START_TEST(fb_mix_and_arrivals)
{
	static const char *const kv[] = { "seed=3", "jobs=5000", "span=90min" };
	struct workload *wl = gen_fb(kv, 3);
	unsigned cls[3] = { 0, 0, 0 };
	int64_t last = -1;
	size_t i;

	for (i = 0; i < wl->n_jobs; i++) {
		cls[wl_job_class(&wl->jobs[i])]++;
		ck_assert_int_ge(wl->jobs[i].arrival, last); /* sorted */
		last = wl->jobs[i].arrival;
		ck_assert_int_le(wl->jobs[i].arrival, 5400000000000LL);
	}
	ck_assert_uint_eq(wl->n_jobs, 5000);
	ck_assert_double_eq_tol(cls[WL_LIGHT] / 5000.0, 0.687, 0.02);
	ck_assert_double_eq_tol(cls[WL_MEDIUM] / 5000.0, 0.1258, 0.015);
	ck_assert_double_eq_tol(cls[WL_HEAVY] / 5000.0, 0.1882, 0.015);
	ck_assert_uint_le(wl->n_users, 20);
	ck_assert_uint_ge(wl->n_users, 15);
	/* arrivals spread over the span, not bunched at 0 */
	ck_assert_int_gt(last, 5000000000000LL);
	wl_free(wl);
}
END_TEST

/* Scaled, every job keeps the class it was drawn for (class= where its
 * shuffle no longer says it): the paper's mix holds at any scale. */
START_TEST(fb_scaled_keeps_class)
{
	static const char *const kv1[] = { "seed=3", "jobs=2000" };
	static const char *const kv2[] = { "seed=3", "jobs=2000", "scale=0.01" };
	struct workload *full = gen_fb(kv1, 2), *small = gen_fb(kv2, 3);
	unsigned moved = 0;
	size_t i;

	ck_assert_uint_eq(full->n_jobs, small->n_jobs);
	for (i = 0; i < full->n_jobs; i++) {
		const struct wl_job *a = &full->jobs[i], *b = &small->jobs[i];

		ck_assert(!a->has_class); /* scale 1: the sizes say it */
		ck_assert_int_eq(wl_job_class(b), wl_job_class(a));
		ck_assert(b->has_class == (wl_shuffle_class(b->shuffle) != wl_job_class(a)));
		moved += b->has_class;
	}
	ck_assert_uint_gt(moved, 100); /* at 0.01 most medium and heavy jobs move */
	wl_free(full);
	wl_free(small);
}
END_TEST

/* Scaled and capped: nothing above the caps, tasks derived from the sizes. */
START_TEST(fb_scale_caps)
{
	static const char *const kv[] = { "jobs=500", "scale=0.001", "max_shuffle=50MB",
					  "max_input=100MB", "block=16MB" };
	struct workload *wl = gen_fb(kv, 5);
	size_t i;

	for (i = 0; i < wl->n_jobs; i++) {
		const struct wl_job *j = &wl->jobs[i];

		ck_assert_uint_le(j->shuffle, 50000000);
		ck_assert_uint_le(j->input, 100000000);
		ck_assert_uint_eq(j->maps, (j->input + 16000000 - 1) / 16000000);
		ck_assert(j->shuffle == 0 ? j->reduces == 0 : j->reduces >= 1);
	}
	wl_free(wl);
}
END_TEST

START_TEST(fb_bad_options)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct gen_fb_opts o;
	struct workload *wl = NULL;

	gen_fb_opts_default(&o);
	ck_assert_int_ne(gen_fb_opts_set(&o, "jobs=0", errbuf), 0);
	ck_assert(strstr(errbuf, "jobs: expected a number from 1") != NULL);
	ck_assert_int_ne(gen_fb_opts_set(&o, "nope=3", errbuf), 0);
	ck_assert(strstr(errbuf, "unknown option 'nope'") != NULL);
	ck_assert_int_eq(gen_fb_opts_set(&o, "light=0", errbuf), 0);
	ck_assert_int_eq(gen_fb_opts_set(&o, "medium=0", errbuf), 0);
	ck_assert_int_eq(gen_fb_opts_set(&o, "heavy=0", errbuf), 0);
	ck_assert_int_ne(wl_gen_fb(&o, &wl, errbuf), 0);
	ck_assert_ptr_null(wl);
	gen_fb_opts_default(&o);
	ck_assert_int_eq(gen_fb_opts_set(&o, "trace=/nonexistent.tsv", errbuf), 0);
	ck_assert_int_ne(wl_gen_fb(&o, &wl, errbuf), 0);
	ck_assert(strstr(errbuf, "/nonexistent.tsv") != NULL);
}
END_TEST

START_TEST(dag_shape)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct gen_dag_opts o;
	struct workload *wl = NULL, *wl2 = NULL;
	char *t1, *t2;
	size_t i;
	uint32_t k;

	gen_dag_opts_default(&o);
	ck_assert_int_eq(gen_dag_opts_set(&o, "dags=3", errbuf), 0);
	ck_assert_int_eq(gen_dag_opts_set(&o, "depth=6", errbuf), 0);
	ck_assert_int_eq(gen_dag_opts_set(&o, "width=4", errbuf), 0);
	ck_assert_int_eq(gen_dag_opts_set(&o, "fan_in=3", errbuf), 0);
	ck_assert_msg(wl_gen_dag(&o, &wl, errbuf) == 0, "%s", errbuf);
	ck_assert_uint_eq(wl->n_jobs, 3 * 6 * 4);
	ck_assert_uint_eq(wl_dag_depth(wl), 6);
	for (i = 0; i < wl->n_jobs; i++) {
		const struct wl_job *j = &wl->jobs[i];
		uint64_t in = 0;

		if (i % 24 < 4) { /* first level */
			ck_assert_uint_eq(j->n_parents, 0);
			continue;
		}
		ck_assert_uint_ge(j->n_parents, 1);
		ck_assert_uint_le(j->n_parents, 3);
		for (k = 0; k < j->n_parents; k++) {
			/* parents are in the level just above, in the same DAG */
			ck_assert_uint_eq(j->parents[k] / 4, i / 4 - 1);
			in += wl->jobs[j->parents[k]].output;
		}
		/* a child reads what its parents wrote */
		ck_assert_uint_eq(j->input, in ? in : 1);
		ck_assert_str_eq(j->user, wl->jobs[j->parents[0]].user);
	}
	ck_assert_int_eq(wl_gen_dag(&o, &wl2, errbuf), 0);
	t1 = to_text(wl);
	t2 = to_text(wl2);
	ck_assert_str_eq(t1, t2);
	free(t1);
	free(t2);
	wl_free(wl);
	wl_free(wl2);
}
END_TEST

/* A run's workload spec gen:fb,... is drawn with the run's seed unless it
 * gives one, as hyde gen draws it; gen:dag likewise; a bad one is refused. */
START_TEST(gen_spec_seeded)
{
	static const char *const a[] = { "seed=5", "jobs=40", "scale=0.1" };
	struct workload *ref = gen_fb(a, 3), *w = NULL, *w2 = NULL;
	char errbuf[HYDE_ERRBUF_SIZE], *t_ref = to_text(ref), *t;

	ck_assert_msg(wl_open_seed("gen:fb,jobs=40,scale=0.1", 5, &w, errbuf) == 0, "%s", errbuf);
	t = to_text(w);
	ck_assert_str_eq(t, t_ref);
	free(t);
	wl_free(w);
	/* the spec's own seed wins over the run's */
	ck_assert_msg(wl_open_seed("gen:fb,seed=5,jobs=40,scale=0.1", 9, &w, errbuf) == 0, "%s",
		      errbuf);
	t = to_text(w);
	ck_assert_str_eq(t, t_ref);
	free(t);
	wl_free(w);
	/* another seed, another draw */
	ck_assert_msg(wl_open_seed("gen:fb,jobs=40,scale=0.1", 6, &w, errbuf) == 0, "%s", errbuf);
	t = to_text(w);
	ck_assert_str_ne(t, t_ref);
	free(t);
	wl_free(w);
	ck_assert_msg(wl_open_seed("gen:dag,dags=2,depth=3", 4, &w, errbuf) == 0, "%s", errbuf);
	ck_assert_msg(wl_open("gen:dag,dags=2,depth=3,seed=4", &w2, errbuf) == 0, "%s", errbuf);
	t = to_text(w);
	free(t_ref);
	t_ref = to_text(w2);
	ck_assert_str_eq(t, t_ref);
	ck_assert_uint_eq(w->n_jobs, 2 * 3 * 3); /* dags x depth x the default width */
	free(t);
	wl_free(w);
	wl_free(w2);
	ck_assert_int_eq(wl_open_seed("gen:fbx,jobs=4", 1, &w, errbuf), -EINVAL);
	ck_assert_ptr_nonnull(strstr(errbuf, "expected gen:fb or gen:dag"));
	ck_assert_int_eq(wl_open_seed("gen:fb,jobs=zero", 1, &w, errbuf), -EINVAL);
	ck_assert_ptr_nonnull(strstr(errbuf, "gen:fb,jobs=zero"));
	free(t_ref);
	wl_free(ref);
}
END_TEST

Suite *gen_suite(void)
{
	Suite *s = suite_create("gen");
	TCase *tc = tcase_create("generators");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, fb_same_seed_same_bytes);
	tcase_add_test(tc, fb_mix_and_arrivals);
	tcase_add_test(tc, fb_scaled_keeps_class);
	tcase_add_test(tc, fb_scale_caps);
	tcase_add_test(tc, fb_bad_options);
	tcase_add_test(tc, dag_shape);
	tcase_add_test(tc, gen_spec_seeded);
	suite_add_tcase(s, tc);
	return s;
}
