/* The crossbar's pure half: matchings, reconfiguration diffs, VOQ bounds,
 * wire accounting, ToR MACs and the control protocol's parser. */
#include "config.h"

#include <errno.h>
#include <linux/virtio_net.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_hyde.h"
#include "emul/ocs.h"

/* Parse a space-separated circuit list (a copy: the parser keeps
 * pointers into the words for its messages). */
static int parse_list(struct ocs_matching *m, unsigned ports, const char *list,
		      char *errbuf)
{
	static char buf[1024];
	char *w[64];
	int n;

	snprintf(buf, sizeof(buf), "%s", list);
	n = str_split_fields(buf, w, 64);
	return ocs_matching_parse(m, ports, w, n, errbuf);
}

static const struct {
	const char *in;
	int out[6]; /* out[i] for ports 0..5 */
	const char *fmt;
} match_ok[] = {
	{ "0-1", { 1, 0, -1, -1, -1, -1 }, "0-1" },
	{ "0-1 2-3", { 1, 0, 3, 2, -1, -1 }, "0-1 2-3" },
	{ "2>3", { -1, -1, 3, -1, -1, -1 }, "2>3" },
	{ "3>2 2>3", { -1, -1, 3, 2, -1, -1 }, "2-3" },
	/* a directed ring is a matching: one out and one in per port */
	{ "0>1 1>2 2>0", { 1, 2, 0, -1, -1, -1 }, "0>1 1>2 2>0" },
	{ "5-0 1>4 4>3", { 5, 4, -1, -1, 3, 0 }, "0-5 1>4 4>3" },
	{ "none", { -1, -1, -1, -1, -1, -1 }, "none" },
	{ "01-2", { -1, 2, 1, -1, -1, -1 }, "1-2" },
};

START_TEST(matching_ok)
{
	char errbuf[HYDE_ERRBUF_SIZE], fmt[256];
	struct ocs_matching m;
	unsigned i;

	ck_assert_msg(parse_list(&m, 6, match_ok[_i].in, errbuf) == 0, "%s: %s",
		      match_ok[_i].in, errbuf);
	for (i = 0; i < 6; i++)
		ck_assert_int_eq(m.out[i], match_ok[_i].out[i]);
	ck_assert_str_eq(ocs_matching_format(&m, fmt, sizeof(fmt)), match_ok[_i].fmt);
}
END_TEST

static const struct {
	const char *in;
	const char *why; /* a part of the message */
} match_bad[] = {
	{ "0-1 0-2", "'0-1' and '0-2' both leave port 0: not a matching" },
	{ "1>2 3>2", "'1>2' and '3>2' both enter port 2: not a matching" },
	{ "0-1 2>1", "both enter port 1" },
	{ "0>1 0>2", "both leave port 0" },
	{ "0-1 1>0", "circuit 1>0 given twice" },
	{ "0-1 0-1", "circuit 0>1 given twice" },
	{ "3-3", "'3-3': a port cannot have a circuit to itself" },
	{ "0-6", "'0-6': port 6 does not exist (ports 0..5)" },
	{ "9>1", "port 9 does not exist" },
	{ "", "expected circuits I-J" },
	{ "a-b", "'a-b': expected circuits I-J" },
	{ "0--1", "expected circuits" },
	{ "-1-2", "expected circuits" },
	{ "0-1-2", "expected circuits" },
	{ "0-", "expected circuits" },
	{ "0", "expected circuits" },
	{ "0x1-2", "expected circuits" },
	{ "+1-2", "expected circuits" },
	{ "1e0-2", "expected circuits" },
	{ "000001-2", "expected circuits" },
	{ "none 0-1", "'none': expected circuits" },
	{ "0-1 none", "'none': expected circuits" },
	{ "0<1", "expected circuits" },
};

