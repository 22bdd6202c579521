#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_hyde.h"
#include "core/workload.h"

static struct workload *parse_str(const char *text, char *errbuf, int *r)
{
	FILE *fp = fmemopen((void *)text, strlen(text), "r");
	struct workload *wl = NULL;

	ck_assert_ptr_nonnull(fp);
	*r = wl_parse(fp, "x.wl", &wl, errbuf);
	fclose(fp);
	return wl;
}

#define J0 "job id=a arrival=0s input=64MB shuffle=32MB output=1MB maps=4 reduces=2 map_time=2s reduce_time=1s\n"

START_TEST(good_job)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	const struct wl_job *j;
	struct workload *wl;
	int r;

	wl = parse_str("# comment\n\n" J0
		       "job id=b user=alice arrival=1.5s input=1GB sir=0.5 output=0B maps=8 reduces=3 map_time=3s reduce_time=2s work=cpu parents=a\n",
		       errbuf, &r);
	ck_assert_msg(r == 0, "%s", errbuf);
	ck_assert_uint_eq(wl->n_jobs, 2);
	j = &wl->jobs[0];
	ck_assert_str_eq(j->id, "a");
	ck_assert_str_eq(j->user, "default");
	ck_assert_uint_eq(j->input, 64000000);
	ck_assert_uint_eq(j->shuffle, 32000000);
	ck_assert_uint_eq(j->maps, 4);
	ck_assert_int_eq(j->map_time, 2000000000LL);
	ck_assert_uint_eq(j->line, 3);
	j = &wl->jobs[1];
	ck_assert_int_eq(j->arrival, 1500000000LL);
	ck_assert_uint_eq(j->shuffle, 500000000ULL);
	ck_assert_int_eq(j->work, WL_WORK_CPU);
	ck_assert_uint_eq(j->n_parents, 1);
	ck_assert_uint_eq(j->parents[0], 0);
	ck_assert_uint_eq(wl->n_users, 2);
	ck_assert_uint_eq(wl_dag_depth(wl), 2);
	wl_free(wl);
}
END_TEST

/* Task times from processing rates when the job does not give them. */
START_TEST(derived_times)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct workload *wl;
	int r;

	wl = parse_str("map_rate 10MB/s\nreduce_rate 20MB/s\nmap_base 1s\n"
		       "job id=a arrival=0s input=100MB shuffle=40MB output=0B maps=5 reduces=2\n",
		       errbuf, &r);
	ck_assert_msg(r == 0, "%s", errbuf);
	/* 20MB per map at 10MB/s, plus 1s */
	ck_assert_int_eq(wl->jobs[0].map_time, 3000000000LL);
	/* 20MB per reduce at 20MB/s */
	ck_assert_int_eq(wl->jobs[0].reduce_time, 1000000000LL);
	wl_free(wl);
}
END_TEST

/* The partition of map m to reduce r: exact, adding up to the shuffle. */
START_TEST(partition_exact)
{
	struct wl_job j = { .shuffle = 1000003, .maps = 7, .reduces = 3 };
	uint64_t sum = 0, rsum;
	uint32_t m, r;

	for (r = 0; r < j.reduces; r++) {
		rsum = 0;
		for (m = 0; m < j.maps; m++)
			rsum += wl_partition_bytes(&j, m, r);
		ck_assert_uint_eq(rsum, wl_reduce_bytes(&j, r));
		sum += rsum;
	}
	ck_assert_uint_eq(sum, j.shuffle);
	ck_assert_uint_eq(wl_partition_bytes(&j, 0, 0), 333335 / 7 + 1);
}
END_TEST

