#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check_hyde.h"
#include "core/topo.h"

#define BASE "racks 2\nhosts 2\ncontainers 2\nhost_rate 100Mbit\n"

static struct topo *parse_str(const char *text, char *errbuf, int *r)
{
	FILE *fp = fmemopen((void *)text, strlen(text), "r");
	struct topo *t = NULL;

	ck_assert_ptr_nonnull(fp);
	*r = topo_parse(fp, "x.topo", &t, errbuf);
	fclose(fp);
	return t;
}

/* Every shipped topology parses, with the figures its issue fixes. */
START_TEST(shipped_rack8)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct topo *t = NULL;

	ck_assert_msg(topo_load(test_srcpath("topologies/rack8.topo"), &t, errbuf) == 0,
		      "%s", errbuf);
	ck_assert_uint_eq(t->racks, 8);
	ck_assert_uint_eq(t->hosts, 4);
	ck_assert_uint_eq(t->host_rate, 100000000ULL);
	ck_assert_uint_eq(t->uplink_rate, 40000000ULL);
	ck_assert_double_eq_tol(t->oversub, 10.0, 1e-9);
	ck_assert(t->has_ocs);
	ck_assert_uint_eq(t->ocs_rate, 400000000ULL);
	ck_assert_int_eq(t->delta, 10000000);
	ck_assert_uint_eq(t->t_e, 4500000);
	/* T_e / bw_o = 90ms, as in the paper */
	ck_assert_uint_eq(t->t_e * 8 * 1000 / t->ocs_rate, 90);
	/* the hosts' TCP timer capped at 1 s unless the file says */
	ck_assert_int_eq(t->tcp_rto_max, NSEC_PER_SEC);
	/* and run CUBIC, whatever the machine runs */
	ck_assert_str_eq(t->tcp_cc, "cubic");
	topo_free(t);
}
END_TEST

START_TEST(shipped_paper60_nas30)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct topo *t = NULL;

	ck_assert_msg(topo_load(test_srcpath("topologies/paper60.topo"), &t, errbuf) == 0, "%s", errbuf);
	ck_assert_uint_eq(topo_n_hosts(t), 600);
	ck_assert_uint_eq(t->containers, 20);
	ck_assert_double_eq_tol(t->oversub, 10.0, 1e-9);
	ck_assert_uint_eq(t->ocs_rate, 100000000000ULL);
	ck_assert_uint_eq(t->t_e, 1125000000ULL);
	topo_free(t);
	ck_assert_msg(topo_load(test_srcpath("topologies/nas30.topo"), &t, errbuf) == 0, "%s", errbuf);
	ck_assert_uint_eq(topo_n_hosts(t), 600);
	ck_assert_uint_eq(t->containers, 6);
	ck_assert(!t->has_ocs);
	ck_assert_double_eq_tol(t->oversub, 5.0, 1e-9);
	/* 1Gbit per rack cross-rack = 50Mbit per node */
	ck_assert_uint_eq(t->uplink_rate / t->hosts, 50000000ULL);
	topo_free(t);
	ck_assert_msg(topo_load(test_srcpath("topologies/tiny.topo"), &t, errbuf) == 0, "%s", errbuf);
	ck_assert_uint_eq(t->racks, 2);
	ck_assert_uint_eq(t->hosts, 2);
	topo_free(t);
}
END_TEST

START_TEST(oversub_derives_uplink)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct topo *t;
	int r;

	t = parse_str(BASE "oversub 10:1\nocs no\n", errbuf, &r);
	ck_assert_msg(r == 0, "%s", errbuf);
	ck_assert_uint_eq(t->uplink_rate, 20000000ULL);
	ck_assert_str_eq(t->name, "x");
	topo_free(t);
	/* the kernel's own timer back */
	t = parse_str(BASE "oversub 10:1\nocs no\ntcp_rto_max 120s\n", errbuf, &r);
	ck_assert_msg(r == 0, "%s", errbuf);
	ck_assert_int_eq(t->tcp_rto_max, TOPO_RTO_MAX_KERNEL);
	topo_free(t);
	/* another congestion control, the longest name the kernel takes */
	t = parse_str(BASE "oversub 10:1\nocs no\ntcp_cc reno\n", errbuf, &r);
	ck_assert_msg(r == 0, "%s", errbuf);
	ck_assert_str_eq(t->tcp_cc, "reno");
	topo_free(t);
	t = parse_str(BASE "oversub 10:1\nocs no\ntcp_cc abcdefghij_1234\n", errbuf, &r);
	ck_assert_msg(r == 0, "%s", errbuf);
	ck_assert_str_eq(t->tcp_cc, "abcdefghij_1234");
	topo_free(t);
}
END_TEST

