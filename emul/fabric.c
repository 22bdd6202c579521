/* The emulated fabric (see fabric.h and emul/README.md). */
#include "config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/fib_rules.h>
#include <linux/if_arp.h>
#include <linux/neighbour.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <netlink/addr.h>
#include <netlink/route/addr.h>
#include <netlink/route/class.h>
#include <netlink/route/link.h>
#include <netlink/route/link/veth.h>
#include <netlink/route/neighbour.h>
#include <netlink/route/qdisc.h>
#include <linux/if_ether.h>
#include <netlink/route/classifier.h>
#include <netlink/route/cls/u32.h>
#include <netlink/route/qdisc/fifo.h>
#include <netlink/route/qdisc/htb.h>
#include <netlink/route/route.h>
#include <netlink/route/rule.h>
#include <netlink/route/tc.h>

#include "core/log.h"
#include "core/rundir.h"
#include "core/util.h"
#include "cgroup.h"
#include "fabric.h"
#include "netns.h"
#include "nlbatch.h"

#define STATE_TOPO "topology.topo"
#define STATE_READY "ready"
#define STATE_PIDS "pids"
/* "<pid> <start>\n" of the process whose lifetime the fabric has (a run):
 * once that process is gone, the fabric is stale. */
#define STATE_OWNER "owner"

/* State is root's only: it names the processes to kill and the sockets
 * that steer the run (emul/README.md, State). */
#define STATE_DIR_MODE 0700
#define STATE_FILE_MODE 0600

/* A file of the state directory, created STATE_FILE_MODE whatever the
 * umask. */
static FILE *state_fopen(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, STATE_FILE_MODE);
	FILE *fp;

	if (fd < 0)
		return NULL;
	fp = fdopen(fd, "w");
	if (!fp)
		close(fd);
	return fp;
}

/* ---------------------------------------------------------------- plan */

int fabric_prefix_check(const char *prefix, char *errbuf)
{
	size_t i, n = strlen(prefix);

	if (strncmp(prefix, "hyde", 4) || n > FABRIC_PREFIX_MAX) {
		errbuf_set(errbuf, "prefix '%s': expected 'hyde' followed by at most %d lower-case letters or digits",
			   prefix, FABRIC_PREFIX_MAX - 4);
		return -EINVAL;
	}
	for (i = 4; i < n; i++)
		if (!((prefix[i] >= 'a' && prefix[i] <= 'z') ||
		      (prefix[i] >= '0' && prefix[i] <= '9'))) {
			errbuf_set(errbuf, "prefix '%s': expected 'hyde' followed by lower-case letters or digits only",
				   prefix);
			return -EINVAL;
		}
	return 0;
}

uint32_t fabric_queue_limit(uint64_t rate)
{
	return topo_port_queue(rate); /* (shared with the simulator) */
}

void fabric_htb_params(uint64_t rate, uint32_t *burst, uint32_t *quantum)
{
	/* rate x 10 ms in bytes, at least 64 KiB (one GSO super-frame).
	 * Measured here (iperf3 goodput / wire-exact): 4 ms gave 0.981 at
	 * 400 Mbit/s and 0.992 at 1 Gbit/s on the loaded machine, 10 ms
	 * 0.998-0.999 from 100 Mbit/s to 5 Gbit/s: a bucket that outlasts
	 * a late timer or a busy CPU (topo_shaper_burst). */
	uint32_t b = topo_shaper_burst(rate);

	*burst = b;
	/* One class per qdisc: the quantum only has to let a whole GSO
	 * frame go per round; HTB warns beyond 200000. */
	*quantum = b > 200000 ? 200000 : b;
}

uint32_t fabric_uplink_addr(const struct topo *t, unsigned rack, bool core_side)
{
	return t->link_net.addr + 4 * rack + (core_side ? 2 : 1);
}

unsigned fabric_uplink_plen(void)
{
	return 30;
}

/* The second half of link_net is the flat OCS segment. */
uint32_t fabric_ocs_port_addr(const struct topo *t, unsigned rack)
{
	uint32_t half = 1U << (32 - t->link_net.plen - 1);

	return t->link_net.addr + half + rack + 1;
}

unsigned fabric_ocs_port_plen(const struct topo *t)
{
	return t->link_net.plen + 1;
}

void fabric_ocs_mac(unsigned rack, uint8_t mac[6])
{
	static const uint8_t oui[4] = { 0x02, 0x68, 0x79, 0x6f };

	memcpy(mac, oui, 4);
	mac[4] = (uint8_t)(rack >> 8);
	mac[5] = (uint8_t)(rack & 255);
}

/* 02:68:<kind>:<index, 24 bits>: locally administered, unicast, one kind
 * byte per kind of interface (none is 0x79, the ocs ports' byte) and an
 * index unique within the kind (a host id is below 2^24: TOPO_MAX_RACKS
 * x TOPO_MAX_HOSTS). */
static void mac_of(uint8_t kind, uint32_t index, uint8_t mac[6])
{
	mac[0] = 0x02;
	mac[1] = 0x68;
	mac[2] = kind;
	mac[3] = (uint8_t)(index >> 16);
	mac[4] = (uint8_t)(index >> 8);
	mac[5] = (uint8_t)index;
}

#define MAC_HOST 'e'	 /* host's eth0, by host id */
#define MAC_TOR_HOST 'h' /* ToR's h<i>, by the id of the host on it */
#define MAC_BRIDGE 'b'	 /* ToR's br0, by rack */
#define MAC_UP 'u'	 /* ToR's up, by rack */
#define MAC_CORE 'c'	 /* core's r<k>, by rack */
#define MAC_OCS_PORT 'p' /* ocs's p<k>, by rack */

static void host_mac(const struct topo *t, unsigned rack, unsigned i, uint8_t mac[6])
{
	mac_of(MAC_HOST, topo_host_id(t, rack, i), mac);
}

int fabric_iface_mac(const struct fabric *f, unsigned node, const char *ifname,
		     uint8_t mac[6])
{
	const struct topo *t = f->topo;
	const struct fabric_node *n = &f->nodes[node];
	unsigned long k;
	char *end;

	switch (n->kind) {
	case TOPO_NODE_HOST:
		if (strcmp(ifname, "eth0"))
			return -ENOENT;
		host_mac(t, n->rack, n->host, mac);
		return 0;
	case TOPO_NODE_TOR:
		if (!strcmp(ifname, "br0"))
			mac_of(MAC_BRIDGE, n->rack, mac);
		else if (!strcmp(ifname, "up"))
			mac_of(MAC_UP, n->rack, mac);
		else if (!strcmp(ifname, "ocs") && t->has_ocs)
			fabric_ocs_mac(n->rack, mac);
		else if (ifname[0] == 'h' && ifname[1] >= '0' && ifname[1] <= '9' &&
			 (k = strtoul(ifname + 1, &end, 10)) < t->hosts && !*end)
			mac_of(MAC_TOR_HOST, topo_host_id(t, n->rack, (unsigned)k), mac);
		else
			return -ENOENT;
		return 0;
	case TOPO_NODE_CORE:
	case TOPO_NODE_OCS:
		if (ifname[0] != (n->kind == TOPO_NODE_CORE ? 'r' : 'p') ||
		    ifname[1] < '0' || ifname[1] > '9')
			return -ENOENT;
		k = strtoul(ifname + 1, &end, 10);
		if (*end || k >= t->racks)
			return -ENOENT;
		mac_of(n->kind == TOPO_NODE_CORE ? MAC_CORE : MAC_OCS_PORT, (uint32_t)k, mac);
		return 0;
	}
	return -ENOENT;
}

static unsigned node_tor(unsigned rack)
{
	return rack;
}

static unsigned node_host(const struct topo *t, unsigned rack, unsigned i)
{
	return t->racks + topo_host_id(t, rack, i);
}

static unsigned node_core(const struct topo *t)
{
	return t->racks + topo_n_hosts(t);
}

static unsigned node_ocs(const struct topo *t)
{
	return node_core(t) + 1;
}

static void add_link(struct fabric *f, unsigned a, const char *a_if,
		     int a_index, unsigned b, const char *b_if, int b_index,
		     uint64_t rate)
{
	struct fabric_link *l = &f->links[f->n_links++];

	l->a = a;
	l->b = b;
	snprintf(l->a_if, sizeof(l->a_if), "%s", a_if);
	snprintf(l->b_if, sizeof(l->b_if), "%s", b_if);
	l->a_index = a_index;
	l->b_index = b_index;
	l->rate = rate;
}

/* Nodes and links of f->topo under f->prefix. */
static void fabric_plan(struct fabric *f)
{
	const struct topo *t = f->topo;
	unsigned k, i, n = 0;
	char a[16], b[16];

	f->n_nodes = t->racks + topo_n_hosts(t) + 1 + (t->has_ocs ? 1 : 0);
	f->nodes = xcalloc(f->n_nodes, sizeof(*f->nodes));
	for (k = 0; k < t->racks; k++) {
		f->nodes[n] = (struct fabric_node){ .kind = TOPO_NODE_TOR, .rack = k };
		snprintf(f->nodes[n].name, sizeof(f->nodes[n].name), "tor%u", k);
		n++;
	}
	for (k = 0; k < t->racks; k++)
		for (i = 0; i < t->hosts; i++) {
			f->nodes[n] = (struct fabric_node){ .kind = TOPO_NODE_HOST,
							   .rack = k, .host = i };
			topo_host_name(t, topo_host_id(t, k, i), f->nodes[n].name,
				       sizeof(f->nodes[n].name));
			n++;
		}
	f->nodes[n] = (struct fabric_node){ .kind = TOPO_NODE_CORE };
	snprintf(f->nodes[n].name, sizeof(f->nodes[n].name), "core");
	n++;
	if (t->has_ocs) {
		f->nodes[n] = (struct fabric_node){ .kind = TOPO_NODE_OCS };
		snprintf(f->nodes[n].name, sizeof(f->nodes[n].name), "ocs");
		n++;
	}
	for (i = 0; i < f->n_nodes; i++) {
		snprintf(f->nodes[i].ns, sizeof(f->nodes[i].ns), "%s-%s",
			 f->prefix, f->nodes[i].name);
		f->nodes[i].ns_fd = -1;
	}

	f->links = xcalloc(topo_n_hosts(t) + 2 * t->racks, sizeof(*f->links));
	for (k = 0; k < t->racks; k++) {
		for (i = 0; i < t->hosts; i++) {
			snprintf(a, sizeof(a), "h%u", i);
			add_link(f, node_tor(k), a, FABRIC_IDX_PORT0 + (int)i,
				 node_host(t, k, i), "eth0", FABRIC_IDX_ETH0,
				 t->host_rate);
		}
		snprintf(b, sizeof(b), "r%u", k);
		add_link(f, node_tor(k), "up", FABRIC_IDX_UP, node_core(t), b,
			 FABRIC_IDX_PORT0 + (int)k, t->uplink_rate);
		if (t->has_ocs) {
			snprintf(b, sizeof(b), "p%u", k);
			add_link(f, node_tor(k), "ocs", FABRIC_IDX_OCS, node_ocs(t),
				 b, FABRIC_IDX_PORT0 + (int)k, t->ocs_rate);
		}
	}
}

