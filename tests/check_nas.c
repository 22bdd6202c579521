/* NAS ([NAS §III]): its rules on hand-worked tables (nas.h): the
 * TrafficThreshold (eq. 3) and a node's available space, MTS's (Alg. 2)
 * locality / shuffle-qualified choice, skip counters, the four categories
 * and MapCost, CA-RTS's ReduceNum (eq. 4) and six levels (Alg. 3), CR-RTS's
 * counters and delayed marks (Alg. 4); and, in the simulator, CR-RTS taking
 * over when a rack is congested. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <ftw.h>
#include <string.h>
#include <unistd.h>

#include "check_hyde.h"
#include "core/util.h"
#include "ctl/ctl.h"
#include "sched/nas.h"

#define MB 1e6

/* ---- eq. (3): m sum(S) / sum(K) ---- */

static const struct {
	unsigned m;
	double s[3], k[3];
	size_t n;
	double tt;
} tt_cases[] = {
	/* 6 containers; 900 MB of shuffle over 30 maps: 6 x 30 MB */
	{ 6, { 600 * MB, 0, 300 * MB }, { 10, 5, 15 }, 3, 180 * MB },
	/* one job: m x its shuffle per map */
	{ 16, { 64 * MB }, { 8 }, 1, 128 * MB },
	/* shuffle-free jobs: 0 (no map may add output) */
	{ 6, { 0, 0 }, { 4, 4 }, 2, 0 },
	/* no maps at all: 0, not a division by zero */
	{ 6, { 0 }, { 0 }, 1, 0 },
};

START_TEST(traffic_threshold)
{
	ck_assert_double_eq_tol(nas_traffic_threshold(tt_cases[_i].m, tt_cases[_i].s,
						      tt_cases[_i].k, tt_cases[_i].n),
				tt_cases[_i].tt, 1e-6);
}
END_TEST

static const struct {
	double tt, run[3];
	size_t n;
	double space;
} space_cases[] = {
	{ 180 * MB, { 0 }, 0, 180 * MB },		     /* idle node */
	{ 180 * MB, { 50 * MB, 100 * MB }, 2, 30 * MB },     /* two running maps */
	{ 180 * MB, { 120 * MB, 80 * MB }, 2, -20 * MB },    /* congested node */
	{ 0, { 1 * MB }, 1, -1 * MB },
};

START_TEST(available_space)
{
	ck_assert_double_eq_tol(nas_available_space(space_cases[_i].tt, space_cases[_i].run,
						    space_cases[_i].n),
				space_cases[_i].space, 1e-6);
}
END_TEST

static const struct {
	double s;
	enum nas_class c;
} class_cases[] = {
	{ 0, NAS_LIGHT },	   { 0.999 * MB, NAS_LIGHT }, { 1 * MB, NAS_MEDIUM },
	{ 100 * MB, NAS_MEDIUM }, { 100.1 * MB, NAS_HEAVY }, { 5000 * MB, NAS_HEAVY },
};

START_TEST(shuffle_class)
{
	ck_assert_int_eq(nas_class_of(class_cases[_i].s, 1 * MB, 100 * MB), class_cases[_i].c);
}
END_TEST

/* ---- MTS (Alg. 2) ---- */

#define L(u, g, sm, pr, in, out) { u, g, sm, pr, (in) * MB, (out) * MB }

START_TEST(mts_local_qualified)
{
	/* user 0: a local map over the space (60 > 50), a remote qualified
	 * one; user 1: two local qualified maps, one predicted (40 MB) and
	 * one unpredicted (10 MB): the unpredicted one, though 40 is closer
	 * to the space */
	struct nas_map_cand c[] = {
		L(0, 0, true, true, 64, 60), L(0, 2, true, false, 64, 5),
		L(1, 0, false, true, 128, 40), L(1, 0, false, false, 128, 10),
	};
	unsigned skip[2] = { 3, 7 };
	enum nas_mts_how how;

	ck_assert_int_eq(nas_mts_pick(c, 4, skip, 135, 50 * MB, &how), 3);
	ck_assert_int_eq(how, NAS_MTS_LOCAL);
	ck_assert_uint_eq(skip[0], 4); /* skipped: no data-local qualified map */
	ck_assert_uint_eq(skip[1], 0); /* launched locally: reset */

	/* both predicted: the output closest to the space (45 of 50) */
	{
		struct nas_map_cand d[] = {
			L(0, 0, true, true, 64, 10), L(0, 0, true, true, 64, 45),
			L(0, 0, true, true, 64, 30),
		};
		unsigned sk[1] = { 0 };

		ck_assert_int_eq(nas_mts_pick(d, 3, sk, 135, 50 * MB, &how), 1);
	}
}
END_TEST

