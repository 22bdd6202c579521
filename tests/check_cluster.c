#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check_hyde.h"
#include "core/cluster.h"

static struct topo *load_tiny_like(unsigned racks, unsigned hosts)
{
	char text[512], errbuf[HYDE_ERRBUF_SIZE];
	struct topo *t = NULL;
	FILE *fp;

	snprintf(text, sizeof(text),
		 "racks %u\nhosts %u\ncontainers 2\nhost_rate 1Gbit\noversub 4\nocs no\n",
		 racks, hosts);
	fp = fmemopen(text, strlen(text), "r");
	ck_assert_msg(topo_parse(fp, "t.topo", &t, errbuf) == 0, "%s", errbuf);
	fclose(fp);
	return t;
}

static struct workload *two_jobs(void)
{
	static const char text[] =
		"job id=a arrival=0s input=10MB shuffle=4MB output=0B maps=3 reduces=1 map_time=1s reduce_time=1s\n"
		"job id=b arrival=0s input=1MB shuffle=0B output=0B maps=1 reduces=0 map_time=1s parents=a\n";
	char errbuf[HYDE_ERRBUF_SIZE];
	struct workload *wl = NULL;
	FILE *fp = fmemopen((void *)text, strlen(text), "r");

	ck_assert_msg(wl_parse(fp, "w.wl", &wl, errbuf) == 0, "%s", errbuf);
	fclose(fp);
	return wl;
}

START_TEST(slots)
{
	struct topo *t = load_tiny_like(2, 2);
	struct cluster *c = cluster_new(t, NULL);

	ck_assert_uint_eq(c->total_free, 8);
	ck_assert_int_eq(cluster_slot_take(c, 3), 0);
	ck_assert_int_eq(cluster_slot_take(c, 3), 0);
	ck_assert_int_eq(cluster_slot_take(c, 3), -EBUSY);
	ck_assert_uint_eq(c->rack_free[1], 2);
	ck_assert_uint_eq(c->rack_free[0], 4);
	cluster_slot_release(c, 3);
	ck_assert_uint_eq(c->total_free, 7);
	ck_assert_int_eq(cluster_slot_take(c, 99), -EBUSY);
	cluster_free(c);
	topo_free(t);
}
END_TEST

/* HDFS's default policy: 3 distinct hosts, the second on another rack than
 * the first, the third on the second's rack. Blocks split the input. */
START_TEST(blocks_hdfs_policy)
{
	struct topo *t = load_tiny_like(5, 4);
	struct workload *wl = two_jobs();
	struct cluster *c = cluster_new(t, wl);
	struct hyde_job *j = &c->jobs[0];
	uint64_t sum = 0;
	struct rng r;
	int round;
	uint32_t k;

	rng_seed(&r, 9);
	for (round = 0; round < 200; round++) {
		cluster_place_blocks_random(c, j, &r);
		for (k = 0; k < j->wl->maps; k++) {
			const struct hyde_block *b = &j->blocks[k];

			ck_assert_uint_eq(b->n_replicas, 3);
			ck_assert_uint_ne(b->replica[0], b->replica[1]);
			ck_assert_uint_ne(b->replica[1], b->replica[2]);
			ck_assert_uint_ne(b->replica[0], b->replica[2]);
			ck_assert_uint_ne(topo_host_rack(t, b->replica[0]), topo_host_rack(t, b->replica[1]));
			ck_assert_uint_eq(topo_host_rack(t, b->replica[1]), topo_host_rack(t, b->replica[2]));
			ck_assert(block_on_host(b, b->replica[2]));
			ck_assert(block_on_rack(c, b, topo_host_rack(t, b->replica[0])));
		}
	}
	for (k = 0; k < j->wl->maps; k++)
		sum += j->blocks[k].bytes;
	ck_assert_uint_eq(sum, 10000000);
	cluster_free(c);
	wl_free(wl);
	topo_free(t);
}
END_TEST

