/* The emulation backend: the controller's tasks and flows made real on the
 * emulated fabric. At start it builds the fabric, starts a capture process
 * per ToR (every port), the OCS crossbar, and per host a shuffle service
 * and a data service (HDFS DataNode); then every task is a process in its
 * host's namespace that talks to the controller over a UNIX socket
 * (emul/task.h): a map reads its input from a data service when it is not
 * local, works for its time and registers its output with its host's
 * shuffle service; a reduce fetches partitions over TCP as the controller
 * tells it, works, and writes its output through the data services'
 * pipeline; every byte is checked by its receiver. Circuits are set
 * through the crossbar's control socket; "up" events from its watch
 * connection reach the controller. The network view reads the ToRs'
 * interface counters (linkstats). Everything started is stopped, and the
 * fabric removed, on success, failure or SIGINT/SIGTERM. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
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
#include <sys/time.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/log.h"
#include "core/opts.h"
#include "core/rundir.h"
#include "core/units.h"
#include "core/util.h"
#include "ctl/ctl.h"
#include "ctl/live.h"
#include "ctl/containers.h"
#include "emul/cgroup.h"
#include "emul/emul.h"
#include "emul/fabric.h"
#include "emul/datanode.h"
#include "emul/prio.h"
#include "emul/linkstats.h"
#include "emul/shuffle.h"

enum proc_kind { P_MAP, P_REDUCE, P_SHUFFLE, P_DATA, P_CAPTURE, P_OCS };

struct emul;

struct proc {
	struct evfd w; /* on the pidfd */
	struct emul *e;
	enum proc_kind kind;
	pid_t pid;
	struct hyde_task *task;
	char name[64];
	bool exited;
};

/* A connection from a task process. */
struct rconn {
	struct evfd w;
	struct emul *e;
	struct hyde_task *task; /* NULL until hello */
	char *in;
	size_t in_len, in_cap;
	bool computed;
};

/* What the backend keeps per task: its connection, and the commands for
 * it before its hello. */
struct tslot {
	struct rconn *rc;
	char *outbox;
};

/* The emulator's options (-B KEY=VALUE; --prefix is its alias): the start
 * of its state. */
struct emul_opts {
	char prefix[256]; /* of the fabric's namespaces (fabric_prefix_check) */
	uint64_t voq;	  /* the crossbar's --voq (0: its default) */
	int64_t stall;	  /* ctl_set_stall (0: the controller's default) */
};

struct emul {
	struct emul_opts opts; /* first: the backend's options table's */
	struct ctl *ctl;       /* NULL until init and after destroy */
	const struct topo *t;
	struct fabric *fab;
	char rundir[4096];
	char fcfs_table[200]; /* --net fcfs: the senders' shared ranks */
	char ctl_path[256];
	int ctl_listen;
	struct evfd ctl_w;
	int sigfd;
	struct evfd sig_w;
	int ocs_fd, ocs_watch;
	FILE *ocs_log;		 /* RUNDIR_OCS_CONTROL: the control conversation */
	struct evfd ocs_w;
	char *ocs_in;
	size_t ocs_len, ocs_cap;
	struct proc **procs;
	size_t n_procs, cap_procs;
	struct tslot **slots[2]; /* [kind][job][idx] */
	uint64_t *moved;	 /* per flow: bytes its task said have arrived */
	size_t cap_moved;
	struct linkstats *ls;	 /* the network view's counters */
	struct linkstats_sample lsamp;
	FILE *manifest, *fetches;
	uint64_t seed;
	sigset_t oldmask;
	bool sigmask_set;
	/* containers (container-holding schedulers): their cgroups */
	struct cg_layout cgl;
	bool cgl_found;
	char cg_prefix[64];
	struct cg **cgs; /* by container id, while it runs */
	size_t cap_cgs;
	struct cg **doomed; /* released, their processes not all gone yet */
	size_t n_doomed, cap_doomed;
};

static inline struct emul *EM(struct backend *b)
{
	return b->priv;
}

/* This hyde's path, for the processes it starts in the nodes (captures,
 * the crossbar, tasks); fabric_spawn runs the running binary under it
 * even after a rebuild replaced the file (fabric_self_path). */
static char *self_exe(void)
{
	static char buf[PATH_MAX];

	return fabric_self_path(buf, sizeof(buf)) ? buf : "hyde";
}

/* ---- processes ---- */

static void proc_exit(struct evloop *l, struct evfd *w, uint32_t events);

static int proc_spawn(struct emul *e, const char *node, char *const argv[],
		      int out_fd, enum proc_kind kind, struct hyde_task *task,
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

static struct tslot *slot_of(struct emul *e, const struct hyde_task *t);

static void proc_exit(struct evloop *l, struct evfd *w, uint32_t events)
{
	struct proc *p = (struct proc *)w;
	struct emul *e = p->e;
	char why[128];
	int st;

	(void)l;
	(void)events;
	proc_reap(e, p, &st);
	if (p->kind == P_MAP || p->kind == P_REDUCE) {
		struct tslot *sl = slot_of(e, p->task);

		/* what it said before it went may still be in the socket */
		if (sl->rc && sl->rc->w.fd >= 0)
			sl->rc->w.cb(l, &sl->rc->w, EPOLLIN);
		/* a task process leaves once its task is over: a map once it
		 * has registered its output, a reduce when told to */
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
		    (p->task->state == HYDE_TASK_DONE || (sl->rc && sl->rc->computed)))
			return;
		ctl_fail(e->ctl, "%s %s%s", p->name, describe_status(st, why, sizeof(why)),
			 WIFEXITED(st) && WEXITSTATUS(st) == 0 ? " before its task was over" : "");
		return;
	}
	ctl_fail(e->ctl, "%s %s during the run", p->name, describe_status(st, why, sizeof(why)));
}

