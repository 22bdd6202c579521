/* The parts of looking at a run that need no root: the pcapng writer (its
 * files read back by libpcap), the exported-PDU header Wireshark reads,
 * a run's logs on the captures' clock (src/inspect/runlog.h), windows,
 * the timeline's bins and circuit spans, and the live view's line and
 * state file. tests/inspect.sh drives them on a real run with tshark. */
#include "config.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/timeline.h"
#include "analyze_fixture.h"
#include "check_hyde.h"
#include "pcap_fixture.h"
#include "core/rundir.h"
#include "core/util.h"
#include "ctl/live.h"
#include "inspect/pcapng.h"
#include "inspect/runlog.h"
#include "inspect/runpcap.h"

/* ---- pcapng ---- */

START_TEST(pcapng_read_back)
{
	char path[] = "/tmp/hyde-pcapng-XXXXXX";
	char perr[PCAP_ERRBUF_SIZE];
	uint8_t frame[60];
	struct pcapng_writer w;
	struct pcap_pkthdr *h;
	const u_char *data;
	struct pcapng_if ifc = { .linktype = PCAPNG_LINKTYPE_ETHERNET, .snaplen = 128,
				 .name = "tor3-up", .descr = "node tor3, port up, 40Mbit",
				 .speed_bps = 40000000, .comment = "odd length: 7" };
	int fd = mkstemp(path), i;
	FILE *fp = fdopen(fd, "w");
	pcap_t *p;

	ck_assert_ptr_nonnull(fp);
	for (i = 0; i < (int)sizeof(frame); i++)
		frame[i] = (uint8_t)i;
	pcapng_begin(&w, fp, "hyde test", "a section comment of 29 bytes");
	ck_assert_uint_eq(pcapng_add_if(&w, &ifc), 0);
	/* lengths that need padding (57, 1), comments of every length mod 4 */
	pcapng_packet(&w, 0, 1700000000123456789LL, frame, 57, 1514, PCAPNG_DIR_IN, "c");
	pcapng_packet(&w, 0, 1700000000123456790LL, frame, 1, 1, PCAPNG_DIR_OUT, "co");
	pcapng_packet(&w, 0, 1700000001000000000LL, frame, 60, 60, PCAPNG_DIR_UNKNOWN, NULL);
	pcapng_packet(&w, 0, 1700000002000000001LL, frame, 4, 4, PCAPNG_DIR_IN, "comm");
	ck_assert_int_eq(pcapng_error(&w), 0);
	ck_assert_uint_eq(w.packets, 4);
	ck_assert_int_eq(fclose(fp), 0);

	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, perr);
	ck_assert_msg(p != NULL, "libpcap: %s", perr);
	ck_assert_int_eq(pcap_datalink(p), DLT_EN10MB);
	ck_assert_int_eq(pcap_snapshot(p), 128);
	ck_assert_int_eq(pcap_next_ex(p, &h, &data), 1);
	ck_assert_int_eq(h->ts.tv_sec, 1700000000);
	ck_assert_int_eq(h->ts.tv_usec, 123456789); /* ns: tsresol 9 */
	ck_assert_uint_eq(h->caplen, 57);
	ck_assert_uint_eq(h->len, 1514);
	ck_assert_int_eq(memcmp(data, frame, 57), 0);
	ck_assert_int_eq(pcap_next_ex(p, &h, &data), 1);
	ck_assert_uint_eq(h->caplen, 1);
	ck_assert_int_eq(h->ts.tv_usec, 123456790);
	ck_assert_int_eq(pcap_next_ex(p, &h, &data), 1);
	ck_assert_uint_eq(h->caplen, 60);
	ck_assert_int_eq(memcmp(data, frame, 60), 0);
	ck_assert_int_eq(pcap_next_ex(p, &h, &data), 1);
	ck_assert_int_eq(h->ts.tv_sec, 1700000002);
	ck_assert_int_eq(h->ts.tv_usec, 1);
	ck_assert_int_eq(pcap_next_ex(p, &h, &data), PCAP_ERROR_BREAK);
	pcap_close(p);
	unlink(path);
}
END_TEST