START_TEST(mts_skip_counter)
{
	/* nobody has a local qualified map: every user is skipped once */
	struct nas_map_cand c[] = {
		L(0, 1, true, true, 8, 1), L(1, 2, false, false, 128, 1), L(2, 0, false, true, 128, 99),
	};
	unsigned skip[3] = { 134, 0, 5 };
	enum nas_mts_how how;

	ck_assert_int_eq(nas_mts_pick(c, 3, skip, 135, 50 * MB, &how), -1);
	ck_assert_int_eq(how, NAS_MTS_NONE);
	ck_assert_uint_eq(skip[0], 135);
	ck_assert_uint_eq(skip[1], 1);
	ck_assert_uint_eq(skip[2], 6);
	/* now user 0 has reached D^m: its rack-local qualified map; the
	 * counter stays (reset only by a local launch) */
	ck_assert_int_eq(nas_mts_pick(c, 3, skip, 135, 50 * MB, &how), 0);
	ck_assert_int_eq(how, NAS_MTS_CATEGORY);
	ck_assert_uint_eq(skip[0], 135);
	ck_assert_uint_eq(skip[1], 1); /* not reached */
}
END_TEST

/* The real cluster's wait form (§IV-A: skipped at most 5 s): the pick
 * runs on counters of 1 (waited long enough) or 0, and what it did to
 * them turns into waits. Two users, neither with a local qualified map,
 * then user 0 with one. */
static void wait_pick(struct nas_map_cand *c, size_t n, int64_t *since, int64_t now, long want,
		      enum nas_mts_how want_how)
{
	const int64_t wait = 500000000; /* 500 ms */
	unsigned skip[2], before[2];
	enum nas_mts_how how;
	long k;

	nas_wait_counters(since, skip, 2, now, wait);
	memcpy(before, skip, sizeof(skip));
	k = nas_mts_pick(c, n, skip, 1, 50 * MB, &how);
	ck_assert_int_eq(k, want);
	ck_assert_int_eq(how, want_how);
	nas_wait_update(since, before, skip, 2, k >= 0 ? (long)c[k].user_rank : -1, now);
}

START_TEST(mts_wait_form)
{
	const int64_t ms = 1000000;
	/* user 0: a rack-local qualified map; user 1: a remote one */
	struct nas_map_cand none[] = { L(0, 1, true, true, 8, 1), L(1, 2, false, true, 128, 1) };
	struct nas_map_cand local[] = { L(0, 0, true, true, 8, 1), L(1, 2, false, true, 128, 1) };
	int64_t since[2] = { -1, -1 };

	/* t = 0: both skipped, both wait from now */
	wait_pick(none, 2, since, 0, -1, NAS_MTS_NONE);
	ck_assert_int_eq(since[0], 0);
	ck_assert_int_eq(since[1], 0);
	/* t = 300 ms: skipped again, still waiting since 0 (not restarted) */
	wait_pick(none, 2, since, 300 * ms, -1, NAS_MTS_NONE);
	ck_assert_int_eq(since[0], 0);
	ck_assert_int_eq(since[1], 0);
	/* t = 499 ms: not yet */
	wait_pick(none, 2, since, 499 * ms, -1, NAS_MTS_NONE);
	/* t = 500 ms: user 0 has waited 500 ms: its rack-local map; it keeps
	 * its wait (only a local launch ends it) */
	wait_pick(none, 2, since, 500 * ms, 0, NAS_MTS_CATEGORY);
	ck_assert_int_eq(since[0], 0);
	ck_assert_int_eq(since[1], 0);
	/* t = 600 ms: user 0 launches locally: waits no more; user 1 not
	 * visited, still waiting */
	wait_pick(local, 2, since, 600 * ms, 0, NAS_MTS_LOCAL);
	ck_assert_int_eq(since[0], -1);
	ck_assert_int_eq(since[1], 0);
	/* a user launching locally before it waited long enough (at 0): no
	 * wait either */
	since[0] = 550 * ms;
	wait_pick(local, 2, since, 700 * ms, 0, NAS_MTS_LOCAL);
	ck_assert_int_eq(since[0], -1);
	/* t = 800 ms: user 0 without its local map again: waits from 800 ms,
	 * where user 1 (waiting since 0) gets its remote map */
	wait_pick(none, 2, since, 800 * ms, 1, NAS_MTS_CATEGORY);
	ck_assert_int_eq(since[0], 800 * ms);
	ck_assert_int_eq(since[1], 0);
}
END_TEST