static struct fabric *fabric_alloc(const char *prefix, struct topo *t)
{
	struct fabric *f = xcalloc(1, sizeof(*f));

	snprintf(f->prefix, sizeof(f->prefix), "%s", prefix);
	snprintf(f->state_dir, sizeof(f->state_dir), "%s/%s", FABRIC_STATE_ROOT,
		 prefix);
	f->topo = t;
	fabric_plan(f);
	return f;
}

struct fabric *fabric_plan_new(const struct topo *t, const char *prefix)
{
	struct topo *copy = xmalloc(sizeof(*copy));

	*copy = *t;
	return fabric_alloc(prefix, copy);
}

void fabric_free(struct fabric *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->n_nodes; i++)
		if (f->nodes[i].ns_fd >= 0)
			close(f->nodes[i].ns_fd);
	free(f->nodes);
	free(f->links);
	topo_free(f->topo);
	free(f);
}

int fabric_node_index(const struct fabric *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->n_nodes; i++)
		if (!strcmp(f->nodes[i].name, name))
			return (int)i;
	return -ENOENT;
}

int fabric_ns_fd(struct fabric *f, const char *node)
{
	struct fabric_node *n;
	int i = fabric_node_index(f, node), r;

	if (i < 0)
		return i;
	n = &f->nodes[i];
	if (n->ns_fd < 0) {
		r = netns_open(n->ns, &n->ns_fd, NULL);
		if (r)
			return r;
	}
	return n->ns_fd;
}

/* ------------------------------------------------------------- state */

/* The topology as a file that topo_load() reads back to the same values:
 * every rate, size and time in its base unit, so nothing is rounded. */
int fabric_write_topo(const char *path, const struct topo *t)
{
	char a[32], b[32], c[32];
	FILE *fp = state_fopen(path);
	int r = 0;

	if (!fp)
		return -errno;
	fprintf(fp, "# written by hyde topo up: the topology of this fabric\n");
	fprintf(fp, "name %s\nracks %u\nhosts %u\ncontainers %u\nreplicas %u\n",
		t->name, t->racks, t->hosts, t->containers, t->replicas);
	fprintf(fp, "host_rate %" PRIu64 "bit\nuplink_rate %" PRIu64 "bit\n",
		t->host_rate, t->uplink_rate);
	if (t->has_ocs)
		fprintf(fp, "ocs yes\nocs_rate %" PRIu64 "bit\ndelta %" PRId64
			    "ns\nt_e %" PRIu64 "B\n",
			t->ocs_rate, t->delta, t->t_e);
	else
		fprintf(fp, "ocs no\n");
	fprintf(fp, "eps_net %s/%u\nocs_net %s/%u\nlink_net %s/%u\n",
		topo_addr_str(t->eps_net.addr, a, sizeof(a)), t->eps_net.plen,
		topo_addr_str(t->ocs_net.addr, b, sizeof(b)), t->ocs_net.plen,
		topo_addr_str(t->link_net.addr, c, sizeof(c)), t->link_net.plen);
	if (fflush(fp) || ferror(fp))
		r = -errno;
	if (fclose(fp) && !r)
		r = -errno;
	return r ? r : 0;
}

static int touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, STATE_FILE_MODE);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Remove dir and what hyde puts in it (files and one level of
 * subdirectories of files). */
static int remove_state_dir(const char *dir)
{
	char sub[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int r = 0;

	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		if (unlink(sub) == 0)
			continue;
		if (errno == EISDIR || errno == EPERM) {
			DIR *d2 = opendir(sub);
			struct dirent *de2;
			char f2[PATH_MAX + 256];

			if (d2) {
				while ((de2 = readdir(d2))) {
					if (de2->d_name[0] == '.')
						continue;
					snprintf(f2, sizeof(f2), "%s/%s", sub,
						 de2->d_name);
					unlink(f2);
				}
				closedir(d2);
			}
			if (rmdir(sub) && !r)
				r = -errno;
		} else if (errno != ENOENT && !r) {
			r = -errno;
		}
	}
	closedir(d);
	if (rmdir(dir) && errno != ENOENT && !r)
		r = -errno;
	return r;
}

/* Field 22 of /proc/PID/stat: when the process started, in clock ticks
 * since boot. With the PID it names one process for good. Also says
 * whether it is a zombie (state Z). */
static int proc_start(pid_t pid, unsigned long long *start, bool *zombie)
{
	char path[64], buf[1024], *p;
	unsigned long long v = 0;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the command name may hold anything */
	if (!p || p[1] != ' ')
		return -EIO;
	p += 2; /* field 3, the state */
	if (zombie)
		*zombie = *p == 'Z' || *p == 'X';
	for (field = 3; field < 22 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p || sscanf(p, "%llu", &v) != 1)
		return -EIO;
	*start = v;
	return 0;
}

static int record_pid(struct fabric *f, pid_t pid, const char *node,
		      const char *prog)
{
	char path[PATH_MAX];
	unsigned long long start;
	FILE *fp;
	int r;

	r = proc_start(pid, &start, NULL);
	if (r)
		return r;
	snprintf(path, sizeof(path), "%s/%s/%d", f->state_dir, STATE_PIDS,
		 (int)pid);
	fp = state_fopen(path);
	if (!fp)
		return -errno;
	fprintf(fp, "%llu %s %s\n", start, node, prog);
	r = fclose(fp) ? -errno : 0;
	return r;
}

/* The owner of a state directory: this process, for as long as it lives. */
static int write_owner(const char *dir)
{
	char path[PATH_MAX];
	unsigned long long start;
	FILE *fp;
	int r;

	r = proc_start(getpid(), &start, NULL);
	if (r)
		return r;
	snprintf(path, sizeof(path), "%s/%s", dir, STATE_OWNER);
	fp = state_fopen(path);
	if (!fp)
		return -errno;
	fprintf(fp, "%d %llu\n", (int)getpid(), start);
	return fclose(fp) ? -errno : 0;
}

/* Whether the owner recorded in dir is gone: 1 (it exited, or its PID now
 * names another process), 0 (alive; *pid says who), -ENOENT (no owner: not
 * a run's fabric, or a run killed before it wrote one). */
static int owner_gone(const char *dir, pid_t *pid)
{
	char path[PATH_MAX];
	unsigned long long want, have;
	bool zombie;
	FILE *fp;
	int p, ok;

	snprintf(path, sizeof(path), "%s/%s", dir, STATE_OWNER);
	fp = fopen(path, "re");
	if (!fp)
		return -ENOENT;
	ok = fscanf(fp, "%d %llu", &p, &want) == 2 && p > 0;
	fclose(fp);
	if (!ok)
		return -ENOENT;
	*pid = p;
	if (proc_start(p, &have, &zombie) || have != want || zombie)
		return 1;
	return 0;
}

void fabric_forget_pid(struct fabric *f, pid_t pid)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s/%d", f->state_dir, STATE_PIDS,
		 (int)pid);
	unlink(path);
}

struct pid_set {
	pid_t *v;
	size_t n, cap;
};

static void pid_set_add(struct pid_set *s, pid_t pid)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i] == pid)
			return;
	xgrow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v));
	s->v[s->n++] = pid;
}

/* The processes recorded in a state directory that are still the same
 * process (same start time): a PID reused since is left alone. */
static void recorded_pids(const char *dir, struct pid_set *s)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", dir, STATE_PIDS);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		unsigned long long want, have;
		char file[PATH_MAX + 256], *end;
		bool zombie;
		FILE *fp;
		long pid;
		int ok;

		pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || pid == getpid())
			continue;
		snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
		fp = fopen(file, "re");
		if (!fp)
			continue;
		ok = fscanf(fp, "%llu", &want) == 1;
		fclose(fp);
		if (ok && !proc_start((pid_t)pid, &have, &zombie) &&
		    have == want && !zombie)
			pid_set_add(s, (pid_t)pid);
	}
	closedir(d);
}