/* ---- the task processes' connections ---- */

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

static struct tslot *slot_of(struct emul *e, const struct hyde_task *t)
{
	struct tslot **jobs = e->slots[t->kind];
	const struct hyde_job *jb = &ctl_cluster(e->ctl)->jobs[t->job];

	if (!jobs[t->job])
		jobs[t->job] = xcalloc((t->kind == HYDE_MAP ? jb->n_maps : jb->n_reduces) + 1,
				       sizeof(struct tslot));
	return &jobs[t->job][t->idx];
}

/* Send to the process of task t, or keep it until it says hello. */
static int to_task(struct emul *e, const struct hyde_task *t, const char *line)
{
	struct tslot *sl = slot_of(e, t);
	size_t n;

	if (sl->rc && sl->rc->w.fd < 0)
		return 0; /* its process has ended (or is ending): its exit says why */
	if (sl->rc)
		return send_line(sl->rc->w.fd, line);
	n = sl->outbox ? strlen(sl->outbox) : 0;
	sl->outbox = xrealloc(sl->outbox, n + strlen(line) + 1);
	strcpy(sl->outbox + n, line);
	return 0;
}

static void host_name(const struct topo *t, unsigned host, char *buf, size_t len)
{
	topo_host_name(t, host, buf, len);
}

/* The block a data flow moves (datanode.h's uid). */
static uint64_t flow_uid(const struct flow *f)
{
	return datanode_uid(f->blk_output ? DN_OUTPUT : DN_INPUT, f->blk_job, f->blk_idx);
}

static uint32_t host_ip(const struct emul *e, unsigned host)
{
	return topo_host_addr(e->t, &e->t->eps_net, host);
}

/* What an output hop's client sends before the data: the request line
 * for the hops after its own (emul/datanode.h). */
static uint64_t write_request_bytes(struct emul *e, const struct flow *f)
{
	struct dn_request req = { .op = DN_OP_WRITE, .uid = flow_uid(f), .len = f->bytes };
	const struct flow *g;
	char buf[DN_LINE_MAX];
	int n;

	for (g = f->pipe_next; g && req.n_next < DN_MAX_PIPELINE; g = g->pipe_next)
		req.next[req.n_next++].s_addr = htonl(host_ip(e, g->dst_host));
	n = dn_request_format(&req, buf, sizeof(buf));
	return n > 0 ? (uint64_t)n : 0;
}

/* A connection of a flow, in the manifest: the client is the data's
 * receiver for a fetch or a read, its sender for an output hop. */
static void manifest_line(struct emul *e, const struct flow *f, const char *cli_ip,
			  unsigned cport, const char *srv_ip, unsigned sport)
{
	const struct hyde_job *jb = &ctl_cluster(e->ctl)->jobs[f->job];
	bool out = f->kind == HYDE_FLOW_OUTPUT;
	char cn[32], sn[32], name[CTL_FLOW_NAME_MAX];

	host_name(e->t, out ? f->src_host : f->dst_host, cn, sizeof(cn));
	host_name(e->t, out ? f->dst_host : f->src_host, sn, sizeof(sn));
	ctl_flow_name(e->ctl, f, name, sizeof(name));
	fprintf(e->manifest, "%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%s,%" PRIu32 ",%" PRIu32
		",%s,%s,%u,%s,%s,%u,%s,%" PRIu64 ",%s,%" PRIu64 ",%s\n",
		f->id, f->id, f->job, jb->wl->id, f->n_maps, f->reduce, cn, cli_ip, cport, sn,
		srv_ip, sport, flow_path_name(f->path), f->bytes, flow_kind_name(f->kind),
		out ? write_request_bytes(e, f) : 0, name);
	fflush(e->manifest);
}

static struct flow *flow_of(struct emul *e, uint64_t id)
{
	size_t n;
	struct flow *const *flows = ctl_flows(e->ctl, &n);

	return id < n ? flows[id] : NULL;
}

/* The flow is over: its bytes are checked, its times recorded. */
static void flow_over(struct emul *e, struct flow *f, const int64_t *t, uint64_t bytes)
{
	struct ctl *c = e->ctl;

	if (bytes != f->bytes) {
		ctl_fail(c, "%s flow %" PRIu32 " of job %s: %" PRIu64 " bytes moved, %" PRIu64 " expected",
			 flow_kind_name(f->kind), f->id, ctl_cluster(c)->jobs[f->job].wl->id, bytes,
			 f->bytes);
		return;
	}
	fprintf(e->fetches, "%" PRIu32 ",%" PRIu32 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
		",%" PRIu64 ",1\n", f->id, f->id, t[0], t[1], t[2], t[3], bytes);
	fflush(e->fetches);
	ctl_flow_done(c, f);
}

