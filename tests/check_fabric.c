/* The fabric's plan: what needs no root (the rest is tests/fabric.sh). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_hyde.h"
#include "core/topo.h"
#include "emul/cgroup.h"
#include "emul/fabric.h"

START_TEST(prefixes)
{
	static const char *const good[] = { "hyde", "hydefab", "hyde2", "hydeabcdefghij0123456789" };
	static const char *const bad[] = { "", "hyd", "other", "hyde-x", "Hyde", "hydeX",
					   "hyde_1", "hyde/x", "hydeabcdefghij01234567890" };
	char errbuf[HYDE_ERRBUF_SIZE];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(fabric_prefix_check(good[i], errbuf) == 0, "%s: %s",
			      good[i], errbuf);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(fabric_prefix_check(bad[i], errbuf) < 0, "%s accepted", bad[i]);
}
END_TEST

/* Burst = rate x 10 ms, at least 64 KiB; quantum = burst up to 200000. */
START_TEST(htb_params)
{
	static const struct {
		uint64_t rate;
		uint32_t burst, quantum;
	} cases[] = {
		{ 10000000ULL, 65536, 65536 },
		{ 40000000ULL, 65536, 65536 },
		{ 100000000ULL, 125000, 125000 },
		{ 400000000ULL, 500000, 200000 },
		{ 1000000000ULL, 1250000, 200000 },
		{ 5000000000ULL, 6250000, 200000 },
	};
	uint32_t b, q;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fabric_htb_params(cases[i].rate, &b, &q);
		ck_assert_uint_eq(b, cases[i].burst);
		ck_assert_uint_eq(q, cases[i].quantum);
	}
}
END_TEST

/* emul/README.md's examples, on rack8's default address plan. */
START_TEST(addresses)
{
	char errbuf[HYDE_ERRBUF_SIZE], s[16];
	struct topo *t;
	uint8_t mac[6];

	ck_assert_msg(topo_load(test_srcpath("topologies/rack8.topo"), &t, errbuf) == 0,
		      "%s", errbuf);
	ck_assert_str_eq(topo_addr_str(fabric_uplink_addr(t, 3, false), s, sizeof(s)), "10.32.0.13");
	ck_assert_str_eq(topo_addr_str(fabric_uplink_addr(t, 3, true), s, sizeof(s)), "10.32.0.14");
	ck_assert_uint_eq(fabric_uplink_plen(), 30);
	ck_assert_str_eq(topo_addr_str(fabric_ocs_port_addr(t, 0), s, sizeof(s)), "10.40.0.1");
	ck_assert_str_eq(topo_addr_str(fabric_ocs_port_addr(t, 7), s, sizeof(s)), "10.40.0.8");
	ck_assert_uint_eq(fabric_ocs_port_plen(t), 13);
	fabric_ocs_mac(0x0102, mac);
	ck_assert(memcmp(mac, "\x02\x68\x79\x6f\x01\x02", 6) == 0);
	fabric_ocs_mac(5, mac);
	ck_assert(memcmp(mac, "\x02\x68\x79\x6f\x00\x05", 6) == 0);
	topo_free(t);
}
END_TEST

/* The state directory's copy of a topology reads back to the same one. */
static const char *const roundtrip_files[] = {
	"topologies/tiny.topo", "topologies/rack8.topo", "topologies/paper60.topo",
	"topologies/nas30.topo", "bench/rack16x8.topo",
};

