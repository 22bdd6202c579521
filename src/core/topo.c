#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo.h"
#include "units.h"

/* Parser state: the topology being filled and which keys were seen. */
struct topo_parser {
	struct topo *t;
	const char *path;
	unsigned line;
	char *errbuf;
	unsigned seen; /* bit per key, by index in topo_keys[] */
	unsigned line_of[32];
	int ocs_given;
};

struct topo_key {
	const char *name;
	const char *expect; /* shown in errors: "racks N" */
	int (*set)(struct topo_parser *p, const char *val);
};

static int perr(struct topo_parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int perr(struct topo_parser *p, const char *fmt, ...)
{
	char msg[HYDE_ERRBUF_SIZE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	errbuf_set(p->errbuf, "%s:%u: %s", p->path, p->line, msg);
	return -EINVAL;
}

static int set_count(struct topo_parser *p, const char *key, const char *val,
		     uint64_t min, uint64_t max, unsigned *out)
{
	uint64_t v;

	if (parse_uint(val, min, max, &v))
		return perr(p, "%s: expected a whole number from %llu to %llu, got '%s'",
			    key, (unsigned long long)min,
			    (unsigned long long)max, val);
	*out = (unsigned)v;
	return 0;
}

/* Rates between 1 Kbit/s and 10 Tbit/s: beyond that a unit is wrong. */
static int set_rate(struct topo_parser *p, const char *key, const char *val,
		    uint64_t *out)
{
	uint64_t v;

	if (unit_parse_rate(val, &v))
		return perr(p, "%s: expected %s, got '%s'", key,
			    unit_rate_expect, val);
	if (v < 1000ULL || v > 10000000000000ULL)
		return perr(p, "%s: %s is out of range (1Kbit to 10Tbit)", key,
			    val);
	*out = v;
	return 0;
}

static int set_name(struct topo_parser *p, const char *val)
{
	size_t i, n = strlen(val);

	if (n == 0 || n >= TOPO_NAME_MAX)
		return perr(p, "name: expected 1 to %d characters", TOPO_NAME_MAX - 1);
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)val[i]) && val[i] != '-' && val[i] != '_')
			return perr(p, "name: expected letters, digits, '-' or '_', got '%s'", val);
	memcpy(p->t->name, val, n + 1);
	return 0;
}

static int set_racks(struct topo_parser *p, const char *val)
{
	return set_count(p, "racks", val, 1, TOPO_MAX_RACKS, &p->t->racks);
}

static int set_hosts(struct topo_parser *p, const char *val)
{
	return set_count(p, "hosts", val, 1, TOPO_MAX_HOSTS, &p->t->hosts);
}

static int set_containers(struct topo_parser *p, const char *val)
{
	return set_count(p, "containers", val, 1, TOPO_MAX_CONTAINERS,
			 &p->t->containers);
}

static int set_replicas(struct topo_parser *p, const char *val)
{
	return set_count(p, "replicas", val, 1, 10, &p->t->replicas);
}

static int set_output_replication(struct topo_parser *p, const char *val)
{
	return set_count(p, "output_replication", val, 1, 10, &p->t->output_replication);
}

static int set_cores(struct topo_parser *p, const char *val)
{
	if (parse_double(val, 0.01, 4096, &p->t->cores))
		return perr(p, "cores: expected a number of cores from 0.01 to 4096, got '%s'", val);
	return 0;
}

static int set_memory(struct topo_parser *p, const char *val)
{
	uint64_t v;

	if (unit_parse_size(val, &v))
		return perr(p, "memory: expected %s, got '%s'", unit_size_expect, val);
	if (v < 1000000ULL || v > 1000000000000000ULL)
		return perr(p, "memory: %s is out of range (1MB to 1PB)", val);
	p->t->memory = v;
	return 0;
}