START_TEST(matching_bad)
{
	char errbuf[HYDE_ERRBUF_SIZE] = "";
	struct ocs_matching m;
	unsigned i;

	ck_assert_int_eq(parse_list(&m, 6, match_bad[_i].in, errbuf), -EINVAL);
	ck_assert_msg(strstr(errbuf, match_bad[_i].why), "'%s': got '%s', expected '%s'",
		      match_bad[_i].in, errbuf, match_bad[_i].why);
	/* nothing half-parsed is left */
	for (i = 0; i < OCS_MAX_PORTS; i++)
		ck_assert_int_eq(m.out[i], -1);
}
END_TEST

/* Which ports stall when going from one configuration to another. */
static const struct {
	const char *from, *to;
	const char *down, *up; /* circuits as "I>J ..." */
	const char *stall;     /* ports, "0 3" */
} diffs[] = {
	/* the test: r2 <-> r3 becomes r2 <-> r4; r0 <-> r1 untouched */
	{ "0-1 2-3", "0-1 2-4", "2>3 3>2", "2>4 4>2", "2 3 4" },
	{ "none", "0-1", "", "0>1 1>0", "0 1" },
	{ "0-1", "none", "0>1 1>0", "", "0 1" },
	{ "0-1 2-3", "0-1 2-3", "", "", "" },
	{ "0-1 2-3", "3-2 1-0", "", "", "" },
	/* adding the reverse of a circuit stalls both of its ports, but
	 * the circuit that stays (0>1) does not pause */
	{ "0>1", "0-1", "", "1>0", "0 1" },
	{ "0-1", "0>1", "1>0", "", "0 1" },
	{ "0>1 1>2 2>0", "0>2 2>1 1>0", "0>1 1>2 2>0", "0>2 1>0 2>1", "0 1 2" },
	{ "0-1 2-3 4-5", "0-2 1-3 4-5", "0>1 1>0 2>3 3>2", "0>2 1>3 2>0 3>1", "0 1 2 3" },
	{ "0>1", "2>1", "0>1", "2>1", "0 1 2" },
};

static void expect_circuits(const int *arr, const char *want)
{
	char got[256] = "";
	size_t off = 0;
	unsigned i;

	for (i = 0; i < OCS_MAX_PORTS; i++)
		if (arr[i] >= 0)
			off += (size_t)snprintf(got + off, sizeof(got) - off, "%s%u>%d",
						off ? " " : "", i, arr[i]);
	ck_assert_str_eq(got, want);
}

START_TEST(diff_ports)
{
	char errbuf[HYDE_ERRBUF_SIZE], got[64] = "";
	struct ocs_matching a, b;
	struct ocs_diff d;
	size_t off = 0;
	unsigned i, n = 0;

	ck_assert_int_eq(parse_list(&a, 6, diffs[_i].from, errbuf), 0);
	ck_assert_int_eq(parse_list(&b, 6, diffs[_i].to, errbuf), 0);
	ocs_matching_diff(&a, &b, &d);
	expect_circuits(d.down, diffs[_i].down);
	expect_circuits(d.up, diffs[_i].up);
	for (i = 0; i < OCS_MAX_PORTS; i++)
		if (d.stall[i]) {
			off += (size_t)snprintf(got + off, sizeof(got) - off, "%s%u", off ? " " : "", i);
			n++;
		}
	ck_assert_str_eq(got, diffs[_i].stall);
	ck_assert_uint_eq(d.n_stall, n);
}
END_TEST