START_TEST(topo_roundtrip)
{
	char errbuf[HYDE_ERRBUF_SIZE], path[] = "/tmp/hyde-check-topo.XXXXXX";
	struct topo *a, *b;
	int fd;

	ck_assert_msg(topo_load(test_srcpath(roundtrip_files[_i]), &a, errbuf) == 0,
		      "%s", errbuf);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(fabric_write_topo(path, a), 0);
	ck_assert_msg(topo_load(path, &b, errbuf) == 0, "%s", errbuf);
	unlink(path);
	ck_assert_str_eq(a->name, b->name);
	ck_assert_uint_eq(a->racks, b->racks);
	ck_assert_uint_eq(a->hosts, b->hosts);
	ck_assert_uint_eq(a->containers, b->containers);
	ck_assert_uint_eq(a->replicas, b->replicas);
	ck_assert_uint_eq(a->host_rate, b->host_rate);
	ck_assert_uint_eq(a->uplink_rate, b->uplink_rate);
	ck_assert_int_eq(a->has_ocs, b->has_ocs);
	ck_assert_uint_eq(a->ocs_rate, b->ocs_rate);
	ck_assert_int_eq(a->delta, b->delta);
	ck_assert_uint_eq(a->t_e, b->t_e);
	ck_assert_uint_eq(a->eps_net.addr, b->eps_net.addr);
	ck_assert_uint_eq(a->ocs_net.plen, b->ocs_net.plen);
	ck_assert_uint_eq(a->link_net.addr, b->link_net.addr);
	ck_assert_uint_eq(a->host_bits, b->host_bits);
	topo_free(a);
	topo_free(b);
}
END_TEST

/* Every interface `up` makes has a MAC of its own (the permanent
 * neighbour entries and the bridges' static entries name them): locally
 * administered, unicast, none twice in a fabric, the ToRs' ocs ports' as
 * the crossbar reads them. From rack8 to racks of 1000 hosts (66,000
 * hosts: ids past 16 bits), 1024 racks (the most a topology may have) and
 * a fabric without an OCS. */
static const char *const mac_topos[] = {
	"name a\nracks 8\nhosts 4\ncontainers 1\nhost_rate 100Mbit\nuplink_rate 40Mbit\nocs yes\nocs_rate 400Mbit\ndelta 10ms\nt_e 1MB\n",
	"name b\nracks 66\nhosts 1000\ncontainers 1\nhost_rate 100Mbit\nuplink_rate 40Mbit\nocs yes\nocs_rate 400Mbit\ndelta 10ms\nt_e 1MB\n"
	"eps_net 10.0.0.0/12\nocs_net 10.16.0.0/12\nlink_net 10.32.0.0/12\n",
	"name c\nracks 1024\nhosts 3\ncontainers 1\nhost_rate 100Mbit\nuplink_rate 40Mbit\nocs yes\nocs_rate 400Mbit\ndelta 10ms\nt_e 1MB\n"
	"eps_net 10.0.0.0/12\nocs_net 10.16.0.0/12\nlink_net 10.32.0.0/12\n",
	"name d\nracks 3\nhosts 2\ncontainers 1\nhost_rate 100Mbit\nuplink_rate 40Mbit\nocs no\n",
};

static int mac_cmp(const void *a, const void *b)
{
	return memcmp(a, b, 6);
}