/* lines 9-12 then MapCost: one user at D^m, no local qualified map */
static const struct {
	struct nas_map_cand c[4];
	size_t n;
	long want;
} cat_cases[] = {
	/* the four categories in reverse: small-input unpredicted wins */
	{ { L(0, 1, false, true, 1, 1), L(0, 1, false, false, 1, 1), L(0, 1, true, true, 1, 1),
	    L(0, 1, true, false, 1, 1) }, 4, 3 },
	/* small predicted before large unpredicted (input size first) */
	{ { L(0, 1, false, false, 1, 1), L(0, 1, true, true, 1, 1) }, 2, 1 },
	/* large unpredicted before large predicted */
	{ { L(0, 1, false, true, 1, 1), L(0, 1, false, false, 1, 1) }, 2, 1 },
	/* same category: MapCost = gamma x input: rack-local 64 MB (64)
	 * before remote 40 MB (80) */
	{ { L(0, 2, false, true, 40, 1), L(0, 1, false, true, 64, 1) }, 2, 1 },
	/* remote 20 MB (40) before rack-local 64 MB (64) */
	{ { L(0, 1, false, true, 64, 1), L(0, 2, false, true, 20, 1) }, 2, 1 },
	/* equal MapCost: the output closest to the space (50): 45 */
	{ { L(0, 1, false, true, 64, 10), L(0, 1, false, true, 64, 45), L(0, 2, false, true, 32, 20) },
	  3, 1 },
	/* a category-0 map over the space does not count: category 3 */
	{ { L(0, 1, true, false, 1, 70), L(0, 1, false, true, 1, 30) }, 2, 1 },
};

START_TEST(mts_categories)
{
	unsigned skip[1] = { 135 };
	enum nas_mts_how how;

	ck_assert_int_eq(nas_mts_pick(cat_cases[_i].c, cat_cases[_i].n, skip, 135, 50 * MB, &how),
			 cat_cases[_i].want);
	ck_assert_int_eq(how, NAS_MTS_CATEGORY);
}
END_TEST

START_TEST(mts_fallback)
{
	/* nothing qualified (space 5 MB): lines 15-16: the data-local map
	 * with the smallest output (20, not the remote 8) */
	struct nas_map_cand c[] = {
		L(0, 2, true, false, 8, 8), L(0, 0, false, true, 64, 30), L(0, 0, false, true, 64, 20),
	};
	struct nas_map_cand d[] = {
		L(0, 2, true, false, 8, 9), L(0, 1, false, true, 64, 30), L(0, 2, false, true, 64, 8),
	};
	unsigned skip[1] = { 135 };
	enum nas_mts_how how;

	ck_assert_int_eq(nas_mts_pick(c, 3, skip, 135, 5 * MB, &how), 2);
	ck_assert_int_eq(how, NAS_MTS_FALLBACK);
	/* no data-local map: the smallest output */
	ck_assert_int_eq(nas_mts_pick(d, 3, skip, 135, 5 * MB, &how), 2);
	ck_assert_int_eq(how, NAS_MTS_FALLBACK);
	/* negative space (a congested node): still a map at D^m */
	ck_assert_int_eq(nas_mts_pick(d, 3, skip, 135, -5 * MB, &how), 2);
	ck_assert_double_eq(nas_map_cost(0, 64), 0);
	ck_assert_double_eq(nas_map_cost(1, 64), 64);
	ck_assert_double_eq(nas_map_cost(2, 64), 128);
}
END_TEST