START_TEST(voq_bound)
{
	unsigned char vnet[OCS_VNET_LEN] = { 0 }, frame[1500];
	struct ocs_voq q;
	struct ocs_frame *f;
	unsigned k;

	memset(&q, 0, sizeof(q));
	/* 1042-byte frames (1000 B of UDP payload) into a 100 KB bound: 95
	 * fit (98990 bytes), the 96th would make 100032 > 100000. */
	for (k = 0; k < 200; k++) {
		frame[0] = (unsigned char)k;
		ocs_voq_push(&q, 100000, vnet, frame, 1042, 1042);
	}
	ck_assert_uint_eq(q.frames, 95);
	ck_assert_uint_eq(q.bytes, 95 * 1042);
	ck_assert_uint_eq(q.dropped_frames, 105);
	ck_assert_uint_eq(q.dropped_bytes, 105 * 1042);
	ck_assert_uint_eq(q.peak_bytes, 95 * 1042);
	/* exactly at the bound is accepted */
	ck_assert_int_eq(ocs_voq_push(&q, 98990 + 100, vnet, frame, 100, 100), 0);
	ck_assert_int_eq(ocs_voq_push(&q, 98990 + 100, vnet, frame, 1, 1), -ENOBUFS);
	/* FIFO: the first 95 come out in order */
	for (k = 0; k < 95; k++) {
		f = ocs_voq_pop(&q);
		ck_assert_ptr_nonnull(f);
		ck_assert_uint_eq(f->buf[OCS_VNET_LEN], k);
		ck_assert_uint_eq(f->len, 1042);
		free(f);
	}
	ck_assert_uint_eq(q.bytes, 100);
	/* the peak stays what it was once the queue drains */
	ck_assert_uint_eq(q.peak_bytes, 98990 + 100);
	ocs_voq_clear(&q);
	ck_assert_uint_eq(q.frames, 0);
	ck_assert_uint_eq(q.bytes, 0);
	ck_assert_ptr_null(ocs_voq_pop(&q));
	ck_assert_ptr_null(q.tail);
	/* a frame larger than the whole bound never fits */
	ck_assert_int_eq(ocs_voq_push(&q, 1000, vnet, frame, 1001, 1001), -ENOBUFS);
}
END_TEST

START_TEST(voq_default)
{
	/* delta x bw_o: 100 ms at 10 Gbit/s is 125 MB */
	ck_assert_uint_eq(ocs_voq_default(10000000000ULL, 100000000LL), 125000000);
	/* never below what TCP keeps in flight toward a circuit that is down:
	 * 10 ms at 400 Mbit/s (rack8) would be 500 KB */
	ck_assert_uint_eq(ocs_voq_default(400000000ULL, 10000000LL), OCS_VOQ_MIN);
	ck_assert_uint_eq(OCS_VOQ_MIN, 16000000u);
	ck_assert_uint_eq(ocs_voq_default(400000000ULL, 1000000LL), OCS_VOQ_MIN);
	ck_assert_uint_eq(ocs_voq_default(400000000ULL, 0), OCS_VOQ_MIN);
}
END_TEST

/* Ethernet + IPv4 (20) + TCP with options (32) + payload. */
static uint32_t make_tcp(unsigned char *f, uint32_t payload)
{
	memset(f, 0, 14 + 20 + 32);
	f[12] = 0x08;
	f[13] = 0x00;
	f[14] = 0x45;
	f[14 + 9] = 6;
	f[14 + 20 + 12] = 8 << 4;
	return 14 + 20 + 32 + payload;
}

START_TEST(wire_bytes)
{
	static unsigned char f[70000];
	struct virtio_net_hdr vh;
	uint32_t len;

	memset(&vh, 0, sizeof(vh));
	len = make_tcp(f, 1448);
	/* not GSO: its length */
	ck_assert_uint_eq(ocs_wire_bytes(&vh, f, len), 1514);
	/* 45 full segments: 45 frames of 1514 bytes, as HTB counts them */
	vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	vh.gso_size = 1448;
	len = make_tcp(f, 45 * 1448);
	ck_assert_uint_eq(ocs_wire_bytes(&vh, f, len), 45 * 1514);
	/* a short last segment */
	len = make_tcp(f, 10 * 1448 + 100);
	ck_assert_uint_eq(ocs_wire_bytes(&vh, f, len), 10 * 1514 + 166);
	/* ECN flag does not change the count */
	vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV4 | VIRTIO_NET_HDR_GSO_ECN;
	ck_assert_uint_eq(ocs_wire_bytes(&vh, f, len), 10 * 1514 + 166);
	/* UDP GSO: 8-byte L4 header */
	f[14 + 9] = 17;
	vh.gso_type = 5; /* VIRTIO_NET_HDR_GSO_UDP_L4, newer than Debian 12's headers */
	vh.gso_size = 1000;
	len = 14 + 20 + 8 + 3000;
	ck_assert_uint_eq(ocs_wire_bytes(&vh, f, len), 3 * 1042);
	/* unreadable headers: counted as one frame */
	f[12] = 0x88;
	ck_assert_uint_eq(ocs_wire_bytes(&vh, f, len), len);
	ck_assert_uint_eq(ocs_wire_bytes(&vh, f, 10), 10);
}
END_TEST