/* TIME, exp:TIME or table1 */
static int set_container_delay(struct topo_parser *p, const char *val)
{
	struct topo_delay *d = &p->t->container_delay;
	const char *v = val;
	int64_t ns;

	if (!strncmp(val, "table1", 6)) {
		double scale = 1;

		/* table1:0.25: Table I's distribution x 0.25 (a run whose
		 * every time is scaled) */
		if (val[6] && (val[6] != ':' || parse_double(val + 7, 1e-3, 1e3, &scale)))
			return perr(p, "container_delay: expected table1 or table1:SCALE (a factor from 0.001 to 1000), got '%s'",
				    val);
		d->kind = TOPO_DELAY_TABLE1;
		d->mean = (int64_t)(996 * NSEC_PER_MSEC * scale);
		return 0;
	}
	d->kind = TOPO_DELAY_FIXED;
	if (!strncmp(val, "exp:", 4)) {
		d->kind = TOPO_DELAY_EXP;
		v += 4;
	}
	if (unit_parse_time(v, &ns) || ns > 600 * NSEC_PER_SEC)
		return perr(p, "container_delay: expected a time up to 10min (fixed), exp:TIME (exponential with that mean) or table1[:SCALE] (COBRA's Table I), got '%s'",
			    val);
	d->mean = ns;
	return 0;
}

/* a ratio in (0, 1]: 0.01 or 1/64 */
static int set_scale(struct topo_parser *p, const char *key, const char *val, double *out)
{
	char buf[64], *slash;
	double a, b = 1;

	if (strlen(val) >= sizeof(buf))
		goto bad;
	strcpy(buf, val);
	slash = strchr(buf, '/');
	if (slash) {
		*slash = '\0';
		if (parse_double(slash + 1, 1, 1e9, &b))
			goto bad;
	}
	if (parse_double(buf, 1e-9, 1e9, &a) || a / b > 1 || a / b < 1e-6)
		goto bad;
	*out = a / b;
	return 0;
bad:
	return perr(p, "%s: expected a ratio from 1e-6 to 1 such as 0.01 or 1/64, got '%s'", key, val);
}

static int set_cpu_scale(struct topo_parser *p, const char *val)
{
	return set_scale(p, "cpu_scale", val, &p->t->cpu_scale);
}

static int set_mem_scale(struct topo_parser *p, const char *val)
{
	return set_scale(p, "mem_scale", val, &p->t->mem_scale);
}

static int set_host_rate(struct topo_parser *p, const char *val)
{
	return set_rate(p, "host_rate", val, &p->t->host_rate);
}

static int set_uplink_rate(struct topo_parser *p, const char *val)
{
	return set_rate(p, "uplink_rate", val, &p->t->uplink_rate);
}

static int set_ocs_rate(struct topo_parser *p, const char *val)
{
	return set_rate(p, "ocs_rate", val, &p->t->ocs_rate);
}

/* "10" or "10:1" */
static int set_oversub(struct topo_parser *p, const char *val)
{
	char buf[64], *colon;
	double v;

	if (strlen(val) >= sizeof(buf))
		goto bad;
	strcpy(buf, val);
	colon = strchr(buf, ':');
	if (colon) {
		if (strcmp(colon, ":1"))
			goto bad;
		*colon = '\0';
	}
	if (parse_double(buf, 0.001, 1000.0, &v))
		goto bad;
	p->t->oversub = v;
	return 0;
bad:
	return perr(p, "oversub: expected a ratio from 0.001 to 1000 such as 10 or 10:1, got '%s'", val);
}

static int set_ocs(struct topo_parser *p, const char *val)
{
	if (!strcmp(val, "yes"))
		p->t->has_ocs = true;
	else if (!strcmp(val, "no"))
		p->t->has_ocs = false;
	else
		return perr(p, "ocs: expected 'yes' or 'no', got '%s'", val);
	p->ocs_given = 1;
	return 0;
}