START_TEST(exported_pdu_header)
{
	uint8_t b[64];
	/* dissector name, NUL-padded to 4; P2P direction 1 (received),
	 * big-endian; end of options */
	static const uint8_t want[] = {
		0, 12, 0, 12, 'h', 'y', 'd', 'e', '_', 'o', 'c', 's', 'x', 0, 0, 0,
		0, 35, 0, 4, 0, 0, 0, 1,
		0, 0, 0, 0,
	};
	size_t n = pcapng_exported_pdu_header(b, sizeof(b), "hyde_ocsx", EXP_PDU_P2P_RECV);

	ck_assert_uint_eq(n, sizeof(want));
	ck_assert_int_eq(memcmp(b, want, n), 0);
	/* no direction: no tag */
	ck_assert_uint_eq(pcapng_exported_pdu_header(b, sizeof(b), "hyde", -1), 4 + 4 + 4);
	/* too small a buffer: 0, never an overrun */
	ck_assert_uint_eq(pcapng_exported_pdu_header(b, 10, "hyde_ocs", 0), 0);
}
END_TEST

/* hyde pcap on the golden run directory, with one more capture whose
 * frames are out of time order, as a ToR's sent and received frames are
 * stamped on different paths of the kernel: written in time order, and a
 * frame beyond the reorder horizon (100 ms) counted. */
START_TEST(runpcap_time_order)
{
	char dir[] = "/tmp/hyde-runpcap-XXXXXX", *p, *out;
	/* 250 comes after 520 was read, more than 100 ms before it: 400 is
	 * out already */
	static const int64_t ts[] = { 10, 5, 30, 20, 400, 520, 250, 530 };
	struct runpcap_opts o = { .from = INT64_MIN, .to = INT64_MAX };
	struct runpcap_result res;
	char err[HYDE_ERRBUF_SIZE], perr[PCAP_ERRBUF_SIZE];
	struct runpcap *rp;
	struct fx_pcap *f;
	struct pcap_pkthdr *h;
	const u_char *data;
	int64_t prev = 0, t;
	uint64_t n = 0, back = 0;
	size_t i;
	pcap_t *pc;
	FILE *fp;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(fixture_write_run(dir, FX_GOOD), 0);
	p = xasprintf("%s/pcap/tor1-x.pcap", dir);
	f = fx_pcap_open(p, DLT_EN10MB);
	ck_assert_ptr_nonnull(f);
	for (i = 0; i < ARRAY_SIZE(ts); i++)
		fx_arp(f, FX_B + ts[i] * NSEC_PER_MSEC);
	ck_assert_int_eq(fx_pcap_close(f), 0);
	free(p);
	ck_assert_msg(runpcap_open(dir, &o, &rp, err) == 0, "%s", err);
	out = xasprintf("%s/run.pcapng", dir);
	fp = fopen(out, "w");
	ck_assert_msg(runpcap_write(rp, fp, &res, err) == 0, "%s", err);
	ck_assert_int_eq(fclose(fp), 0);
	runpcap_free(rp);
	ck_assert_uint_eq(res.late, 1);
	ck_assert_uint_eq(res.interfaces, 9);
	/* every interface is Ethernet here (no OCS log): libpcap reads it */
	pc = pcap_open_offline_with_tstamp_precision(out, PCAP_TSTAMP_PRECISION_NANO, perr);
	ck_assert_msg(pc != NULL, "%s", perr);
	while (pcap_next_ex(pc, &h, &data) == 1) {
		t = (int64_t)h->ts.tv_sec * NSEC_PER_SEC + h->ts.tv_usec;
		back += t < prev;
		prev = t;
		n++;
	}
	pcap_close(pc);
	ck_assert_uint_eq(n, res.packets);
	ck_assert_uint_eq(n, res.packets_in);
	/* only the late one is out of order */
	ck_assert_uint_eq(back, 1);
	p = xasprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(p), 0);
	free(p);
	free(out);
}
END_TEST

/* ---- windows ---- */