START_TEST(mac_port)
{
	static const uint8_t m258[6] = { 0x02, 0x68, 0x79, 0x6f, 0x01, 0x02 };
	static const uint8_t m0[6] = { 0x02, 0x68, 0x79, 0x6f, 0x00, 0x00 };
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t other[6] = { 0x02, 0x68, 0x79, 0x6e, 0x00, 0x01 };
	uint8_t mac[6];
	unsigned k;

	ck_assert_int_eq(ocs_mac_port(m258), 258);
	ck_assert_int_eq(ocs_mac_port(m0), 0);
	ck_assert_int_eq(ocs_mac_port(bcast), -1);
	ck_assert_int_eq(ocs_mac_port(other), -1);
	for (k = 0; k < OCS_MAX_PORTS; k += 37) {
		ocs_port_mac(k, mac);
		ck_assert_int_eq(ocs_mac_port(mac), (int)k);
	}
}
END_TEST

static const struct {
	const char *line;
	enum ocs_cmd_kind kind;
	int64_t delta;
	uint64_t count;
	unsigned circuits;
} cmd_ok[] = {
	{ "show", OCS_CMD_SHOW, 0, 0, 0 },
	{ "  show \t", OCS_CMD_SHOW, 0, 0, 0 },
	{ "show\r", OCS_CMD_SHOW, 0, 0, 0 },
	{ "stats", OCS_CMD_STATS, 0, 0, 0 },
	{ "watch", OCS_CMD_WATCH, 0, 0, 0 },
	{ "unwatch", OCS_CMD_UNWATCH, 0, 0, 0 },
	{ "set 0-1 2-3", OCS_CMD_SET, 0, 0, 4 },
	{ "set 2>3", OCS_CMD_SET, 0, 0, 1 },
	{ "set none", OCS_CMD_SET, 0, 0, 0 },
	{ "delta", OCS_CMD_DELTA, 0, 0, 0 },
	{ "delta 1ms", OCS_CMD_DELTA, 1000000, 0, 0 },
	{ "delta 100us", OCS_CMD_DELTA, 100000, 0, 0 },
	{ "delta 0s", OCS_CMD_DELTA, 0, 0, 0 },
	{ "events", OCS_CMD_EVENTS, 0, 0, 0 },
	{ "events 20", OCS_CMD_EVENTS, 0, 20, 0 },
	{ "time", OCS_CMD_TIME, 0, 0, 0 },
	{ "help", OCS_CMD_HELP, 0, 0, 0 },
	{ "quit", OCS_CMD_QUIT, 0, 0, 0 },
};

START_TEST(cmd_good)
{
	char line[256], errbuf[HYDE_ERRBUF_SIZE] = "";
	struct ocs_cmd c;

	snprintf(line, sizeof(line), "%s", cmd_ok[_i].line);
	ck_assert_msg(ocs_cmd_parse(line, 5, &c, errbuf) == 0, "'%s': %s", cmd_ok[_i].line,
		      errbuf);
	ck_assert_int_eq(c.kind, cmd_ok[_i].kind);
	ck_assert_int_eq(c.delta, cmd_ok[_i].delta);
	ck_assert_uint_eq(c.count, cmd_ok[_i].count);
	if (c.kind == OCS_CMD_SET)
		ck_assert_uint_eq(ocs_matching_count(&c.m), cmd_ok[_i].circuits);
}
END_TEST