START_TEST(macs)
{
	char errbuf[HYDE_ERRBUF_SIZE], name[32];
	uint8_t (*all)[6], mac[6], ocs[6];
	size_t n = 0, i, l;
	struct fabric *f;
	struct topo *t;
	FILE *fp;

	fp = fmemopen((void *)mac_topos[_i], strlen(mac_topos[_i]), "r");
	ck_assert_msg(topo_parse(fp, "test.topo", &t, errbuf) == 0, "%s", errbuf);
	fclose(fp);
	f = fabric_plan_new(t, "hydetest");
	all = calloc(2 * f->n_links + t->racks, sizeof(*all));
	ck_assert_ptr_nonnull(all);
	for (i = 0; i < f->n_nodes; i++) {
		if (f->nodes[i].kind == TOPO_NODE_TOR) {
			ck_assert_int_eq(fabric_iface_mac(f, (unsigned)i, "br0", all[n]), 0);
			n++;
		}
		ck_assert_int_eq(fabric_iface_mac(f, (unsigned)i, "lo", mac), -ENOENT);
		ck_assert_int_eq(fabric_iface_mac(f, (unsigned)i, "eth1", mac), -ENOENT);
	}
	for (l = 0; l < f->n_links; l++) {
		const struct fabric_link *k = &f->links[l];

		ck_assert_msg(fabric_iface_mac(f, k->a, k->a_if, all[n]) == 0, "%s:%s",
			      f->nodes[k->a].name, k->a_if);
		if (!strcmp(k->a_if, "ocs")) {
			fabric_ocs_mac(f->nodes[k->a].rack, ocs);
			ck_assert(memcmp(all[n], ocs, 6) == 0);
		}
		n++;
		ck_assert_msg(fabric_iface_mac(f, k->b, k->b_if, all[n]) == 0, "%s:%s",
			      f->nodes[k->b].name, k->b_if);
		n++;
	}
	for (i = 0; i < n; i++)
		ck_assert_msg((all[i][0] & 3) == 2, "MAC %zu: %02x is not locally administered unicast",
			      i, all[i][0]);
	qsort(all, n, sizeof(*all), mac_cmp);
	for (i = 1; i < n; i++)
		ck_assert_msg(memcmp(all[i - 1], all[i], 6) != 0,
			      "%02x:%02x:%02x:%02x:%02x:%02x given twice", all[i][0], all[i][1],
			      all[i][2], all[i][3], all[i][4], all[i][5]);
	/* names the plan does not have */
	snprintf(name, sizeof(name), "h%u", t->hosts);
	ck_assert_int_eq(fabric_iface_mac(f, 0, name, mac), -ENOENT);
	snprintf(name, sizeof(name), "r%u", t->racks);
	ck_assert_int_eq(fabric_iface_mac(f, (unsigned)fabric_node_index(f, "core"), name, mac),
			 -ENOENT);
	ck_assert_int_eq(fabric_iface_mac(f, (unsigned)fabric_node_index(f, "core"), "r", mac),
			 -ENOENT);
	ck_assert_int_eq(fabric_iface_mac(f, 0, "ocs", mac), t->has_ocs ? 0 : -ENOENT);
	free(all);
	fabric_free(f);
	topo_free(t);
}
END_TEST

/* A container's CPU in emulated units: its tasks' work at its scale, the
 * rest of what the cgroup counted (network, set-up) as it is. */
START_TEST(container_cpu)
{
	/* 1 emulated core-s declared, burnt as 20 ms at 0.02, plus 5 ms of
	 * fetching: 1.005 core-s, not the 1.25 of 25 ms over 0.02 */
	ck_assert_double_eq_tol(cg_emulated_cpu(25000000, 1e9, 0.02), 1.005e9, 1);
	/* nothing but the work */
	ck_assert_double_eq_tol(cg_emulated_cpu(20000000, 1e9, 0.02), 1e9, 1);
	/* the work behind (held back): the declared, no less */
	ck_assert_double_eq_tol(cg_emulated_cpu(10000000, 1e9, 0.02), 1e9, 1);
	/* nothing declared (a reduce fetching): all of it as it is */
	ck_assert_double_eq_tol(cg_emulated_cpu(3000000, 0, 0.02), 3e6, 1e-6);
	/* at scale 1 the count is the use */
	ck_assert_double_eq_tol(cg_emulated_cpu(7000000, 5e6, 1), 7e6, 1e-6);
}
END_TEST

Suite *fabric_suite(void)
{
	Suite *s = suite_create("fabric");
	TCase *tc = tcase_create("plan");

	tcase_add_test(tc, prefixes);
	tcase_add_test(tc, htb_params);
	tcase_add_test(tc, addresses);
	tcase_add_loop_test(tc, topo_roundtrip, 0,
			    sizeof(roundtrip_files) / sizeof(roundtrip_files[0]));
	tcase_add_loop_test(tc, macs, 0, sizeof(mac_topos) / sizeof(mac_topos[0]));
	tcase_add_test(tc, container_cpu);
	suite_add_tcase(s, tc);
	return s;
}