/* 'eps no': racks reach each other only over the OCS; no bw_e, no T_e. */
START_TEST(no_eps)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct topo *t;
	int r;

	t = parse_str(BASE "eps no\nocs yes\nocs_rate 1Gbit\ndelta 10ms\n", errbuf, &r);
	ck_assert_msg(r == 0, "%s", errbuf);
	ck_assert(!t->has_eps);
	ck_assert(t->has_ocs);
	ck_assert_uint_eq(t->uplink_rate, 0);
	ck_assert_uint_eq(t->t_e, 0);
	topo_free(t);
	t = parse_str(BASE "uplink_rate 20Mbit\nocs no\n", errbuf, &r);
	ck_assert_msg(r == 0, "%s", errbuf);
	ck_assert(t->has_eps); /* the default */
	topo_free(t);
}
END_TEST

START_TEST(addresses_and_names)
{
	char errbuf[HYDE_ERRBUF_SIZE], buf[32];
	struct topo_node n;
	struct topo *t;
	int r;

	t = parse_str("racks 8\nhosts 4\ncontainers 4\nhost_rate 100Mbit\n"
		      "uplink_rate 40Mbit\nocs yes\nocs_rate 400Mbit\ndelta 10ms\nt_e 4.5MB\n",
		      errbuf, &r);
	ck_assert_msg(r == 0, "%s", errbuf);
	topo_host_name(t, topo_host_id(t, 3, 1), buf, sizeof(buf));
	ck_assert_str_eq(buf, "r3h1");
	ck_assert_str_eq(topo_addr_str(topo_host_addr(t, &t->eps_net, topo_host_id(t, 3, 1)), buf, sizeof(buf)), "10.0.3.2");
	ck_assert_str_eq(topo_addr_str(topo_host_addr(t, &t->ocs_net, topo_host_id(t, 3, 1)), buf, sizeof(buf)), "10.16.3.2");
	ck_assert_str_eq(topo_addr_str(topo_rack_gateway(t, &t->eps_net, 3), buf, sizeof(buf)), "10.0.3.254");
	ck_assert_uint_eq(topo_rack_plen(t), 24);

	ck_assert_int_eq(topo_node_parse(t, "r7h3", &n), 0);
	ck_assert_int_eq(n.kind, TOPO_NODE_HOST);
	ck_assert_uint_eq(n.rack, 7);
	ck_assert_uint_eq(n.host, 3);
	ck_assert_int_eq(topo_node_parse(t, "tor5", &n), 0);
	ck_assert_int_eq(n.kind, TOPO_NODE_TOR);
	ck_assert_uint_eq(n.rack, 5);
	ck_assert_int_eq(topo_node_parse(t, "core", &n), 0);
	ck_assert_int_eq(topo_node_parse(t, "ocs", &n), 0);
	ck_assert_int_ne(topo_node_parse(t, "r8h0", &n), 0);
	ck_assert_int_ne(topo_node_parse(t, "r0h4", &n), 0);
	ck_assert_int_ne(topo_node_parse(t, "r01h0", &n), 0);
	ck_assert_int_ne(topo_node_parse(t, "tor8", &n), 0);
	ck_assert_int_ne(topo_node_parse(t, "r0h", &n), 0);
	ck_assert_int_ne(topo_node_parse(t, "tor", &n), 0);
	topo_free(t);
}
END_TEST