static int set_eps(struct topo_parser *p, const char *val)
{
	if (!strcmp(val, "yes"))
		p->t->has_eps = true;
	else if (!strcmp(val, "no"))
		p->t->has_eps = false;
	else
		return perr(p, "eps: expected 'yes' or 'no', got '%s'", val);
	return 0;
}

static int set_delta(struct topo_parser *p, const char *val)
{
	int64_t v;

	if (unit_parse_time(val, &v))
		return perr(p, "delta: expected %s, got '%s'", unit_time_expect, val);
	if (v > 60 * NSEC_PER_SEC)
		return perr(p, "delta: %s is out of range (0 to 60s)", val);
	p->t->delta = v;
	return 0;
}

static int set_tcp_rto_max(struct topo_parser *p, const char *val)
{
	int64_t v;

	if (unit_parse_time(val, &v))
		return perr(p, "tcp_rto_max: expected %s, got '%s'", unit_time_expect, val);
	if (v < NSEC_PER_SEC || v > TOPO_RTO_MAX_KERNEL || v % NSEC_PER_MSEC)
		return perr(p, "tcp_rto_max: %s is out of range (1s to 120s, in whole ms: the kernel's net.ipv4.tcp_rto_max_ms)",
			    val);
	p->t->tcp_rto_max = v;
	return 0;
}

static int set_tcp_cc(struct topo_parser *p, const char *val)
{
	size_t i, n = strlen(val);

	for (i = 0; i < n; i++)
		if (!((val[i] >= 'a' && val[i] <= 'z') || (val[i] >= '0' && val[i] <= '9') ||
		      val[i] == '_'))
			break;
	if (!n || i < n || n >= sizeof(p->t->tcp_cc))
		return perr(p, "tcp_cc: expected the name of a TCP congestion control (lower-case letters, digits and '_', at most %zu: cubic, reno, bbr, dctcp...), got '%s'",
			    sizeof(p->t->tcp_cc) - 1, val);
	memcpy(p->t->tcp_cc, val, n + 1);
	return 0;
}

static int set_t_e(struct topo_parser *p, const char *val)
{
	uint64_t v;

	if (unit_parse_size(val, &v))
		return perr(p, "t_e: expected %s, got '%s'", unit_size_expect, val);
	if (v == 0 || v > 1000000000000000ULL)
		return perr(p, "t_e: %s is out of range (1B to 1PB)", val);
	p->t->t_e = v;
	return 0;
}

static int set_net(struct topo_parser *p, const char *key, const char *val,
		   struct topo_net *net)
{
	char buf[32], *slash;
	struct in_addr a;
	uint64_t plen;
	uint32_t addr, mask;

	if (strlen(val) >= sizeof(buf))
		goto bad;
	strcpy(buf, val);
	slash = strchr(buf, '/');
	if (!slash)
		goto bad;
	*slash = '\0';
	if (inet_pton(AF_INET, buf, &a) != 1 || parse_uint(slash + 1, 1, 30, &plen))
		goto bad;
	addr = ntohl(a.s_addr);
	mask = plen ? ~0U << (32 - plen) : 0;
	if (addr & ~mask)
		return perr(p, "%s: %s has host bits set (expected a network address such as %s)",
			    key, val, "10.0.0.0/12");
	net->addr = addr;
	net->plen = (unsigned)plen;
	return 0;
bad:
	return perr(p, "%s: expected an IPv4 network such as 10.0.0.0/12, got '%s'", key, val);
}

static int set_eps_net(struct topo_parser *p, const char *val)
{
	return set_net(p, "eps_net", val, &p->t->eps_net);
}

static int set_ocs_net(struct topo_parser *p, const char *val)
{
	return set_net(p, "ocs_net", val, &p->t->ocs_net);
}

static int set_link_net(struct topo_parser *p, const char *val)
{
	return set_net(p, "link_net", val, &p->t->link_net);
}