/* ---- CA-RTS (Alg. 3, eq. 4) ---- */

static const struct {
	unsigned total;
	double rack, all;
	unsigned racks;
	double num;
} rn_cases[] = {
	{ 10, 30 * MB, 100 * MB, 8, 3.0 }, /* 30% of the output: 3 of 10 reduces */
	{ 4, 10 * MB, 30 * MB, 8, 4.0 / 3 },
	{ 7, 0, 70 * MB, 8, 0 },	   /* nothing on the rack */
	{ 8, 0, 0, 4, 2.0 },		   /* no output yet: even over 4 racks */
};

START_TEST(reduce_num)
{
	ck_assert_double_eq_tol(nas_reduce_num(rn_cases[_i].total, rn_cases[_i].rack,
					       rn_cases[_i].all, rn_cases[_i].racks),
				rn_cases[_i].num, 1e-9);
}
END_TEST

START_TEST(ca_levels)
{
	/* heavy, medium, light under ReduceNum; light, medium, heavy at or
	 * over it */
	ck_assert_uint_eq(nas_ca_level(NAS_HEAVY, true), 0);
	ck_assert_uint_eq(nas_ca_level(NAS_MEDIUM, true), 1);
	ck_assert_uint_eq(nas_ca_level(NAS_LIGHT, true), 2);
	ck_assert_uint_eq(nas_ca_level(NAS_LIGHT, false), 3);
	ck_assert_uint_eq(nas_ca_level(NAS_MEDIUM, false), 4);
	ck_assert_uint_eq(nas_ca_level(NAS_HEAVY, false), 5);
}
END_TEST

#define R(u, c, under, del, done, sh) { u, c, under, del, done, (sh) * MB }

static const struct {
	struct nas_red_cand c[4];
	size_t n;
	long want;	  /* ca_order=users: the first user only */
	long want_levels; /* ca_order=levels: each level over every user */
} ca_cases[] = {
	/* one candidate per level, worst first: the heavy under ReduceNum */
	{ { R(0, NAS_HEAVY, false, 0, 0, 500), R(0, NAS_LIGHT, true, 0, 0, 0.1),
	    R(0, NAS_MEDIUM, true, 0, 0, 50), R(0, NAS_HEAVY, true, 0, 0, 500) }, 4, 3, 3 },
	/* all reached: light first, then medium, then heavy */
	{ { R(0, NAS_HEAVY, false, 0, 0, 500), R(0, NAS_MEDIUM, false, 0, 0, 50),
	    R(0, NAS_LIGHT, false, 0, 0, 0.1) }, 3, 2, 2 },
	{ { R(0, NAS_HEAVY, false, 1, 1, 500), R(0, NAS_MEDIUM, false, 0, 0, 50) }, 2, 1, 1 },
	/* same level: delayed first, over maps all done and a larger shuffle */
	{ { R(0, NAS_HEAVY, true, 0, 1, 900), R(0, NAS_HEAVY, true, 1, 0, 200) }, 2, 1, 1 },
	/* then maps all done, over a larger shuffle */
	{ { R(0, NAS_HEAVY, true, 0, 0, 900), R(0, NAS_HEAVY, true, 0, 1, 200) }, 2, 1, 1 },
	/* then the larger shuffle */
	{ { R(0, NAS_MEDIUM, true, 0, 0, 20), R(0, NAS_MEDIUM, true, 0, 0, 80),
	    R(0, NAS_MEDIUM, true, 0, 0, 30) }, 3, 1, 1 },
	/* ties: fair order */
	{ { R(0, NAS_LIGHT, true, 0, 0, 0.5), R(0, NAS_LIGHT, true, 0, 0, 0.5) }, 2, 0, 0 },
	/* two users: users first serves only the first; levels first takes
	 * the second user's heavy job under ReduceNum */
	{ { R(0, NAS_HEAVY, false, 0, 0, 500), R(1, NAS_HEAVY, true, 1, 1, 900) }, 2, 0, 1 },
	/* the same level in two users: the first user, though the other's
	 * shuffle is larger */
	{ { R(0, NAS_MEDIUM, true, 0, 0, 20), R(1, NAS_MEDIUM, true, 0, 0, 90) }, 2, 0, 0 },
	/* a delayed reduce of the second user before the first user's */
	{ { R(0, NAS_MEDIUM, true, 0, 0, 20), R(1, NAS_MEDIUM, true, 1, 0, 10) }, 2, 0, 1 },
	/* inside the first user, the larger shuffle; the second user's larger
	 * one does not count */
	{ { R(0, NAS_LIGHT, true, 0, 0, 0.2), R(0, NAS_LIGHT, true, 0, 0, 0.6),
	    R(1, NAS_LIGHT, true, 0, 0, 0.9) }, 3, 1, 1 },
};

