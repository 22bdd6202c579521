#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_hyde.h"
#include "core/wl_import.h"

struct totals {
	size_t jobs;
	uint64_t input, shuffle, output, maps, reduces, flows;
};

static struct totals sum(const struct workload *wl)
{
	struct totals t = { .jobs = wl->n_jobs };
	size_t i;

	for (i = 0; i < wl->n_jobs; i++) {
		const struct wl_job *j = &wl->jobs[i];

		t.input += j->input;
		t.shuffle += j->shuffle;
		t.output += j->output;
		t.maps += j->maps;
		t.reduces += j->reduces;
		t.flows += (uint64_t)j->maps * j->reduces;
	}
	return t;
}

/* Expected figures were computed from the trace files with an independent
 * script (awk/python), not with hyde: jobs, byte sums (a zero input counts
 * as 1 byte: every job reads something), maps = ceil(input / 128MiB),
 * reduces = round((shuffle + output) / 1GB) for jobs with a shuffle. */
static const struct {
	const char *file;
	struct totals want;
} swim[] = {
	{ "workloads/traces/FB-2009_samples_24_times_1hr_0.tsv",
	  { 5894, 26886497357605ULL + 86, 22216712306762ULL, 6852686303142ULL, 205713, 24428, 0 } },
	{ "workloads/traces/FB-2010_samples_24_times_1hr_0.tsv",
	  { 24442, 1082621755403831ULL + 418, 437891230970678ULL, 339413094842194ULL, 8084865, 637038, 0 } },
};

START_TEST(swim_counts)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct workload *wl = NULL;
	struct swim_opts o;
	struct totals t;

	swim_opts_default(&o);
	ck_assert_msg(wl_import_swim(test_srcpath(swim[_i].file), &o, &wl, errbuf) == 0, "%s", errbuf);
	t = sum(wl);
	ck_assert_uint_eq(t.jobs, swim[_i].want.jobs);
	ck_assert_uint_eq(t.input, swim[_i].want.input);
	ck_assert_uint_eq(t.shuffle, swim[_i].want.shuffle);
	ck_assert_uint_eq(t.output, swim[_i].want.output);
	ck_assert_uint_eq(t.maps, swim[_i].want.maps);
	ck_assert_uint_eq(t.reduces, swim[_i].want.reduces);
	ck_assert_uint_eq(wl->n_users, 20);
	wl_free(wl);
}
END_TEST

/* FB-2010's class mix is the NAS paper's (68.7% / 12.58% / 18.82%). */
START_TEST(swim_fb2010_classes)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct workload *wl = NULL;
	struct swim_opts o;
	unsigned cls[3] = { 0, 0, 0 };
	size_t i;

	swim_opts_default(&o);
	ck_assert_int_eq(wl_import_swim(test_srcpath(swim[1].file), &o, &wl, errbuf), 0);
	for (i = 0; i < wl->n_jobs; i++)
		cls[wl_job_class(&wl->jobs[i])]++;
	ck_assert_uint_eq(cls[WL_LIGHT], 16762);
	ck_assert_uint_eq(cls[WL_MEDIUM], 3078);
	ck_assert_uint_eq(cls[WL_HEAVY], 4602);
	ck_assert_double_eq_tol(100.0 * cls[WL_LIGHT] / wl->n_jobs, 68.7, 0.2);
	ck_assert_double_eq_tol(100.0 * cls[WL_HEAVY] / wl->n_jobs, 18.82, 0.1);
	wl_free(wl);
}
END_TEST

/* A slice, scaled: arrivals start at 0 and sizes shrink. */
START_TEST(swim_slice_scale)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct workload *wl = NULL;
	struct swim_opts o;

	swim_opts_default(&o);
	ck_assert_int_eq(swim_opts_set(&o, "first=2", errbuf), 0);
	ck_assert_int_eq(swim_opts_set(&o, "count=2", errbuf), 0);
	ck_assert_int_eq(swim_opts_set(&o, "scale=0.001", errbuf), 0);
	ck_assert_int_eq(swim_opts_set(&o, "time_scale=0.5", errbuf), 0);
	ck_assert_int_eq(wl_import_swim(test_srcpath(swim[1].file), &o, &wl, errbuf), 0);
	ck_assert_uint_eq(wl->n_jobs, 2);
	/* job2 20s 53088744165 1510005522 5759777; job3 22s */
	ck_assert_str_eq(wl->jobs[0].id, "job2");
	ck_assert_int_eq(wl->jobs[0].arrival, 0);
	ck_assert_int_eq(wl->jobs[1].arrival, 1000000000LL);
	ck_assert_uint_eq(wl->jobs[0].input, 53088744ULL);
	ck_assert_uint_eq(wl->jobs[0].shuffle, 1510006ULL);
	ck_assert_uint_eq(wl->jobs[0].maps, 1);
	ck_assert_uint_eq(wl->jobs[0].reduces, 1);
	wl_free(wl);
	ck_assert_int_eq(swim_opts_set(&o, "bogus=1", errbuf), -EINVAL);
	ck_assert(strstr(errbuf, "unknown option 'bogus'") != NULL);
	ck_assert_int_eq(swim_opts_set(&o, "block=12", errbuf), -EINVAL);
	ck_assert(strstr(errbuf, "block: expected a size") != NULL);
}
END_TEST