static const struct {
	const char *line;
	const char *why;
} cmd_bad[] = {
	{ "frobnicate", "unknown command 'frobnicate' ('help' lists commands)" },
	{ "SHOW", "unknown command 'SHOW'" },
	{ "show x", "show takes no argument" },
	{ "set", "set: expected circuits I-J or I>J, or 'none'" },
	{ "set 0-1 0-2", "not a matching" },
	{ "set 0-5", "port 5 does not exist (ports 0..4)" },
	{ "delta 5", "delta: expected a time from 0 to 10s" },
	{ "delta -1ms", "delta: expected a time" },
	{ "delta 11s", "delta: expected a time" },
	{ "delta 1ms 2ms", "delta takes at most one argument" },
	{ "events 0", "events: expected a count of 1 or more, got '0'" },
	{ "events x", "events: expected a count" },
	{ "\x01show", "not a command: byte 0x01 at column 1" },
	{ "sh\xffow", "not a command: byte 0xff at column 3" },
	{ "show\x7f", "byte 0x7f" },
	{ "show # why", "no comments" },
	{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "unknown command 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...'" },
};

START_TEST(cmd_bad_lines)
{
	char line[256], errbuf[HYDE_ERRBUF_SIZE] = "";
	struct ocs_cmd c;

	snprintf(line, sizeof(line), "%s", cmd_bad[_i].line);
	ck_assert_int_eq(ocs_cmd_parse(line, 5, &c, errbuf), -EINVAL);
	ck_assert_msg(strstr(errbuf, cmd_bad[_i].why), "'%s': got '%s', expected '%s'",
		      cmd_bad[_i].line, errbuf, cmd_bad[_i].why);
}
END_TEST

START_TEST(cmd_blank)
{
	char a[] = "", b[] = "  \t ", errbuf[HYDE_ERRBUF_SIZE];
	struct ocs_cmd c;

	ck_assert_int_eq(ocs_cmd_parse(a, 5, &c, errbuf), -ENODATA);
	ck_assert_int_eq(ocs_cmd_parse(b, 5, &c, errbuf), -ENODATA);
}
END_TEST

START_TEST(cmd_set_many)
{
	/* a full matching of OCS_MAX_PORTS ports, directed, fits a line */
	static char line[OCS_LINE_MAX + 1];
	char errbuf[HYDE_ERRBUF_SIZE] = "";
	struct ocs_cmd c;
	size_t off = 0;
	unsigned i;

	off += (size_t)snprintf(line, sizeof(line), "set");
	for (i = 0; i < OCS_MAX_PORTS; i++)
		off += (size_t)snprintf(line + off, sizeof(line) - off, " %u>%u", i,
					(i + 1) % OCS_MAX_PORTS);
	ck_assert_uint_lt(off, OCS_LINE_MAX);
	ck_assert_msg(ocs_cmd_parse(line, OCS_MAX_PORTS, &c, errbuf) == 0, "%s", errbuf);
	ck_assert_uint_eq(ocs_matching_count(&c.m), OCS_MAX_PORTS);
}
END_TEST

/* ---- the control socket's framing ---- */

struct lines_seen {
	char text[8][64];
	size_t len[8];
	int n, stop_after;
};

static int collect(void *arg, char *text, size_t len)
{
	struct lines_seen *ls = arg;

	ck_assert_int_lt(ls->n, 8);
	ck_assert_uint_eq(strlen(text), len); /* NUL-terminated in place */
	snprintf(ls->text[ls->n], sizeof(ls->text[0]), "%s", text);
	ls->len[ls->n] = len;
	ls->n++;
	return ls->stop_after && ls->n == ls->stop_after;
}

/* Bytes fed in pieces: each piece is copied in as read() would. */
static bool feed(struct ocs_linebuf *lb, const char *data, size_t len,
		 struct lines_seen *ls)
{
	ck_assert_uint_le(len, ocs_linebuf_room(lb));
	memcpy(lb->buf + lb->len, data, len);
	return ocs_linebuf_feed(lb, len, collect, ls);
}

