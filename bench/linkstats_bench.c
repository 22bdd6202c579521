/* The cost of one linkstats_sample() on a fabric that is up (figures, no
 * verdict): wall time per sample (median, p90, p99, max) and CPU time
 * per sample, against the same counters read through libnl's link cache
 * (rtnl_link_alloc_cache per ToR, as fabric_query() reads links).
 * Usage: linkstats_bench PREFIX [SAMPLES]   (root; bench/linkstats.sh) */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/socket.h>

#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>

#include "core/util.h"
#include "emul/fabric.h"
#include "emul/linkstats.h"
#include "emul/netns.h"

static int64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static void print_dist(const char *what, int64_t *v, size_t n, int64_t cpu,
		       unsigned racks)
{
	qsort(v, n, sizeof(*v), cmp_i64);
	printf("  %-26s wall per sample: median %7.1f us  p90 %7.1f  p99 %7.1f  max %8.1f;"
	       "  CPU %7.1f us/sample (%.1f us per ToR)\n",
	       what, (double)v[n / 2] / 1e3, (double)v[n * 9 / 10] / 1e3,
	       (double)v[n * 99 / 100] / 1e3, (double)v[n - 1] / 1e3,
	       (double)cpu / (double)n / 1e3, (double)cpu / (double)n / 1e3 / racks);
}

/* ---- libnl's link cache, for comparison ---- */

static int nl_open_here(void *arg, char *errbuf)
{
	struct nl_sock **sk = arg;
	int r;

	*sk = nl_socket_alloc();
	if (!*sk)
		return -ENOMEM;
	r = nl_connect(*sk, NETLINK_ROUTE);
	if (r < 0) {
		errbuf_set(errbuf, "netlink: %s", nl_geterror(r));
		nl_socket_free(*sk);
		return -EIO;
	}
	return 0;
}

static int libnl_sample(struct nl_sock **sk, unsigned racks, uint64_t *sink)
{
	unsigned k;

	for (k = 0; k < racks; k++) {
		struct nl_cache *c;
		struct nl_object *o;

		if (rtnl_link_alloc_cache(sk[k], AF_UNSPEC, &c) < 0)
			return -EIO;
		for (o = nl_cache_get_first(c); o; o = nl_cache_get_next(o)) {
			struct rtnl_link *l = (struct rtnl_link *)o;

			*sink += rtnl_link_get_stat(l, RTNL_LINK_RX_BYTES) +
				 rtnl_link_get_stat(l, RTNL_LINK_TX_BYTES);
		}
		nl_cache_free(c);
	}
	return 0;
}

/* ---- RTM_GETSTATS with only IFLA_STATS_LINK_64, for comparison ---- */

static int getstats_sample(struct nl_sock **sk, unsigned racks, void *buf,
			   size_t len, uint64_t *sink)
{
	struct {
		struct nlmsghdr h;
		struct if_stats_msg m;
	} req = {
		.h = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETSTATS,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		.m = { .family = AF_UNSPEC,
		       .filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64) },
	};
	unsigned k;

	for (k = 0; k < racks; k++) {
		int fd = nl_socket_get_fd(sk[k]), done = 0;

		req.h.nlmsg_seq++;
		if (send(fd, &req, sizeof(req), 0) < 0)
			return -errno;
		while (!done) {
			ssize_t n = recv(fd, buf, len, 0);
			const struct nlmsghdr *h = buf;
			int l = (int)n;

			if (n < 0)
				return -errno;
			for (; NLMSG_OK(h, l); h = NLMSG_NEXT(h, l)) {
				if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
					done = 1;
					break;
				}
				if (h->nlmsg_type == RTM_NEWSTATS) {
					const struct if_stats_msg *m = NLMSG_DATA(h);
					const struct rtattr *a = (const void *)((const char *)m + NLMSG_ALIGN(sizeof(*m)));
					int al = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));

					for (; RTA_OK(a, al); a = RTA_NEXT(a, al))
						if (a->rta_type == IFLA_STATS_LINK_64) {
							struct rtnl_link_stats64 st;

							memcpy(&st, RTA_DATA(a), 32);
							*sink += st.rx_bytes + (uint64_t)m->ifindex;
						}
				}
			}
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct linkstats_sample s;
	struct nl_sock **sk;
	struct linkstats *ls;
	struct fabric *f;
	int64_t *v, t0, c0;
	size_t n = 2000, i;
	uint64_t sink = 0;
	unsigned k;

	if (argc < 2 || argc > 3 || (argc == 3 && (n = strtoul(argv[2], NULL, 10)) < 10)) {
		fprintf(stderr, "usage: linkstats_bench PREFIX [SAMPLES >= 10]\n");
		return 2;
	}
	if (fabric_open(argv[1], &f, errbuf) || linkstats_new(f, &ls, errbuf)) {
		fprintf(stderr, "linkstats_bench: %s\n", errbuf);
		return 1;
	}
	v = xcalloc(n, sizeof(*v));
	linkstats_sample_init(ls, &s);
	printf("%s: %u racks x %u hosts, %zu links, %zu samples back to back\n",
	       f->topo->name, linkstats_racks(ls), linkstats_hosts(ls),
	       linkstats_count(ls), n);
	for (i = 0; i < 20; i++)
		linkstats_sample(ls, &s);
	c0 = cpu_ns();
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		if (linkstats_sample(ls, &s)) {
			fprintf(stderr, "linkstats_bench: %s\n", linkstats_geterr(ls));
			return 1;
		}
		v[i] = now_ns() - t0;
	}
	print_dist("linkstats_sample (raw)", v, n, cpu_ns() - c0, linkstats_racks(ls));

	sk = xcalloc(linkstats_racks(ls), sizeof(*sk));
	for (k = 0; k < linkstats_racks(ls); k++) {
		char name[16];
		int fd = -1;

		snprintf(name, sizeof(name), "tor%u", k);
		fd = fabric_ns_fd(f, name);
		if (fd < 0 || netns_run(fd, nl_open_here, &sk[k], errbuf)) {
			fprintf(stderr, "linkstats_bench: %s: cannot open a libnl socket\n", name);
			return 1;
		}
	}
	for (i = 0; i < 20; i++)
		libnl_sample(sk, linkstats_racks(ls), &sink);
	c0 = cpu_ns();
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		if (libnl_sample(sk, linkstats_racks(ls), &sink)) {
			fprintf(stderr, "linkstats_bench: libnl link dump failed\n");
			return 1;
		}
		v[i] = now_ns() - t0;
	}
	print_dist("libnl link cache", v, n, cpu_ns() - c0, linkstats_racks(ls));
	{
		void *buf = xmalloc(65536);

		for (i = 0; i < 20; i++)
			getstats_sample(sk, linkstats_racks(ls), buf, 65536, &sink);
		c0 = cpu_ns();
		for (i = 0; i < n; i++) {
			t0 = now_ns();
			if (getstats_sample(sk, linkstats_racks(ls), buf, 65536, &sink)) {
				fprintf(stderr, "linkstats_bench: RTM_GETSTATS failed\n");
				return 1;
			}
			v[i] = now_ns() - t0;
		}
		print_dist("RTM_GETSTATS LINK_64", v, n, cpu_ns() - c0, linkstats_racks(ls));
		free(buf);
	}
	for (k = 0; k < linkstats_racks(ls); k++)
		nl_socket_free(sk[k]);
	free(sk);
	free(v);
	linkstats_sample_fini(&s);
	linkstats_free(ls);
	fabric_free(f);
	return sink == 1; /* keeps the libnl reads from being optimised out */
}