/* Co-scheduler §IV-C: replica k of the blocks spread evenly on set k. */
START_TEST(blocks_on_rack_sets)
{
	struct topo *t = load_tiny_like(6, 2);
	struct workload *wl = two_jobs();
	struct cluster *c = cluster_new(t, wl);
	static const uint32_t s0[] = { 0, 1 }, s1[] = { 2, 3 }, s2[] = { 4, 5 };
	const uint32_t *sets[3] = { s0, s1, s2 };
	struct rng r;
	uint32_t k;

	rng_seed(&r, 1);
	cluster_place_blocks_racks(c, &c->jobs[0], sets, 2, &r);
	for (k = 0; k < 3; k++) {
		const struct hyde_block *b = &c->jobs[0].blocks[k];

		ck_assert_uint_eq(topo_host_rack(t, b->replica[0]), s0[k % 2]);
		ck_assert_uint_eq(topo_host_rack(t, b->replica[1]), s1[k % 2]);
		ck_assert_uint_eq(topo_host_rack(t, b->replica[2]), s2[k % 2]);
	}
	cluster_free(c);
	wl_free(wl);
	topo_free(t);
}
END_TEST

/* A child job becomes ready only when its parent is done; illegal
 * transitions are refused and change nothing. */
START_TEST(state_machine)
{
	struct topo *t = load_tiny_like(2, 2);
	struct workload *wl = two_jobs();
	struct cluster *c = cluster_new(t, wl);
	struct hyde_job *a = &c->jobs[0], *b = &c->jobs[1];
	uint32_t k;

	ck_assert_int_eq(task_start(c, &a->maps[0], 0, 0), -EINVAL); /* not arrived */
	ck_assert_int_eq(job_arrive(c, a, 0), 0);
	ck_assert_int_eq(job_arrive(c, a, 0), -EINVAL);
	ck_assert_int_eq(job_arrive(c, b, 0), 0);
	ck_assert_int_eq(a->state, HYDE_JOB_READY);
	ck_assert_int_eq(b->state, HYDE_JOB_WAITING); /* parent a not done */
	ck_assert_int_eq(task_start(c, &b->maps[0], 0, 0), -EINVAL);
	for (k = 0; k < 3; k++)
		ck_assert_int_eq(task_start(c, &a->maps[k], k, 1), 0);
	ck_assert_int_eq(task_start(c, &a->maps[0], 3, 1), -EINVAL); /* running */
	ck_assert_int_eq(task_finish(c, &a->reduces[0], 2), -EINVAL); /* pending */
	for (k = 0; k < 3; k++)
		ck_assert_int_eq(task_finish(c, &a->maps[k], 2), 0);
	ck_assert(hyde_job_maps_done(a));
	ck_assert_int_eq(a->state, HYDE_JOB_READY);
	ck_assert_int_eq(task_start(c, &a->reduces[0], 1, 3), 0);
	ck_assert_int_eq(task_finish(c, &a->reduces[0], 4), 0);
	ck_assert_int_eq(a->state, HYDE_JOB_DONE);
	ck_assert_int_eq(a->end, 4);
	ck_assert_int_eq(b->state, HYDE_JOB_READY);
	ck_assert_int_eq(b->ready_at, 4);
	ck_assert_uint_eq(c->total_free, 8);
	/* a failure is final */
	ck_assert_int_eq(task_start(c, &b->maps[0], 0, 5), 0);
	ck_assert_int_eq(task_fail(c, &b->maps[0], 6), 0);
	ck_assert_int_eq(b->state, HYDE_JOB_FAILED);
	ck_assert_uint_eq(c->total_free, 8);
	cluster_free(c);
	wl_free(wl);
	topo_free(t);
}
END_TEST

/* The counts the fair order reads: each user's running tasks (a failed
 * job's, the failed one's and those still running, no longer count) and
 * the jobs in the order they became ready; and the jobs ended (done or
 * failed, once). */