enum {
	K_NAME, K_RACKS, K_HOSTS, K_CONTAINERS, K_REPLICAS, K_HOST_RATE,
	K_UPLINK_RATE, K_OVERSUB, K_OCS, K_OCS_RATE, K_DELTA, K_T_E,
	K_EPS_NET, K_OCS_NET, K_LINK_NET, K_EPS, K_OUTPUT_REPLICATION,
	K_CORES, K_MEMORY, K_CONTAINER_DELAY, K_CPU_SCALE, K_MEM_SCALE,
	K_TCP_RTO_MAX, K_TCP_CC,
};

static const struct topo_key topo_keys[] = {
	[K_NAME] = { "name", "name WORD", set_name },
	[K_RACKS] = { "racks", "racks N", set_racks },
	[K_HOSTS] = { "hosts", "hosts N (per rack)", set_hosts },
	[K_CONTAINERS] = { "containers", "containers N (per host)", set_containers },
	[K_REPLICAS] = { "replicas", "replicas N", set_replicas },
	[K_HOST_RATE] = { "host_rate", "host_rate RATE", set_host_rate },
	[K_UPLINK_RATE] = { "uplink_rate", "uplink_rate RATE", set_uplink_rate },
	[K_OVERSUB] = { "oversub", "oversub RATIO", set_oversub },
	[K_OCS] = { "ocs", "ocs yes|no", set_ocs },
	[K_OCS_RATE] = { "ocs_rate", "ocs_rate RATE", set_ocs_rate },
	[K_DELTA] = { "delta", "delta TIME", set_delta },
	[K_T_E] = { "t_e", "t_e SIZE", set_t_e },
	[K_EPS_NET] = { "eps_net", "eps_net A.B.C.D/N", set_eps_net },
	[K_OCS_NET] = { "ocs_net", "ocs_net A.B.C.D/N", set_ocs_net },
	[K_LINK_NET] = { "link_net", "link_net A.B.C.D/N", set_link_net },
	[K_EPS] = { "eps", "eps yes|no", set_eps },
	[K_OUTPUT_REPLICATION] = { "output_replication", "output_replication N", set_output_replication },
	[K_CORES] = { "cores", "cores N (per host)", set_cores },
	[K_MEMORY] = { "memory", "memory SIZE (per host)", set_memory },
	[K_CONTAINER_DELAY] = { "container_delay", "container_delay TIME|exp:TIME|table1", set_container_delay },
	[K_CPU_SCALE] = { "cpu_scale", "cpu_scale RATIO", set_cpu_scale },
	[K_MEM_SCALE] = { "mem_scale", "mem_scale RATIO", set_mem_scale },
	[K_TCP_RTO_MAX] = { "tcp_rto_max", "tcp_rto_max TIME", set_tcp_rto_max },
	[K_TCP_CC] = { "tcp_cc", "tcp_cc NAME", set_tcp_cc },
};

#define SEEN(p, k) (((p)->seen >> (k)) & 1U)

static int nets_overlap(const struct topo_net *a, const struct topo_net *b)
{
	unsigned plen = a->plen < b->plen ? a->plen : b->plen;
	uint32_t mask = ~0U << (32 - plen);

	return (a->addr & mask) == (b->addr & mask);
}

static unsigned bits_for(unsigned n)
{
	unsigned b = 0;

	while ((1U << b) < n)
		b++;
	return b;
}