static const struct {
	const char *s;
	int ok;
	int64_t from, to;
} win_cases[] = {
	{ "10s-25s", 1, 10 * NSEC_PER_SEC, 25 * NSEC_PER_SEC },
	{ "1min-", 1, 60 * NSEC_PER_SEC, INT64_MAX },
	{ "-1500ms", 1, INT64_MIN, 1500 * NSEC_PER_MSEC },
	{ "0s-1ns", 1, 0, 1 },
	{ "2s-1s", 0, 0, 0 },	/* empty */
	{ "2s-2s", 0, 0, 0 },
	{ "-", 0, 0, 0 },
	{ "10-20", 0, 0, 0 },	/* no units */
	{ "10s", 0, 0, 0 },	/* no dash */
	{ "1s-2s-3s", 0, 0, 0 },
	{ "", 0, 0, 0 },
};

START_TEST(window_table)
{
	int64_t from = 7, to = 7;
	int r = runlog_parse_window(win_cases[_i].s, &from, &to);

	if (!win_cases[_i].ok) {
		ck_assert_msg(r == -EINVAL, "'%s' accepted", win_cases[_i].s);
		return;
	}
	ck_assert_msg(r == 0, "'%s' refused", win_cases[_i].s);
	ck_assert_int_eq(from, win_cases[_i].from);
	ck_assert_int_eq(to, win_cases[_i].to);
}
END_TEST

/* ---- a run's logs ---- */

static char *mkrun(const char *events, const char *control, const char *ocs_events)
{
	char *dir = xstrdup("/tmp/hyde-runlog-XXXXXX"), *p;
	FILE *fp;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	p = xasprintf("%s/%s", dir, RUNDIR_EVENTS);
	fp = fopen(p, "w");
	fputs(events, fp);
	fclose(fp);
	free(p);
	if (control) {
		p = xasprintf("%s/%s", dir, RUNDIR_OCS_CONTROL);
		fp = fopen(p, "w");
		fputs(control, fp);
		fclose(fp);
		free(p);
	}
	if (ocs_events) {
		p = xasprintf("%s/%s", dir, RUNDIR_OCS_EVENTS);
		fp = fopen(p, "w");
		fputs(ocs_events, fp);
		fclose(fp);
		free(p);
	}
	return dir;
}

static void rmrun(char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);

	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(dir);
}

static const char events_log[] =
	"1000 run_start emul fair sunflow\n"
	"1001 job_arrive a\n"
	"1002 job_arrive b\n"
	"2000 task_start a map 0 r0h0\n"
	"2500 task_start a map 1 r0h1\n"
	"3000 task_done a map 0\n"
	"3600 task_done a map 1\n"
	"3700 task_start a reduce 0 r1h0\n"
	"3800 circuit_down 2 3\n"
	"3800 circuit_up 0 1\n" /* heard 310 after the crossbar's up at 3490 */
	"3900 flow_start 0 a 0 ocs 500\n"
	"3950 flow_start 1 a 0 eps 100 input\n" /* not a shuffle flow */
	"4400 flow_done 0\n"
	"4500 flow_done 1\n"
	"4600 task_done a reduce 0\n"
	"4700 job_done a\n"
	"garbage line\n"
	"4800 run_end ok\n";