/* Bad files: the message names the file, the line and what was expected. */
static const struct {
	const char *text;
	const char *where; /* "x.topo:LINE:" */
	const char *says;  /* part of the message */
} bad[] = {
	{ BASE "ocs no\n", "x.topo:5:", "exactly one of 'uplink_rate RATE' or 'oversub RATIO'" },
	{ BASE "uplink_rate 20Mbit\noversub 10\nocs no\n", "x.topo:6:", "exactly one of" },
	{ "racks 0\n", "x.topo:1:", "racks: expected a whole number from 1 to 1024" },
	{ "racks -2\n", "x.topo:1:", "racks: expected a whole number" },
	{ "racks 2\nracks 3\n", "x.topo:2:", "'racks' given twice (first on line 1)" },
	{ "racks 2\nbogus 3\n", "x.topo:2:", "unknown key 'bogus'" },
	{ "racks 2 3\n", "x.topo:1:", "expected 'racks N'" },
	{ "racks\n", "x.topo:1:", "expected 'racks N'" },
	{ "racks 2\nhosts 2\nhost_rate 0Mbit\n", "x.topo:3:", "out of range" },
	{ "racks 2\nhosts 2\nhost_rate 100\n", "x.topo:3:", "host_rate: expected a rate such as 100Mbit" },
	{ "racks 2\nhosts 2\nhost_rate 100MBps\n", "x.topo:3:", "host_rate: expected a rate" },
	{ "racks 2\nhosts 2\nhost_rate 100Pbit\n", "x.topo:3:", "host_rate: expected a rate" },
	{ "racks 2\nhosts 2\nhost_rate 20Tbit\n", "x.topo:3:", "out of range" },
	{ BASE "uplink_rate 20Mbit\n", "x.topo:5:", "end of file: missing 'ocs yes|no'" },
	{ "hosts 2\n", "x.topo:1:", "end of file: missing 'racks N'" },
	{ BASE "uplink_rate 20Mbit\nocs yes\nocs_rate 400Mbit\ndelta 10ms\n", "x.topo:8:", "'ocs yes' needs 't_e SIZE'" },
	{ BASE "uplink_rate 20Mbit\nocs no\ndelta 10ms\n", "x.topo:7:", "delta: only meaningful with 'ocs yes'" },
	{ BASE "uplink_rate 20Mbit\nocs maybe\n", "x.topo:6:", "ocs: expected 'yes' or 'no'" },
	{ BASE "uplink_rate 20Mbit\nocs yes\nocs_rate 400Mbit\ndelta 10\nt_e 4.5MB\n", "x.topo:8:", "delta: expected a time" },
	{ BASE "uplink_rate 20Mbit\nocs yes\nocs_rate 400Mbit\ndelta 2min\nt_e 4.5MB\n", "x.topo:8:", "out of range (0 to 60s)" },
	{ BASE "uplink_rate 20Mbit\nocs yes\nocs_rate 400Mbit\ndelta 10ms\nt_e 0MB\n", "x.topo:9:", "t_e: 0MB is out of range" },
	{ BASE "uplink_rate 20Mbit\nocs yes\nocs_rate 400Mbit\ndelta 10ms\nt_e 4.5Mb\n", "x.topo:9:", "t_e: expected a size" },
	{ "racks 1\nhosts 2\ncontainers 2\nhost_rate 1Gbit\nuplink_rate 1Gbit\nocs yes\nocs_rate 1Gbit\ndelta 1ms\nt_e 1MB\n",
	  "x.topo:6:", "an OCS needs at least 2 racks" },
	{ BASE "oversub 10:2\nocs no\n", "x.topo:5:", "oversub: expected a ratio" },
	{ BASE "oversub 0\nocs no\n", "x.topo:5:", "oversub: expected a ratio" },
	{ BASE "uplink_rate 20Mbit\nocs no\neps_net 10.0.0.1/16\n", "x.topo:7:", "has host bits set" },
	{ BASE "uplink_rate 20Mbit\nocs no\neps_net 10.0.0.0\n", "x.topo:7:", "eps_net: expected an IPv4 network" },
	{ BASE "uplink_rate 20Mbit\nocs no\neps_net 300.0.0.0/8\n", "x.topo:7:", "eps_net: expected an IPv4 network" },
	{ BASE "uplink_rate 20Mbit\nocs no\neps_net 10.0.0.0/24\n", "x.topo:7:", "eps_net: /24 is too small for 2 racks of 2 hosts (expected a prefix of /23 or shorter)" },
	{ BASE "uplink_rate 20Mbit\nocs no\nocs_net 10.0.0.0/16\n", "x.topo:7:", "ocs_net overlaps eps_net" },
	{ BASE "uplink_rate 20Mbit\nocs no\nreplicas 5\n", "x.topo:7:", "replicas: 5 replicas need at least 5 hosts" },
	{ BASE "uplink_rate 20Mbit\nocs no\nname a/b\n", "x.topo:7:", "name: expected letters" },
	{ BASE "eps maybe\n", "x.topo:5:", "eps: expected 'yes' or 'no'" },
	{ BASE "eps no\nocs no\n", "x.topo:5:", "'eps no' needs 'ocs yes' (2 racks and no network between them)" },
	{ BASE "eps no\nuplink_rate 20Mbit\nocs yes\nocs_rate 1Gbit\ndelta 10ms\n", "x.topo:6:", "uplink_rate: only meaningful with an EPS" },
	{ BASE "eps no\nocs yes\nocs_rate 1Gbit\ndelta 10ms\nt_e 1MB\n", "x.topo:9:", "t_e: only meaningful with an EPS (this topology says 'eps no': every cross-rack flow takes the OCS)" },
	{ BASE "eps no\nocs yes\nocs_rate 1Gbit\n", "x.topo:7:", "'ocs yes' needs 'delta TIME'" },
	{ BASE "ocs no\ntcp_rto_max 500ms\n", "x.topo:6:", "tcp_rto_max: 500ms is out of range (1s to 120s" },
	{ BASE "ocs no\ntcp_rto_max 121s\n", "x.topo:6:", "tcp_rto_max: 121s is out of range (1s to 120s" },
	{ BASE "ocs no\ntcp_rto_max 1000500us\n", "x.topo:6:", "in whole ms" },
	{ BASE "ocs no\ntcp_rto_max soon\n", "x.topo:6:", "tcp_rto_max: expected a time" },
	{ BASE "ocs no\ntcp_cc CUBIC\n", "x.topo:6:", "tcp_cc: expected the name of a TCP congestion control" },
	{ BASE "ocs no\ntcp_cc cu/bic\n", "x.topo:6:", "got 'cu/bic'" },
	{ BASE "ocs no\ntcp_cc abcdefghij_12345\n", "x.topo:6:", "at most 15" },
	{ "racks 2\0\n", "x.topo:1:", "not a text file" },
};

