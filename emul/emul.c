/* The emulation backend: the controller's tasks and flows made real on the
 * emulated fabric. At start it builds the fabric, starts a capture process
 * per ToR (every port), the OCS crossbar and a shuffle service per host;
 * then a map task is a process in its host's namespace that works for its
 * time and registers its output with the host's shuffle service, a reduce
 * task a process that fetches partitions over TCP as the controller tells
 * it, checks every byte, works, and exits. Circuits are set through the
 * crossbar's control socket; "up" events from its watch connection reach
 * the controller. Everything started is stopped, and the fabric removed,
 * on success, failure or SIGINT/SIGTERM. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/pidfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/log.h"
#include "core/rundir.h"
#include "core/units.h"
#include "core/util.h"
#include "ctl/ctl.h"
#include "emul/emul.h"
#include "emul/fabric.h"
#include "emul/shuffle.h"

enum proc_kind { P_MAP, P_REDUCE, P_SHUFFLE, P_CAPTURE, P_OCS };

struct emul;

struct proc {
	struct evfd w; /* on the pidfd */
	struct emul *e;
	enum proc_kind kind;
	pid_t pid;
	struct task *task;
	char name[64];
	bool exited;
};

/* A connection from a reduce task. */
struct rconn {
	struct evfd w;
	struct emul *e;
	struct task *task; /* NULL until hello */
	char *in;
	size_t in_len, in_cap;
	bool computed;
};

struct emul {
	struct ctl *ctl;
	const struct topo *t;
	struct fabric *fab;
	char rundir[4096];
	char ctl_path[256];
	int ctl_listen;
	struct evfd ctl_w;
	int sigfd;
	struct evfd sig_w;
	int ocs_fd, ocs_watch;
	struct evfd ocs_w;
	char *ocs_in;
	size_t ocs_len, ocs_cap;
	struct proc **procs;
	size_t n_procs, cap_procs;
	struct rconn ***red; /* [job][reduce] */
	char ***outbox;	     /* commands for a reduce before its hello */
	FILE *manifest, *fetches;
	uint64_t seed;
	sigset_t oldmask;
	bool sigmask_set;
};

static inline struct emul *EM(struct backend *b)
{
	return *(struct emul **)b->priv;
}

static char *self_exe(void)
{
	static char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n < 0)
		return "hyde";
	buf[n] = '\0';
	return buf;
}

/* ---- processes ---- */

static void proc_exit(struct evloop *l, struct evfd *w, uint32_t events);

static int proc_spawn(struct emul *e, const char *node, char *const argv[],
		      int out_fd, enum proc_kind kind, struct task *task,
		      const char *name, char *errbuf)
{
	struct proc *p = xcalloc(1, sizeof(*p));
	char local[HYDE_ERRBUF_SIZE];
	int r;

	if (!errbuf)
		errbuf = local;
	r = fabric_spawn(e->fab, node, argv, out_fd, -1, &p->pid, errbuf);
	if (r) {
		if (errbuf == local)
			log_warnx("%s: %s", name, local);
		free(p);
		return r;
	}
	p->e = e;
	p->kind = kind;
	p->task = task;
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->w.fd = pidfd_open(p->pid, 0);
	p->w.cb = proc_exit;
	if (p->w.fd < 0 || evloop_add_fd(ctl_loop(e->ctl), &p->w, EPOLLIN)) {
		errbuf_set(errbuf, "%s: pidfd: %s", name, strerror(errno));
		kill(p->pid, SIGKILL);
		waitpid(p->pid, NULL, 0);
		fabric_forget_pid(e->fab, p->pid);
		if (p->w.fd >= 0)
			close(p->w.fd);
		free(p);
		return -errno;
	}
	xgrow((void **)&e->procs, &e->cap_procs, e->n_procs + 1, sizeof(*e->procs));
	e->procs[e->n_procs++] = p;
	return 0;
}

static const char *describe_status(int st, char *buf, size_t len)
{
	if (WIFEXITED(st))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(buf, len, "stopped");
	return buf;
}

static void proc_reap(struct emul *e, struct proc *p, int *status)
{
	int st = 0;

	evloop_del_fd(ctl_loop(e->ctl), &p->w);
	close(p->w.fd);
	p->w.fd = -1;
	waitpid(p->pid, &st, 0);
	fabric_forget_pid(e->fab, p->pid);
	p->exited = true;
	if (status)
		*status = st;
}