/* Written and read back: the same workload. */
START_TEST(write_roundtrip)
{
	char errbuf[HYDE_ERRBUF_SIZE], *buf = NULL, *buf2 = NULL;
	size_t len = 0, len2 = 0;
	struct workload *wl, *wl2;
	FILE *fp;
	int r;

	wl = parse_str(J0 "job id=b user=u1 arrival=2min input=3KiB shuffle=3MB output=7B maps=2 reduces=2 map_time=1ms reduce_time=0s parents=a map_racks=0,1 reduce_racks=1,0 reduce_bytes=1MB,2MB class=heavy\n",
		       errbuf, &r);
	ck_assert_msg(r == 0, "%s", errbuf);
	fp = open_memstream(&buf, &len);
	ck_assert_int_eq(wl_write(wl, fp), 0);
	fclose(fp);
	wl2 = parse_str(buf, errbuf, &r);
	ck_assert_msg(r == 0, "%s: %s", errbuf, buf);
	fp = open_memstream(&buf2, &len2);
	wl_write(wl2, fp);
	fclose(fp);
	ck_assert_str_eq(buf, buf2);
	ck_assert_uint_eq(wl2->jobs[1].input, 3072);
	ck_assert_uint_eq(wl2->jobs[1].reduce_bytes[1], 2000000);
	ck_assert_uint_eq(wl2->jobs[1].map_racks[1], 1);
	ck_assert_uint_eq(wl_partition_bytes(&wl2->jobs[1], 0, 1), 1000000);
	/* class= wins over the shuffle's class (3 MB: medium); none given:
	 * the shuffle's */
	ck_assert_int_eq(wl_job_class(&wl2->jobs[1]), WL_HEAVY);
	ck_assert_ptr_nonnull(strstr(buf, " class=heavy\n"));
	ck_assert(!wl2->jobs[0].has_class);
	wl_free(wl);
	wl_free(wl2);
	free(buf);
	free(buf2);
}
END_TEST

#define JOB(rest) "job id=x arrival=0s input=1MB output=0B maps=1 reduces=1 map_time=1s reduce_time=1s " rest "\n"

static const struct {
	const char *text;
	const char *where;
	const char *says;
} bad[] = {
	{ JOB("shuffle=1MB") JOB("shuffle=1MB"), "x.wl:2:", "job 'x': duplicate id (first defined on line 1)" },
	{ JOB("shuffle=1MB parents=nope"), "x.wl:1:", "parent 'nope', which is not a job" },
	{ JOB("shuffle=1MB parents=x"), "x.wl:1:", "lists itself as a parent" },
	{ "job id=a arrival=0s input=1MB shuffle=0B output=0B maps=1 reduces=0 map_time=1s parents=c\n"
	  "job id=b arrival=0s input=1MB shuffle=0B output=0B maps=1 reduces=0 map_time=1s parents=a\n"
	  "job id=c arrival=0s input=1MB shuffle=0B output=0B maps=1 reduces=0 map_time=1s parents=b\n",
	  "x.wl:1:", "is on a dependency cycle" },
	{ JOB("shuffle=1MB parents=,"), "x.wl:1:", "parents: expected job ids" },
	{ JOB("shuffle=1MB bogus=1"), "x.wl:1:", "unknown job key 'bogus'" },
	{ JOB("shuffle=1MB shuffle=2MB"), "x.wl:1:", "job key 'shuffle' given twice" },
	{ JOB("shuffle=1MB sir=1"), "x.wl:1:", "give shuffle= or sir=, not both" },
	{ JOB(""), "x.wl:1:", "missing shuffle= (or sir=" },
	{ JOB("shuffle=-1MB"), "x.wl:1:", "shuffle: expected a size" },
	{ JOB("shuffle=5"), "x.wl:1:", "shuffle: expected a size" },
	{ JOB("shuffle=1MB work=gpu"), "x.wl:1:", "work: expected 'sleep' or 'cpu'" },
	{ JOB("shuffle=1MB sir=0.5"), "x.wl:1:", "give shuffle= or sir=" },
	{ "job arrival=0s\n", "x.wl:1:", "job without id=" },
	{ "job id=x input=1MB\n", "x.wl:1:", "missing arrival=" },
	{ "job id=a/b arrival=0s\n", "x.wl:1:", "id: expected 1 to 63 letters" },
	{ "job id=x arrival=0s input=0B shuffle=0B output=0B maps=1 reduces=0 map_time=1s\n", "x.wl:1:", "input: a job needs input bytes" },
	{ "job id=x arrival=0s input=1MB shuffle=1MB output=0B maps=1 reduces=0 map_time=1s\n", "x.wl:1:", "has shuffle bytes but reduces=0" },
	{ "job id=x arrival=0s input=1MB shuffle=0B output=0B maps=0 reduces=0 map_time=1s\n", "x.wl:1:", "maps: expected a whole number from 1" },
	{ "job id=x arrival=0s input=1MB shuffle=0B output=0B maps=1 reduces=0\n", "x.wl:1:", "no map_time= and no 'map_rate' directive" },
	{ "job id=x arrival=0s input=1MB shuffle=1MB output=0B maps=1 reduces=1 map_time=1s\n", "x.wl:1:", "no reduce_time= and no 'reduce_rate'" },
	{ JOB("shuffle=1MB map_racks=0,1"), "x.wl:1:", "map_racks: expected 1 rack numbers" },
	{ JOB("reduce_bytes=1MB shuffle=2MB"), "x.wl:1:", "reduce_bytes add up to 1000000 bytes but shuffle=2MB" },
	{ JOB("shuffle=1MB arrival=1s"), "x.wl:1:", "job key 'arrival' given twice" },
	{ JOB("shuffle=1MB map_time=2years"), "x.wl:1:", "job key 'map_time' given twice" },
	{ "job id=x arrival=0s input=2EB shuffle=0B output=0B maps=1 reduces=0 map_time=1s\n", "x.wl:1:", "input: expected a size" },
	{ "map_rate 10\n", "x.wl:1:", "map_rate: expected a processing rate" },
	{ "map_rate 10MB/s\nmap_rate 10MB/s\n", "x.wl:2:", "'map_rate' given twice (first on line 1)" },
	{ "jobs id=x\n", "x.wl:1:", "unknown directive 'jobs'" },
	{ "# only a comment\n", "x.wl", "no jobs" },
	{ JOB("shuffle=1MB user=") , "x.wl:1:", "user: empty value" },
	{ JOB("shuffle=1MB =3"), "x.wl:1:", "expected key=value" },
	{ JOB("shuffle=1MB class=huge"), "x.wl:1:", "class: expected light, medium or heavy, got 'huge'" },
};