START_TEST(user_running_counts)
{
	static const char text[] =
		"job id=x user=u arrival=0s input=3MB shuffle=0B output=0B maps=3 reduces=0 map_time=1s\n"
		"job id=y user=v arrival=0s input=2MB shuffle=0B output=0B maps=2 reduces=0 map_time=1s\n"
		"job id=z user=v arrival=0s input=1MB shuffle=0B output=0B maps=1 reduces=0 map_time=1s parents=y\n";
	char errbuf[HYDE_ERRBUF_SIZE];
	struct workload *wl = NULL;
	FILE *fp = fmemopen((void *)text, strlen(text), "r");
	struct topo *t = load_tiny_like(2, 2);
	struct cluster *c;
	struct hyde_job *x, *y, *z;
	unsigned u, v;

	ck_assert_msg(wl_parse(fp, "w.wl", &wl, errbuf) == 0, "%s", errbuf);
	fclose(fp);
	c = cluster_new(t, wl);
	x = &c->jobs[0], y = &c->jobs[1], z = &c->jobs[2];
	u = x->user_idx, v = y->user_idx;
	ck_assert_uint_ne(u, v);
	ck_assert_uint_eq(c->n_ready, 0);
	ck_assert_int_eq(job_arrive(c, y, 0), 0);
	ck_assert_int_eq(job_arrive(c, z, 0), 0);
	ck_assert_int_eq(job_arrive(c, x, 0), 0);
	ck_assert_uint_eq(c->n_ready, 2); /* z waits for y */
	ck_assert_uint_eq(c->ready_log[0], 1);
	ck_assert_uint_eq(c->ready_log[1], 0);
	ck_assert_int_eq(task_start(c, &x->maps[0], 0, 1), 0);
	ck_assert_int_eq(task_start(c, &x->maps[1], 1, 1), 0);
	ck_assert_int_eq(task_start(c, &y->maps[0], 2, 1), 0);
	ck_assert_uint_eq(c->user_running[u], 2);
	ck_assert_uint_eq(c->user_running[v], 1);
	ck_assert_int_eq(task_fail(c, &x->maps[0], 2), 0);
	ck_assert_uint_eq(c->user_running[u], 0); /* x failed: its map 1 no longer counts */
	ck_assert_uint_eq(c->n_ended, 1);
	ck_assert_int_eq(task_finish(c, &x->maps[1], 3), 0);
	ck_assert_uint_eq(c->user_running[u], 0);
	ck_assert_uint_eq(c->n_ended, 1);
	ck_assert_int_eq(task_start(c, &y->maps[1], 0, 3), 0);
	ck_assert_uint_eq(c->user_running[v], 2);
	ck_assert_int_eq(task_finish(c, &y->maps[0], 4), 0);
	ck_assert_int_eq(task_finish(c, &y->maps[1], 4), 0);
	ck_assert_uint_eq(c->user_running[v], 0);
	ck_assert_int_eq(y->state, HYDE_JOB_DONE);
	ck_assert_uint_eq(c->n_ended, 2);
	ck_assert_uint_eq(c->n_ready, 3); /* z, when y is done */
	ck_assert_uint_eq(c->ready_log[2], 2);
	cluster_free(c);
	wl_free(wl);
	topo_free(t);
}
END_TEST

START_TEST(pinned_racks_checked)
{
	static const char text[] =
		"job id=p arrival=0s input=1MB shuffle=1MB output=0B maps=1 reduces=1 map_time=0s reduce_time=0s map_racks=0 reduce_racks=7\n";
	char errbuf[HYDE_ERRBUF_SIZE];
	struct topo *t = load_tiny_like(2, 2);
	struct workload *wl = NULL;
	FILE *fp = fmemopen((void *)text, strlen(text), "r");

	ck_assert_int_eq(wl_parse(fp, "p.wl", &wl, errbuf), 0);
	fclose(fp);
	ck_assert_int_eq(wl_check_topo(wl, t, "p.wl", errbuf), -EINVAL);
	ck_assert_msg(strstr(errbuf, "p.wl:1: job 'p': reduce rack 7 does not exist") != NULL, "%s", errbuf);
	wl_free(wl);
	topo_free(t);
}
END_TEST

Suite *cluster_suite(void)
{
	Suite *s = suite_create("cluster");
	TCase *tc = tcase_create("state");

	tcase_add_test(tc, slots);
	tcase_add_test(tc, blocks_hdfs_policy);
	tcase_add_test(tc, blocks_on_rack_sets);
	tcase_add_test(tc, state_machine);
	tcase_add_test(tc, user_running_counts);
	tcase_add_test(tc, pinned_racks_checked);
	suite_add_tcase(s, tc);
	return s;
}