static void task_hello(struct emul *e, struct rconn *rc, char *line)
{
	struct cluster *cl = ctl_cluster(e->ctl);
	char kind[16];
	uint64_t v[3];
	struct tslot *sl;
	void *cgp = NULL;
	int k;

	if (sscanf(line, "hello %15s %" SCNu64 " %" SCNu64 " %" SCNu64, kind, &v[0], &v[1], &v[2]) != 4 ||
	    (k = !strcmp(kind, "map") ? HYDE_MAP : !strcmp(kind, "reduce") ? HYDE_REDUCE : -1) < 0 ||
	    v[0] >= cl->n_jobs ||
	    v[1] >= (k == HYDE_MAP ? cl->jobs[v[0]].n_maps : cl->jobs[v[0]].n_reduces)) {
		ctl_fail(e->ctl, "a task process said '%s' instead of hello", line);
		return;
	}
	rc->task = k == HYDE_MAP ? &cl->jobs[v[0]].maps[v[1]] : &cl->jobs[v[0]].reduces[v[1]];
	sl = slot_of(e, rc->task);
	sl->rc = rc;
	/* in a container: into its cgroup now, started (its exec is not the
	 * task's work) and before its first command (what it burns and
	 * touches from then on counts there) */
	if (ctl_task_container(e->ctl, rc->task, &cgp) >= 0) {
		size_t i;

		for (i = e->n_procs; i-- > 0;)
			if (e->procs[i]->task == rc->task && !e->procs[i]->exited) {
				int r = cg_attach(cgp, e->procs[i]->pid);

				if (r)
					ctl_fail(e->ctl, "%s %u of job %s: cannot join its container's cgroup: %s",
						 kind, rc->task->idx, cl->jobs[v[0]].wl->id, strerror(-r));
				break;
			}
		/* it takes its memory now, not at its first command (a
		 * reduce's may wait for a circuit for seconds) */
		if (send_line(rc->w.fd, "contained\n"))
			ctl_fail(e->ctl, "%s %u of job %s: cannot talk to it", kind, rc->task->idx,
				 cl->jobs[v[0]].wl->id);
	}
	if (sl->outbox) {
		if (send_line(rc->w.fd, sl->outbox))
			ctl_fail(e->ctl, "%s %u of job %s: cannot talk to it", kind, rc->task->idx,
				 cl->jobs[v[0]].wl->id);
		free(sl->outbox);
		sl->outbox = NULL;
	}
}