static void proc_exit(struct evloop *l, struct evfd *w, uint32_t events)
{
	struct proc *p = (struct proc *)w;
	struct emul *e = p->e;
	char why[128];
	int st;

	(void)l;
	(void)events;
	proc_reap(e, p, &st);
	if (p->kind == P_REDUCE && e->red[p->task->job] && e->red[p->task->job][p->task->idx]) {
		struct rconn *rc = e->red[p->task->job][p->task->idx];

		/* what it said before it went may still be in the socket */
		if (rc->w.fd >= 0)
			rc->w.cb(l, &rc->w, EPOLLIN);
	}
	if (p->kind == P_MAP || p->kind == P_REDUCE) {
		const struct rconn *rc = p->kind == P_REDUCE && e->red[p->task->job]
						 ? e->red[p->task->job][p->task->idx] : NULL;

		if (WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
		    (p->kind == P_MAP || (rc && rc->computed))) {
			ctl_compute_done(e->ctl, p->task);
			return;
		}
		ctl_fail(e->ctl, "%s %s", p->name, describe_status(st, why, sizeof(why)));
		return;
	}
	ctl_fail(e->ctl, "%s %s during the run", p->name, describe_status(st, why, sizeof(why)));
}

/* ---- the reduce tasks' connections ---- */

static int send_line(int fd, const char *line)
{
	size_t len = strlen(line), off = 0;

	while (off < len) {
		ssize_t n = send(fd, line + off, len - off, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				struct pollfd pf = { .fd = fd, .events = POLLOUT };

				poll(&pf, 1, 1000);
				continue;
			}
			return -errno;
		}
		off += (size_t)n;
	}
	return 0;
}

/* Send to the reduce task of t, or keep it until the task says hello. */
static int to_reduce(struct emul *e, struct task *t, const char *line)
{
	struct rconn *rc = e->red[t->job] ? e->red[t->job][t->idx] : NULL;
	char **box;
	size_t n;

	if (rc)
		return send_line(rc->w.fd, line);
	if (!e->outbox[t->job])
		e->outbox[t->job] = xcalloc(ctl_cluster(e->ctl)->jobs[t->job].wl->reduces + 1,
					    sizeof(char *));
	box = &e->outbox[t->job][t->idx];
	n = *box ? strlen(*box) : 0;
	*box = xrealloc(*box, n + strlen(line) + 1);
	strcpy(*box + n, line);
	return 0;
}

static void host_name(const struct topo *t, unsigned host, char *buf, size_t len)
{
	topo_host_name(t, host, buf, len);
}