START_TEST(bad_files)
{
	char errbuf[HYDE_ERRBUF_SIZE] = "";
	size_t len = strlen(bad[_i].text);
	struct topo *t = (struct topo *)1;
	FILE *fp;
	int r;

	if (_i == (int)(sizeof(bad) / sizeof(bad[0])) - 1)
		len = 10; /* the one with a NUL byte */
	fp = fmemopen((void *)bad[_i].text, len, "r");
	r = topo_parse(fp, "x.topo", &t, errbuf);
	fclose(fp);
	ck_assert_int_eq(r, -EINVAL);
	ck_assert_ptr_eq(t, (struct topo *)1); /* nothing handed out */
	ck_assert_msg(strncmp(errbuf, bad[_i].where, strlen(bad[_i].where)) == 0,
		      "case %d: '%s' does not start with '%s'", _i, errbuf, bad[_i].where);
	ck_assert_msg(strstr(errbuf, bad[_i].says) != NULL,
		      "case %d: '%s' does not say '%s'", _i, errbuf, bad[_i].says);
}
END_TEST

START_TEST(missing_file)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct topo *t = NULL;

	ck_assert_int_eq(topo_load("/nonexistent/x.topo", &t, errbuf), -ENOENT);
	ck_assert_ptr_null(t);
	ck_assert(strstr(errbuf, "/nonexistent/x.topo: No such file") != NULL);
}
END_TEST

Suite *topo_suite(void)
{
	Suite *s = suite_create("topo");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, shipped_rack8);
	tcase_add_test(tc, shipped_paper60_nas30);
	tcase_add_test(tc, oversub_derives_uplink);
	tcase_add_test(tc, no_eps);
	tcase_add_test(tc, addresses_and_names);
	tcase_add_loop_test(tc, bad_files, 0, (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tc, missing_file);
	suite_add_tcase(s, tc);
	return s;
}