static void task_line(struct emul *e, struct rconn *rc, char *line)
{
	struct ctl *c = e->ctl;
	const struct hyde_job *jb;
	struct flow *f;
	uint64_t v[3];
	int64_t t[4];

	if (!rc->task) {
		task_hello(e, rc, line);
		return;
	}
	jb = &ctl_cluster(c)->jobs[rc->task->job];
	if (!strncmp(line, "conn ", 5)) {
		char cli_ip[32], sip[32];
		unsigned cport, sport;

		if (sscanf(line, "conn %" SCNu64 " %31s %u %u", &v[0], cli_ip, &cport, &sport) != 4 ||
		    !(f = flow_of(e, v[0])))
			goto bad;
		if (f->kind == HYDE_FLOW_OUTPUT)
			topo_addr_str(host_ip(e, f->dst_host), sip, sizeof(sip));
		else
			topo_addr_str(topo_host_addr(e->t, f->path == PATH_OCS ? &e->t->ocs_net
									 : &e->t->eps_net,
						     f->src_host),
				      sip, sizeof(sip));
		manifest_line(e, f, cli_ip, cport, sip, sport);
		return;
	}
	if (!strncmp(line, "done ", 5)) {
		if (sscanf(line, "done %" SCNu64 " %" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNu64,
			   &v[0], &t[0], &t[1], &t[2], &t[3], &v[1]) != 6 || !(f = flow_of(e, v[0])))
			goto bad;
		flow_over(e, f, t, v[1]);
		return;
	}
	if (!strncmp(line, "hop ", 4)) {
		/* a connection of an output pipeline that a data service made */
		char cli_ip[32], srv_ip[32];
		unsigned cport, sport;

		if (sscanf(line, "hop %" SCNu64 " %31s %u %31s %u %" SCNd64 " %" SCNd64 " %" SCNd64
			   " %" SCNd64 " %" SCNu64, &v[0], cli_ip, &cport, srv_ip, &sport, &t[0], &t[1],
			   &t[2], &t[3], &v[1]) != 10 || !(f = flow_of(e, v[0])) ||
		    f->kind != HYDE_FLOW_OUTPUT)
			goto bad;
		manifest_line(e, f, cli_ip, cport, srv_ip, sport);
		flow_over(e, f, t, v[1]);
		return;
	}
	if (!strncmp(line, "prog ", 5)) {
		if (sscanf(line, "prog %" SCNu64 " %" SCNu64, &v[0], &v[1]) != 2 || !flow_of(e, v[0]))
			goto bad;
		{
			size_t old = e->cap_moved;

			xgrow((void **)&e->moved, &e->cap_moved, v[0] + 1, sizeof(*e->moved));
			memset(e->moved + old, 0, (e->cap_moved - old) * sizeof(*e->moved));
		}
		if (v[1] != e->moved[v[0]])
			ctl_motion(c);
		e->moved[v[0]] = v[1];
		return;
	}
	if (!strncmp(line, "fail ", 5)) {
		ctl_fail(c, "%s %u of job %s: %s", task_kind_name(rc->task->kind), rc->task->idx,
			 jb->wl->id, line + 5);
		return;
	}
	if (!strcmp(line, "computed")) {
		rc->computed = true;
		ctl_compute_done(c, rc->task);
		return;
	}
bad:
	ctl_fail(c, "%s %u of job %s said something unexpected: '%s'",
		 task_kind_name(rc->task->kind), rc->task->idx, jb->wl->id, line);
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
		task_line(e, rc, rc->in);
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

/* One line of the control conversation in RUNDIR_OCS_CONTROL (hyde pcap
 * shows it): "<realtime ns> <conn> <dir> <line>", dir '>' to the crossbar,
 * '<' from it. */
static void ocs_log_lines(struct emul *e, const char *conn, char dir, const char *text)
{
	int64_t t = shuffle_realtime_ns();

	if (!e->ocs_log)
		return;
	while (*text) {
		size_t n = strcspn(text, "\n");

		fprintf(e->ocs_log, "%" PRId64 " %s %c %.*s\n", t, conn, dir, (int)n, text);
		text += n + (text[n] == '\n');
	}
	fflush(e->ocs_log);
}

/* Send one request and read up to its status line; 0 for "ok". */
static int ocs_request(struct emul *e, const char *req, char *reply, size_t len)
{
	size_t got = 0;
	int r;

	ocs_log_lines(e, "ctl", '>', req);
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
			r = 0;
		else if (!strncmp(last, "err", 3))
			r = -EINVAL;
		else
			continue;
		ocs_log_lines(e, "ctl", '<', reply);
		return r;
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

/* The network's policy for the senders (emul/prio.h): "--net P" and, for
 * fcfs, the run's table of flow ranks; how many arguments (at most 4). */
static int prio_args(struct emul *e, char **argv)
{
	const char *net = ctl_options(e->ctl)->net;

	if (!net || !strcmp(net, "fair"))
		return 0;
	argv[0] = "--net";
	argv[1] = (char *)net;
	if (strcmp(net, "fcfs"))
		return 2;
	argv[2] = "--fcfs-table";
	argv[3] = e->fcfs_table;
	return 4;
}

/* The data service (HDFS DataNode) of every host; each says "ready" on a
 * pipe once it listens, so that no read can come before. */
static int start_datanodes(struct emul *e, const char *seed, char *errbuf)
{
	unsigned H = topo_n_hosts(e->t), h;
	int *rfd = xcalloc(H, sizeof(int)), r = 0;

	for (h = 0; h < H; h++)
		rfd[h] = -1;
	for (h = 0; h < H && !r; h++) {
		char node[32], name[64], *argv[12];
		int pfd[2], n = 5;

		host_name(e->t, h, node, sizeof(node));
		argv[0] = self_exe();
		argv[1] = "datanode";
		argv[2] = "--seed";
		argv[3] = (char *)seed;
		argv[4] = "--ready";
		n += prio_args(e, argv + n);
		argv[n] = NULL;
		if (pipe2(pfd, O_CLOEXEC)) {
			r = -errno;
			errbuf_set(errbuf, "pipe: %s", strerror(errno));
			break;
		}
		snprintf(name, sizeof(name), "the data service of %s", node);
		r = proc_spawn(e, node, argv, pfd[1], P_DATA, NULL, name, errbuf);
		close(pfd[1]);
		rfd[h] = pfd[0];
	}
	for (h = 0; h < H && !r; h++) {
		struct pollfd pf = { .fd = rfd[h], .events = POLLIN };
		char ready[8] = "", node[32];

		if (poll(&pf, 1, 10000) != 1 || read(rfd[h], ready, 6) != 6 ||
		    strncmp(ready, "ready", 5)) {
			host_name(e->t, h, node, sizeof(node));
			errbuf_set(errbuf, "the data service of %s did not start (see its message above)",
				   node);
			r = -EIO;
		}
	}
	for (h = 0; h < H; h++)
		if (rfd[h] >= 0)
			close(rfd[h]);
	free(rfd);
	return r;
}

/* The captures, one a ToR, each port with its rate (its ring is sized
 * from it): first, so that nothing the run sends may be missed. */
static int start_captures(struct emul *e, char *errbuf)
{
	const struct topo *t = e->t;
	const struct ctl_opts *o = ctl_options(e->ctl);
	char path[4200], node[32], name[64];
	unsigned k, i;
	int r;

	snprintf(path, sizeof(path), "%s/%s", e->rundir, RUNDIR_PCAP_DIR);
	if (mkdir(path, 0755) && errno != EEXIST) {
		errbuf_set(errbuf, "%s: %s", path, strerror(errno));
		return -errno;
	}
	for (k = 0; k < t->racks; k++) {
		char **argv = xcalloc(t->hosts + 16, sizeof(char *));
		char ifn[TOPO_MAX_HOSTS + 2][40], snap[16], win[32];
		int pfd[2], n = 0;
		char ready[8] = "";

		snprintf(node, sizeof(node), "tor%u", k);
		argv[n++] = self_exe();
		argv[n++] = "capture";
		argv[n++] = "--dir";
		argv[n++] = path;
		argv[n++] = "--node";
		argv[n++] = node;
		if (o->capture_snaplen) {
			snprintf(snap, sizeof(snap), "%d", o->capture_snaplen);
			argv[n++] = "--snaplen";
			argv[n++] = snap;
		}
		if (o->capture_window_ns) {
			snprintf(win, sizeof(win), "%" PRId64 "ns", o->capture_window_ns);
			argv[n++] = "--window";
			argv[n++] = win;
		}
		/* each port with its rate: its ring is sized from it */
		for (i = 0; i < t->hosts; i++) {
			snprintf(ifn[i], sizeof(ifn[i]), "h%u@%" PRIu64 "bit", i, t->host_rate);
			argv[n++] = ifn[i];
		}
		snprintf(ifn[t->hosts], sizeof(ifn[0]), "up@%" PRIu64 "bit",
			 t->uplink_rate ? t->uplink_rate : (uint64_t)t->hosts * t->host_rate);
		argv[n++] = ifn[t->hosts];
		if (t->has_ocs) {
			snprintf(ifn[t->hosts + 1], sizeof(ifn[0]), "ocs@%" PRIu64 "bit", t->ocs_rate);
			argv[n++] = ifn[t->hosts + 1];
		}
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
	return 0;
}

/* The shuffle service of every host, each up before the run goes on. */
static int start_shuffle_services(struct emul *e, char *seed, char *errbuf)
{
	const struct topo *t = e->t;
	char path[4200], node[32], name[64];
	unsigned h;
	int r, fd;

	for (h = 0; h < topo_n_hosts(t); h++) {
		char *argv[14];

		host_name(t, h, node, sizeof(node));
		snprintf(path, sizeof(path), "%s/shuffle-%s.sock", e->fab->state_dir, node);
		argv[0] = self_exe();
		argv[1] = "shuffled";
		argv[2] = "--reg";
		argv[3] = path;
		argv[4] = "--seed";
		argv[5] = seed;
		argv[6 + prio_args(e, argv + 6)] = NULL;
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
	return 0;
}

/* The crossbar, and a second connection to it that reports its events
 * into the run's event loop. */
static int start_crossbar(struct emul *e, char *errbuf)
{
	const struct topo *t = e->t;
	char a[32], b[32], c[32], v[32], ns[80], logp[4200], sock[300];
	char *argv[20];
	int r, n = 0;

	snprintf(ns, sizeof(ns), "%s-ocs", e->fab->prefix);
	snprintf(sock, sizeof(sock), "%s/ocs.sock", e->fab->state_dir);
	snprintf(logp, sizeof(logp), "%s/%s", e->rundir, RUNDIR_OCS_CONTROL);
	e->ocs_log = fopen(logp, "w");
	snprintf(logp, sizeof(logp), "%s/%s", e->rundir, RUNDIR_OCS_EVENTS);
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
	if (e->opts.voq) {
		snprintf(v, sizeof(v), "%" PRIu64 "B", e->opts.voq);
		argv[n++] = "--voq";
		argv[n++] = v;
	}
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
		ssize_t got;
		int fl;

		if (send_line(e->ocs_watch, "watch\n") ||
		    (got = read(e->ocs_watch, reply, sizeof(reply) - 1)) <= 0) {
			errbuf_set(errbuf, "the OCS crossbar refused to report events");
			return -EIO;
		}
		reply[got] = '\0';
		ocs_log_lines(e, "watch", '>', "watch\n");
		reply[strcspn(reply, "\n")] = '\0';
		ocs_log_lines(e, "watch", '<', reply);
		fl = fcntl(e->ocs_watch, F_GETFL);
		fcntl(e->ocs_watch, F_SETFL, fl | O_NONBLOCK);
		/* the crossbar's clocks side by side: its event times
		 * (CLOCK_MONOTONIC) on the captures' clock */
		if (ocs_request(e, "time\n", reply, sizeof(reply)))
			log_warnx("OCS: 'time' -> %s", reply);
	}
	e->ocs_w.fd = e->ocs_watch;
	e->ocs_w.cb = ocs_events;
	if ((r = evloop_add_fd(ctl_loop(e->ctl), &e->ocs_w, EPOLLIN)))
		return r;
	return 0;
}

static int start_services(struct emul *e, char *errbuf)
{
	char seed[32];
	int r;

	snprintf(seed, sizeof(seed), "%" PRIu64, e->seed);
	if ((r = start_captures(e, errbuf)) ||
	    (r = start_shuffle_services(e, seed, errbuf)) ||
	    (r = start_datanodes(e, seed, errbuf)))
		return r;
	return e->t->has_ocs ? start_crossbar(e, errbuf) : 0;
}

static int emul_init(struct backend *b, char *errbuf)
{
	struct emul *e = EM(b);
	const struct ctl_opts *o = ctl_options(b->ctl);
	struct cluster *cl = ctl_cluster(b->ctl);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char path[4200];
	sigset_t mask;
	int r;

	e->ctl = b->ctl;
	e->t = ctl_topo(b->ctl);
	e->seed = o->seed;
	e->ctl_listen = e->sigfd = e->ocs_fd = e->ocs_watch = -1;
	ctl_set_stall(b->ctl, e->opts.stall);
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
	e->slots[HYDE_MAP] = xcalloc(cl->n_jobs + 1, sizeof(struct tslot *));
	e->slots[HYDE_REDUCE] = xcalloc(cl->n_jobs + 1, sizeof(struct tslot *));
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
	if ((r = fabric_up_owned(e->t, e->opts.prefix, &e->fab, errbuf)))
		return r;
	/* a policy other than TCP's sharing: the links' priority bands, and
	 * for fcfs a fresh table of ranks the senders share */
	if (o->net && strcmp(o->net, "fair")) {
		if ((r = prio_bands_add(e->fab, errbuf)))
			return r;
		snprintf(e->fcfs_table, sizeof(e->fcfs_table), "%s/fcfs.table", e->fab->state_dir);
		unlink(e->fcfs_table);
	}
	/* the network view's counters: the ToRs' interfaces */
	if ((r = linkstats_new(e->fab, &e->ls, errbuf)))
		return r;
	linkstats_sample_init(e->ls, &e->lsamp);
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

	if (!e->ctl)
		return;
	/* what the crossbar forwarded, queued and dropped, per port and VOQ,
	 * into the control conversation (ocs-control.log) before it stops;
	 * a crossbar already gone (an interrupt reaches it too) or stuck
	 * leaves the request there without a reply, within 2 s */
	if (e->ocs_fd >= 0) {
		struct timeval tv = { 2, 0 };
		size_t len = 1u << 20;
		char *reply = xmalloc(len);

		setsockopt(e->ocs_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		ocs_request(e, "stats\n", reply, len);
		free(reply);
	}
	/* tasks first, then the crossbar and services, the captures last (so
	 * they see everything) and gently (so they flush) */
	for (k = 0; k < 3; k++) {
		/* a step's kinds: its bit in step[k] */
		static const unsigned step[3] = {
			1u << P_MAP | 1u << P_REDUCE,
			1u << P_SHUFFLE | 1u << P_DATA | 1u << P_OCS,
			1u << P_CAPTURE,
		};
		int64_t deadline = now_ns() + 5 * NSEC_PER_SEC;

		for (i = 0; i < e->n_procs; i++) {
			struct proc *p = e->procs[i];

			if (!p->exited && (step[k] & 1u << p->kind))
				kill(p->pid, k == 0 ? SIGKILL : SIGTERM);
		}
		for (i = 0; i < e->n_procs; i++) {
			struct proc *p = e->procs[i];

			if (p->exited || !(step[k] & 1u << p->kind))
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
	/* the containers' cgroups, their processes gone */
	if (e->cgl_found)
		cg_clean(e->cg_prefix);
	for (i = 0; i < e->cap_cgs; i++)
		if (e->cgs[i] && cg_destroy(e->cgs[i]))
			free(e->cgs[i]);
	for (i = 0; i < e->n_doomed; i++)
		if (cg_destroy(e->doomed[i]))
			free(e->doomed[i]);
	free(e->cgs);
	free(e->doomed);
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
	if (e->ocs_log)
		fclose(e->ocs_log);
	if (e->sigfd >= 0)
		close(e->sigfd);
	if (e->sigmask_set)
		sigprocmask(SIG_SETMASK, &e->oldmask, NULL);
	for (k = 0; k < 2; k++) {
		for (i = 0; e->slots[k] && i < ctl_cluster(e->ctl)->n_jobs; i++) {
			const struct hyde_job *jb = &ctl_cluster(e->ctl)->jobs[i];
			size_t n = k == HYDE_MAP ? jb->n_maps : jb->n_reduces, x;

			if (!e->slots[k][i])
				continue;
			for (x = 0; x < n; x++) {
				struct rconn *rc = e->slots[k][i][x].rc;

				if (rc) {
					if (rc->w.fd >= 0)
						close(rc->w.fd);
					free(rc->in);
					free(rc);
				}
				free(e->slots[k][i][x].outbox);
			}
			free(e->slots[k][i]);
		}
		free(e->slots[k]);
	}
	free(e->moved);
	if (e->ls) {
		linkstats_sample_fini(&e->lsamp);
		linkstats_free(e->ls);
	}
	free(e->ocs_in);
	/* the state is the controller's to free; the options stay */
	memset((char *)e + sizeof(e->opts), 0, sizeof(*e) - sizeof(e->opts));
}

/* ---- backend ops ---- */

/* Every task is a process from its start: a map may read its input
 * before it works, a reduce fetches, works and writes its output. */
static int emul_task_start(struct backend *b, struct hyde_task *t)
{
	struct emul *e = EM(b);
	const struct wl_job *w = ctl_cluster(e->ctl)->jobs[t->job].wl;
	char node[32], job[16], idx[16], seed[32], reg[300], name[96];
	char *argv[20], cpu[32], mem[32];
	int n = 0;
	int32_t cid;

	host_name(e->t, (unsigned)t->host, node, sizeof(node));
	snprintf(job, sizeof(job), "%u", t->job);
	snprintf(idx, sizeof(idx), "%u", t->idx);
	snprintf(seed, sizeof(seed), "%" PRIu64, e->seed);
	snprintf(reg, sizeof(reg), "%s/shuffle-%s.sock", e->fab->state_dir, node);
	argv[n++] = self_exe();
	argv[n++] = "task";
	argv[n++] = t->kind == HYDE_MAP ? "map" : "reduce";
	argv[n++] = "--ctl";
	argv[n++] = e->ctl_path;
	argv[n++] = "--job";
	argv[n++] = job;
	argv[n++] = "--idx";
	argv[n++] = idx;
	argv[n++] = "--seed";
	argv[n++] = seed;
	if (t->kind == HYDE_MAP) {
		argv[n++] = "--reg";
		argv[n++] = reg;
	}
	/* in a container: what it burns and holds, in real units */
	cid = ctl_task_container(e->ctl, t, NULL);
	if (cid >= 0) {
		const struct hyde_job *jb = &ctl_cluster(e->ctl)->jobs[t->job];
		const struct hyde_res *d = hyde_task_demand(jb, t);

		snprintf(cpu, sizeof(cpu), "%.9f", d->v[HYDE_RES_CPU] * e->t->cpu_scale);
		snprintf(mem, sizeof(mem), "%.0f", d->v[HYDE_RES_MEM] * e->t->mem_scale);
		argv[n++] = "--cpu";
		argv[n++] = cpu;
		argv[n++] = "--mem";
		argv[n++] = mem;
	}
	argv[n] = NULL;
	snprintf(name, sizeof(name), "%s %u of job %s on %s", task_kind_name(t->kind), t->idx,
		 w->id, node);
	return proc_spawn(e, node, argv, -1, t->kind == HYDE_MAP ? P_MAP : P_REDUCE, t, name,
			  NULL);
}

static int emul_container_start(struct backend *b, const struct hyde_container *c, void **priv)
{
	struct emul *e = EM(b);
	char errbuf[HYDE_ERRBUF_SIZE], name[32], desc[CG_PATH_MAX * 4];
	struct cg *g;
	int r;

	if (!e->cgl_found) {
		if ((r = cg_detect(&e->cgl, errbuf))) {
			log_warnx("containers: %s", errbuf);
			return r;
		}
		e->cgl_found = true;
		snprintf(e->cg_prefix, sizeof(e->cg_prefix), "%s", e->fab->prefix);
		cg_describe(&e->cgl, desc, sizeof(desc));
		ctl_event(e->ctl, "containers %s", desc);
	}
	snprintf(name, sizeof(name), "c%u", c->id);
	/* the memory limit has room for the processes' own pages (code,
	 * stacks, socket buffers) beside the demand the tasks touch */
	r = cg_create(&e->cgl, e->cg_prefix, name, c->size.v[HYDE_RES_CPU] * e->t->cpu_scale,
		      (uint64_t)(c->size.v[HYDE_RES_MEM] * e->t->mem_scale) + CG_MEM_HEADROOM, &g,
		      errbuf);
	if (r) {
		log_warnx("container %u: %s", c->id, errbuf);
		return r;
	}
	xgrow((void **)&e->cgs, &e->cap_cgs, (size_t)c->id + 1, sizeof(*e->cgs));
	e->cgs[c->id] = g;
	*priv = g;
	return 0;
}

/* A container released: its cgroup goes once its processes have (a map's
 * leaves by itself just after its end); those still there are removed at
 * the next release, or at the end. */
static void emul_container_stop(struct backend *b, const struct hyde_container *c, void *priv)
{
	struct emul *e = EM(b);
	size_t i, k = 0;

	(void)priv;
	if (c->id < e->cap_cgs && e->cgs[c->id]) {
		xgrow((void **)&e->doomed, &e->cap_doomed, e->n_doomed + 1, sizeof(*e->doomed));
		e->doomed[e->n_doomed++] = e->cgs[c->id];
		e->cgs[c->id] = NULL;
	}
	for (i = 0; i < e->n_doomed; i++)
		if (cg_destroy(e->doomed[i]))
			e->doomed[k++] = e->doomed[i];
	e->n_doomed = k;
}

/* A container's CPU, as its tasks would have used it on the emulated
 * host. The cgroup counts real CPU of two kinds: the tasks' work, which
 * burn() does at cpu_scale (0.02 of a real core for an emulated one), and
 * the rest (set-up, reads, fetches, writes: real sockets and copies), done
 * at the box's own speed. Dividing all of it by cpu_scale made the rest 50
 * times dearer than on a real host: on rack8 x fb-small, cobra's
 * containers measured up to 1.34 of their size where their tasks declared
 * 0.98, and COBRA's Af, which reads this, grew its apps' desires where
 * the model's did not. So the work counts at its scale, the rest as it
 * is (cg_emulated_cpu). raw_ns: all of it over cpu_scale, as before,
 * for the log (container_usage's "counted"). */
static int emul_container_usage(struct backend *b, const struct hyde_container *c, void *priv,
				double declared_ns, double *cpu_ns, double *raw_ns, double *mem)
{
	struct emul *e = EM(b);
	uint64_t cpu, m;
	int r;

	(void)c;
	if ((r = cg_usage(priv, &cpu, &m)))
		return r;
	*cpu_ns = cg_emulated_cpu(cpu, declared_ns, e->t->cpu_scale);
	*raw_ns = (double)cpu / e->t->cpu_scale;
	*mem = (double)m / e->t->mem_scale;
	return 0;
}

static int emul_task_compute(struct backend *b, struct hyde_task *t, int64_t duration)
{
	struct emul *e = EM(b);
	const struct wl_job *w = ctl_cluster(e->ctl)->jobs[t->job].wl;
	char line[96];

	snprintf(line, sizeof(line), "compute %" PRId64 " %s\n", duration,
		 w->work == WL_WORK_CPU ? "cpu" : "sleep");
	return to_task(e, t, line);
}

/* A map's process leaves by itself once its output is registered; a
 * reduce's is told to, its output written. */
static int emul_task_end(struct backend *b, struct hyde_task *t)
{
	struct emul *e = EM(b);

	return t->kind == HYDE_REDUCE ? to_task(e, t, "exit\n") : 0;
}

static int fetch_command(struct emul *e, struct flow *f)
{
	const struct hyde_job *jb = &ctl_cluster(e->ctl)->jobs[f->job];
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
	r = to_task(e, &jb->reduces[f->reduce], line);
	free(line);
	return r;
}

/* An input read: the map reads [off, off + bytes) of a block from the
 * data service of a replica holder. An output pipeline: its writer's hop
 * carries the whole pipeline (the data services forward it and report
 * the later hops); the later hops start with it. */
static int emul_flow_start(struct backend *b, struct flow *f)
{
	struct emul *e = EM(b);
	const struct hyde_job *jb = &ctl_cluster(e->ctl)->jobs[f->job];
	char line[DN_LINE_MAX + 256], ip[32];
	const struct flow *g;
	size_t len;

	switch (f->kind) {
	case HYDE_FLOW_SHUFFLE:
		return fetch_command(e, f);
	case HYDE_FLOW_INPUT:
		topo_addr_str(host_ip(e, f->src_host), ip, sizeof(ip));
		snprintf(line, sizeof(line), "read %" PRIu32 " %s %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
			 f->id, ip, flow_uid(f), f->blk_off, f->bytes);
		return to_task(e, &jb->maps[f->reduce], line);
	case HYDE_FLOW_OUTPUT:
		if (!f->pipe_head)
			return 0;
		/* write <flow> <uid> <len> <ip>[,<ip>...] <hop flow>[,...] */
		len = (size_t)snprintf(line, sizeof(line), "write %" PRIu32 " %" PRIu64 " %" PRIu64 " ",
				       f->id, flow_uid(f), f->bytes);
		for (g = f; g && len < sizeof(line) - 32; g = g->pipe_next) {
			topo_addr_str(host_ip(e, g->dst_host), ip, sizeof(ip));
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s", g == f ? "" : ",", ip);
		}
		len += (size_t)snprintf(line + len, sizeof(line) - len, " ");
		for (g = f->pipe_next; g && len < sizeof(line) - 16; g = g->pipe_next)
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%" PRIu32,
						g == f->pipe_next ? "" : ",", g->id);
		if (!f->pipe_next)
			len += (size_t)snprintf(line + len, sizeof(line) - len, "-");
		snprintf(line + len, sizeof(line) - len, "\n");
		return to_task(e, &jb->reduces[f->reduce], line);
	}
	return -EINVAL;
}

/* What its task last said has arrived; the later hops of a pipeline say
 * nothing until they are done. */
static uint64_t emul_flow_remaining(struct backend *b, struct flow *f)
{
	struct emul *e = EM(b);
	uint64_t got = f->id < e->cap_moved ? e->moved[f->id] : 0;

	return got < f->bytes ? f->bytes - got : 0;
}

/* The controller's clock is CLOCK_REALTIME (evloop EVLOOP_REAL), and so
 * is the sample's real_ns: the middle of its dump of every ToR. */
static int64_t emul_link_bytes(struct backend *b, uint64_t *bytes)
{
	struct emul *e = EM(b);
	size_t i;

	if (!e->ls || linkstats_sample(e->ls, &e->lsamp)) {
		if (e->ls)
			log_warnx("network view: %s", linkstats_geterr(e->ls));
		return -1;
	}
	for (i = 0; i < e->lsamp.n_links; i++)
		bytes[i] = e->lsamp.link[i].bytes;
	return e->lsamp.real_ns;
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

/* The live view's status where hyde top and hyde compare read it: the
 * fabric's state directory, written whole (a temporary renamed). */
static void emul_live(struct backend *b, const struct live_status *s)
{
	struct emul *e = EM(b);
	char path[sizeof(e->fab->state_dir) + 16], tmp[sizeof(path) + 8], line[512];
	FILE *fp;

	if (!e || !e->fab)
		return;
	snprintf(path, sizeof(path), "%s/%s", e->fab->state_dir, LIVE_FILE);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	live_serialize(s, line, sizeof(line));
	fp = fopen(tmp, "w");
	if (!fp)
		return;
	fputs(line, fp);
	if (fclose(fp) || rename(tmp, path))
		unlink(tmp);
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

/* ---- options ---- */

static const struct opt_desc emul_opts[] = {
	OPT(emul_opts, prefix, O_STR, 0, sizeof(((struct emul_opts *)0)->prefix),
	    "namespace prefix of the fabric: hyde and up to 20 letters or digits"),
	OPT(emul_opts, voq, O_SIZE, 0, 1024.0 * 1024 * 1024,
	    "bound of each of the crossbar's VOQs (0: delta x bw_o, at least 16MB)"),
	OPT(emul_opts, stall, O_TIME, 0, 86400e9,
	    "the run fails once nothing moved this long (0: 300s, or 4 x its longest task)"),
};

static void emul_opts_defaults(void *priv)
{
	struct emul_opts *o = priv;

	snprintf(o->prefix, sizeof(o->prefix), "%s", FABRIC_DEFAULT_PREFIX);
}

/* A bad prefix is refused with the options, before the run directory
 * is made. */
static int emul_opts_check(const void *priv, char *errbuf)
{
	const struct emul_opts *o = priv;

	return fabric_prefix_check(o->prefix, errbuf);
}

const struct backend_ops backend_emul = {
	.name = "emul",
	.priv_size = sizeof(struct emul),
	.clock = EVLOOP_REAL,
	.init = emul_init,
	.destroy = emul_destroy,
	.task_start = emul_task_start,
	.task_compute = emul_task_compute,
	.task_end = emul_task_end,
	.flow_start = emul_flow_start,
	.ocs_set = emul_ocs_set,
	.live = emul_live,
	.flow_remaining = emul_flow_remaining,
	.link_bytes = emul_link_bytes,
	.progress = emul_progress,
	.container_start = emul_container_start,
	.container_stop = emul_container_stop,
	.container_usage = emul_container_usage,
	.opts = emul_opts,
	.n_opts = sizeof(emul_opts) / sizeof(emul_opts[0]),
	.defaults = emul_opts_defaults,
	.check = emul_opts_check,
};