START_TEST(runlog_phases_and_clock)
{
	/* the crossbar: mono = real - 500 */
	char *dir = mkrun(events_log,
			  "1100 watch > watch\n"
			  "1110 watch < ok watching now=600\n"
			  "1120 ctl > time\n"
			  "1130 ctl < ok mono=625 real=1125\n"
			  "2900 ctl > set 0>1\n"
			  "2910 ctl < ok t=2405 down=0 cancelled=0 up=1 ready=2415 stalled=0,1\n",
			  "up 0 1 2990\n");
	struct runlog *rl;
	char err[HYDE_ERRBUF_SIZE];

	ck_assert_int_eq(runlog_load(dir, &rl, err), 0);
	ck_assert_int_eq(rl->t0, 1000);
	ck_assert_int_eq(rl->t_end, 4800);
	ck_assert_uint_eq(rl->n_jobs, 2);
	ck_assert_str_eq(rl->jobs[0].id, "a");
	ck_assert_int_eq(rl->jobs[0].map_start, 2000);
	ck_assert_int_eq(rl->jobs[0].map_end, 3600);
	ck_assert_int_eq(rl->jobs[0].reduce_start, 3700);
	ck_assert_int_eq(rl->jobs[0].reduce_end, 4600);
	/* the input flow's end is not the shuffle's */
	ck_assert_int_eq(rl->jobs[0].shuffle_start, 3900);
	ck_assert_int_eq(rl->jobs[0].shuffle_end, 4400);
	ck_assert_int_eq(rl->jobs[0].done, 4700);
	ck_assert_int_eq(rl->jobs[1].map_start, -1);
	/* the "time" exchange places the crossbar's up: 2990 + 500 */
	ck_assert_str_eq(rl->ocs_clock_how, "time");
	ck_assert_int_eq(rl->ocs_clock_off, 500);
	ck_assert(rl->circ_from_ocs);
	ck_assert_uint_eq(rl->n_circ, 1);
	ck_assert_int_eq(rl->circ[0].t, 3490);
	ck_assert(rl->circ[0].up);
	/* 6 conversation lines and the event, in time order */
	ck_assert_uint_eq(rl->n_ocs, 7);
	ck_assert_int_eq(rl->ocs[4].kind, RL_OCS_REQUEST);
	ck_assert_str_eq(rl->ocs[4].text, "set 0>1");
	ck_assert_int_eq(rl->ocs[6].kind, RL_OCS_EVENT);
	ck_assert_str_eq(rl->ocs[6].text, "up 0 1 2990");
	ck_assert_int_eq(rl->ocs[6].t, 3490);
	runlog_free(rl);
	rmrun(dir);
}
END_TEST

START_TEST(runlog_clock_from_ups)
{
	/* no "time" exchange: the smallest (heard - happened) over the ups;
	 * the controller heard 0 1 up 310 after the crossbar's time for it,
	 * 2 3 up 100 after */
	char *dir = mkrun("1000 run_start emul fair sunflow\n3800 circuit_up 0 1\n"
			  "5000 circuit_up 2 3\n",
			  NULL, "up 0 1 3490\ndown 0 1 4000\nup 2 3 4900\n");
	struct runlog *rl;
	char err[HYDE_ERRBUF_SIZE];

	ck_assert_int_eq(runlog_load(dir, &rl, err), 0);
	ck_assert_str_eq(rl->ocs_clock_how, "circuit_up");
	ck_assert_int_eq(rl->ocs_clock_off, 100);
	ck_assert_int_eq(rl->circ[0].t, 3590);
	ck_assert_int_eq(rl->circ[1].t, 4100);
	ck_assert(!rl->circ[1].up);
	ck_assert_int_eq(rl->circ[2].t, 5000);
	runlog_free(rl);
	rmrun(dir);

	/* events with nothing to place them: left out, and counted; the
	 * controller's own circuit lines stand in */
	dir = mkrun("1000 run_start emul fair sunflow\n3000 circuit_down 2 3\n", NULL,
		    "up 0 1 3490\n");
	ck_assert_int_eq(runlog_load(dir, &rl, err), 0);
	ck_assert_ptr_null(rl->ocs_clock_how);
	ck_assert_uint_eq(rl->ocs_events_unplaced, 1);
	ck_assert(!rl->circ_from_ocs);
	ck_assert_uint_eq(rl->n_circ, 1);
	ck_assert_uint_eq(rl->circ[0].src, 2);
	ck_assert_uint_eq(rl->n_ocs, 0);
	runlog_free(rl);
	rmrun(dir);
}
END_TEST

START_TEST(runlog_no_events)
{
	struct runlog *rl;
	char err[HYDE_ERRBUF_SIZE];

	/* no events.log: no start, no jobs, not an error (a run directory
	 * made by hand); one that cannot be read is */
	ck_assert_int_eq(runlog_load("/nonexistent-hyde-run", &rl, err), 0);
	ck_assert_int_eq(rl->t0, -1);
	ck_assert_uint_eq(rl->n_jobs, 0);
	runlog_free(rl);
	ck_assert_int_eq(runlog_load("/proc/self/fdinfo/0/x", &rl, err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "events.log"));
}
END_TEST