/* 526 coflows; flows and bytes computed independently from the file. */
START_TEST(coflow_counts)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct workload *wl = NULL;
	struct coflow_opts o;
	struct totals t;
	const struct wl_job *j;

	coflow_opts_default(&o);
	ck_assert_msg(wl_import_coflow(test_srcpath("workloads/traces/FB2010-1Hr-150-0.txt"), &o, &wl, errbuf) == 0,
		      "%s", errbuf);
	t = sum(wl);
	ck_assert_uint_eq(t.jobs, 526);
	ck_assert_uint_eq(t.flows, 706397);
	ck_assert_uint_eq(t.shuffle, 35533534000000ULL);
	ck_assert_uint_eq(t.maps, 10753);
	ck_assert_uint_eq(t.reduces, 10609);
	/* line 3: "2 10833 2 104 132 1 140:48.0" */
	j = &wl->jobs[1];
	ck_assert_str_eq(j->id, "c2");
	ck_assert_int_eq(j->arrival, 10833000000LL);
	ck_assert_uint_eq(j->maps, 2);
	ck_assert_uint_eq(j->map_racks[0], 104);
	ck_assert_uint_eq(j->map_racks[1], 132);
	ck_assert_uint_eq(j->reduce_racks[0], 140);
	ck_assert_uint_eq(j->reduce_bytes[0], 48000000ULL);
	ck_assert_uint_eq(wl_partition_bytes(j, 1, 0), 24000000ULL);
	wl_free(wl);

	/* MB read as MiB, as CoflowSim does */
	ck_assert_int_eq(coflow_opts_set(&o, "mb=1MiB", errbuf), 0);
	ck_assert_int_eq(coflow_opts_set(&o, "count=3", errbuf), 0);
	ck_assert_int_eq(wl_import_coflow(test_srcpath("workloads/traces/FB2010-1Hr-150-0.txt"), &o, &wl, errbuf), 0);
	ck_assert_uint_eq(wl->n_jobs, 3);
	ck_assert_uint_eq(wl->jobs[1].reduce_bytes[0], 48ULL * 1048576);
	wl_free(wl);
}
END_TEST

static const struct {
	const char *kind; /* s: swim, c: coflow */
	const char *text;
	const char *says;
} bad[] = {
	{ "s", "job0\t49\t49\t740773\t2339561\n", "t.txt:1: expected 6 tab-separated fields" },
	{ "s", "job0\t49\t49\t740773\t2339561\t-5\n", "t.txt:1: field 6: expected a whole number" },
	{ "s", "job0\tx\t49\t740773\t2339561\t5\n", "t.txt:1: submit time" },
	{ "s", "job0\t1\t1\t1\t1\t1\njob0\t2\t1\t1\t1\t1\n", "t.txt:2: job 'job0': duplicate id" },
	{ "c", "150 1\n1 0 1 22 1 65:1.0 9\n", "t.txt:2: unexpected '9'" },
	{ "c", "150 1\n1 0 1 151 1 65:1.0\n", "t.txt:2: mapper 1: expected a rack from 0 to 149" },
	{ "c", "150 1\n1 0 1 22 1 65-1.0\n", "t.txt:2: reducer 1: expected rack:MB" },
	{ "c", "150 2\n1 0 1 22 1 65:1.0\n", "the header announces 2 coflows, the file has 1" },
	{ "c", "150\n", "t.txt:1: expected 'num_racks num_coflows'" },
	{ "c", "", "empty file" },
};

START_TEST(bad_traces)
{
	char errbuf[HYDE_ERRBUF_SIZE] = "", path[] = "/tmp/hyde-check-XXXXXX";
	char name[64];
	struct workload *wl = NULL;
	int fd = mkstemp(path), r;
	FILE *fp;

	ck_assert_int_ge(fd, 0);
	close(fd);
	/* name it t.txt in the message by writing it there */
	snprintf(name, sizeof(name), "%s", path);
	fp = fopen(name, "w");
	fputs(bad[_i].text, fp);
	fclose(fp);
	if (bad[_i].kind[0] == 's') {
		struct swim_opts o;

		swim_opts_default(&o);
		r = wl_import_swim(name, &o, &wl, errbuf);
	} else {
		struct coflow_opts o;

		coflow_opts_default(&o);
		r = wl_import_coflow(name, &o, &wl, errbuf);
	}
	unlink(name);
	ck_assert_int_lt(r, 0);
	ck_assert_ptr_null(wl);
	{
		/* the message starts with the path: compare what follows */
		const char *says = bad[_i].says;

		if (!strncmp(says, "t.txt", 5)) {
			ck_assert_msg(strncmp(errbuf, name, strlen(name)) == 0, "'%s'", errbuf);
			ck_assert_msg(strstr(errbuf + strlen(name), says + 5) != NULL,
				      "case %d: '%s' does not say '%s'", _i, errbuf, says + 5);
		} else {
			ck_assert_msg(strstr(errbuf, says) != NULL,
				      "case %d: '%s' does not say '%s'", _i, errbuf, says);
		}
	}
}
END_TEST

Suite *import_suite(void)
{
	Suite *s = suite_create("import");
	TCase *tc = tcase_create("traces");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, swim_counts, 0, 2);
	tcase_add_test(tc, swim_fb2010_classes);
	tcase_add_test(tc, swim_slice_scale);
	tcase_add_test(tc, coflow_counts);
	tcase_add_loop_test(tc, bad_traces, 0, (int)(sizeof(bad) / sizeof(bad[0])));
	suite_add_tcase(s, tc);
	return s;
}