START_TEST(ca_pick)
{
	ck_assert_int_eq(nas_ca_pick(ca_cases[_i].c, ca_cases[_i].n, false), ca_cases[_i].want);
	ck_assert_int_eq(nas_ca_pick(ca_cases[_i].c, ca_cases[_i].n, true),
			 ca_cases[_i].want_levels);
}
END_TEST

/* ---- CR-RTS (Alg. 4) ---- */

START_TEST(cr_counters_and_marks)
{
	/* user 0: heavy and medium only; user 1: heavy and light; user 2:
	 * light */
	struct nas_red_cand c[] = {
		R(0, NAS_HEAVY, true, 0, 0, 500), R(0, NAS_MEDIUM, true, 0, 0, 50),
		R(1, NAS_HEAVY, true, 0, 0, 500), R(1, NAS_LIGHT, true, 0, 0, 0.1),
		R(2, NAS_LIGHT, true, 0, 0, 0.2),
	};
	unsigned skip[3] = { 0, 9, 4 };
	size_t i;

	/* user 0 skipped (counter + 1, its reduces marked delayed), user 1's
	 * light job launched (counter reset; its heavy job marked delayed) */
	ck_assert_int_eq(nas_cr_pick(c, 5, skip, 135), 3);
	ck_assert_uint_eq(skip[0], 1);
	ck_assert_uint_eq(skip[1], 0);
	ck_assert_uint_eq(skip[2], 4); /* not visited */
	ck_assert(c[0].delayed && c[1].delayed && c[2].delayed);
	ck_assert(!c[3].delayed && !c[4].delayed);

	/* user 0 at D^r: any job, its first in fair order */
	for (i = 0; i < 5; i++)
		c[i].delayed = false;
	skip[0] = 135;
	ck_assert_int_eq(nas_cr_pick(c, 5, skip, 135), 0);
	ck_assert_uint_eq(skip[0], 135);

	/* nobody has a light reduce: everyone skipped, nothing launched */
	skip[0] = 0;
	skip[1] = 0;
	ck_assert_int_eq(nas_cr_pick(c, 3, skip, 135), -1);
	ck_assert_uint_eq(skip[0], 1);
	ck_assert_uint_eq(skip[1], 1);
	/* D^r = 0: the first user launches at once (Alg. 4 line 8) */
	ck_assert_int_eq(nas_cr_pick(c, 3, skip, 0), 0);
}
END_TEST

/* ---- in the simulator: Alg. 1 on the rack's NetState ---- */

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(path);
}

static void rm_rf(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int sched_line(const char *dir, const char *sched, const char *key,
		      unsigned long long *v)
{
	char path[512], line[512];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "%s/events.log", dir);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "sched ");

		if (p && strncmp(p + 6, sched, strlen(sched)))
			p = NULL;
		if (p && (p = strstr(p, key))) {
			*v = strtoull(p + strlen(key), NULL, 10);
			found = 1;
		}
	}
	fclose(f);
	return found;
}

/* Two racks of two hosts, 5:1 at the ToR, no OCS: a shuffle-heavy job's
 * shuffle fills the 20 Mbit/s uplinks while light jobs of other users
 * arrive and ask for reduces. */