/* Checks that need the whole file. p->line is the last line. */
static int topo_finish(struct topo_parser *p)
{
	struct topo *t = p->t;
	static const int required[] = { K_RACKS, K_HOSTS, K_CONTAINERS,
					K_HOST_RATE, K_OCS };
	const struct topo_net *nets[3] = { &t->eps_net, &t->ocs_net, &t->link_net };
	static const char *const net_names[3] = { "eps_net", "ocs_net", "link_net" };
	unsigned i, j, rack_bits;

	for (i = 0; i < ARRAY_SIZE(required); i++)
		if (!SEEN(p, required[i]))
			return perr(p, "end of file: missing '%s'",
				    topo_keys[required[i]].expect);
	if (!t->has_eps) {
		/* no packet core: bw_e has no meaning, and every cross-rack
		 * flow takes the OCS whatever its size */
		static const int eps_keys[] = { K_UPLINK_RATE, K_OVERSUB, K_T_E };

		for (i = 0; i < ARRAY_SIZE(eps_keys); i++)
			if (SEEN(p, eps_keys[i])) {
				p->line = p->line_of[eps_keys[i]];
				return perr(p, "%s: only meaningful with an EPS (this topology says 'eps no'%s)",
					    topo_keys[eps_keys[i]].name,
					    eps_keys[i] == K_T_E ? ": every cross-rack flow takes the OCS" : "");
			}
		if (!t->has_ocs && t->racks > 1) {
			p->line = p->line_of[K_EPS];
			return perr(p, "eps: 'eps no' needs 'ocs yes' (%u racks and no network between them)",
				    t->racks);
		}
	} else if (SEEN(p, K_UPLINK_RATE) == SEEN(p, K_OVERSUB)) {
		if (SEEN(p, K_UPLINK_RATE))
			p->line = p->line_of[K_OVERSUB] > p->line_of[K_UPLINK_RATE]
					  ? p->line_of[K_OVERSUB]
					  : p->line_of[K_UPLINK_RATE];
		return perr(p, "%sexpected exactly one of 'uplink_rate RATE' or 'oversub RATIO' (or 'eps no')",
			    SEEN(p, K_UPLINK_RATE) ? "" : "end of file: ");
	} else if (SEEN(p, K_OVERSUB)) {
		double up = (double)t->hosts * (double)t->host_rate / t->oversub;

		if (up < 1000.0) {
			p->line = p->line_of[K_OVERSUB];
			return perr(p, "oversub: %g leaves an uplink under 1Kbit", t->oversub);
		}
		t->uplink_rate = (uint64_t)(up + 0.5);
	} else {
		t->oversub = (double)t->hosts * (double)t->host_rate /
			     (double)t->uplink_rate;
	}
	if (t->has_ocs) {
		static const int ocs_keys[] = { K_OCS_RATE, K_DELTA, K_T_E };

		for (i = 0; i < ARRAY_SIZE(ocs_keys); i++)
			if (!SEEN(p, ocs_keys[i]) && (t->has_eps || ocs_keys[i] != K_T_E))
				return perr(p, "end of file: 'ocs yes' needs '%s'",
					    topo_keys[ocs_keys[i]].expect);
		if (t->racks < 2) {
			p->line = p->line_of[K_OCS];
			return perr(p, "ocs: an OCS needs at least 2 racks, this topology has %u",
				    t->racks);
		}
	} else {
		static const int ocs_keys[] = { K_OCS_RATE, K_DELTA, K_T_E };

		for (i = 0; i < ARRAY_SIZE(ocs_keys); i++)
			if (SEEN(p, ocs_keys[i])) {
				p->line = p->line_of[ocs_keys[i]];
				return perr(p, "%s: only meaningful with 'ocs yes' (this topology says 'ocs no')",
					    topo_keys[ocs_keys[i]].name);
			}
	}
	if (t->replicas > t->racks * t->hosts) {
		p->line = p->line_of[K_REPLICAS];
		return perr(p, "replicas: %u replicas need at least %u hosts, the topology has %u",
			    t->replicas, t->replicas, t->racks * t->hosts);
	}
	if (t->output_replication > t->racks * t->hosts) {
		p->line = p->line_of[K_OUTPUT_REPLICATION];
		return perr(p, "output_replication: %u replicas need at least %u hosts, the topology has %u",
			    t->output_replication, t->output_replication, t->racks * t->hosts);
	}

	/* a default container: a core and 2GB unless the host says */
	if (!SEEN(p, K_CORES))
		t->cores = t->containers;
	if (!SEEN(p, K_MEMORY))
		t->memory = (uint64_t)t->containers * 2000000000ULL;

	/* Address plan: every rack subnet must fit in each network. */
	t->host_bits = bits_for(t->hosts + 2);
	if (t->host_bits < 8)
		t->host_bits = 8;
	rack_bits = bits_for(t->racks);
	for (i = 0; i < 3; i++) {
		if (nets[i]->plen + rack_bits + t->host_bits > 32) {
			static const int keys[3] = { K_EPS_NET, K_OCS_NET, K_LINK_NET };

			if (SEEN(p, keys[i]))
				p->line = p->line_of[keys[i]];
			return perr(p, "%s: /%u is too small for %u racks of %u hosts (expected a prefix of /%u or shorter)",
				    net_names[i], nets[i]->plen, t->racks, t->hosts,
				    32 - rack_bits - t->host_bits);
		}
		for (j = 0; j < i; j++)
			if (nets_overlap(nets[i], nets[j]))
				return perr(p, "%s overlaps %s: expected disjoint networks",
					    net_names[i], net_names[j]);
	}
	return 0;
}