static void reduce_line(struct emul *e, struct rconn *rc, char *line)
{
	struct ctl *c = e->ctl;
	struct flow *const *flows;
	size_t n_flows;
	uint64_t v[3];

	flows = ctl_flows(c, &n_flows);
	if (!rc->task) {
		struct cluster *cl = ctl_cluster(c);
		uint64_t pid;

		if (sscanf(line, "hello %" SCNu64 " %" SCNu64 " %" SCNu64, &v[0], &v[1], &pid) != 3 ||
		    v[0] >= cl->n_jobs || v[1] >= cl->jobs[v[0]].wl->reduces) {
			ctl_fail(c, "a reduce task said '%s' instead of hello", line);
			return;
		}
		rc->task = &cl->jobs[v[0]].reduces[v[1]];
		if (!e->red[v[0]])
			e->red[v[0]] = xcalloc(cl->jobs[v[0]].wl->reduces + 1, sizeof(struct rconn *));
		e->red[v[0]][v[1]] = rc;
		if (e->outbox[v[0]] && e->outbox[v[0]][v[1]]) {
			if (send_line(rc->w.fd, e->outbox[v[0]][v[1]]))
				ctl_fail(c, "reduce %" PRIu64 " of job %s: cannot talk to it",
					 v[1], cl->jobs[v[0]].wl->id);
			free(e->outbox[v[0]][v[1]]);
			e->outbox[v[0]][v[1]] = NULL;
		}
		return;
	}
	if (!strncmp(line, "conn ", 5)) {
		char cli_ip[32];
		unsigned cport, sport;
		const struct flow *f;
		char cn[32], sn[32], sip[32];
		const struct topo_net *net;

		if (sscanf(line, "conn %" SCNu64 " %31s %u %u", &v[0], cli_ip, &cport, &sport) != 4 ||
		    v[0] >= n_flows)
			goto bad;
		f = flows[v[0]];
		net = f->path == PATH_OCS ? &e->t->ocs_net : &e->t->eps_net;
		host_name(e->t, f->dst_host, cn, sizeof(cn));
		host_name(e->t, f->src_host, sn, sizeof(sn));
		topo_addr_str(topo_host_addr(e->t, net, f->src_host), sip, sizeof(sip));
		fprintf(e->manifest, "%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%s,%" PRIu32 ",%" PRIu32
			",%s,%s,%u,%s,%s,%u,%s,%" PRIu64 "\n",
			f->id, f->id, f->job, ctl_cluster(c)->jobs[f->job].wl->id, f->n_maps,
			f->reduce, cn, cli_ip, cport, sn, sip, sport, flow_path_name(f->path), f->bytes);
		fflush(e->manifest);
		return;
	}
	if (!strncmp(line, "done ", 5)) {
		int64_t t[4];
		struct flow *f;

		if (sscanf(line, "done %" SCNu64 " %" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNu64,
			   &v[0], &t[0], &t[1], &t[2], &t[3], &v[1]) != 6 || v[0] >= n_flows)
			goto bad;
		f = flows[v[0]];
		if (v[1] != f->bytes) {
			ctl_fail(c, "flow %" PRIu32 " of job %s: %" PRIu64 " bytes received, %" PRIu64 " expected",
				 f->id, ctl_cluster(c)->jobs[f->job].wl->id, v[1], f->bytes);
			return;
		}
		fprintf(e->fetches, "%" PRIu32 ",%" PRIu32 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
			",%" PRIu64 ",1\n", f->id, f->id, t[0], t[1], t[2], t[3], v[1]);
		fflush(e->fetches);
		ctl_flow_done(c, f);
		return;
	}
	if (!strncmp(line, "fail ", 5)) {
		const struct job *jb = &ctl_cluster(c)->jobs[rc->task->job];

		ctl_fail(c, "reduce %u of job %s: fetch %s", rc->task->idx, jb->wl->id, line + 5);
		return;
	}
	if (!strcmp(line, "computed")) {
		rc->computed = true;
		return;
	}
bad:
	ctl_fail(c, "reduce %u of job %s said something unexpected: '%s'", rc->task->idx,
		 ctl_cluster(c)->jobs[rc->task->job].wl->id, line);
}

static void rconn_io(struct evloop *l, struct evfd *w, uint32_t events)
{
	struct rconn *rc = (struct rconn *)w;
	struct emul *e = rc->e;
	char *nl;

	(void)l;
	(void)events;
	for (;;) {
		ssize_t n;

		if (rc->in_cap - rc->in_len < 4096) {
			rc->in_cap = rc->in_cap ? rc->in_cap * 2 : 8192;
			rc->in = xrealloc(rc->in, rc->in_cap);
		}
		n = read(w->fd, rc->in + rc->in_len, rc->in_cap - rc->in_len - 1);
		if (n > 0) {
			rc->in_len += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 || errno != EAGAIN) {
			/* the task ended; its exit status tells how */
			evloop_del_fd(ctl_loop(e->ctl), w);
			close(w->fd);
			w->fd = -1;
		}
		break;
	}
	while ((nl = memchr(rc->in, '\n', rc->in_len))) {
		size_t used = (size_t)(nl - rc->in) + 1;

		*nl = '\0';
		reduce_line(e, rc, rc->in);
		memmove(rc->in, rc->in + used, rc->in_len - used);
		rc->in_len -= used;
	}
	if (w->fd < 0) {
		/* over: else its buffer stays to the end of the run, 8 KB a
		 * reduce (the controller grew by that in a 30-minute soak) */
		free(rc->in);
		rc->in = NULL;
		rc->in_len = rc->in_cap = 0;
	}
}