static const char cr_topo[] = "name eps2\nracks 2\nhosts 2\ncontainers 2\n"
			      "host_rate 100Mbit\nuplink_rate 20Mbit\nocs no\n";
/* one replica: the big job's input spans both racks, so even
 * ShuffleWatcher's rack cover puts its maps on both */
static const char cr_topo1[] = "name eps2\nracks 2\nhosts 2\ncontainers 2\nreplicas 1\n"
			       "host_rate 100Mbit\nuplink_rate 20Mbit\nocs no\n";
static const char cr_wl[] =
	"job id=big user=alice arrival=0s input=64MB shuffle=64MB output=1MB maps=4 reduces=4 map_time=1s reduce_time=1s\n"
	"job id=l1 user=bob arrival=4s input=1MB shuffle=100KB output=10KB maps=1 reduces=1 map_time=1s reduce_time=1s\n"
	"job id=l2 user=carol arrival=5s input=1MB shuffle=100KB output=10KB maps=1 reduces=1 map_time=1s reduce_time=1s\n"
	"job id=l3 user=bob arrival=6s input=1MB shuffle=100KB output=10KB maps=1 reduces=1 map_time=1s reduce_time=1s\n"
	"job id=l4 user=carol arrival=7s input=1MB shuffle=100KB output=10KB maps=1 reduces=1 map_time=1s reduce_time=1s\n";

static void run_one(const char *sched, const char *topo, const char *wl, const char *dir,
		    char *congestion)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	char *kv[1] = { congestion };
	struct ctl_totals tot;
	struct ctl_opts o;
	struct ctl *c;

	ctl_opts_default(&o);
	o.topo_path = topo;
	o.wl_spec = wl;
	o.sched_name = sched;
	o.sched_kv = kv;
	o.n_sched_kv = 1;
	o.outdir = dir;
	ck_assert_msg(ctl_new(&o, &c, errbuf) == 0, "%s", errbuf);
	ck_assert_msg(ctl_run(c, errbuf) == 0, "%s", errbuf);
	ctl_totals(c, &tot);
	ck_assert_uint_eq(tot.jobs_done, tot.jobs);
	ctl_free(c);
}

static void run_nas(const char *topo, const char *wl, const char *dir, char *congestion,
		    unsigned long long *ca, unsigned long long *cr)
{
	run_one("nas", topo, wl, dir, congestion);
	ck_assert(sched_line(dir, "nas", "ca-rts=", ca));
	ck_assert(sched_line(dir, "nas", "cr-rts=", cr));
}

/* Alg. 1: with the evaluation's 0.8 the light jobs' reduces that come
 * while the uplinks are full go to CR-RTS; with a threshold no rack
 * reaches (10), CA-RTS takes every reduce. */
START_TEST(netstate_switches)
{
	char d1[] = "/tmp/hyde-nas-XXXXXX", d2[] = "/tmp/hyde-nas-XXXXXX";
	char *topo = test_write_tmp("nas", cr_topo, ".topo");
	char *wl = test_write_tmp("nas", cr_wl, ".wl");
	unsigned long long ca1, cr1, ca2, cr2;
	char c1[] = "congestion=0.8", c2[] = "congestion=10";

	ck_assert_ptr_nonnull(mkdtemp(d1));
	ck_assert_ptr_nonnull(mkdtemp(d2));
	run_nas(topo, wl, d1, c1, &ca1, &cr1);
	run_nas(topo, wl, d2, c2, &ca2, &cr2);
	ck_assert_uint_gt(cr1, 0);
	ck_assert_uint_eq(cr2, 0);
	ck_assert_uint_eq(ca1 + cr1, ca2); /* the same reduces, shared out */
	rm_rf(d1);
	rm_rf(d2);
	unlink(topo);
	unlink(wl);
	free(topo);
	free(wl);
}
END_TEST

/* ShuffleWatcher holds every reduce while the rack is congested (the
 * light jobs' too, unlike CR-RTS), none with a threshold never reached. */
