/* The analyzer: golden run directories (tests/analyze_fixture.c) in, the
 * exact CSV rows and figures out; bad inputs refused with nothing written;
 * and the pieces (TCP sequence sets, header decoding, the 4-tuple map). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hyde/model.h>

#include "analyze/analyze.h"
#include "analyze/pcap_read.h"
#include "analyze/plot.h"
#include "analyze/tcpconn.h"
#include "analyze/tuplemap.h"
#include "analyze_fixture.h"
#include "check_hyde.h"
#include "cli.h"
#include "core/log.h"
#include "pcap_fixture.h"

/* Every test works under one directory that an unchecked fixture makes
 * and removes in the runner's own process, so that it goes away even when a
 * test fails (a failed assertion ends the forked test at once). */
static char base_dir[4096];

static char *make_tmpdir(void)
{
	size_t n = strlen(base_dir) + sizeof("/run.XXXXXX");
	char *d = xmalloc(n);

	snprintf(d, n, "%s/run.XXXXXX", base_dir);
	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb, (void)flag, (void)f;
	return remove(p);
}

static void rm_rf(char *d)
{
	nftw(d, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(d);
}

static void base_setup(void)
{
	const char *t = getenv("TMPDIR");

	snprintf(base_dir, sizeof(base_dir), "%s/hyde-analyze.XXXXXX", t ? t : "/tmp");
	if (!mkdtemp(base_dir))
		abort();
}

static void base_teardown(void)
{
	nftw(base_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static char *slurp(const char *dir, const char *rel)
{
	char path[4096], *buf;
	FILE *fp;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	fp = fopen(path, "r");
	if (!fp)
		return NULL;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	buf = calloc(1, (size_t)n + 1);
	ck_assert_int_eq(fread(buf, 1, (size_t)n, fp), n);
	fclose(fp);
	return buf;
}

static bool exists(const char *dir, const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return access(path, F_OK) == 0;
}

/* No temporary of ours left in the run directory. */
static void assert_no_temporaries(const char *dir)
{
	char cmd[4200];
	FILE *fp;
	char line[512];

	snprintf(cmd, sizeof(cmd), "ls -A '%s'", dir);
	fp = popen(cmd, "r");
	ck_assert_ptr_nonnull(fp);
	while (fgets(line, sizeof(line), fp))
		ck_assert_msg(!strstr(line, ".tmp") && !strstr(line, ".gp"),
			      "temporary left: %s", line);
	pclose(fp);
}

/* ---- the golden run ---- */

static const char golden_flows[] =
	"flow,coflow,job,path,bytes,start_ns,end_ns,fct_ns,ocs_bytes,eps_bytes,retrans_bytes,app_fct_ns,kind,src,dst,name\n"
	/* 7 segments, the last at t0 + 900us, its ACK 50us later; the last
	 * (1312 bytes) sent again after the close: retransmitted, and on the
	 * wire of its path, not in its FCT */
	"1,0,a,eps,10000,1700000000010000000,1700000000010950000,950000,0,11312,1312,870000,shuffle,r1h0,r0h0,a/shuffle/r0/m1@r1h0\n"
	/* seg 1 sent again after seg 3: 1448 bytes twice, both over the OCS */
	"2,0,a,ocs,5000,1700000000011000000,1700000000011750000,750000,6448,0,1448,800000,shuffle,r1h1,r0h1,a/shuffle/r1/m2@r1h1\n"
	/* reordered (1, 0, 2): no retransmission; in the rack: no path bytes */
	"3,0,a,rack,4344,1700000000012000000,1700000000012550000,550000,0,0,0,70000,shuffle,r0h1,r0h0,a/shuffle/r1/m3@r0h1\n"
	/* 3 of 6 segments, never acked to the end: unfinished, not dropped */
	"4,1,b,eps,8000,1700000000020000000,-1,-1,0,4344,0,-1,shuffle,r0h0,r1h0,b/shuffle/r0/m4@r0h0\n"
	/* a BIG TCP frame of 90000 and a super-frame of 60000 bytes */
	"5,2,c,eps,150000,1700000000030000000,1700000000030450000,450000,0,150000,0,470000,shuffle,r0h1,r1h1,c/shuffle/r0/m5@r0h1\n"
	/* one 4-tuple, two connections: bytes go to the right one */
	"6,2,c,eps,3000,1700000000031000000,1700000000031550000,550000,0,3000,0,520000,shuffle,r0h1,r1h0,c/shuffle/r1/m6@r0h1\n"
	"7,2,c,eps,2000,1700000000032000000,1700000000032450000,450000,0,2000,0,2470000,shuffle,r0h1,r1h0,c/shuffle/r1/m7@r0h1\n"
	/* loopback: the app's timestamps */
	"8,2,c,host,7000,1700000000033000000,1700000000035000000,2000000,0,0,0,2000000,shuffle,r1h0,r1h0,c/shuffle/r0/m8@r1h0\n"
	/* not in any capture */
	"9,1,b,eps,1000,-1,-1,-1,0,0,0,-1,shuffle,r0h1,r1h1,b/shuffle/r1/m9@r0h1\n"
	/* an output write, client to server: measured on the server's port,
	 * the 40-byte request not counted as data or path bytes */
	"10,0,a,eps,3000,1700000000013000000,1700000000013550000,550000,0,3000,0,580000,output,r1h1,r0h0,a/output/r0/10@r1h1\n";

static const char golden_coflows[] =
	"coflow,job,flows,bytes,start_ns,end_ns,cct_ns,lower_bound_ns,ocs_bytes,eps_bytes,app_cct_ns\n"
	"0,a,3,19344,1700000000010000000,1700000000012550000,2550000,10100000,6448,11312,2470000\n"
	"1,b,2,9000,1700000000020000000,-1,-1,-1,0,4344,-1\n"
	"2,c,4,162000,1700000000030000000,1700000000035000000,5000000,-1,0,155000,5020000\n";

/* The breakdown of a: ready 0.5 ms after arrival, first task at 1 ms,
 * maps done at 9 ms, its shuffle measured from 10 ms (flow 1's SYN) to
 * 12.55 ms (flow 3's end), end at 50 ms; c's the same way (shuffle 30 to
 * 35 ms); b never ended. Each line's parts add up to its JCT. */
static const char golden_jobs[] =
	"job,user,arrival_ns,start_ns,end_ns,jct_ns,maps,reduces,shuffle_bytes,cross_rack_bytes,"
	"class,parents_ns,queue_ns,map_ns,wait_ns,shuffle_ns,reduce_ns\n"
	"a,alice,1700000000000000000,1700000000001000000,1700000000050000000,50000000,2,2,19344,15000,"
	"light,500000,500000,8000000,1000000,2550000,37450000\n"
	"b,bob,1700000000005000000,1700000000006000000,-1,-1,1,2,9000,9000,light,-1,-1,-1,-1,-1,-1\n"
	"c,alice,1700000000025000000,1700000000026000000,1700000000060000000,35000000,2,2,162000,155000,"
	"light,500000,500000,3000000,1000000,5000000,25000000\n";

START_TEST(golden_run)
{
	struct analyze_opts o = { .no_plots = true };
	char errbuf[HYDE_ERRBUF_SIZE];
	struct analyze_result r;
	char *d = make_tmpdir(), *s;
	int lvl = log_get_level();

	ck_assert_int_eq(fixture_write_run(d, FX_GOOD), 0);
	log_set_level(LOG_LVL_ERR); /* the expected warnings */
	ck_assert_msg(analyze_run(d, &o, &r, errbuf) == 0, "%s", errbuf);
	log_set_level(lvl);

	s = slurp(d, "flows.csv");
	ck_assert_str_eq(s, golden_flows);
	free(s);
	s = slurp(d, "coflows.csv");
	ck_assert_str_eq(s, golden_coflows);
	free(s);
	s = slurp(d, "jobs.csv");
	ck_assert_str_eq(s, golden_jobs);
	free(s);

	ck_assert_uint_eq(r.captures, 8);
	ck_assert_uint_eq(r.flows, 10);
	ck_assert_uint_eq(r.flows_done, 7);
	ck_assert_uint_eq(r.flows_unfinished, 1);
	ck_assert_uint_eq(r.flows_not_captured, 1);
	ck_assert_uint_eq(r.flows_host, 1);
	ck_assert_uint_eq(r.flows_no_syn, 0);
	ck_assert_uint_eq(r.flows_path_mismatch, 0);
	ck_assert_uint_eq(r.flows_bytes_mismatch, 0); /* super-frames counted whole */
	ck_assert_uint_eq(r.unknown_conns, 1);
	ck_assert_uint_eq(r.stray_instances, 0);
	/* |pcap - app| FCT: 80, 50, 480, 20, 30, 2020 us, and 30 (the write) */
	ck_assert_uint_eq(r.fct_err.n, 7);
	ck_assert_int_eq(r.fct_err.median, 50000);
	ck_assert_int_eq(r.fct_err.p99, 2020000);
	ck_assert_int_eq(r.fct_err.max, 2020000);
	/* CCT: coflows 0 and 2 (80 and 20 us) */
	ck_assert_uint_eq(r.cct_err.n, 2);
	ck_assert_int_eq(r.cct_err.median, 20000);
	ck_assert_int_eq(r.cct_err.p99, 80000);
	ck_assert_uint_eq(r.coflows_complete, 2);
	/* FCTs 450, 450, 550, 550, 750, 950, 2000 us */
	ck_assert_uint_eq(r.fct.n, 7);
	ck_assert_int_eq(r.fct.median, 550000);
	ck_assert_uint_eq(r.jobs_finished, 2);
	ck_assert_int_eq(r.makespan_ns, 60000000);
	ck_assert_double_eq_tol(r.jobs_per_hour, 120000, 1e-6);
	ck_assert_int_eq(r.jct.median, 35000000);
	ck_assert_uint_eq(r.shuffle_bytes, 190344);
	ck_assert_uint_eq(r.ocs_bytes, 6448);
	ck_assert_uint_eq(r.eps_bytes, 170656);
	ck_assert_uint_eq(r.rack_bytes, 4344);
	ck_assert_uint_eq(r.host_bytes, 7000);
	ck_assert_uint_eq(r.cross_rack_bytes, 179000);
	ck_assert_uint_eq(r.retrans_bytes, 1448 + 1312);
	ck_assert_double_eq_tol(r.ocs_share, 6448.0 / (6448 + 170656), 1e-12);
	/* by kind: the shuffle's bytes, and the write's */
	ck_assert_uint_eq(r.kind_flows[HYDE_FLOW_SHUFFLE], 9);
	ck_assert_uint_eq(r.kind_bytes[HYDE_FLOW_SHUFFLE], 190344);
	ck_assert_uint_eq(r.kind_flows[HYDE_FLOW_OUTPUT], 1);
	ck_assert_uint_eq(r.kind_bytes[HYDE_FLOW_OUTPUT], 3000);
	ck_assert_uint_eq(r.kind_cross[HYDE_FLOW_OUTPUT], 3000);
	ck_assert_uint_eq(r.kind_flows[HYDE_FLOW_INPUT], 0);

	s = slurp(d, "summary.json");
	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(strstr(s, "\"fct_abs_diff\": { \"n\": 7, \"median_ns\": 50000, \"p99_ns\": 2020000"));
	ck_assert_ptr_nonnull(strstr(s, "\"output\": { \"flows\": 1, \"bytes\": 3000, \"cross_rack\": 3000 }"));
	ck_assert_ptr_nonnull(strstr(s, "\"cct_abs_diff\": { \"n\": 2, \"median_ns\": 20000, \"p99_ns\": 80000"));
	ck_assert_ptr_nonnull(strstr(s, "\"goal_met\": true"));
	ck_assert_ptr_nonnull(strstr(s, "\"src\": \"10.0.0.1:50000\", \"dst\": \"10.0.1.2:22\", \"first_capture\": \"tor0-h0.pcap\", \"packets\": 3"));
	ck_assert_ptr_nonnull(strstr(s, "\"unfinished\": 1"));
	ck_assert_ptr_nonnull(strstr(s, "\"host_app_timestamps\": 1"));
	free(s);
	ck_assert(!exists(d, "fct_cdf.png"));
	assert_no_temporaries(d);
	rm_rf(d);
}
END_TEST

/* Closed connections are let go: a capture of 400 connections over 400 s
 * never holds more than those of the last two minutes. */
START_TEST(streaming_memory)
{
	struct analyze_opts o = { .no_plots = true };
	char errbuf[HYDE_ERRBUF_SIZE];
	struct analyze_result r;
	char *d = make_tmpdir();

	ck_assert_int_eq(fixture_write_run(d, FX_MANY), 0);
	ck_assert_msg(analyze_run(d, &o, &r, errbuf) == 0, "%s", errbuf);
	ck_assert_uint_eq(r.flows_done, FX_MANY_FLOWS);
	ck_assert_uint_eq(r.eps_bytes, FX_MANY_FLOWS * 3000ULL);
	ck_assert_int_eq(r.fct.median, 550000);
	ck_assert_int_eq(r.fct_err.max, 20000); /* connect() 20us before SYN */
	ck_assert_msg(r.peak_conns <= 135, "peak %zu connection records", r.peak_conns);
	/* its manifest is from before names: every flow is named '-' */
	{
		char *s = slurp(d, "flows.csv");

		ck_assert_ptr_nonnull(strstr(s, ",shuffle,r1h0,r0h0,-\n"));
		free(s);
	}
	rm_rf(d);
}
END_TEST

/* ---- bad inputs: -EINVAL, one clear message, nothing written ---- */

static const struct {
	enum fx_variant v;
	const char *msg;
} bad[] = {
	{ FX_TRUNCATED, "tor0-h0.pcap: packet 55: truncated dump file; tried to read 66 captured bytes, only got 56" },
	{ FX_CORRUPT, "tor0-up.pcap: cannot read as a capture: unknown file format" },
	{ FX_LINKTYPE, "tor1-up.pcap: link type 12 (RAW): expected Ethernet (EN10MB)" },
	{ FX_MANIFEST_TOPO, "manifest.csv:6: cli_node: expected a host of the run's topology (r<rack>h<host>), got 'r7h1'" },
	{ FX_MANIFEST_RUN, "manifest.csv: none of its 9 connection(s) appears in the captures, which hold 8 TCP connection(s) it does not list (first: 10.0.0.1:40001 -> 10.0.1.1:13562 in tor0-h0.pcap)" },
	{ FX_MANIFEST_HDR, "manifest.csv:1: expected the header 'conn,flow,coflow,job,maps,reduce,cli_node" },
	{ FX_FETCH_CONN, "app/fetches.csv:4: conn: expected 'c3' (its connection in manifest.csv), got 'c4'" },
};

START_TEST(bad_input)
{
	struct analyze_opts o = { .no_plots = false };
	char errbuf[HYDE_ERRBUF_SIZE] = "";
	struct analyze_result r;
	char *d = make_tmpdir(), *s, path[4096];
	FILE *fp;
	int lvl = log_get_level();

	ck_assert_int_eq(fixture_write_run(d, bad[_i].v), 0);
	/* an earlier analysis stays as it was */
	snprintf(path, sizeof(path), "%s/flows.csv", d);
	fp = fopen(path, "w");
	fputs("earlier\n", fp);
	fclose(fp);
	log_set_level(LOG_LVL_ERR);
	ck_assert_int_eq(analyze_run(d, &o, &r, errbuf), -EINVAL);
	log_set_level(lvl);
	ck_assert_msg(strstr(errbuf, bad[_i].msg), "got '%s', expected '%s'", errbuf,
		      bad[_i].msg);
	s = slurp(d, "flows.csv");
	ck_assert_str_eq(s, "earlier\n");
	free(s);
	ck_assert(!exists(d, "coflows.csv"));
	ck_assert(!exists(d, "jobs.csv"));
	ck_assert(!exists(d, "summary.json"));
	ck_assert(!exists(d, "fct_cdf.png"));
	assert_no_temporaries(d);
	rm_rf(d);
}
END_TEST

static void put(const char *d, const char *rel, const char *text, size_t len)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", d, rel);
	fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(text, 1, len, fp), len);
	fclose(fp);
}

/* Analyse an interrupted run (its warnings silenced): it must succeed,
 * marked incomplete. */
static void analyze_interrupted(const char *d, struct analyze_result *r)
{
	struct analyze_opts o = { .no_plots = true };
	char errbuf[HYDE_ERRBUF_SIZE] = "";
	int lvl = log_get_level();
	int rc;

	log_set_level(LOG_LVL_ERR);
	rc = analyze_run(d, &o, r, errbuf);
	log_set_level(lvl);
	ck_assert_msg(rc == 0, "%s", errbuf);
	ck_assert(r->incomplete);
}

/* A run killed before its controller wrote app/jobs.csv and
 * app/coflows.csv: fixture fx without them, with these inputs and log. */
static void write_killed_run(const char *d, enum fx_variant fx, const char *wl,
			     const char *events)
{
	char path[4096];

	ck_assert_int_eq(fixture_write_run(d, fx), 0);
	snprintf(path, sizeof(path), "%s/app/jobs.csv", d);
	ck_assert_int_eq(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/app/coflows.csv", d);
	ck_assert_int_eq(unlink(path), 0);
	put(d, "inputs/workload.wl", wl, strlen(wl));
	put(d, "events.log", events, strlen(events));
}

/* A run killed outright (its controller never wrote app/jobs.csv nor
 * app/coflows.csv), with a capture cut inside a packet and its manifest,
 * fetches and event log cut inside a line: analysed from what is there,
 * the cut lines dropped, and marked incomplete. */
START_TEST(interrupted_run)
{
	static const char wl[] =
		"job id=a user=alice arrival=0s input=2MB shuffle=19344B output=0B maps=2 reduces=2 map_time=1ms reduce_time=1ms\n"
		"job id=b user=bob arrival=5ms input=1MB shuffle=9000B output=0B maps=1 reduces=2 map_time=1ms reduce_time=1ms\n"
		"job id=c user=alice arrival=25ms input=2MB shuffle=162000B output=0B maps=2 reduces=2 map_time=1ms reduce_time=1ms\n";
	static const char events[] =
		"1700000000000000000 run_start emul fair sunflow\n"
		"1700000000000100000 job_arrive a\n"
		"1700000000001000000 task_start a map 0 r0h0\n"
		"1700000000050000000 job_done a\n"
		"1700000000060000000 job_do"; /* cut: c's end is not known */
	struct analyze_result r;
	char *d = make_tmpdir(), *m, *f, *j, *sum;

	write_killed_run(d, FX_TRUNCATED, wl, events);
	/* the manifest's last line (flow 10, the write) and the fetches'
	 * from flow 9 on cut short */
	m = slurp(d, "manifest.csv");
	put(d, "manifest.csv", m, strlen(m) - 12);
	f = slurp(d, "app/fetches.csv");
	*strstr(f, "9,c9,") = '\0';
	strcat(f, "9,c9,17000");
	put(d, "app/fetches.csv", f, strlen(f));
	analyze_interrupted(d, &r);
	ck_assert_uint_eq(r.flows, 9);
	ck_assert_uint_eq(r.jobs, 3);
	ck_assert_uint_eq(r.jobs_finished, 1);
	ck_assert_int_eq(r.jct.median, 50 * 1000000LL);
	/* only job a ended: no other coflow can be complete */
	ck_assert_uint_le(r.coflows_complete, 1);
	ck_assert_uint_gt(r.packets, 0);
	sum = slurp(d, "summary.json");
	ck_assert_ptr_nonnull(strstr(sum, "\"complete\": false"));
	ck_assert_ptr_nonnull(strstr(sum, "read up to there"));
	j = slurp(d, "jobs.csv");
	ck_assert_ptr_nonnull(strstr(j, "\na,alice,1700000000000000000,1700000000001000000,1700000000050000000,50000000,"));
	ck_assert_ptr_nonnull(strstr(j, "\nc,alice,1700000000025000000,-1,-1,-1,"));
	free(m);
	free(f);
	free(sum);
	free(j);
	rm_rf(d);
}
END_TEST

/* A run killed as soon as it had written its inputs: pcap/ made but
 * empty, app/ empty, no manifest, an event log of one line. Analysed as
 * incomplete, with nothing to measure; in the sanitizer build, no
 * library call on the empty lists (CI saw qsort given NULL here). */
START_TEST(killed_before_any_flow)
{
	static const char wl[] =
		"job id=a user=alice arrival=0s input=2MB shuffle=9000B output=0B maps=1 reduces=2 map_time=1ms reduce_time=1ms\n";
	static const char events[] = "1700000000000000000 run_start emul fair sunflow\n";
	static const char *gone[] = { "manifest.csv", "app/jobs.csv", "app/coflows.csv",
				      "app/fetches.csv" };
	char path[4096];
	struct analyze_result r;
	char *d = make_tmpdir(), *sum;
	DIR *dp;
	struct dirent *de;
	size_t i;

	ck_assert_int_eq(fixture_write_run(d, FX_GOOD), 0);
	for (i = 0; i < sizeof(gone) / sizeof(gone[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", d, gone[i]);
		ck_assert_int_eq(unlink(path), 0);
	}
	snprintf(path, sizeof(path), "%s/pcap", d);
	dp = opendir(path);
	ck_assert_ptr_nonnull(dp);
	while ((de = readdir(dp)))
		if (de->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/pcap/%s", d, de->d_name);
			ck_assert_int_eq(unlink(path), 0);
		}
	closedir(dp);
	put(d, "inputs/workload.wl", wl, sizeof(wl) - 1);
	put(d, "events.log", events, sizeof(events) - 1);
	analyze_interrupted(d, &r);
	ck_assert_uint_eq(r.flows, 0);
	ck_assert_uint_eq(r.packets, 0);
	ck_assert_uint_eq(r.jobs, 1);
	ck_assert_uint_eq(r.jobs_finished, 0);
	sum = slurp(d, "summary.json");
	ck_assert_ptr_nonnull(sum);
	ck_assert_ptr_nonnull(strstr(sum, "\"complete\": false"));
	free(sum);
	rm_rf(d);
}
END_TEST

/* A run killed between a task's first connect and the controller's line
 * for it (CI saw it in tests/killrun.sh): the captures hold connections,
 * the manifest only its header. Not a foreign manifest: analysed as
 * incomplete, the connections counted as unknown. */
START_TEST(killed_before_first_manifest_line)
{
	static const char wl[] =
		"job id=a user=alice arrival=0s input=2MB shuffle=19344B output=0B maps=2 reduces=2 map_time=1ms reduce_time=1ms\n";
	static const char events[] = "1700000000000000000 run_start emul fair sunflow\n";
	static const char *const cut[] = { "manifest.csv", "app/fetches.csv" };
	struct analyze_result r;
	char *d = make_tmpdir(), *t, *nl;
	size_t i;

	write_killed_run(d, FX_GOOD, wl, events);
	for (i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) { /* the header only */
		t = slurp(d, cut[i]);
		nl = strchr(t, '\n');
		ck_assert_ptr_nonnull(nl);
		put(d, cut[i], t, (size_t)(nl - t) + 1);
		free(t);
	}
	analyze_interrupted(d, &r);
	ck_assert_uint_eq(r.flows, 0);
	ck_assert_uint_gt(r.unknown_conns, 0);
	ck_assert_uint_gt(r.packets, 0);
	rm_rf(d);
}
END_TEST

/* The command line maps those to exit status 2, a good run to 0. */
START_TEST(cli_exit_codes)
{
	char *d = make_tmpdir(), *e = make_tmpdir();
	char *good[] = { "analyze", "--no-plots", "-q", d, NULL };
	char *bad_run[] = { "analyze", "-q", e, NULL };
	char *none[] = { "analyze", NULL };
	char *two[] = { "analyze", d, e, NULL };
	int lvl = log_get_level();

	ck_assert_int_eq(fixture_write_run(d, FX_GOOD), 0);
	ck_assert_int_eq(fixture_write_run(e, FX_LINKTYPE), 0);
	log_set_level(LOG_LVL_ERR);
	ck_assert_int_eq(cmd_analyze(4, good), 0);
	ck_assert(exists(d, "summary.json"));
	ck_assert_int_eq(cmd_analyze(3, bad_run), EXIT_USAGE);
	ck_assert_int_eq(cmd_analyze(1, none), EXIT_USAGE);
	ck_assert_int_eq(cmd_analyze(3, two), EXIT_USAGE);
	log_set_level(lvl);
	rm_rf(d);
	rm_rf(e);
}
END_TEST

/* ---- pieces ---- */

START_TEST(seqset_ranges)
{
	struct seqset s = { 0 };

	ck_assert_uint_eq(seqset_add(&s, 0, 100), 0);
	ck_assert_uint_eq(seqset_add(&s, 200, 300), 0); /* a hole */
	ck_assert_uint_eq(s.n, 2);
	ck_assert_uint_eq(seqset_add(&s, 100, 200), 0); /* fills it */
	ck_assert_uint_eq(s.n, 1);
	ck_assert_uint_eq(seqset_bytes(&s), 300);
	ck_assert_uint_eq(seqset_add(&s, 250, 350), 50); /* half repeated */
	ck_assert_uint_eq(seqset_add(&s, 500, 600), 0);
	ck_assert_uint_eq(seqset_add(&s, 700, 800), 0);
	ck_assert_uint_eq(seqset_add(&s, 0, 1000), 350 + 100 + 100); /* spans all */
	ck_assert_uint_eq(s.n, 1);
	ck_assert_uint_eq(s.iv[0][0], 0);
	ck_assert_uint_eq(s.iv[0][1], 1000);
	ck_assert_uint_eq(seqset_add(&s, 5, 5), 0);
	seqset_free(&s);
}
END_TEST

static struct pkt_tcp seg(int64_t ts, uint32_t seq, uint32_t ack, uint8_t flags,
			  uint32_t payload)
{
	return (struct pkt_tcp){ .ts = ts, .seq = seq, .ack = ack, .flags = flags,
				 .payload = payload };
}

/* Sequence numbers wrapping past 2^32 within a flow, a flow above 4 GB,
 * and a zero-byte flow (ended by the handshake's ACK). */
START_TEST(tcpconn_wrap_and_large)
{
	struct tcpconn c;
	struct pkt_tcp p;
	uint64_t big = 6ULL << 30, off;
	uint32_t isn = 0xfffff000u;

	tcpconn_init(&c, 10000);
	p = seg(1, 7, 0, TCPF_SYN, 0);
	tcpconn_packet(&c, &p, true);
	p = seg(2, isn, 8, TCPF_SYN | TCPF_ACK, 0);
	tcpconn_packet(&c, &p, false);
	p = seg(3, isn + 1, 8, TCPF_ACK, 5000);
	tcpconn_packet(&c, &p, false);
	p = seg(4, isn + 1 + 5000, 8, TCPF_ACK, 5000); /* wraps */
	tcpconn_packet(&c, &p, false);
	p = seg(5, isn + 1 + 5000, 8, TCPF_ACK, 5000); /* again */
	tcpconn_packet(&c, &p, false);
	p = seg(6, 8, isn + 1 + 9999, TCPF_ACK, 0);
	tcpconn_packet(&c, &p, true);
	ck_assert_int_eq(c.end_ns, -1); /* one byte short */
	p = seg(7, 8, isn + 1 + 10000, TCPF_ACK, 0);
	tcpconn_packet(&c, &p, true);
	ck_assert_int_eq(c.end_ns, 7);
	ck_assert_int_eq(c.data_ns, 3); /* its first data byte */
	ck_assert_uint_eq(c.retrans_bytes, 5000);
	ck_assert_uint_eq(c.data_bytes, 10000);
	tcpconn_free(&c);

	tcpconn_init(&c, big);
	p = seg(10, 7, 0, TCPF_SYN, 0);
	tcpconn_packet(&c, &p, true);
	p = seg(11, 100, 8, TCPF_SYN | TCPF_ACK, 0);
	tcpconn_packet(&c, &p, false);
	for (off = 0; off < big; off += 1u << 20) {
		p = seg(12, (uint32_t)(101 + off), 8, TCPF_ACK, 1u << 20);
		tcpconn_packet(&c, &p, false);
		p = seg(13, 8, (uint32_t)(101 + off + (1u << 20)), TCPF_ACK, 0);
		tcpconn_packet(&c, &p, true);
		/* an ack of 4 GB less must not end it early */
		ck_assert_msg(c.end_ns < 0 || off + (1u << 20) >= big, "ended at %llu",
			      (unsigned long long)off);
	}
	ck_assert_int_eq(c.end_ns, 13);
	ck_assert_uint_eq(c.data_bytes, big);
	ck_assert_uint_eq(c.retrans_bytes, 0);
	tcpconn_free(&c);

	tcpconn_init(&c, 0);
	p = seg(20, 7, 0, TCPF_SYN, 0);
	tcpconn_packet(&c, &p, true);
	p = seg(21, 100, 8, TCPF_SYN | TCPF_ACK, 0);
	tcpconn_packet(&c, &p, false);
	p = seg(22, 8, 101, TCPF_ACK, 0);
	tcpconn_packet(&c, &p, true);
	ck_assert_int_eq(c.end_ns, 22);
	ck_assert_int_eq(c.data_ns, -1); /* no data byte */
	/* a retransmitted SYN is the same instance, a new ISN is not */
	p = seg(23, 7, 0, TCPF_SYN, 0);
	ck_assert(!tcpconn_is_new_syn(&c, &p, true));
	p = seg(23, 9, 0, TCPF_SYN, 0);
	ck_assert(tcpconn_is_new_syn(&c, &p, true));
	ck_assert(!tcpconn_is_new_syn(&c, &p, false));
	tcpconn_free(&c);
}
END_TEST

/* A write: the client's request is not data, so its first data byte is
 * the first payload past the request (here in the same segment), and the
 * server's payload (none should come) is not the sender's. */
START_TEST(tcpconn_first_byte_write)
{
	struct tcpconn c;
	struct pkt_tcp p;

	tcpconn_init_write(&c, 40, 3000);
	p = seg(1, 7, 0, TCPF_SYN, 0);
	tcpconn_packet(&c, &p, true);
	p = seg(2, 100, 8, TCPF_SYN | TCPF_ACK, 0);
	tcpconn_packet(&c, &p, false);
	p = seg(3, 8, 101, TCPF_ACK | TCPF_PSH, 30); /* request, part of it */
	tcpconn_packet(&c, &p, true);
	ck_assert_int_eq(c.data_ns, -1);
	p = seg(4, 101, 38, TCPF_ACK, 0);
	tcpconn_packet(&c, &p, false);
	p = seg(5, 38, 101, TCPF_ACK, 1000); /* the request's last 10, then data */
	tcpconn_packet(&c, &p, true);
	ck_assert_int_eq(c.data_ns, 5);
	p = seg(6, 1038, 101, TCPF_ACK, 1000);
	tcpconn_packet(&c, &p, true);
	ck_assert_int_eq(c.data_ns, 5);
	ck_assert_uint_eq(c.data_bytes, 1990);
	tcpconn_free(&c);
}
END_TEST

START_TEST(decode_headers)
{
	uint8_t f[128];
	struct pkt_tcp p;

	memset(f, 0, sizeof(f));
	/* 802.1Q-tagged IPv4/TCP, IHL 6 (options), doff 5 */
	f[12] = 0x81, f[13] = 0x00, f[16] = 0x08, f[17] = 0x00;
	f[18] = 0x46;
	f[20] = 0x05, f[21] = 0xdc; /* 1500 */
	f[27] = 6;
	f[30] = 10, f[33] = 1, f[34] = 10, f[37] = 2;
	f[42] = 0x9c, f[43] = 0x40, f[44] = 0x34, f[45] = 0x3a; /* 40000 -> 13370 */
	f[54] = 0x50, f[55] = TCPF_ACK;
	ck_assert_int_eq(pkt_decode(f, 96, 1518, 5, &p), PKT_TCP);
	ck_assert_uint_eq(p.payload, 1500 - 24 - 20);
	ck_assert_uint_eq(p.saddr, 0x0a000001);
	ck_assert_uint_eq(p.daddr, 0x0a000002);
	ck_assert_uint_eq(p.sport, 40000);
	ck_assert_uint_eq(p.dport, 13370);
	ck_assert_int_eq(p.ts, 5);
	/* headers cut by the snaplen */
	ck_assert_int_eq(pkt_decode(f, 50, 1518, 5, &p), PKT_SHORT);
	/* IHL below 5 */
	f[18] = 0x44;
	ck_assert_int_eq(pkt_decode(f, 96, 1518, 5, &p), PKT_BAD);
	/* IPv6, ARP: not ours */
	f[16] = 0x86, f[17] = 0xdd;
	ck_assert_int_eq(pkt_decode(f, 96, 1518, 5, &p), PKT_OTHER);
	f[12] = 0x08, f[13] = 0x06;
	ck_assert_int_eq(pkt_decode(f, 96, 1518, 5, &p), PKT_OTHER);
}
END_TEST

START_TEST(tuplemap_matches_reference)
{
	enum { N = 5000 };
	static struct tuple keys[N];
	static bool present[N];
	struct tuplemap m;
	unsigned i, step, x = 12345;

	tuplemap_init(&m);
	for (i = 0; i < N; i++)
		keys[i] = (struct tuple){ 0x0a000000 + i % 97, 0x0a100000 + i / 97,
					  (uint16_t)(i * 7), 13562 };
	for (step = 0; step < 200000; step++) {
		x = x * 1103515245u + 12345u;
		i = (x >> 8) % N;
		if ((x >> 4) & 1) {
			tuplemap_put(&m, &keys[i], &keys[i]);
			present[i] = true;
		} else {
			void *v = tuplemap_del(&m, &keys[i]);

			ck_assert(present[i] ? v == &keys[i] : v == NULL);
			present[i] = false;
		}
		if (step % 20000 == 0) {
			unsigned k, n = 0;

			for (k = 0; k < N; k++) {
				ck_assert(present[k] ? tuplemap_get(&m, &keys[k]) == &keys[k] :
						       tuplemap_get(&m, &keys[k]) == NULL);
				n += present[k];
			}
			ck_assert_uint_eq(m.n, n);
		}
	}
	tuplemap_free(&m);
}
END_TEST

START_TEST(capfile_nanoseconds)
{
	char *d = make_tmpdir(), path[4096], errbuf[HYDE_ERRBUF_SIZE];
	struct fx_seg s = { 1, 2, 3, 4, 5, 6, TCPF_ACK, 1448 };
	struct fx_pcap *f;
	struct capfile *c;
	enum pkt_kind k;
	struct pkt_tcp p;
	uint32_t wl;

	snprintf(path, sizeof(path), "%s/x.pcap", d);
	f = fx_pcap_open(path, 1 /* DLT_EN10MB */);
	fx_tcp(f, 1700000000123456789LL, &s);
	fx_pcap_close(f);
	ck_assert_int_eq(capfile_open(path, &c, errbuf), 0);
	ck_assert_int_eq(capfile_next(c, &p, &k, &wl, errbuf), 1);
	ck_assert_int_eq(k, PKT_TCP);
	ck_assert_int_eq(p.ts, 1700000000123456789LL);
	ck_assert_uint_eq(p.payload, 1448);
	ck_assert_uint_eq(wl, 14 + 20 + 32 + 1448);
	ck_assert_int_eq(capfile_next(c, &p, &k, &wl, errbuf), 0);
	capfile_close(c);
	rm_rf(d);
}
END_TEST

/* Bars normalised to a baseline series, as hyde compare plots schedulers
 * against Fair; a group whose baseline is missing stays empty. */
START_TEST(plot_bars_normalised)
{
	static const char *const groups[] = { "makespan", "avg \"JCT\"", "avg CCT" };
	static const char *const series[] = { "fair", "coscheduler" };
	const double v[] = { 100, 50, 20, 5, 0, 3 };
	struct plot_bars b = { "t", "normalised to fair", groups, 3, series, 2, v, 0, NULL, 0 };
	char *buf = NULL, *d = make_tmpdir(), png[4096], errbuf[HYDE_ERRBUF_SIZE];
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	const char *path = getenv("PATH");
	char *saved = path ? strdup(path) : NULL;

	plot_bars_script(fp, "x.png", &b);
	fclose(fp);
	ck_assert_ptr_nonnull(strstr(buf, "\n\"makespan\" 1 0.5\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\n\"avg 'JCT'\" 1 0.25\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\n\"avg CCT\" NaN NaN\n"));
	ck_assert_ptr_nonnull(strstr(buf, "title 'coscheduler'"));
	free(buf);

	snprintf(png, sizeof(png), "%s/bars.png", d);
	if (plot_available()) {
		unsigned char sig[8] = { 0 };

		ck_assert_msg(plot_bars(png, &b, errbuf) == 0, "%s", errbuf);
		fp = fopen(png, "rb");
		ck_assert_ptr_nonnull(fp);
		ck_assert_int_eq(fread(sig, 1, 8, fp), 8);
		fclose(fp);
		ck_assert(!memcmp(sig, "\x89PNG", 4));
	}
	setenv("PATH", "/nonexistent", 1);
	ck_assert_int_eq(plot_bars(png, &b, errbuf), -ENOENT);
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
	assert_no_temporaries(d);
	rm_rf(d);
}
END_TEST

/* Error bars, as hyde compare --runs draws each metric's 95% interval:
 * every value carries its half-width, a missing one draws no whisker, and
 * gnuplot renders the script. */
START_TEST(plot_bars_errors)
{
	static const char *const groups[] = { "makespan", "avg JCT" };
	static const char *const series[] = { "fair", "coscheduler" };
	const double v[] = { 1, 0.5, 1, 0.25 };
	const double e[] = { 0, 0.125, NAN, 0.0625 };
	struct plot_bars b = { "t", "relative", groups, 2, series, 2, v, -1, e, 1 };
	char *buf = NULL, *d = make_tmpdir(), png[4096], errbuf[HYDE_ERRBUF_SIZE];
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	plot_bars_script(fp, "x.png", &b);
	fclose(fp);
	ck_assert_ptr_nonnull(strstr(buf, "set style histogram errorbars"));
	ck_assert_ptr_nonnull(strstr(buf, "\n\"makespan\" 1 0 0.5 0.125\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\n\"avg JCT\" 1 0 0.25 0.0625\n"));
	ck_assert_ptr_nonnull(strstr(buf, "using 2:3:xtic(1)"));
	ck_assert_ptr_nonnull(strstr(buf, "using 4:5 title 'coscheduler'"));
	ck_assert_ptr_nonnull(strstr(buf, "first 1 to graph 1, first 1 nohead"));
	free(buf);
	snprintf(png, sizeof(png), "%s/err.png", d);
	if (plot_available())
		ck_assert_msg(plot_bars(png, &b, errbuf) == 0, "%s", errbuf);
	assert_no_temporaries(d);
	rm_rf(d);
}
END_TEST

Suite *analyze_suite(void)
{
	Suite *s = suite_create("analyze");
	TCase *tc = tcase_create("golden");

	tcase_add_unchecked_fixture(tc, base_setup, base_teardown);

	tcase_add_test(tc, golden_run);
	tcase_add_test(tc, streaming_memory);
	tcase_add_loop_test(tc, bad_input, 0, (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tc, cli_exit_codes);
	tcase_add_test(tc, interrupted_run);
	tcase_add_test(tc, killed_before_any_flow);
	tcase_add_test(tc, killed_before_first_manifest_line);
	suite_add_tcase(s, tc);
	tc = tcase_create("pieces");
	tcase_add_unchecked_fixture(tc, base_setup, base_teardown);
	tcase_add_test(tc, seqset_ranges);
	tcase_add_test(tc, tcpconn_wrap_and_large);
	tcase_add_test(tc, tcpconn_first_byte_write);
	tcase_add_test(tc, decode_headers);
	tcase_add_test(tc, tuplemap_matches_reference);
	tcase_add_test(tc, capfile_nanoseconds);
	tcase_add_test(tc, plot_bars_normalised);
	tcase_add_test(tc, plot_bars_errors);
	suite_add_tcase(s, tc);
	return s;
}