static void ctl_accept(struct evloop *l, struct evfd *w, uint32_t events)
{
	struct emul *e = (struct emul *)((char *)w - offsetof(struct emul, ctl_w));
	int fd;

	(void)events;
	while ((fd = accept4(w->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		struct rconn *rc = xcalloc(1, sizeof(*rc));

		rc->e = e;
		rc->w.fd = fd;
		rc->w.cb = rconn_io;
		if (evloop_add_fd(l, &rc->w, EPOLLIN)) {
			close(fd);
			free(rc);
		}
	}
}

/* ---- the crossbar ---- */

static int wait_socket(const char *path, int ms)
{
	int i, fd = -ENOENT;

	for (i = 0; i < ms / 10; i++) {
		fd = emul_unix_connect(path);
		if (fd >= 0)
			return fd;
		usleep(10000);
	}
	return fd;
}

/* Send one request and read up to its status line; 0 for "ok". */
static int ocs_request(struct emul *e, const char *req, char *reply, size_t len)
{
	size_t got = 0;

	if (send_line(e->ocs_fd, req))
		return -EPIPE;
	for (;;) {
		ssize_t n = read(e->ocs_fd, reply + got, len - got - 1);
		char *last;

		if (n <= 0)
			return -EPIPE;
		got += (size_t)n;
		reply[got] = '\0';
		if (got < 2 || reply[got - 1] != '\n')
			continue;
		reply[got - 1] = '\0';
		last = strrchr(reply, '\n');
		last = last ? last + 1 : reply;
		reply[got - 1] = '\n';
		if (!strncmp(last, "ok", 2))
			return 0;
		if (!strncmp(last, "err", 3))
			return -EINVAL;
	}
}

static void ocs_events(struct evloop *l, struct evfd *w, uint32_t events)
{
	struct emul *e = (struct emul *)((char *)w - offsetof(struct emul, ocs_w));
	char *nl;

	(void)l;
	(void)events;
	for (;;) {
		ssize_t n;

		if (e->ocs_cap - e->ocs_len < 1024) {
			e->ocs_cap = e->ocs_cap ? e->ocs_cap * 2 : 4096;
			e->ocs_in = xrealloc(e->ocs_in, e->ocs_cap);
		}
		n = read(w->fd, e->ocs_in + e->ocs_len, e->ocs_cap - e->ocs_len - 1);
		if (n > 0) {
			e->ocs_len += (size_t)n;
			continue;
		}
		if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			evloop_del_fd(ctl_loop(e->ctl), w);
			ctl_fail(e->ctl, "the OCS crossbar closed its event connection");
			return;
		}
		if (errno == EAGAIN)
			break;
	}
	while ((nl = memchr(e->ocs_in, '\n', e->ocs_len))) {
		size_t used = (size_t)(nl - e->ocs_in) + 1;
		unsigned i, j;
		uint64_t t;

		*nl = '\0';
		if (sscanf(e->ocs_in, "up %u %u %" SCNu64, &i, &j, &t) == 3)
			ctl_circuit_up(e->ctl, i, j);
		memmove(e->ocs_in, e->ocs_in + used, e->ocs_len - used);
		e->ocs_len -= used;
	}
}

static void on_signal(struct evloop *l, struct evfd *w, uint32_t events)
{
	struct emul *e = (struct emul *)((char *)w - offsetof(struct emul, sig_w));
	struct signalfd_siginfo si;

	(void)l;
	(void)events;
	if (read(w->fd, &si, sizeof(si)) == sizeof(si))
		ctl_fail(e->ctl, "interrupted by %s", strsignal((int)si.ssi_signo));
}

/* ---- set-up ---- */

static int start_services(struct emul *e, char *errbuf)
{
	const struct topo *t = e->t;
	const struct ctl_opts *o = ctl_options(e->ctl);
	char path[4200], node[32], seed[32], a[32], b[32], c[32], name[64];
	unsigned k, i, h;
	int r, fd;

	snprintf(seed, sizeof(seed), "%" PRIu64, e->seed);
	/* captures first: nothing the run sends may be missed */
	snprintf(path, sizeof(path), "%s/%s", e->rundir, RUNDIR_PCAP_DIR);
	if (mkdir(path, 0755) && errno != EEXIST) {
		errbuf_set(errbuf, "%s: %s", path, strerror(errno));
		return -errno;
	}
	for (k = 0; k < t->racks; k++) {
		char **argv = xcalloc(t->hosts + 12, sizeof(char *));
		char ifn[TOPO_MAX_HOSTS][12];
		int pfd[2], n = 0;
		char ready[8] = "";

		snprintf(node, sizeof(node), "tor%u", k);
		argv[n++] = self_exe();
		argv[n++] = "capture";
		argv[n++] = "--dir";
		argv[n++] = path;
		argv[n++] = "--node";
		argv[n++] = node;
		for (i = 0; i < t->hosts; i++) {
			snprintf(ifn[i], sizeof(ifn[i]), "h%u", i);
			argv[n++] = ifn[i];
		}
		argv[n++] = "up";
		if (t->has_ocs)
			argv[n++] = "ocs";
		if (pipe2(pfd, O_CLOEXEC)) {
			free(argv);
			return -errno;
		}
		snprintf(name, sizeof(name), "capture of %s", node);
		r = proc_spawn(e, node, argv, pfd[1], P_CAPTURE, NULL, name, errbuf);
		close(pfd[1]);
		free(argv);
		if (!r) {
			struct pollfd pf = { .fd = pfd[0], .events = POLLIN };

			if (poll(&pf, 1, 10000) != 1 || read(pfd[0], ready, 6) != 6 ||
			    strncmp(ready, "ready", 5)) {
				errbuf_set(errbuf, "capture of %s did not start (see its message above)", node);
				r = -EIO;
			}
		}
		close(pfd[0]);
		if (r)
			return r;
	}
	/* the shuffle service of every host */
	for (h = 0; h < topo_n_hosts(t); h++) {
		char *argv[8];

		host_name(t, h, node, sizeof(node));
		snprintf(path, sizeof(path), "%s/shuffle-%s.sock", e->fab->state_dir, node);
		argv[0] = self_exe();
		argv[1] = "shuffled";
		argv[2] = "--reg";
		argv[3] = path;
		argv[4] = "--seed";
		argv[5] = seed;
		argv[6] = NULL;
		snprintf(name, sizeof(name), "the shuffle service of %s", node);
		if ((r = proc_spawn(e, node, argv, -1, P_SHUFFLE, NULL, name, errbuf)))
			return r;
	}
	for (h = 0; h < topo_n_hosts(t); h++) {
		host_name(t, h, node, sizeof(node));
		snprintf(path, sizeof(path), "%s/shuffle-%s.sock", e->fab->state_dir, node);
		fd = wait_socket(path, 10000);
		if (fd < 0) {
			errbuf_set(errbuf, "the shuffle service of %s did not start", node);
			return fd;
		}
		close(fd);
	}
	/* the crossbar */
	if (t->has_ocs) {
		char ns[80], logp[4200], sock[300];
		char *argv[20];
		int n = 0;

		snprintf(ns, sizeof(ns), "%s-ocs", e->fab->prefix);
		snprintf(sock, sizeof(sock), "%s/ocs.sock", e->fab->state_dir);
		snprintf(logp, sizeof(logp), "%s/ocs-events.log", e->rundir);
		snprintf(a, sizeof(a), "%u", t->racks);
		unit_fmt_rate(t->ocs_rate, b, sizeof(b));
		unit_fmt_time(t->delta, c, sizeof(c));
		argv[n++] = self_exe();
		argv[n++] = "ocs";
		argv[n++] = "serve";
		argv[n++] = "--netns";
		argv[n++] = ns;
		argv[n++] = "--socket";
		argv[n++] = sock;
		argv[n++] = "--ports";
		argv[n++] = a;
		argv[n++] = "--rate";
		argv[n++] = b;
		argv[n++] = "--delta";
		argv[n++] = c;
		argv[n++] = "--log";
		argv[n++] = logp;
		argv[n] = NULL;
		if ((r = proc_spawn(e, "ocs", argv, -1, P_OCS, NULL, "the OCS crossbar", errbuf)))
			return r;
		e->ocs_fd = wait_socket(sock, 10000);
		e->ocs_watch = e->ocs_fd >= 0 ? emul_unix_connect(sock) : -1;
		if (e->ocs_fd < 0 || e->ocs_watch < 0) {
			errbuf_set(errbuf, "the OCS crossbar did not start");
			return -EIO;
		}
		{
			char reply[256];
			int fl;

			if (send_line(e->ocs_watch, "watch\n") ||
			    read(e->ocs_watch, reply, sizeof(reply) - 1) <= 0) {
				errbuf_set(errbuf, "the OCS crossbar refused to report events");
				return -EIO;
			}
			fl = fcntl(e->ocs_watch, F_GETFL);
			fcntl(e->ocs_watch, F_SETFL, fl | O_NONBLOCK);
		}
		e->ocs_w.fd = e->ocs_watch;
		e->ocs_w.cb = ocs_events;
		if ((r = evloop_add_fd(ctl_loop(e->ctl), &e->ocs_w, EPOLLIN)))
			return r;
	}
	(void)o;
	return 0;
}

static int emul_init(struct backend *b, char *errbuf)
{
	struct emul *e = xcalloc(1, sizeof(*e));
	const struct ctl_opts *o = ctl_options(b->ctl);
	struct cluster *cl = ctl_cluster(b->ctl);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char path[4200];
	sigset_t mask;
	int r;

	*(struct emul **)b->priv = e;
	e->ctl = b->ctl;
	e->t = ctl_topo(b->ctl);
	e->seed = o->seed;
	e->ctl_listen = e->sigfd = e->ocs_fd = e->ocs_watch = -1;
	if (geteuid() != 0) {
		errbuf_set(errbuf, "emulation needs root (network namespaces): run it as root or with sudo");
		return -EPERM;
	}
	if (!ctl_outdir(b->ctl)) {
		errbuf_set(errbuf, "emulation needs a run directory (-o DIR)");
		return -EINVAL;
	}
	if (!realpath(ctl_outdir(b->ctl), e->rundir)) {
		errbuf_set(errbuf, "%s: %s", ctl_outdir(b->ctl), strerror(errno));
		return -errno;
	}
	e->red = xcalloc(cl->n_jobs + 1, sizeof(*e->red));
	e->outbox = xcalloc(cl->n_jobs + 1, sizeof(*e->outbox));
	/* SIGINT/SIGTERM become events, so teardown runs in order */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, &e->oldmask);
	e->sigmask_set = true;
	e->sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	e->sig_w.fd = e->sigfd;
	e->sig_w.cb = on_signal;
	if (e->sigfd < 0 || evloop_add_fd(ctl_loop(b->ctl), &e->sig_w, EPOLLIN)) {
		errbuf_set(errbuf, "signalfd: %s", strerror(errno));
		return -errno;
	}
	signal(SIGPIPE, SIG_IGN);
	if ((r = fabric_up_owned(e->t, o->prefix ? o->prefix : FABRIC_DEFAULT_PREFIX, &e->fab, errbuf)))
		return r;
	snprintf(path, sizeof(path), "%s/%s", e->rundir, RUNDIR_MANIFEST);
	e->manifest = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/%s", e->rundir, RUNDIR_APP_FETCHES);
	e->fetches = fopen(path, "w");
	if (!e->manifest || !e->fetches) {
		errbuf_set(errbuf, "%s: %s", path, strerror(errno));
		return -errno;
	}
	fprintf(e->manifest, "%s\n", RUNDIR_MANIFEST_HEADER);
	fprintf(e->fetches, "%s\n", RUNDIR_APP_FETCHES_HEADER);
	snprintf(e->ctl_path, sizeof(e->ctl_path), "%s/ctl.sock", e->fab->state_dir);
	strcpy(sa.sun_path, e->ctl_path);
	unlink(e->ctl_path);
	e->ctl_listen = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (e->ctl_listen < 0 || bind(e->ctl_listen, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(e->ctl_listen, 1024)) {
		errbuf_set(errbuf, "%s: %s", e->ctl_path, strerror(errno));
		return -errno;
	}
	e->ctl_w.fd = e->ctl_listen;
	e->ctl_w.cb = ctl_accept;
	if ((r = evloop_add_fd(ctl_loop(b->ctl), &e->ctl_w, EPOLLIN)))
		return r;
	return start_services(e, errbuf);
}

static void emul_destroy(struct backend *b)
{
	struct emul *e = EM(b);
	char errbuf[HYDE_ERRBUF_SIZE];
	size_t i, k;

	if (!e)
		return;
	/* tasks first, then the crossbar and services, the captures last (so
	 * they see everything) and gently (so they flush) */
	for (k = 0; k < 3; k++) {
		static const enum proc_kind order[3][2] = {
			{ P_MAP, P_REDUCE }, { P_SHUFFLE, P_OCS }, { P_CAPTURE, P_CAPTURE },
		};
		int64_t deadline = now_ns() + 5 * NSEC_PER_SEC;

		for (i = 0; i < e->n_procs; i++) {
			struct proc *p = e->procs[i];

			if (!p->exited && (p->kind == order[k][0] || p->kind == order[k][1]))
				kill(p->pid, k == 0 ? SIGKILL : SIGTERM);
		}
		for (i = 0; i < e->n_procs; i++) {
			struct proc *p = e->procs[i];

			if (p->exited || (p->kind != order[k][0] && p->kind != order[k][1]))
				continue;
			while (waitpid(p->pid, NULL, WNOHANG) == 0 && now_ns() < deadline)
				usleep(5000);
			if (now_ns() >= deadline) {
				kill(p->pid, SIGKILL);
				waitpid(p->pid, NULL, 0);
			}
			if (p->w.fd >= 0) {
				evloop_del_fd(ctl_loop(e->ctl), &p->w);
				close(p->w.fd);
				p->w.fd = -1;
			}
			fabric_forget_pid(e->fab, p->pid);
			p->exited = true;
		}
	}
	for (i = 0; i < e->n_procs; i++)
		free(e->procs[i]);
	free(e->procs);
	if (e->fab) {
		if (fabric_down(e->fab, errbuf))
			log_warnx("%s", errbuf);
		fabric_free(e->fab);
	}
	if (e->manifest)
		fclose(e->manifest);
	if (e->fetches)
		fclose(e->fetches);
	if (e->ctl_listen >= 0)
		close(e->ctl_listen);
	if (e->ocs_fd >= 0)
		close(e->ocs_fd);
	if (e->ocs_watch >= 0)
		close(e->ocs_watch);
	if (e->sigfd >= 0)
		close(e->sigfd);
	if (e->sigmask_set)
		sigprocmask(SIG_SETMASK, &e->oldmask, NULL);
	for (i = 0; i < ctl_cluster(e->ctl)->n_jobs; i++) {
		const struct wl_job *w = ctl_cluster(e->ctl)->jobs[i].wl;

		if (e->red[i]) {
			for (k = 0; k < w->reduces; k++)
				if (e->red[i][k]) {
					if (e->red[i][k]->w.fd >= 0)
						close(e->red[i][k]->w.fd);
					free(e->red[i][k]->in);
					free(e->red[i][k]);
				}
			free(e->red[i]);
		}
		if (e->outbox[i]) {
			for (k = 0; k < w->reduces; k++)
				free(e->outbox[i][k]);
			free(e->outbox[i]);
		}
	}
	free(e->red);
	free(e->outbox);
	free(e->ocs_in);
	free(e);
	*(struct emul **)b->priv = NULL;
}

/* ---- backend ops ---- */

static int emul_task_start(struct backend *b, struct task *t)
{
	struct emul *e = EM(b);
	char node[32], job[16], red[16], seed[32], name[96];
	char *argv[12];

	if (t->kind == TASK_MAP)
		return 0; /* its process is its work: started by task_compute */
	host_name(e->t, (unsigned)t->host, node, sizeof(node));
	snprintf(job, sizeof(job), "%u", t->job);
	snprintf(red, sizeof(red), "%u", t->idx);
	snprintf(seed, sizeof(seed), "%" PRIu64, e->seed);
	argv[0] = self_exe();
	argv[1] = "task";
	argv[2] = "reduce";
	argv[3] = "--ctl";
	argv[4] = e->ctl_path;
	argv[5] = "--job";
	argv[6] = job;
	argv[7] = "--reduce";
	argv[8] = red;
	argv[9] = "--seed";
	argv[10] = seed;
	argv[11] = NULL;
	snprintf(name, sizeof(name), "reduce %u of job %s on %s", t->idx,
		 ctl_cluster(e->ctl)->jobs[t->job].wl->id, node);
	return proc_spawn(e, node, argv, -1, P_REDUCE, t, name, NULL);
}

static int emul_task_compute(struct backend *b, struct task *t, int64_t duration)
{
	struct emul *e = EM(b);
	const struct wl_job *w = ctl_cluster(e->ctl)->jobs[t->job].wl;
	char line[96];

	if (t->kind == TASK_MAP) {
		char node[32], job[16], map[16], ns[32], reg[300], name[96];
		char *argv[14];

		host_name(e->t, (unsigned)t->host, node, sizeof(node));
		snprintf(job, sizeof(job), "%u", t->job);
		snprintf(map, sizeof(map), "%u", t->idx);
		snprintf(ns, sizeof(ns), "%" PRId64, duration);
		snprintf(reg, sizeof(reg), "%s/shuffle-%s.sock", e->fab->state_dir, node);
		argv[0] = self_exe();
		argv[1] = "task";
		argv[2] = "map";
		argv[3] = "--reg";
		argv[4] = reg;
		argv[5] = "--job";
		argv[6] = job;
		argv[7] = "--map";
		argv[8] = map;
		argv[9] = "--ns";
		argv[10] = ns;
		argv[11] = "--work";
		argv[12] = w->work == WL_WORK_CPU ? "cpu" : "sleep";
		argv[13] = NULL;
		snprintf(name, sizeof(name), "map %u of job %s on %s", t->idx, w->id, node);
		return proc_spawn(e, node, argv, -1, P_MAP, t, name, NULL);
	}
	snprintf(line, sizeof(line), "compute %" PRId64 " %s\n", duration,
		 w->work == WL_WORK_CPU ? "cpu" : "sleep");
	return to_reduce(e, t, line);
}

static int emul_task_end(struct backend *b, struct task *t)
{
	(void)b;
	(void)t;
	return 0; /* the process has exited: that is how its end was known */
}

static int emul_flow_start(struct backend *b, struct flow *f)
{
	struct emul *e = EM(b);
	const struct job *jb = &ctl_cluster(e->ctl)->jobs[f->job];
	const struct topo_net *net = f->path == PATH_OCS ? &e->t->ocs_net : &e->t->eps_net;
	size_t cap = 96 + 40 * (size_t)f->n_maps, len;
	char ip[32], *line = xmalloc(cap);
	uint32_t k;
	int r;

	topo_addr_str(topo_host_addr(e->t, net, f->src_host), ip, sizeof(ip));
	len = (size_t)snprintf(line, cap, "fetch %" PRIu32 " %s %u %" PRIu32, f->id, ip,
			       f->path == PATH_OCS ? HYDE_TOS_REVERSE : 0, f->n_maps);
	for (k = 0; k < f->n_maps; k++)
		len += (size_t)snprintf(line + len, cap - len, " %" PRIu32 ":%" PRIu64, f->maps[k],
					wl_partition_bytes(jb->wl, f->maps[k], f->reduce));
	snprintf(line + len, cap - len, "\n");
	r = to_reduce(e, &ctl_cluster(e->ctl)->jobs[f->job].reduces[f->reduce], line);
	free(line);
	return r;
}

static int emul_ocs_set(struct backend *b, const int32_t *out_of)
{
	struct emul *e = EM(b);
	size_t cap = 16 + 16 * (size_t)e->t->racks, len;
	char *req = xmalloc(cap), reply[1024];
	unsigned i;
	bool any = false;
	int r;

	len = (size_t)snprintf(req, cap, "set");
	for (i = 0; i < e->t->racks; i++)
		if (out_of[i] >= 0) {
			len += (size_t)snprintf(req + len, cap - len, " %u>%d", i, out_of[i]);
			any = true;
		}
	snprintf(req + len, cap - len, "%s\n", any ? "" : " none");
	r = ocs_request(e, req, reply, sizeof(reply));
	if (r)
		log_warnx("OCS: '%.*s' -> %s", (int)strcspn(req, "\n"), req, reply);
	free(req);
	return r;
}

static void emul_progress(struct backend *b, char *buf, size_t len)
{
	struct emul *e = EM(b);
	size_t i, n = 0;

	for (i = 0; i < e->n_procs; i++)
		if (!e->procs[i]->exited &&
		    (e->procs[i]->kind == P_MAP || e->procs[i]->kind == P_REDUCE))
			n++;
	snprintf(buf, len, "%zu task processes", n);
}

const struct backend_ops backend_emul = {
	.name = "emul",
	.priv_size = sizeof(struct emul *),
	.clock = EVLOOP_REAL,
	.init = emul_init,
	.destroy = emul_destroy,
	.task_start = emul_task_start,
	.task_compute = emul_task_compute,
	.task_end = emul_task_end,
	.flow_start = emul_flow_start,
	.ocs_set = emul_ocs_set,
	.progress = emul_progress,
};