START_TEST(shufflewatcher_holds)
{
	char d1[] = "/tmp/hyde-nas-XXXXXX", d2[] = "/tmp/hyde-nas-XXXXXX";
	char *topo = test_write_tmp("nas", cr_topo1, ".topo");
	char *wl = test_write_tmp("nas", cr_wl, ".wl");
	unsigned long long h1, h2;
	char c1[] = "congestion=0.8", c2[] = "congestion=10";

	ck_assert_ptr_nonnull(mkdtemp(d1));
	ck_assert_ptr_nonnull(mkdtemp(d2));
	run_one("shufflewatcher", topo, wl, d1, c1);
	run_one("shufflewatcher", topo, wl, d2, c2);
	ck_assert(sched_line(d1, "shufflewatcher", "congested: ", &h1));
	ck_assert(sched_line(d2, "shufflewatcher", "congested: ", &h2));
	ck_assert_uint_gt(h1, 0);
	ck_assert_uint_eq(h2, 0);
	rm_rf(d1);
	rm_rf(d2);
	unlink(topo);
	unlink(wl);
	free(topo);
	free(wl);
}
END_TEST

/* ---- the paper's metrics in summary.json ---- */

/* The number after key (after `after` if not NULL) in dir/summary.json. */
static double json_num2(const char *dir, const char *after, const char *key)
{
	char path[512], *text, *p;
	FILE *f;
	long n;
	double v;

	snprintf(path, sizeof(path), "%s/summary.json", dir);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = calloc((size_t)n + 1, 1);
	ck_assert_int_eq(fread(text, 1, (size_t)n, f), n);
	fclose(f);
	p = after ? strstr(text, after) : text;
	ck_assert_msg(p != NULL, "%s not in %s", after, path);
	p = strstr(p, key);
	ck_assert_msg(p != NULL, "%s not in %s", key, path);
	p = strchr(p + strlen(key), ':');
	ck_assert_ptr_nonnull(p);
	v = strtod(p + 1, NULL);
	free(text);
	return v;
}

static double json_num(const char *dir, const char *key)
{
	return json_num2(dir, NULL, key);
}

static void run_fair(const char *topo_text, const char *wl_text, const char *dir)
{
	char *topo = test_write_tmp("nas", topo_text, ".topo");
	char *wl = test_write_tmp("nas", wl_text, ".wl");
	char errbuf[HYDE_ERRBUF_SIZE];
	struct ctl_opts o;
	struct ctl *c;

	ctl_opts_default(&o);
	o.topo_path = topo;
	o.wl_spec = wl;
	o.sched_name = "fair";
	o.outdir = dir;
	ck_assert_msg(ctl_new(&o, &c, errbuf) == 0, "%s", errbuf);
	ck_assert_msg(ctl_run(c, errbuf) == 0, "%s", errbuf);
	ctl_free(c);
	unlink(topo);
	unlink(wl);
	free(topo);
	free(wl);
}

/* Rack congestion occurrences: the 20 Mbit/s uplinks reach 0.8 during
 * the big shuffle; 10 Gbit/s ones never do. Every rack counts once per
 * heartbeat period. Cross-rack bytes of all kinds are the by-kind sum;
 * each job with reduces gets one MapProgressRate. */