static bool alive(pid_t pid)
{
	unsigned long long start;
	bool zombie;

	/* Our own children stay zombies until their parent reaps them: they
	 * hold no namespace any more, so they count as gone. */
	return proc_start(pid, &start, &zombie) == 0 && !zombie;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* SIGTERM (tcpdump flushes its file, iperf3 says goodbye), then SIGKILL
 * what is still there after a second. */
static unsigned kill_pids(const struct pid_set *s)
{
	unsigned killed = 0;
	size_t i;
	int round;

	for (i = 0; i < s->n; i++)
		if (kill(s->v[i], SIGTERM) == 0)
			killed++;
	for (round = 0; round < 100; round++) {
		bool any = false;

		for (i = 0; i < s->n && !any; i++)
			any = alive(s->v[i]);
		if (!any)
			return killed;
		sleep_ms(10);
	}
	for (i = 0; i < s->n; i++)
		if (alive(s->v[i])) {
			log_warnx("process %d did not stop on SIGTERM: killing it",
				  (int)s->v[i]);
			kill(s->v[i], SIGKILL);
		}
	for (round = 0; round < 200; round++) {
		bool any = false;

		for (i = 0; i < s->n && !any; i++)
			any = alive(s->v[i]);
		if (!any)
			break;
		sleep_ms(10);
	}
	return killed;
}

/* Remove the namespaces whose names start with ns_match and the state
 * directories dirs[], after killing their processes. */
static int clean_set(const char *ns_match, char **dirs, size_t n_dirs,
		     struct hyde_clean_report *rep, char *errbuf)
{
	struct netns_id *ids = NULL;
	struct pid_set pids = { 0 };
	char **names = NULL, eb[HYDE_ERRBUF_SIZE];
	size_t n = 0, n_ids = 0, i, np = 0;
	pid_t *found = NULL;
	int r, first = 0;

	r = netns_list(ns_match, &names, &n, errbuf);
	if (r)
		return r;
	if (n)
		ids = xcalloc(n, sizeof(*ids));
	for (i = 0; i < n; i++)
		if (!netns_id_of(names[i], &ids[n_ids]))
			n_ids++;
	for (i = 0; i < n_dirs; i++)
		recorded_pids(dirs[i], &pids);
	if (n_ids && !netns_find_pids(ids, n_ids, &found, &np))
		for (i = 0; i < np; i++)
			pid_set_add(&pids, found[i]);
	free(found);
	if (pids.n) {
		unsigned k = kill_pids(&pids);

		if (rep)
			rep->processes += k;
	}
	for (i = 0; i < n; i++) {
		r = netns_delete(names[i], eb);
		if (r && r != -ENOENT && !first) {
			first = r;
			errbuf_set(errbuf, "%s", eb);
		} else if (!r && rep) {
			rep->namespaces++;
		}
	}
	for (i = 0; i < n_dirs; i++) {
		r = remove_state_dir(dirs[i]);
		if (r && !first) {
			first = r;
			errbuf_set(errbuf, "cannot remove %s: %s", dirs[i],
				   strerror(-r));
		} else if (!r && rep) {
			rep->state_dirs++;
		}
	}
	free(pids.v);
	free(ids);
	netns_list_free(names, n);
	return first;
}

static int clean_prefix(const char *prefix, struct hyde_clean_report *rep,
			char *errbuf)
{
	char match[FABRIC_PREFIX_MAX + 2], dir[PATH_MAX], *dirs[1] = { dir };
	struct stat st;

	int r;

	snprintf(match, sizeof(match), "%s-", prefix);
	snprintf(dir, sizeof(dir), "%s/%s", FABRIC_STATE_ROOT, prefix);
	r = clean_set(match, dirs, stat(dir, &st) == 0 ? 1 : 0, rep, errbuf);
	cg_clean(prefix); /* the containers' cgroups, their processes gone */
	return r;
}

int hyde_clean_report(const char *prefix, bool all,
		      struct hyde_clean_report *rep, char *errbuf)
{
	char **dirs = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	DIR *d;
	int r;

	if (rep)
		memset(rep, 0, sizeof(*rep));
	if (geteuid() != 0) {
		errbuf_set(errbuf, "needs root (it removes network namespaces and stops processes)");
		return -EPERM;
	}
	if (!all) {
		if (!prefix) {
			errbuf_set(errbuf, "clean: expected a prefix or all");
			return -EINVAL;
		}
		r = fabric_prefix_check(prefix, errbuf);
		return r ? r : clean_prefix(prefix, rep, errbuf);
	}
	d = opendir(FABRIC_STATE_ROOT);
	if (d) {
		while ((de = readdir(d))) {
			if (strncmp(de->d_name, "hyde", 4))
				continue;
			xgrow((void **)&dirs, &cap, n + 1, sizeof(*dirs));
			dirs[n] = xasprintf("%s/%s", FABRIC_STATE_ROOT, de->d_name);
			n++;
		}
		closedir(d);
	}
	r = clean_set("hyde", dirs, n, rep, errbuf);
	cg_clean(NULL);
	for (i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
	return r;
}

int hyde_clean(const char *prefix, bool all, char *errbuf)
{
	return hyde_clean_report(prefix, all, NULL, errbuf);
}

int fabric_down(struct fabric *f, char *errbuf)
{
	size_t i;

	for (i = 0; i < f->n_nodes; i++)
		if (f->nodes[i].ns_fd >= 0) {
			close(f->nodes[i].ns_fd);
			f->nodes[i].ns_fd = -1;
		}
	return clean_prefix(f->prefix, NULL, errbuf);
}

/* ------------------------------------------------------------- build */

static struct nl_addr *addr4(uint32_t a, unsigned plen)
{
	uint32_t be = htonl(a);
	struct nl_addr *n = nl_addr_build(AF_INET, &be, sizeof(be));

	if (!n)
		fatalx("out of memory");
	nl_addr_set_prefixlen(n, (int)plen);
	return n;
}

static const char *ip(uint32_t a, char *buf)
{
	return topo_addr_str(a, buf, 16);
}

struct build {
	struct fabric *f;
	struct nlb *nl; /* one socket per node, opened inside its namespace */
	unsigned node;  /* the node being initialised */
};

static int write_sysctl(const char *name, const char *val, bool optional,
			const char *node, char *errbuf)
{
	char path[256];
	size_t len = strlen(val);
	int fd, r = 0;

	snprintf(path, sizeof(path), "/proc/sys/net/%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		if (optional && errno == ENOENT)
			return 0;
		r = -errno;
	} else {
		if (write(fd, val, len) != (ssize_t)len)
			r = -errno;
		close(fd);
	}
	if (r) {
		char dotted[256];
		size_t i;

		for (i = 0; name[i] && i + 1 < sizeof(dotted); i++)
			dotted[i] = name[i] == '/' ? '.' : name[i];
		dotted[i] = '\0';
		errbuf_set(errbuf, "%s: sysctl net.%s = %s: %s", node, dotted,
			   val, strerror(-r));
	}
	return r;
}

static int set_link_up(struct nlb *b, int ifindex, const char *ifname)
{
	struct rtnl_link *l = rtnl_link_alloc();
	struct nl_msg *msg = NULL;
	int r;

	rtnl_link_set_ifindex(l, ifindex);
	rtnl_link_set_flags(l, IFF_UP);
	r = rtnl_link_build_add_request(l, 0, &msg);
	rtnl_link_put(l);
	return nlb_send(b, r, msg, "set %s up", ifname);
}

/* A host's TCP retransmission timer, capped at the topology's tcp_rto_max
 * (1 s by default). A circuit stays down for seconds while Sunflow serves
 * other coflows, and a flow's last window waits in the VOQ meanwhile:
 * TCP times out again and again, doubling its timer up to the kernel's
 * 120 s, and a segment lost just before the circuit went down (the
 * circuit's burst into a slower host link) is sent again only when that
 * timer fires, long after the circuit is back. On rack8 x fb-small, neat:
 * a 1.56 MB flow waited 5.6 s with its circuit up for 3.9 s of it, and
 * the average CCT was 1.39-1.60x the fluid model's, which resumes a flow
 * with its circuit; with a 1 s cap, 1.04x. The kernel counts retries, not
 * time, before it gives up on a connection (tcp_retries2, and
 * tcp_orphan_retries once the service has closed its end): at 15 and 8
 * retries a 1 s cap would end a fetch that waits 15 s for its circuit
 * (runs failed so), so with a cap both go to the most the kernel takes,
 * 255 (about 4 minutes at 1 s). So does a connection's set-up: a
 * fetch's SYN-ACK comes back over the circuit (its requests and ACKs go
 * over the EPS), and waits in the VOQ while the circuit is down; the
 * kernel's 6 SYN retries last 127 s with a doubling timer and 7 s at 1 s
 * (rack8 x fb-small, cobra: a fetch's connect timed out 7.5 s after its
 * circuit went down, and the run failed), so the client retries as long
 * as the kernel lets it (tcp_syn_retries 127, about 2 minutes at 1 s), and
 * the server keeps its half-open connection at least as long
 * (tcp_synack_retries 255): one it dropped would answer its SYN-ACK's late
 * ACK with a reset once the client's next SYN has made a new one. A kernel
 * without the cap (before 6.15) keeps its own timer. */
static int host_tcp_timeouts(const struct topo *t, const char *node, char *errbuf)
{
	char v[32];
	int r;

	if (t->tcp_rto_max >= TOPO_RTO_MAX_KERNEL || access("/proc/sys/net/ipv4/tcp_rto_max_ms", F_OK))
		return 0;
	snprintf(v, sizeof(v), "%" PRId64, (int64_t)(t->tcp_rto_max / NSEC_PER_MSEC));
	r = write_sysctl("ipv4/tcp_rto_max_ms", v, false, node, errbuf);
	if (!r)
		r = write_sysctl("ipv4/tcp_retries2", "255", false, node, errbuf);
	if (!r)
		r = write_sysctl("ipv4/tcp_orphan_retries", "255", false, node, errbuf);
	if (!r)
		r = write_sysctl("ipv4/tcp_syn_retries", "127", false, node, errbuf);
	if (!r)
		r = write_sysctl("ipv4/tcp_synack_retries", "255", false, node, errbuf);
	return r;
}

/* Is the topology's tcp_cc one the kernel has? (Before anything is built.) */
static int tcp_cc_check(const struct topo *t, char *errbuf)
{
	char avail[512] = "", *w, *save = NULL, list[512];
	FILE *fp = fopen("/proc/sys/net/ipv4/tcp_available_congestion_control", "re");

	if (!fp)
		return 0; /* the write in each host says what is wrong */
	if (!fgets(avail, sizeof(avail), fp))
		avail[0] = '\0';
	fclose(fp);
	avail[strcspn(avail, "\n")] = '\0';
	snprintf(list, sizeof(list), "%s", avail);
	for (w = strtok_r(list, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		if (!strcmp(w, t->tcp_cc))
			return 0;
	errbuf_set(errbuf, "topology %s: tcp_cc %s: this kernel has no such TCP congestion control (it has: %s; one built as a module needs 'modprobe tcp_%s' first)",
		   t->name, t->tcp_cc, avail, t->tcp_cc);
	return -EINVAL; /* bad input, as a topology without EPS */
}

/* Runs inside a new namespace: its sysctls, before any interface exists
 * so that every one inherits the defaults, and its netlink socket. */
static int node_init(void *arg, char *errbuf)
{
	struct build *bd = arg;
	const struct fabric_node *n = &bd->f->nodes[bd->node];
	struct nlb *b = &bd->nl[bd->node];
	int r;

	/* No IPv6: no router solicitations or MLD reports in the captures. */
	r = write_sysctl("ipv6/conf/default/disable_ipv6", "1", true, n->name, errbuf);
	if (!r)
		r = write_sysctl("ipv6/conf/all/disable_ipv6", "1", true, n->name, errbuf);
	/* A host sends from its OCS address over the EPS and back (TOS
	 * 0x04): no reverse-path check may drop that. */
	if (!r)
		r = write_sysctl("ipv4/conf/default/rp_filter", "0", false, n->name, errbuf);
	if (!r)
		r = write_sysctl("ipv4/conf/all/rp_filter", "0", false, n->name, errbuf);
	/* Nor the IGMP report of the bridge joining 224.0.0.106 (multicast
	 * router discovery) when br0 comes up. */
	if (!r)
		r = write_sysctl("ipv4/igmp_link_local_mcast_reports", "0", true,
				 n->name, errbuf);
	if (!r && (n->kind == TOPO_NODE_TOR || n->kind == TOPO_NODE_CORE))
		r = write_sysctl("ipv4/ip_forward", "1", false, n->name, errbuf);
	if (!r && n->kind == TOPO_NODE_HOST)
		r = host_tcp_timeouts(bd->f->topo, n->name, errbuf);
	if (r)
		return r;
	r = nlb_open(b, n->name, errbuf);
	if (r)
		return r;
	set_link_up(b, 1, "lo");
	return 0;
}

static void link_set_mac(struct rtnl_link *link, const uint8_t mac[6])
{
	struct nl_addr *a = nl_addr_build(AF_LLC, mac, 6);

	if (!a)
		fatalx("out of memory");
	rtnl_link_set_addr(link, a);
	nl_addr_put(a);
}

/* The MAC `up` gives an interface it plans (fabric_iface_mac). */
static void plan_mac(const struct fabric *f, unsigned node, const char *ifname,
		     uint8_t mac[6])
{
	if (fabric_iface_mac(f, node, ifname, mac))
		fatalx("fabric: no MAC planned for %s:%s", f->nodes[node].name, ifname);
}

static int send_veth(struct nlb *b, const struct fabric *f,
		     const struct fabric_link *l, int master)
{
	const struct fabric_node *peer_node = &f->nodes[l->b];
	struct rtnl_link *link = rtnl_link_veth_alloc(), *peer;
	struct nl_msg *msg = NULL;
	uint8_t mac[6];
	int r;

	if (!link)
		fatalx("out of memory");
	peer = rtnl_link_veth_get_peer(link);
	rtnl_link_set_name(link, l->a_if);
	rtnl_link_set_ifindex(link, l->a_index);
	rtnl_link_set_flags(link, IFF_UP);
	if (master)
		rtnl_link_set_master(link, master);
	/* Both ends get the MACs of the plan, which the permanent neighbour
	 * entries name: nothing is left for ARP to find out. */
	plan_mac(f, l->a, l->a_if, mac);
	link_set_mac(link, mac);
	plan_mac(f, l->b, l->b_if, mac);
	link_set_mac(peer, mac);
	/* The peer is made directly in its own namespace: nothing of the
	 * fabric ever exists in the namespace the builder runs in. */
	rtnl_link_set_name(peer, l->b_if);
	rtnl_link_set_ifindex(peer, l->b_index);
	/* Not IFF_UP here: the kernel would open the peer before the pair is
	 * joined (veth_open: ENOTCONN). Its own namespace's batch sets it up. */
	rtnl_link_set_ns_fd(peer, peer_node->ns_fd);
	r = rtnl_link_build_add_request(link, NLM_F_CREATE | NLM_F_EXCL, &msg);
	rtnl_link_put(peer);
	rtnl_link_veth_release(link);
	return nlb_send(b, r, msg, "veth %s <-> %s:%s", l->a_if, peer_node->name,
			l->b_if);
}

static int send_bridge(struct nlb *b, const uint8_t mac[6])
{
	struct rtnl_link *l = rtnl_link_alloc();
	struct nl_msg *msg = NULL;
	int r;

	rtnl_link_set_name(l, "br0");
	rtnl_link_set_ifindex(l, FABRIC_IDX_BR0);
	rtnl_link_set_flags(l, IFF_UP);
	/* Set, not inherited from the lowest port as a bridge's MAC is by
	 * default: that one changes as ports join, and a change of MAC
	 * flushes the device's neighbour entries, permanent ones too. */
	link_set_mac(l, mac);
	r = rtnl_link_set_type(l, "bridge");
	if (!r)
		r = rtnl_link_build_add_request(l, NLM_F_CREATE | NLM_F_EXCL, &msg);
	rtnl_link_put(l);
	return nlb_send(b, r, msg, "bridge br0");
}

static int send_addr_flags(struct nlb *b, int ifindex, const char *ifname,
			   uint32_t a, unsigned plen, unsigned flags)
{
	struct rtnl_addr *ad = rtnl_addr_alloc();
	struct nl_addr *local = addr4(a, plen);
	struct nl_msg *msg = NULL;
	char s[16];
	int r;

	rtnl_addr_set_family(ad, AF_INET);
	rtnl_addr_set_ifindex(ad, ifindex);
	r = rtnl_addr_set_local(ad, local);
	nl_addr_put(local);
	if (flags)
		rtnl_addr_set_flags(ad, flags);
	if (!r)
		r = rtnl_addr_build_add_request(ad, NLM_F_CREATE | NLM_F_EXCL, &msg);
	rtnl_addr_put(ad);
	return nlb_send(b, r, msg, "address %s/%u on %s", ip(a, s), plen, ifname);
}

static int send_addr(struct nlb *b, int ifindex, const char *ifname,
		     uint32_t a, unsigned plen)
{
	return send_addr_flags(b, ifindex, ifname, a, plen, 0);
}

/* dst/plen via gw (0: on-link) out of ifindex, from src (0: any), its
 * TCP connections with congestion control cc (NULL: the namespace's). */
static int send_route_cc(struct nlb *b, uint32_t table, uint32_t dst,
			 unsigned plen, uint32_t gw, int ifindex,
			 const char *ifname, bool onlink, uint32_t src, const char *cc)
{
	struct rtnl_route *rt = rtnl_route_alloc();
	struct rtnl_nexthop *nh = rtnl_route_nh_alloc();
	struct nl_addr *a = addr4(dst, plen);
	struct nl_msg *msg = NULL;
	char s1[16], s2[16];
	int r;

	rtnl_route_set_family(rt, AF_INET);
	rtnl_route_set_table(rt, table);
	rtnl_route_set_type(rt, RTN_UNICAST);
	rtnl_route_set_protocol(rt, RTPROT_STATIC);
	rtnl_route_set_scope(rt, gw ? RT_SCOPE_UNIVERSE : RT_SCOPE_LINK);
	r = rtnl_route_set_dst(rt, a);
	nl_addr_put(a);
	if (src) {
		a = addr4(src, 32);
		rtnl_route_set_pref_src(rt, a);
		nl_addr_put(a);
	}
	rtnl_route_nh_set_ifindex(nh, ifindex);
	if (gw) {
		a = addr4(gw, 32);
		rtnl_route_nh_set_gateway(nh, a);
		nl_addr_put(a);
	}
	if (onlink) {
		/* One nexthop goes as RTA_GATEWAY/RTA_OIF: its flags are the
		 * route's. */
		rtnl_route_nh_set_flags(nh, RTNH_F_ONLINK);
		rtnl_route_set_flags(rt, RTNH_F_ONLINK);
	}
	rtnl_route_add_nexthop(rt, nh); /* rt owns nh */
	if (!r)
		r = rtnl_route_build_add_request(rt, NLM_F_CREATE | NLM_F_EXCL, &msg);
	rtnl_route_put(rt);
	if (!r && cc) {
		/* RTAX_CC_ALGO is a string: libnl's metrics are numbers, so
		 * the nest goes after what it built (`ip route ... congctl`) */
		struct nlattr *mx = nla_nest_start(msg, RTA_METRICS);

		if (!mx || nla_put_string(msg, RTAX_CC_ALGO, cc) < 0)
			r = -NLE_NOMEM;
		else
			nla_nest_end(msg, mx);
	}
	return nlb_send(b, r, msg, "route %s/%u via %s dev %s%s table %u%s%s",
			ip(dst, s1), plen, gw ? ip(gw, s2) : "on-link", ifname,
			onlink ? " onlink" : "", table, cc ? " congctl " : "", cc ? cc : "");
}

static int send_route(struct nlb *b, uint32_t table, uint32_t dst,
		      unsigned plen, uint32_t gw, int ifindex,
		      const char *ifname, bool onlink, uint32_t src)
{
	return send_route_cc(b, table, dst, plen, gw, ifindex, ifname, onlink, src, NULL);
}

static int send_neigh(struct nlb *b, int ifindex, const char *ifname,
		      uint32_t dst, const uint8_t mac[6])
{
	struct rtnl_neigh *ne = rtnl_neigh_alloc();
	struct nl_addr *a = addr4(dst, 32), *ll = nl_addr_build(AF_LLC, mac, 6);
	struct nl_msg *msg = NULL;
	char s[16];
	int r;

	rtnl_neigh_set_family(ne, AF_INET);
	rtnl_neigh_set_ifindex(ne, ifindex);
	rtnl_neigh_set_dst(ne, a);
	rtnl_neigh_set_lladdr(ne, ll);
	rtnl_neigh_set_state(ne, NUD_PERMANENT);
	nl_addr_put(a);
	nl_addr_put(ll);
	r = rtnl_neigh_build_add_request(ne, NLM_F_CREATE | NLM_F_EXCL, &msg);
	rtnl_neigh_put(ne);
	return nlb_send(b, r, msg, "neighbour %s on %s", ip(dst, s), ifname);
}

/* A static entry of br0's forwarding database: frames to mac leave by
 * port ifindex only. The bridge would learn it from the host's first
 * frame, but with no ARP the first frame to a host may be a SYN, which
 * an unlearnt bridge floods to every port of the rack (and into their
 * captures); a learnt entry also ages out after 300 s idle. */
static int send_fdb(struct nlb *b, int ifindex, const char *ifname,
		    const uint8_t mac[6])
{
	struct rtnl_neigh *ne = rtnl_neigh_alloc();
	struct nl_addr *ll = nl_addr_build(AF_LLC, mac, 6);
	struct nl_msg *msg = NULL;
	int r;

	if (!ne || !ll)
		fatalx("out of memory");
	rtnl_neigh_set_family(ne, AF_BRIDGE);
	rtnl_neigh_set_ifindex(ne, ifindex);
	rtnl_neigh_set_lladdr(ne, ll);
	/* NUD_NOARP is the bridge's "static" (NUD_PERMANENT would make the
	 * MAC the bridge's own, delivered to br0); NTF_MASTER: the bridge's
	 * table, not the port's. */
	rtnl_neigh_set_state(ne, NUD_NOARP);
	rtnl_neigh_set_flags(ne, NTF_MASTER);
	nl_addr_put(ll);
	r = rtnl_neigh_build_add_request(ne, NLM_F_CREATE | NLM_F_EXCL, &msg);
	rtnl_neigh_put(ne);
	return nlb_send(b, r, msg, "bridge fdb %02x:%02x:%02x:%02x:%02x:%02x on %s", mac[0],
			mac[1], mac[2], mac[3], mac[4], mac[5], ifname);
}

static int send_rule(struct nlb *b)
{
	struct rtnl_rule *ru = rtnl_rule_alloc();
	struct nl_msg *msg = NULL;
	int r;

	rtnl_rule_set_family(ru, AF_INET);
	rtnl_rule_set_prio(ru, FABRIC_RULE_PRIO);
	rtnl_rule_set_dsfield(ru, HYDE_TOS_REVERSE);
	rtnl_rule_set_table(ru, FABRIC_TABLE_REVERSE);
	rtnl_rule_set_action(ru, FR_ACT_TO_TBL);
	r = rtnl_rule_build_add_request(ru, NLM_F_CREATE | NLM_F_EXCL, &msg);
	rtnl_rule_put(ru);
	return nlb_send(b, r, msg, "rule tos 0x%02x lookup %u", HYDE_TOS_REVERSE,
			FABRIC_TABLE_REVERSE);
}

static void send_htb_class(struct nlb *b, int ifindex, const char *ifname,
			   uint32_t parent, uint32_t handle, uint64_t rate,
			   uint64_t ceil, uint32_t prio)
{
	struct rtnl_class *c = rtnl_class_alloc();
	struct nl_msg *msg = NULL;
	uint32_t burst, quantum;
	int r;

	fabric_htb_params(ceil, &burst, &quantum);
	rtnl_tc_set_ifindex(TC_CAST(c), ifindex);
	rtnl_tc_set_parent(TC_CAST(c), parent);
	rtnl_tc_set_handle(TC_CAST(c), handle);
	r = rtnl_tc_set_kind(TC_CAST(c), "htb");
	if (!r)
		r = rtnl_htb_set_rate64(c, rate / 8);
	if (!r)
		r = rtnl_htb_set_ceil64(c, ceil / 8);
	if (!r)
		r = rtnl_htb_set_rbuffer(c, burst);
	if (!r)
		r = rtnl_htb_set_cbuffer(c, burst);
	if (!r)
		r = rtnl_htb_set_quantum(c, quantum);
	if (!r)
		r = rtnl_htb_set_prio(c, prio);
	if (!r)
		r = rtnl_class_build_add_request(c, NLM_F_CREATE | NLM_F_EXCL, &msg);
	rtnl_class_put(c);
	nlb_send(b, r, msg, "htb class %x:%x rate %" PRIu64 "bit on %s", handle >> 16,
		 handle & 0xffff, rate, ifname);
}

/* Each link end: root HTB 1: with class 1:1 at the link's rate, split in
 * two children that share it: 1:10 (priority 0) for small packets (an IP
 * total length under 128 bytes: SYNs, pure ACKs, fetch requests) and 1:20
 * (priority 1, the default) for the rest, whose leaf is a byte FIFO sized
 * as a switch port's buffer (fabric_queue_limit). Why: a host both serves
 * map outputs and fetches them; with one FIFO, its SYNs and ACKs waited
 * behind its own bulk data for tens of ms (measured: a fetch's SYN left
 * the host 3-22 ms after connect()), which is neither what a datacenter
 * NIC/ToR with control-packet priority does nor measurable at the ToR
 * port. The kernel's default leaf (1000 packets of up to 64 KB with GSO)
 * would also hold seconds at these rates. Rates: 1:10 guarantees 5% and
 * 1:20 95%, both may borrow up to the link's rate, so the sum is exact. */
static int send_htb(struct nlb *b, int ifindex, const char *ifname,
		    uint64_t rate)
{
	struct rtnl_qdisc *q = rtnl_qdisc_alloc();
	struct rtnl_cls *cls;
	struct nl_msg *msg = NULL;
	int r;

	rtnl_tc_set_ifindex(TC_CAST(q), ifindex);
	rtnl_tc_set_parent(TC_CAST(q), TC_H_ROOT);
	rtnl_tc_set_handle(TC_CAST(q), TC_HANDLE(1, 0));
	r = rtnl_tc_set_kind(TC_CAST(q), "htb");
	if (!r)
		r = rtnl_htb_set_defcls(q, 0x20);
	if (!r)
		r = rtnl_qdisc_build_add_request(q, NLM_F_CREATE | NLM_F_REPLACE, &msg);
	rtnl_qdisc_put(q);
	nlb_send(b, r, msg, "htb qdisc on %s", ifname);

	send_htb_class(b, ifindex, ifname, TC_HANDLE(1, 0), TC_HANDLE(1, 1), rate, rate, 0);
	send_htb_class(b, ifindex, ifname, TC_HANDLE(1, 1), TC_HANDLE(1, 0x10),
		       rate / 20, rate, 0);
	send_htb_class(b, ifindex, ifname, TC_HANDLE(1, 1), TC_HANDLE(1, 0x20),
		       rate - rate / 20, rate, 1);

	q = rtnl_qdisc_alloc();
	msg = NULL;
	rtnl_tc_set_ifindex(TC_CAST(q), ifindex);
	rtnl_tc_set_parent(TC_CAST(q), TC_HANDLE(1, 0x20));
	rtnl_tc_set_handle(TC_CAST(q), TC_HANDLE(0x20, 0));
	r = rtnl_tc_set_kind(TC_CAST(q), "bfifo");
	if (!r)
		r = rtnl_qdisc_fifo_set_limit(q, (int)fabric_queue_limit(rate));
	if (!r)
		r = rtnl_qdisc_build_add_request(q, NLM_F_CREATE | NLM_F_REPLACE, &msg);
	rtnl_qdisc_put(q);
	nlb_send(b, r, msg, "bfifo leaf on %s", ifname);

	/* u32: IPv4 total length & 0xff80 == 0, i.e. under 128 bytes */
	cls = rtnl_cls_alloc();
	msg = NULL;
	rtnl_tc_set_ifindex(TC_CAST(cls), ifindex);
	rtnl_tc_set_parent(TC_CAST(cls), TC_HANDLE(1, 0));
	rtnl_cls_set_protocol(cls, ETH_P_IP);
	rtnl_cls_set_prio(cls, 1);
	r = rtnl_tc_set_kind(TC_CAST(cls), "u32");
	if (!r)
		r = rtnl_u32_add_key_uint16(cls, 0, 0xff80, 2, 0);
	if (!r)
		r = rtnl_u32_set_classid(cls, TC_HANDLE(1, 0x10));
	if (!r)
		r = rtnl_u32_set_cls_terminal(cls);
	if (!r)
		r = rtnl_cls_build_add_request(cls, NLM_F_CREATE | NLM_F_EXCL, &msg);
	rtnl_cls_put(cls);
	return nlb_send(b, r, msg, "u32 filter on %s", ifname);
}

/* Phase 2, in each ToR: its bridge and every veth it ends. */
static int build_tor_links(struct build *bd, unsigned k, char *errbuf)
{
	struct fabric *f = bd->f;
	struct nlb *b = &bd->nl[node_tor(k)];
	uint8_t mac[6];
	size_t i;

	plan_mac(f, node_tor(k), "br0", mac);
	send_bridge(b, mac);
	for (i = 0; i < f->n_links; i++) {
		const struct fabric_link *l = &f->links[i];

		if (l->a != node_tor(k))
			continue;
		send_veth(b, f, l,
			  f->nodes[l->b].kind == TOPO_NODE_HOST ? FABRIC_IDX_BR0 : 0);
	}
	return nlb_flush(b, errbuf);
}

/* Every neighbour a host's routes lead to, permanent: its gateways (br0)
 * and the other hosts of its rack, at both their addresses. Why: ARP can
 * fail for reasons that have nothing to do with the emulated network. The
 * kernel's IPv4 neighbour table is one for all namespaces of the machine,
 * with one bound (gc_thresh3, 1024 by default, settable in the root
 * namespace only); past it a host cannot make the entry an ARP reply
 * needs, so it ignores requests, and its peers' connect() fail with
 * EHOSTUNREACH after 3 s of probes (a 160-host run can need more than
 * 1024 entries by itself; a smaller one fails when other fabrics on the
 * box hold the rest). Permanent entries do not count against that bound,
 * and a fabric that needs no other entry sends no ARP at all. */
static void host_neighbours(struct build *bd, const struct fabric_node *n,
			    struct nlb *b)
{
	const struct topo *t = bd->f->topo;
	uint8_t mac[6];
	unsigned j;

	plan_mac(bd->f, node_tor(n->rack), "br0", mac);
	send_neigh(b, FABRIC_IDX_ETH0, "eth0", topo_rack_gateway(t, &t->eps_net, n->rack), mac);
	if (t->has_ocs)
		send_neigh(b, FABRIC_IDX_ETH0, "eth0",
			   topo_rack_gateway(t, &t->ocs_net, n->rack), mac);
	for (j = 0; j < t->hosts; j++) {
		unsigned id = topo_host_id(t, n->rack, j);

		if (j == n->host)
			continue;
		host_mac(t, n->rack, j, mac);
		send_neigh(b, FABRIC_IDX_ETH0, "eth0", topo_host_addr(t, &t->eps_net, id), mac);
		if (t->has_ocs)
			send_neigh(b, FABRIC_IDX_ETH0, "eth0",
				   topo_host_addr(t, &t->ocs_net, id), mac);
	}
}

/* A host's addresses and routes. Every route names the topology's TCP
 * congestion control (tcp_cc, cubic by default), so its connections, both
 * ends, run that and not the machine's choice: a new namespace inherits
 * the machine's default, and this kind of machine runs BBR, which a
 * namespace may not change back (net.ipv4.tcp_congestion_control refuses
 * what is not in the machine's tcp_allowed_congestion_control, "reno bbr"
 * here; a route's congctl is not so restricted). So every emulated host
 * ran BBR, unasked: BBR paces itself at its estimate of the bottleneck's
 * rate and raises it by a quarter once every eight round trips, and a flow
 * that had shared a host link crawled once alone on it (tiny x small.wl,
 * minload: a 2.5 MB fetch sent one 35 KB burst every 48 ms, 5.8 Mbit/s on
 * an idle 100 Mbit/s link, for a second after its neighbours had ended;
 * the coflow took 2.66 s against the fluid model's 1.25). The papers'
 * clusters ran Linux's default, CUBIC, a loss-based TCP whose share of a
 * drop-tail port the model's max-min stands for. The rack's subnets get
 * their on-link routes here, not from the addresses (noprefixroute), so
 * that in-rack connections carry it too. */
static void build_host(struct build *bd, const struct fabric_node *n,
		       struct nlb *b)
{
	const struct topo *t = bd->f->topo;
	unsigned id = topo_host_id(t, n->rack, n->host), plen = topo_rack_plen(t);
	uint32_t eps = topo_host_addr(t, &t->eps_net, id);
	const char *cc = t->tcp_cc;

	send_addr_flags(b, FABRIC_IDX_ETH0, "eth0", eps, plen, IFA_F_NOPREFIXROUTE);
	send_route_cc(b, RT_TABLE_MAIN, topo_rack_subnet(t, &t->eps_net, n->rack), plen, 0,
		      FABRIC_IDX_ETH0, "eth0", false, eps, cc);
	send_route_cc(b, RT_TABLE_MAIN, 0, 0,
		      topo_rack_gateway(t, &t->eps_net, n->rack), FABRIC_IDX_ETH0,
		      "eth0", false, eps, cc);
	if (t->has_ocs) {
		uint32_t ocs = topo_host_addr(t, &t->ocs_net, id);

		send_addr_flags(b, FABRIC_IDX_ETH0, "eth0", ocs, plen, IFA_F_NOPREFIXROUTE);
		send_route_cc(b, RT_TABLE_MAIN, topo_rack_subnet(t, &t->ocs_net, n->rack), plen,
			      0, FABRIC_IDX_ETH0, "eth0", false, ocs, cc);
		/* From the OCS address, so that a connection to an OCS
		 * address is OCS on both ends. */
		send_route_cc(b, RT_TABLE_MAIN, t->ocs_net.addr, t->ocs_net.plen,
			      topo_rack_gateway(t, &t->ocs_net, n->rack),
			      FABRIC_IDX_ETH0, "eth0", false, ocs, cc);
	}
	host_neighbours(bd, n, b);
}

static void build_tor(struct build *bd, const struct fabric_node *n,
		      struct nlb *b)
{
	const struct topo *t = bd->f->topo;
	unsigned k = n->rack, j, plen = topo_rack_plen(t);
	uint32_t core = fabric_uplink_addr(t, k, true);
	char ifname[16];
	uint8_t mac[6];

	send_addr(b, FABRIC_IDX_BR0, "br0", topo_rack_gateway(t, &t->eps_net, k), plen);
	send_addr(b, FABRIC_IDX_UP, "up", fabric_uplink_addr(t, k, false),
		  fabric_uplink_plen());
	send_route(b, RT_TABLE_MAIN, t->eps_net.addr, t->eps_net.plen, core,
		   FABRIC_IDX_UP, "up", false, 0);
	/* Permanent neighbours (see host_neighbours): the rack's hosts on
	 * br0, each also a static entry of br0's forwarding table, and the
	 * core on up. */
	for (j = 0; j < t->hosts; j++) {
		unsigned id = topo_host_id(t, k, j);
		char port[16];

		snprintf(port, sizeof(port), "h%u", j);
		host_mac(t, k, j, mac);
		send_fdb(b, FABRIC_IDX_PORT0 + (int)j, port, mac);
		send_neigh(b, FABRIC_IDX_BR0, "br0", topo_host_addr(t, &t->eps_net, id), mac);
		if (t->has_ocs)
			send_neigh(b, FABRIC_IDX_BR0, "br0",
				   topo_host_addr(t, &t->ocs_net, id), mac);
	}
	snprintf(ifname, sizeof(ifname), "r%u", k);
	plan_mac(bd->f, node_core(t), ifname, mac);
	send_neigh(b, FABRIC_IDX_UP, "up", core, mac);
	if (!t->has_ocs)
		return;
	send_addr(b, FABRIC_IDX_BR0, "br0", topo_rack_gateway(t, &t->ocs_net, k), plen);
	send_addr(b, FABRIC_IDX_OCS, "ocs", fabric_ocs_port_addr(t, k),
		  fabric_ocs_port_plen(t));
	for (j = 0; j < t->racks; j++) {
		if (j == k)
			continue;
		/* Rack j's OCS subnet is behind ToR j's ocs port, whose MAC
		 * is fixed and known: no ARP ever crosses the OCS, and the
		 * crossbar reads the destination rack from the MAC. */
		fabric_ocs_mac(j, mac);
		send_neigh(b, FABRIC_IDX_OCS, "ocs", fabric_ocs_port_addr(t, j), mac);
		send_route(b, RT_TABLE_MAIN, topo_rack_subnet(t, &t->ocs_net, j),
			   plen, fabric_ocs_port_addr(t, j), FABRIC_IDX_OCS,
			   "ocs", true, 0);
	}
	/* TOS 0x04 (a shuffle's requests and ACKs) to an OCS address goes
	 * over the EPS: only the data needs the circuit. The rack's own OCS
	 * subnet stays on the bridge in that table too, or a packet that
	 * came back from the core would be sent to it again (a loop). */
	send_route(b, FABRIC_TABLE_REVERSE, topo_rack_subnet(t, &t->ocs_net, k), plen, 0,
		   FABRIC_IDX_BR0, "br0", false, 0);
	send_route(b, FABRIC_TABLE_REVERSE, t->ocs_net.addr, t->ocs_net.plen,
		   core, FABRIC_IDX_UP, "up", false, 0);
	send_rule(b);
}

static void build_core(struct build *bd, struct nlb *b)
{
	const struct topo *t = bd->f->topo;
	unsigned k, plen = topo_rack_plen(t);
	char ifname[16];
	uint8_t mac[6];

	for (k = 0; k < t->racks; k++) {
		int idx = FABRIC_IDX_PORT0 + (int)k;
		uint32_t tor = fabric_uplink_addr(t, k, false);

		snprintf(ifname, sizeof(ifname), "r%u", k);
		send_addr(b, idx, ifname, fabric_uplink_addr(t, k, true),
			  fabric_uplink_plen());
		/* ToR k's up, permanent (see host_neighbours) */
		plan_mac(bd->f, node_tor(k), "up", mac);
		send_neigh(b, idx, ifname, tor, mac);
		send_route(b, RT_TABLE_MAIN, topo_rack_subnet(t, &t->eps_net, k),
			   plen, tor, idx, ifname, false, 0);
		if (t->has_ocs)
			send_route(b, RT_TABLE_MAIN,
				   topo_rack_subnet(t, &t->ocs_net, k), plen,
				   tor, idx, ifname, false, 0);
	}
}

/* Phase 3, in each node: addresses, shaping, routes, rule, neighbours. */
static int build_node(struct build *bd, unsigned node, char *errbuf)
{
	struct fabric *f = bd->f;
	const struct fabric_node *n = &f->nodes[node];
	struct nlb *b = &bd->nl[node];
	size_t i;

	for (i = 0; i < f->n_links; i++) {
		const struct fabric_link *l = &f->links[i];

		if (l->a == node)
			send_htb(b, l->a_index, l->a_if, l->rate);
		else if (l->b == node) {
			set_link_up(b, l->b_index, l->b_if);
			send_htb(b, l->b_index, l->b_if, l->rate);
		}
	}
	switch (n->kind) {
	case TOPO_NODE_HOST:
		build_host(bd, n, b);
		break;
	case TOPO_NODE_TOR:
		build_tor(bd, n, b);
		break;
	case TOPO_NODE_CORE:
		build_core(bd, b);
		break;
	case TOPO_NODE_OCS:
		break; /* ports only: the crossbar forwards between them */
	}
	return nlb_flush(b, errbuf);
}

/* Many namespaces mean many descriptors (one per namespace, one socket
 * per namespace while building). */
static void raise_nofile(size_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need + 64)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need + 64
			      ? need + 64
			      : rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

static int leftovers(const char *prefix, char *errbuf)
{
	char match[FABRIC_PREFIX_MAX + 2], dir[PATH_MAX], **names;
	struct stat st;
	bool has_dir;
	pid_t owner;
	size_t n;
	int r;

	snprintf(match, sizeof(match), "%s-", prefix);
	snprintf(dir, sizeof(dir), "%s/%s", FABRIC_STATE_ROOT, prefix);
	r = netns_list(match, &names, &n, errbuf);
	if (r)
		return r;
	netns_list_free(names, n);
	has_dir = stat(dir, &st) == 0;
	if (!n && !has_dir)
		return 0;
	if (has_dir && owner_gone(dir, &owner) == 0)
		errbuf_set(errbuf, "prefix '%s' is in use by a run (pid %d, state in %s): wait for it to end, or choose another --prefix; 'hyde clean --prefix %s' removes its fabric",
			   prefix, (int)owner, dir, prefix);
	else if (n && has_dir)
		errbuf_set(errbuf, "a fabric with prefix '%s' exists (%zu namespaces %s-*, state in %s): 'hyde topo down --prefix %s' or 'hyde clean --prefix %s' removes it",
			   prefix, n, prefix, dir, prefix, prefix);
	else
		errbuf_set(errbuf, "leftovers of prefix '%s' found (%zu namespaces %s-*%s%s): 'hyde clean --prefix %s' removes them",
			   prefix, n, prefix, has_dir ? ", state directory " : "",
			   has_dir ? dir : "", prefix);
	return -EEXIST;
}

/* Serialises, between hyde processes, the check for leftovers, the
 * removal of a stale fabric and the making of a state directory: else a
 * second run could remove, as stale, the fabric a first one has just
 * begun. A flock on /run/hyde itself, so there is no lock file to leave
 * behind. Returns the descriptor to close, or a negative errno. */
static int state_lock(char *errbuf)
{
	int fd, r;

	if (mkdir(FABRIC_STATE_ROOT, 0755) && errno != EEXIST) {
		r = -errno;
		errbuf_set(errbuf, "cannot create %s: %s", FABRIC_STATE_ROOT, strerror(errno));
		return r;
	}
	fd = open(FABRIC_STATE_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_EX)) {
		r = -errno;
		errbuf_set(errbuf, "cannot lock %s: %s", FABRIC_STATE_ROOT, strerror(errno));
		if (fd >= 0)
			close(fd);
		return r;
	}
	return fd;
}

/* A run's fabric whose run is gone (SIGKILL, a crash, the OOM killer):
 * remove it, saying so. Its processes died with the run (fabric_spawn);
 * its namespaces and state stay until removed. */
static int remove_stale(const char *prefix, char *errbuf)
{
	char dir[PATH_MAX];
	pid_t owner;
	int r;

	snprintf(dir, sizeof(dir), "%s/%s", FABRIC_STATE_ROOT, prefix);
	if (owner_gone(dir, &owner) != 1)
		return 0;
	log_warnx("prefix %s: removing the fabric of a run that is gone (pid %d)", prefix,
		  (int)owner);
	r = clean_prefix(prefix, NULL, errbuf);
	if (r)
		errbuf_set(errbuf, "prefix %s: cannot remove what a run that is gone left (%s): 'hyde clean --prefix %s' should",
			   prefix, strerror(-r), prefix);
	return r;
}

static int fabric_build(const struct topo *t, const char *prefix, bool owned,
			struct fabric **out, char *errbuf);

int fabric_up(const struct topo *t, const char *prefix, struct fabric **out,
	      char *errbuf)
{
	return fabric_build(t, prefix, false, out, errbuf);
}

int fabric_up_owned(const struct topo *t, const char *prefix, struct fabric **out,
		    char *errbuf)
{
	return fabric_build(t, prefix, true, out, errbuf);
}

static int fabric_build(const struct topo *t, const char *prefix, bool owned,
			struct fabric **out, char *errbuf)
{
	struct build bd = { 0 };
	int64_t t0, t1, t2;
	struct topo *copy;
	struct fabric *f;
	char path[PATH_MAX], eb[HYDE_ERRBUF_SIZE];
	size_t i;
	unsigned k;
	int r, lock;

	*out = NULL;
	r = fabric_prefix_check(prefix, errbuf);
	if (r)
		return r;
	if (!t->has_eps) {
		/* a fetch's request and its ACKs go back over the EPS (the
		 * circuits are one way): the flow-level simulator only */
		errbuf_set(errbuf, "topology %s has no EPS ('eps no'): the emulated fabric needs one; use hyde sim",
			   t->name);
		return -EINVAL;
	}
	if (geteuid() != 0) {
		errbuf_set(errbuf, "needs root (it creates network namespaces)");
		return -EPERM;
	}
	r = tcp_cc_check(t, errbuf);
	if (r)
		return r;
	lock = state_lock(errbuf);
	if (lock < 0)
		return lock;
	r = owned ? remove_stale(prefix, errbuf) : 0;
	if (!r)
		r = leftovers(prefix, errbuf);
	if (r) {
		close(lock);
		return r;
	}

	copy = xmalloc(sizeof(*copy));
	*copy = *t;
	f = fabric_alloc(prefix, copy);
	bd.f = f;

	/* The state directory first, and for a run its owner, before the
	 * lock goes: from then on another builder sees them. */
	if (mkdir(f->state_dir, STATE_DIR_MODE)) {
		r = -errno;
		if (errno == EEXIST)
			leftovers(prefix, errbuf);
		else
			errbuf_set(errbuf, "cannot create %s: %s", f->state_dir,
				   strerror(errno));
		close(lock);
		fabric_free(f);
		return r;
	}
	r = owned ? write_owner(f->state_dir) : 0;
	close(lock);
	if (r) {
		errbuf_set(errbuf, "cannot write %s/%s: %s", f->state_dir, STATE_OWNER,
			   strerror(-r));
		goto err;
	}
	snprintf(path, sizeof(path), "%s/%s", f->state_dir, STATE_PIDS);
	if (mkdir(path, STATE_DIR_MODE)) {
		r = -errno;
		errbuf_set(errbuf, "cannot create %s: %s", path, strerror(errno));
		goto err;
	}
	snprintf(path, sizeof(path), "%s/%s", f->state_dir, STATE_TOPO);
	r = fabric_write_topo(path, t);
	if (r) {
		errbuf_set(errbuf, "cannot write %s: %s", path, strerror(-r));
		goto err;
	}
	r = netns_prepare_dir(errbuf);
	if (r)
		goto err;
	raise_nofile(2 * f->n_nodes);

	/* Phase 1: the namespaces, each with its sysctls and socket. */
	t0 = now_ns();
	bd.nl = xcalloc(f->n_nodes, sizeof(*bd.nl));
	for (i = 0; i < f->n_nodes; i++) {
		bd.node = (unsigned)i;
		r = netns_create(f->nodes[i].ns, node_init, &bd,
				 &f->nodes[i].ns_fd, errbuf);
		if (r)
			goto err;
	}
	t1 = now_ns();
	/* Phase 2: links, all made from the ToRs' sockets. */
	for (k = 0; k < t->racks; k++) {
		r = build_tor_links(&bd, k, errbuf);
		if (r)
			goto err;
	}
	t2 = now_ns();
	/* Phase 3: everything else, one batch per node. */
	for (i = 0; i < f->n_nodes; i++) {
		r = build_node(&bd, (unsigned)i, errbuf);
		if (r)
			goto err;
	}
	log_debug("fabric %s: %zu namespaces %.3f s, %zu links %.3f s, configuration %.3f s",
		  prefix, f->n_nodes, (double)(t1 - t0) / 1e9, f->n_links,
		  (double)(t2 - t1) / 1e9, (double)(now_ns() - t2) / 1e9);
	for (i = 0; i < f->n_nodes; i++)
		nlb_close(&bd.nl[i]);
	free(bd.nl);
	snprintf(path, sizeof(path), "%s/%s", f->state_dir, STATE_READY);
	r = touch(path);
	if (r) {
		errbuf_set(errbuf, "cannot write %s: %s", path, strerror(-r));
		bd.nl = NULL;
		goto err;
	}
	*out = f;
	return 0;

err:
	if (bd.nl) {
		for (i = 0; i < f->n_nodes; i++)
			nlb_close(&bd.nl[i]);
		free(bd.nl);
	}
	for (i = 0; i < f->n_nodes; i++)
		if (f->nodes[i].ns_fd >= 0) {
			close(f->nodes[i].ns_fd);
			f->nodes[i].ns_fd = -1;
		}
	if (clean_prefix(prefix, NULL, eb))
		log_warnx("while undoing a failed build: %s", eb);
	fabric_free(f);
	return r;
}

int fabric_open(const char *prefix, struct fabric **out, char *errbuf)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], eb[HYDE_ERRBUF_SIZE];
	struct topo *t;
	struct stat st;
	int r;

	*out = NULL;
	r = fabric_prefix_check(prefix, errbuf);
	if (r)
		return r;
	snprintf(dir, sizeof(dir), "%s/%s", FABRIC_STATE_ROOT, prefix);
	if (stat(dir, &st)) {
		r = -errno;
		if (errno == ENOENT)
			errbuf_set(errbuf, "no fabric with prefix '%s' is up (no %s): 'hyde topo up' builds one",
				   prefix, dir);
		else
			errbuf_set(errbuf, "%s: %s", dir, strerror(errno));
		return r;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, STATE_READY);
	if (stat(path, &st)) {
		errbuf_set(errbuf, "the fabric with prefix '%s' is incomplete (being built, or its builder was killed): 'hyde clean --prefix %s' removes it",
			   prefix, prefix);
		return -EAGAIN;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, STATE_TOPO);
	r = topo_load(path, &t, eb);
	if (r) {
		errbuf_set(errbuf, "fabric '%s': %s", prefix, eb);
		return r;
	}
	*out = fabric_alloc(prefix, t);
	return 0;
}

char *fabric_self_path(char *buf, size_t size)
{
	static const char deleted[] = " (deleted)";
	size_t dl = sizeof(deleted) - 1;
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	if ((size_t)n > dl && !strcmp(buf + n - dl, deleted))
		buf[n - dl] = '\0';
	return buf;
}

int fabric_spawn(struct fabric *f, const char *node, char *const argv[],
		 int out_fd, int err_fd, pid_t *pid, char *errbuf)
{
	int go[2], st[2], fd, e, r;
	pid_t p, parent = getpid();
	char self[PATH_MAX];
	ssize_t n;

	fd = fabric_ns_fd(f, node);
	if (fd < 0) {
		errbuf_set(errbuf, fd == -ENOENT && fabric_node_index(f, node) < 0
					   ? "no node '%s' in this fabric"
					   : "node '%s': its namespace is gone",
			   node);
		return fd;
	}
	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(st, O_CLOEXEC)) {
		r = -errno;
		close(go[0]);
		close(go[1]);
		return r;
	}
	p = fork();
	if (p < 0) {
		r = -errno;
		errbuf_set(errbuf, "fork: %s", strerror(errno));
		close(go[0]);
		close(go[1]);
		close(st[0]);
		close(st[1]);
		return r;
	}
	if (p == 0) {
		sigset_t none;
		char c;

		close(go[1]);
		close(st[0]);
		/* Die with the parent, whatever kills it (SIGKILL, a crash,
		 * the OOM killer): the kernel sends the death signal when the
		 * thread that forked us exits, so it needs nothing from a
		 * parent that may get no chance to act. It survives execve
		 * (hyde is not set-user-ID). If the parent died between fork()
		 * and prctl(), we have been reparented already: getppid()
		 * tells. Why not a cgroup: here the cgroup controllers are v1
		 * hierarchies (none in the unified one), a cgroup must be
		 * emptied by someone alive, and it would add a directory to
		 * remove after a crash; PDEATHSIG costs nothing and leaves
		 * nothing. Its limits: it follows the forking thread (hyde is
		 * single-threaded: call this from the main thread), and only
		 * our direct children (they start none; a command of `hyde
		 * topo exec` that daemonizes escapes it as it would escape
		 * `ip netns exec`, and `hyde clean` finds it in the
		 * namespace). Processes with a clean stop of their own turn
		 * the signal into SIGTERM (fabric_death_signal). */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(127);
		/* Wait until the parent has recorded us: if it dies first,
		 * the pipe says so and nothing unrecorded runs. */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		if (setns(fd, CLONE_NEWNET))
			goto child_err;
		/* As `ip netns exec`: a private mount namespace whose /sys
		 * shows this namespace's interfaces (libpcap lists devices
		 * from /sys/class/net: tcpdump -D, tcpdump without -i). */
		if (unshare(CLONE_NEWNS) ||
		    mount("", "/", "none", MS_SLAVE | MS_REC, NULL))
			goto child_err;
		umount2("/sys", MNT_DETACH);
		if (mount(f->nodes[fabric_node_index(f, node)].ns, "/sys",
			  "sysfs", 0, NULL))
			goto child_err;
		if (out_fd >= 0 && out_fd != STDOUT_FILENO &&
		    dup2(out_fd, STDOUT_FILENO) < 0)
			goto child_err;
		if (err_fd >= 0 && err_fd != STDERR_FILENO &&
		    dup2(err_fd, STDERR_FILENO) < 0)
			goto child_err;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		if (fabric_self_path(self, sizeof(self)) && !strcmp(self, argv[0]))
			execv("/proc/self/exe", argv); /* the running binary */
		execvp(argv[0], argv);
child_err:
		e = errno;
		if (write(st[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(st[1]);
	r = record_pid(f, p, node, argv[0]);
	if (r) {
		errbuf_set(errbuf, "cannot record process %d in %s: %s", (int)p,
			   f->state_dir, strerror(-r));
		close(go[1]);
		close(st[0]);
		waitpid(p, NULL, 0);
		return r;
	}
	if (write(go[1], "g", 1) != 1) {
		r = -errno;
		close(go[1]);
		close(st[0]);
		kill(p, SIGKILL);
		waitpid(p, NULL, 0);
		fabric_forget_pid(f, p);
		errbuf_set(errbuf, "cannot start the child: %s", strerror(-r));
		return r;
	}
	close(go[1]);
	do
		n = read(st[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(st[0]);
	if (n == (ssize_t)sizeof(e)) {
		waitpid(p, NULL, 0);
		fabric_forget_pid(f, p);
		errbuf_set(errbuf, "%s: cannot run '%s': %s", node, argv[0],
			   strerror(e));
		return -e;
	}
	*pid = p;
	return 0;
}

void fabric_death_signal(int sig)
{
	int cur = 0;

	if (!prctl(PR_GET_PDEATHSIG, &cur) && cur)
		prctl(PR_SET_PDEATHSIG, sig);
}

/* ------------------------------------------------------------ inspect */

unsigned fabric_iface_addrs(const struct fabric *f, unsigned node,
			    const char *ifname, struct topo_net out[2])
{
	const struct topo *t = f->topo;
	const struct fabric_node *n = &f->nodes[node];
	unsigned plen = topo_rack_plen(t), k;
	char *end;

	switch (n->kind) {
	case TOPO_NODE_HOST:
		if (strcmp(ifname, "eth0"))
			return 0;
		k = topo_host_id(t, n->rack, n->host);
		out[0] = (struct topo_net){ topo_host_addr(t, &t->eps_net, k), plen };
		out[1] = (struct topo_net){ topo_host_addr(t, &t->ocs_net, k), plen };
		return t->has_ocs ? 2 : 1;
	case TOPO_NODE_TOR:
		if (!strcmp(ifname, "br0")) {
			out[0] = (struct topo_net){ topo_rack_gateway(t, &t->eps_net, n->rack), plen };
			out[1] = (struct topo_net){ topo_rack_gateway(t, &t->ocs_net, n->rack), plen };
			return t->has_ocs ? 2 : 1;
		}
		if (!strcmp(ifname, "up")) {
			out[0] = (struct topo_net){ fabric_uplink_addr(t, n->rack, false),
						    fabric_uplink_plen() };
			return 1;
		}
		if (!strcmp(ifname, "ocs") && t->has_ocs) {
			out[0] = (struct topo_net){ fabric_ocs_port_addr(t, n->rack),
						    fabric_ocs_port_plen(t) };
			return 1;
		}
		return 0;
	case TOPO_NODE_CORE:
		if (ifname[0] != 'r')
			return 0;
		k = (unsigned)strtoul(ifname + 1, &end, 10);
		if (*end || k >= t->racks)
			return 0;
		out[0] = (struct topo_net){ fabric_uplink_addr(t, k, true),
					    fabric_uplink_plen() };
		return 1;
	case TOPO_NODE_OCS:
		return 0;
	}
	return 0;
}

struct query {
	struct fabric *f;
	unsigned node;
	struct fabric_port_state (*st)[2];
};

static void query_end(struct nl_sock *sk, struct nl_cache *links, int ifindex,
		      struct fabric_port_state *s)
{
	struct rtnl_link *l = rtnl_link_get(links, ifindex);
	struct nl_cache *classes = NULL;
	struct rtnl_class *c;
	uint64_t rate;

	memset(s, 0, sizeof(*s));
	if (!l)
		return;
	s->present = true;
	s->up = (rtnl_link_get_flags(l) & IFF_UP) != 0;
	rtnl_link_put(l);
	if (rtnl_class_alloc_cache(sk, ifindex, &classes) < 0)
		return;
	c = rtnl_class_get(classes, ifindex, TC_HANDLE(1, 1));
	if (c) {
		if (!strcmp(rtnl_tc_get_kind(TC_CAST(c)), "htb") &&
		    rtnl_htb_get_rate64(c, &rate) == 0)
			s->htb_rate = rate * 8;
		rtnl_class_put(c);
	}
	nl_cache_free(classes);
}

static int query_node(void *arg, char *errbuf)
{
	struct query *q = arg;
	struct nl_cache *links = NULL;
	struct nl_sock *sk;
	size_t i;
	int r;

	sk = nl_socket_alloc();
	if (!sk)
		fatalx("out of memory");
	r = nl_connect(sk, NETLINK_ROUTE);
	if (r >= 0)
		r = rtnl_link_alloc_cache(sk, AF_UNSPEC, &links);
	if (r < 0) {
		errbuf_set(errbuf, "%s: netlink: %s", q->f->nodes[q->node].name,
			   nl_geterror(r));
		nl_socket_free(sk);
		return -EIO;
	}
	for (i = 0; i < q->f->n_links; i++) {
		const struct fabric_link *l = &q->f->links[i];

		if (l->a == q->node)
			query_end(sk, links, l->a_index, &q->st[i][0]);
		if (l->b == q->node)
			query_end(sk, links, l->b_index, &q->st[i][1]);
	}
	nl_cache_free(links);
	nl_socket_free(sk);
	return 0;
}

int fabric_query(struct fabric *f, struct fabric_port_state (*st)[2],
		 char *errbuf)
{
	struct query q = { .f = f, .st = st };
	size_t i;
	int fd, r;

	memset(st, 0, f->n_links * sizeof(*st));
	for (i = 0; i < f->n_nodes; i++) {
		fd = fabric_ns_fd(f, f->nodes[i].name);
		if (fd < 0)
			continue; /* its ends stay "not present" */
		q.node = (unsigned)i;
		r = netns_run(fd, query_node, &q, errbuf);
		if (r)
			return r;
	}
	return 0;
}