static void topo_defaults(struct topo *t, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strcspn(base, ".");
	if (n >= TOPO_NAME_MAX)
		n = TOPO_NAME_MAX - 1;
	memcpy(t->name, base, n);
	t->name[n] = '\0';
	t->replicas = 3;
	t->output_replication = 1;
	t->has_eps = true;
	t->eps_net = (struct topo_net){ 0x0a000000, 12 };  /* 10.0.0.0/12 */
	t->ocs_net = (struct topo_net){ 0x0a100000, 12 };  /* 10.16.0.0/12 */
	t->link_net = (struct topo_net){ 0x0a200000, 12 }; /* 10.32.0.0/12 */
	t->container_delay = (struct topo_delay){ TOPO_DELAY_TABLE1, 996 * NSEC_PER_MSEC };
	t->cpu_scale = 0.02;
	t->mem_scale = 1.0 / 128;
	t->tcp_rto_max = TOPO_RTO_MAX_DEFAULT;
	snprintf(t->tcp_cc, sizeof(t->tcp_cc), "%s", TOPO_TCP_CC_DEFAULT);
}

int topo_parse(FILE *fp, const char *path, struct topo **out, char *errbuf)
{
	struct topo_parser p = { .path = path, .errbuf = errbuf };
	char *buf = NULL, *f[4];
	size_t cap = 0, k;
	long n;
	int nf, r = 0;

	p.t = xcalloc(1, sizeof(*p.t));
	topo_defaults(p.t, path);
	while ((n = read_line(fp, &buf, &cap)) != -1) {
		p.line++;
		if (n == -2) {
			r = perr(&p, "not a text file (NUL byte)");
			goto err;
		}
		nf = str_split_fields(buf, f, 3);
		if (nf == 0)
			continue;
		for (k = 0; k < ARRAY_SIZE(topo_keys); k++)
			if (!strcmp(f[0], topo_keys[k].name))
				break;
		if (k == ARRAY_SIZE(topo_keys)) {
			r = perr(&p, "unknown key '%s' (expected one of: name, racks, hosts, containers, replicas, output_replication, host_rate, eps, uplink_rate, oversub, ocs, ocs_rate, delta, t_e, eps_net, ocs_net, link_net, cores, memory, container_delay, cpu_scale, mem_scale, tcp_rto_max, tcp_cc)",
				 f[0]);
			goto err;
		}
		if (nf != 2) {
			r = perr(&p, "expected '%s' (one value after the key)",
				 topo_keys[k].expect);
			goto err;
		}
		if (SEEN(&p, k)) {
			r = perr(&p, "'%s' given twice (first on line %u)",
				 f[0], p.line_of[k]);
			goto err;
		}
		p.seen |= 1U << k;
		p.line_of[k] = p.line;
		r = topo_keys[k].set(&p, f[1]);
		if (r)
			goto err;
	}
	if (ferror(fp)) {
		r = -EIO;
		errbuf_set(errbuf, "%s: read error", path);
		goto err;
	}
	r = topo_finish(&p);
	if (r)
		goto err;
	free(buf);
	*out = p.t;
	return 0;
err:
	free(buf);
	free(p.t);
	return r;
}