START_TEST(metrics_congestion)
{
	char d1[] = "/tmp/hyde-nas-XXXXXX", d2[] = "/tmp/hyde-nas-XXXXXX";
	static const char fast[] = "name fast\nracks 2\nhosts 2\ncontainers 2\n"
				   "host_rate 100Mbit\nuplink_rate 10Gbit\nocs no\n";
	double intervals, mpr;

	ck_assert_ptr_nonnull(mkdtemp(d1));
	ck_assert_ptr_nonnull(mkdtemp(d2));
	run_fair(cr_topo1, cr_wl, d1); /* one replica: some input read across racks */
	run_fair(fast, cr_wl, d2);
	ck_assert_double_gt(json_num(d1, "\"rack_congestion_events\""), 0);
	ck_assert_double_eq(json_num(d2, "\"rack_congestion_events\""), 0);
	intervals = json_num(d1, "\"rack_intervals\"");
	ck_assert_double_gt(intervals, 0);
	ck_assert_double_eq(fmod(intervals, 2), 0); /* two racks per sample */
	ck_assert_double_gt(json_num2(d1, "\"input\": {", "\"cross_rack\""), 0);
	ck_assert_double_eq(json_num(d1, "\"cross_rack_bytes_all_kinds\""),
			    json_num2(d1, "\"input\": {", "\"cross_rack\"") +
				    json_num2(d1, "\"shuffle\": {", "\"cross_rack\"") +
				    json_num2(d1, "\"output\": {", "\"cross_rack\""));
	ck_assert_double_eq(json_num(d1, "\"jobs_with_reduces_placed\""), 5);
	mpr = json_num(d1, "\"avg_map_progress_at_first_reduce\"");
	ck_assert(mpr >= 0 && mpr <= 1);
	rm_rf(d1);
	rm_rf(d2);
}
END_TEST

/* Congested nodes, eq. (3) with true sizes. One job of 16 maps of 4 MB
 * output (two waves) on 2-container hosts: TT = 2 x 64 / 16 = 8 MB, and a
 * host runs at most two of them at once (8 MB, not over TT): none
 * congested. With a shuffle-free 40-map job in the cluster at the same
 * time, TT = 2 x 64 / 56 = 2.3 MB and a host running one big map is over
 * it. */
START_TEST(metrics_congested_nodes)
{
	char d1[] = "/tmp/hyde-nas-XXXXXX", d2[] = "/tmp/hyde-nas-XXXXXX";
	static const char alone[] =
		"job id=big user=a arrival=0s input=64MB shuffle=64MB output=1MB maps=16 reduces=2 map_time=5s reduce_time=1s\n";
	static const char with[] =
		"job id=big user=a arrival=0s input=64MB shuffle=64MB output=1MB maps=16 reduces=2 map_time=5s reduce_time=1s\n"
		"job id=wide user=b arrival=0s input=40MB shuffle=0B output=1MB maps=40 reduces=1 map_time=5s reduce_time=1s\n";

	ck_assert_ptr_nonnull(mkdtemp(d1));
	ck_assert_ptr_nonnull(mkdtemp(d2));
	run_fair(cr_topo, alone, d1);
	run_fair(cr_topo, with, d2);
	ck_assert_double_gt(json_num(d1, "\"node_samples\""), 0);
	ck_assert_double_eq(json_num(d1, "\"congested_node_share\""), 0);
	ck_assert_double_gt(json_num(d2, "\"congested_node_share\""), 0);
	rm_rf(d1);
	rm_rf(d2);
}
END_TEST

Suite *nas_suite(void)
{
	Suite *s = suite_create("nas");
	TCase *tc = tcase_create("rules");
	TCase *ts = tcase_create("sim");

	tcase_add_loop_test(tc, traffic_threshold, 0, ARRAY_SIZE(tt_cases));
	tcase_add_loop_test(tc, available_space, 0, ARRAY_SIZE(space_cases));
	tcase_add_loop_test(tc, shuffle_class, 0, ARRAY_SIZE(class_cases));
	tcase_add_test(tc, mts_local_qualified);
	tcase_add_test(tc, mts_skip_counter);
	tcase_add_test(tc, mts_wait_form);
	tcase_add_loop_test(tc, mts_categories, 0, ARRAY_SIZE(cat_cases));
	tcase_add_test(tc, mts_fallback);
	tcase_add_loop_test(tc, reduce_num, 0, ARRAY_SIZE(rn_cases));
	tcase_add_test(tc, ca_levels);
	tcase_add_loop_test(tc, ca_pick, 0, ARRAY_SIZE(ca_cases));
	tcase_add_test(tc, cr_counters_and_marks);
	suite_add_tcase(s, tc);
	tcase_set_timeout(ts, 120);
	tcase_add_test(ts, netstate_switches);
	tcase_add_test(ts, shufflewatcher_holds);
	tcase_add_test(ts, metrics_congestion);
	tcase_add_test(ts, metrics_congested_nodes);
	suite_add_tcase(s, ts);
	return s;
}