START_TEST(bad_files)
{
	char errbuf[HYDE_ERRBUF_SIZE] = "";
	struct workload *wl;
	int r;

	wl = parse_str(bad[_i].text, errbuf, &r);
	ck_assert_msg(r < 0, "case %d parsed", _i);
	ck_assert_ptr_null(wl);
	ck_assert_msg(strncmp(errbuf, bad[_i].where, strlen(bad[_i].where)) == 0,
		      "case %d: '%s' does not start with '%s'", _i, errbuf, bad[_i].where);
	ck_assert_msg(strstr(errbuf, bad[_i].says) != NULL,
		      "case %d: '%s' does not say '%s'", _i, errbuf, bad[_i].says);
}
END_TEST

/* A DAG of depth 4 and its arrival order. */
START_TEST(dag_depth_and_order)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct workload *wl;
	uint32_t *order;
	int r;

	wl = parse_str(
		"job id=d arrival=3s input=1MB shuffle=0B output=0B maps=1 reduces=0 map_time=1s parents=c,b\n"
		"job id=a arrival=5s input=1MB shuffle=0B output=0B maps=1 reduces=0 map_time=1s\n"
		"job id=b arrival=0s input=1MB shuffle=0B output=0B maps=1 reduces=0 map_time=1s parents=a\n"
		"job id=c arrival=3s input=1MB shuffle=0B output=0B maps=1 reduces=0 map_time=1s parents=b\n",
		errbuf, &r);
	ck_assert_msg(r == 0, "%s", errbuf);
	ck_assert_uint_eq(wl_dag_depth(wl), 4);
	order = wl_arrival_order(wl);
	ck_assert_uint_eq(order[0], 2); /* b at 0s */
	ck_assert_uint_eq(order[1], 0); /* d at 3s, before c by position */
	ck_assert_uint_eq(order[2], 3);
	ck_assert_uint_eq(order[3], 1);
	free(order);
	wl_free(wl);
}
END_TEST

Suite *workload_suite(void)
{
	Suite *s = suite_create("workload");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, good_job);
	tcase_add_test(tc, derived_times);
	tcase_add_test(tc, partition_exact);
	tcase_add_test(tc, write_roundtrip);
	tcase_add_loop_test(tc, bad_files, 0, (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tc, dag_depth_and_order);
	suite_add_tcase(s, tc);
	return s;
}