START_TEST(linebuf_split)
{
	static struct ocs_linebuf lb;
	struct lines_seen ls = { 0 };

	memset(&lb, 0, sizeof(lb));
	/* a line in three pieces, CRLF, a blank line, then a partial one */
	ck_assert(!feed(&lb, "sh", 2, &ls));
	ck_assert(ocs_linebuf_pending(&lb));
	ck_assert(!feed(&lb, "ow\r", 3, &ls));
	ck_assert_int_eq(ls.n, 0);
	ck_assert(!feed(&lb, "\nstats\n\nset 0-", 14, &ls));
	ck_assert_int_eq(ls.n, 3);
	ck_assert_str_eq(ls.text[0], "show");
	ck_assert_str_eq(ls.text[1], "stats");
	ck_assert_uint_eq(ls.len[2], 0);
	ck_assert(ocs_linebuf_pending(&lb));
	ck_assert(!feed(&lb, "1\n", 2, &ls));
	ck_assert_str_eq(ls.text[3], "set 0-1");
	ck_assert(!ocs_linebuf_pending(&lb));
}
END_TEST

START_TEST(linebuf_too_long)
{
	static struct ocs_linebuf lb;
	static char junk[OCS_LINE_MAX + 1];
	struct lines_seen ls = { 0 };
	size_t room;

	memset(&lb, 0, sizeof(lb));
	memset(junk, 'x', sizeof(junk));
	/* reported once when it fills the buffer, then skipped to its end
	 * however long it goes on */
	ck_assert(!feed(&lb, junk, OCS_LINE_MAX, &ls));
	ck_assert(feed(&lb, junk, 1, &ls));
	ck_assert(ocs_linebuf_pending(&lb));
	room = ocs_linebuf_room(&lb);
	ck_assert(!feed(&lb, junk, room, &ls));
	ck_assert(!feed(&lb, "yyy\nhelp\n", 9, &ls));
	ck_assert_int_eq(ls.n, 1);
	ck_assert_str_eq(ls.text[0], "help");
	ck_assert(!ocs_linebuf_pending(&lb));
	/* a line of exactly OCS_LINE_MAX characters is a line */
	ck_assert(!feed(&lb, junk, OCS_LINE_MAX, &ls));
	ck_assert(!feed(&lb, "\n", 1, &ls));
	ck_assert_int_eq(ls.n, 2);
	ck_assert_uint_eq(ls.len[1], OCS_LINE_MAX);
}
END_TEST

START_TEST(linebuf_stop)
{
	static struct ocs_linebuf lb;
	struct lines_seen ls = { .stop_after = 1 };

	memset(&lb, 0, sizeof(lb));
	/* quit: what follows in the same read is dropped */
	ck_assert(!feed(&lb, "quit\nshow\nsta", 14, &ls));
	ck_assert_int_eq(ls.n, 1);
	ck_assert(!ocs_linebuf_pending(&lb));
}
END_TEST

Suite *ocs_suite(void)
{
	Suite *s = suite_create("ocs");
	TCase *tc = tcase_create("matching");

	tcase_add_loop_test(tc, matching_ok, 0, (int)ARRAY_SIZE(match_ok));
	tcase_add_loop_test(tc, matching_bad, 0, (int)ARRAY_SIZE(match_bad));
	tcase_add_loop_test(tc, diff_ports, 0, (int)ARRAY_SIZE(diffs));
	suite_add_tcase(s, tc);
	tc = tcase_create("voq");
	tcase_add_test(tc, voq_bound);
	tcase_add_test(tc, voq_default);
	tcase_add_test(tc, wire_bytes);
	tcase_add_test(tc, mac_port);
	suite_add_tcase(s, tc);
	tc = tcase_create("protocol");
	tcase_add_loop_test(tc, cmd_good, 0, (int)ARRAY_SIZE(cmd_ok));
	tcase_add_loop_test(tc, cmd_bad_lines, 0, (int)ARRAY_SIZE(cmd_bad));
	tcase_add_test(tc, cmd_blank);
	tcase_add_test(tc, cmd_set_many);
	tcase_add_test(tc, linebuf_split);
	tcase_add_test(tc, linebuf_too_long);
	tcase_add_test(tc, linebuf_stop);
	suite_add_tcase(s, tc);
	return s;
}