int topo_load(const char *path, struct topo **out, char *errbuf)
{
	FILE *fp;
	int r;

	if ((r = file_open_read(path, &fp, errbuf)))
		return r;
	r = topo_parse(fp, path, out, errbuf);
	fclose(fp);
	return r;
}

void topo_free(struct topo *t)
{
	free(t);
}

void topo_host_name(const struct topo *t, unsigned host, char *buf, size_t len)
{
	snprintf(buf, len, "r%uh%u", host / t->hosts, host % t->hosts);
}

/* A decimal index without sign or leading zeros, below max. */
static int parse_index(const char *s, const char **end, unsigned max,
		       unsigned *out)
{
	unsigned v = 0;
	const char *q = s;

	if (!isdigit((unsigned char)*q) || (q[0] == '0' && isdigit((unsigned char)q[1])))
		return -EINVAL;
	while (isdigit((unsigned char)*q)) {
		v = v * 10 + (unsigned)(*q++ - '0');
		if (v >= max)
			return -ERANGE;
	}
	*end = q;
	*out = v;
	return 0;
}

int topo_node_parse(const struct topo *t, const char *name,
		    struct topo_node *out)
{
	const char *end;

	if (!strcmp(name, "core")) {
		*out = (struct topo_node){ .kind = TOPO_NODE_CORE };
		return 0;
	}
	if (!strcmp(name, "ocs")) {
		if (!t->has_ocs)
			return -ENOENT;
		*out = (struct topo_node){ .kind = TOPO_NODE_OCS };
		return 0;
	}
	if (!strncmp(name, "tor", 3)) {
		unsigned rack;

		if (parse_index(name + 3, &end, t->racks, &rack) || *end)
			return -ENOENT;
		*out = (struct topo_node){ .kind = TOPO_NODE_TOR, .rack = rack };
		return 0;
	}
	if (name[0] == 'r') {
		unsigned rack, host;

		if (parse_index(name + 1, &end, t->racks, &rack) || *end != 'h' ||
		    parse_index(end + 1, &end, t->hosts, &host) || *end)
			return -ENOENT;
		*out = (struct topo_node){ .kind = TOPO_NODE_HOST, .rack = rack,
					   .host = host };
		return 0;
	}
	return -ENOENT;
}

uint32_t topo_shaper_burst(uint64_t rate)
{
	uint64_t b = rate / 8 / 100;

	if (b < 65536)
		b = 65536;
	if (b > 1U << 30)
		b = 1U << 30;
	return (uint32_t)b;
}

uint32_t topo_port_queue(uint64_t rate)
{
	/* four GSO frames at least: a sender with one frame in flight must
	 * not drop */
	uint64_t q = rate / 8 / 200;

	return q < 256 * 1024 ? 256 * 1024 : q > (64u << 20) ? (64u << 20) : (uint32_t)q;
}

uint32_t topo_rack_subnet(const struct topo *t, const struct topo_net *net,
			  unsigned rack)
{
	return net->addr + ((uint32_t)rack << t->host_bits);
}

uint32_t topo_host_addr(const struct topo *t, const struct topo_net *net,
			unsigned host)
{
	return topo_rack_subnet(t, net, host / t->hosts) + host % t->hosts + 1;
}

uint32_t topo_rack_gateway(const struct topo *t, const struct topo_net *net,
			   unsigned rack)
{
	return topo_rack_subnet(t, net, rack) + (1U << t->host_bits) - 2;
}

char *topo_addr_str(uint32_t addr, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u.%u", addr >> 24, (addr >> 16) & 255,
		 (addr >> 8) & 255, addr & 255);
	return buf;
}