/* ---- the timeline ---- */

static const struct {
	int64_t w, bin;
} bin_cases[] = {
	{ 10 * NSEC_PER_MSEC, NSEC_PER_MSEC },	  /* never below 1 ms */
	{ 400 * NSEC_PER_MSEC, NSEC_PER_MSEC },
	{ 401 * NSEC_PER_MSEC, 2 * NSEC_PER_MSEC },
	{ 2 * NSEC_PER_SEC, 5 * NSEC_PER_MSEC },
	{ 180 * NSEC_PER_SEC, 500 * NSEC_PER_MSEC }, /* a rack8 run: 360 bins */
	{ 3600 * NSEC_PER_SEC, 10 * NSEC_PER_SEC },
};

START_TEST(bin_width_table)
{
	int64_t b = timeline_bin_width(bin_cases[_i].w);

	ck_assert_int_eq(b, bin_cases[_i].bin);
	ck_assert(bin_cases[_i].w / b <= 400);
}
END_TEST

START_TEST(timeline_spans)
{
	/* rack 0 sends to rack 1 from the crossbar's up to its down; the
	 * stall is the delta before the up, on both ports; a circuit still
	 * up at the end lasts to the window's end */
	char *dir = mkrun("1000 run_start emul fair sunflow\n"
			  "20000000 task_start a map 0 r0h0\n"
			  "30000000 task_done a map 0\n"
			  "90000000 run_end ok\n",
			  "1100 ctl < ok mono=100 real=1100\n",
			  "up 0 1 40000000\ndown 0 1 60000000\nup 1 0 70000000\n");
	struct topo *t;
	struct timeline *tl;
	char err[HYDE_ERRBUF_SIZE];
	char *tp = xasprintf("%s", test_srcpath("topologies/tiny.topo"));

	ck_assert_int_eq(topo_load(tp, &t, err), 0);
	ck_assert_int_eq(timeline_build(dir, t, INT64_MIN, INT64_MAX, &tl, err), 0);
	ck_assert_int_eq(tl->from, 1000);
	ck_assert_int_eq(tl->to, 90000000);
	ck_assert_uint_eq(tl->rack[0].n_out, 1);
	ck_assert_int_eq(tl->rack[0].circ_out[0].a, 40001000);
	ck_assert_int_eq(tl->rack[0].circ_out[0].b, 60001000);
	ck_assert_uint_eq(tl->rack[0].circ_out[0].peer, 1);
	ck_assert_uint_eq(tl->rack[1].n_in, 1);
	ck_assert_uint_eq(tl->rack[1].circ_in[0].peer, 0);
	ck_assert_uint_eq(tl->rack[1].n_out, 1);
	ck_assert_int_eq(tl->rack[1].circ_out[0].b, 90000000); /* still up */
	ck_assert_uint_eq(tl->rack[0].n_stall, 2);
	ck_assert_int_eq(tl->rack[0].stall[0].a, 40001000 - t->delta);
	ck_assert_int_eq(tl->rack[0].stall[0].b, 40001000);
	ck_assert_uint_eq(tl->n_jobs, 1);
	ck_assert_int_eq(tl->jobs[0].map[0], 20000000);
	ck_assert_int_eq(tl->jobs[0].shuffle[0], -1);
	timeline_free(tl);
	/* a window past the run's end holds nothing of it */
	ck_assert_int_eq(timeline_build(dir, t, 100 * NSEC_PER_SEC, INT64_MAX, &tl, err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--window"));
	topo_free(t);
	free(tp);
	rmrun(dir);
}
END_TEST

/* ---- the live view ---- */

START_TEST(live_line_and_file)
{
	struct live_status s = {
		.backend = "emul", .wall_ns = 83 * NSEC_PER_SEC + 4 * NSEC_PER_MSEC,
		.run_ns = 83200 * NSEC_PER_MSEC, .jobs = 30, .done = 12, .failed = 0,
		.eta_ns = 100 * NSEC_PER_SEC, .flows_eps = 3, .flows_ocs = 5, .flows_rack = 1,
		.circuits_up = 2, .circuits_set = 3, .has_ocs = true, .busiest = "tor3->core",
		.busiest_util = 0.9612, .busiest_bps = 40000000, .bytes_done = 123,
	};
	struct live_status back;
	char line[320], file[512];

	live_format(&s, line, sizeof(line));
	ck_assert_str_eq(line, "emul 1m23s t=83.2s  jobs 12/30 ETA 1m40s  flows EPS 3 OCS 5 rack 1  circuits 2/3 up  busiest tor3->core 96% of 40Mbit");
	live_serialize(&s, file, sizeof(file));
	ck_assert_int_eq(live_parse(file, &back), 0);
	live_format(&back, file, sizeof(file));
	ck_assert_str_eq(file, line);
	/* an idle fabric, no OCS, a failed job */
	memset(&s, 0, sizeof(s));
	snprintf(s.backend, sizeof(s.backend), "sim");
	s.jobs = 2;
	s.done = 1;
	s.failed = 1;
	s.final = true;
	live_format(&s, line, sizeof(line));
	ck_assert_str_eq(line, "sim 0.0s t=0.0s  jobs 1/2 (1 failed) ETA 0s  flows EPS 0 OCS 0  links idle");
	/* what is not a state line */
	ck_assert_int_eq(live_parse("garbage\n", &back), -EINVAL);
	ck_assert_int_eq(live_parse("wall_ns=5\n", &back), -EINVAL);
	/* unknown keys (a newer writer) are skipped */
	ck_assert_int_eq(live_parse("backend=emul jobs=3 newkey=1\n", &back), 0);
	ck_assert_uint_eq(back.jobs, 3);
}
END_TEST

static const struct {
	int64_t wall, run, last_arrival;
	int realtime;
	uint64_t jobs, done;
	int64_t eta;
} eta_cases[] = {
	{ 10, 10, 0, 1, 4, 0, -1 },		 /* nothing done, nothing to arrive */
	{ 10, 10, 100, 1, 4, 0, 90 },		 /* the last arrival is 90 away */
	{ 10, 10, 0, 1, 4, 1, 30 },		 /* 10 per job, 3 left */
	{ 10, 10, 100, 1, 4, 1, 90 },		 /* the larger */
	{ 10, 10, 100, 0, 4, 1, 30 },		 /* simulated time is not wall time */
	{ 10, 10, 100, 1, 4, 4, 0 },		 /* over */
};

START_TEST(eta_table)
{
	ck_assert_int_eq(live_eta(eta_cases[_i].wall, eta_cases[_i].run,
				  eta_cases[_i].last_arrival, eta_cases[_i].realtime,
				  eta_cases[_i].jobs, eta_cases[_i].done),
			 eta_cases[_i].eta);
}
END_TEST

Suite *inspect_suite(void)
{
	Suite *s = suite_create("inspect");
	TCase *tc = tcase_create("pcapng");

	tcase_add_test(tc, pcapng_read_back);
	tcase_add_test(tc, exported_pdu_header);
	tcase_add_test(tc, runpcap_time_order);
	suite_add_tcase(s, tc);
	tc = tcase_create("runlog");
	tcase_add_loop_test(tc, window_table, 0, ARRAY_SIZE(win_cases));
	tcase_add_test(tc, runlog_phases_and_clock);
	tcase_add_test(tc, runlog_clock_from_ups);
	tcase_add_test(tc, runlog_no_events);
	suite_add_tcase(s, tc);
	tc = tcase_create("timeline");
	tcase_add_loop_test(tc, bin_width_table, 0, ARRAY_SIZE(bin_cases));
	tcase_add_test(tc, timeline_spans);
	suite_add_tcase(s, tc);
	tc = tcase_create("live");
	tcase_add_test(tc, live_line_and_file);
	tcase_add_loop_test(tc, eta_table, 0, ARRAY_SIZE(eta_cases));
	suite_add_tcase(s, tc);
	return s;
}
