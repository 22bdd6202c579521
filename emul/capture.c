#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "emul/fabric.h"
#include "emul/capture.h"

static volatile sig_atomic_t capture_stop;

static void on_signal(int sig)
{
	(void)sig;
	capture_stop = 1;
}

struct cap {
	pcap_t *p;
	pcap_dumper_t *d;
	const char *ifname;
	uint64_t lost; /* taken from the ring, no room in the queue */
};

/* Frames go from the rings to a queue in memory, and a writer thread
 * takes them to the files: a write the disk holds up (dirty pages
 * throttled on a busy box) stalls the writer, not the draining of the
 * rings. Measured: a rack8 run with both cores busy dropped 4-9 frames on
 * the uplinks' rings with the files on disk written from the draining
 * loop, none with them on tmpfs. The queue grows only while the disk is
 * slow, up to CAPTURE_QUEUE_MAX; past that, frames are counted as lost. */
#define CHUNK_BYTES (1u << 20)
#define CAPTURE_QUEUE_MAX (256ull << 20)

struct chunk {
	struct chunk *next;
	size_t used;
	unsigned char data[CHUNK_BYTES];
};

/* a frame in a chunk: its port, its header, its bytes */
struct rec {
	uint32_t port;
	uint32_t caplen, len;
	int64_t sec, frac;
};

struct writer {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct chunk *head, *tail, *cur;
	uint64_t queued; /* bytes in chunks handed over */
	bool done;
	struct cap *caps;
};

/* hand the chunk being filled to the writer */
static void wr_push(struct writer *w)
{
	struct chunk *c = w->cur;

	if (!c || !c->used)
		return;
	w->cur = NULL;
	pthread_mutex_lock(&w->mu);
	c->next = NULL;
	if (w->tail)
		w->tail->next = c;
	else
		w->head = c;
	w->tail = c;
	w->queued += CHUNK_BYTES;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

struct take_arg {
	struct writer *w;
	uint32_t port;
};

static void take(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	const struct take_arg *a = (const struct take_arg *)user;
	struct writer *w = a->w;
	size_t need = sizeof(struct rec) + h->caplen;
	struct rec r;

	if (need > CHUNK_BYTES) {
		w->caps[a->port].lost++;
		return;
	}
	if (w->cur && w->cur->used + need > CHUNK_BYTES)
		wr_push(w);
	if (!w->cur) {
		uint64_t queued;

		pthread_mutex_lock(&w->mu);
		queued = w->queued;
		pthread_mutex_unlock(&w->mu);
		if (queued >= CAPTURE_QUEUE_MAX) {
			w->caps[a->port].lost++;
			return;
		}
		w->cur = xmalloc(sizeof(*w->cur));
		w->cur->used = 0;
	}
	r.port = a->port;
	r.caplen = h->caplen;
	r.len = h->len;
	r.sec = h->ts.tv_sec;
	r.frac = h->ts.tv_usec; /* nanoseconds: the handle's precision */
	memcpy(w->cur->data + w->cur->used, &r, sizeof(r));
	memcpy(w->cur->data + w->cur->used + sizeof(r), bytes, h->caplen);
	w->cur->used += need;
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;

	for (;;) {
		struct chunk *c;
		size_t off;

		pthread_mutex_lock(&w->mu);
		while (!w->head && !w->done)
			pthread_cond_wait(&w->cv, &w->mu);
		c = w->head;
		if (c) {
			w->head = c->next;
			if (!w->head)
				w->tail = NULL;
		}
		pthread_mutex_unlock(&w->mu);
		if (!c)
			return NULL; /* done, and nothing left */
		for (off = 0; off < c->used;) {
			struct pcap_pkthdr h;
			struct rec r;

			memcpy(&r, c->data + off, sizeof(r));
			h.ts.tv_sec = (time_t)r.sec;
			h.ts.tv_usec = (suseconds_t)r.frac;
			h.caplen = r.caplen;
			h.len = r.len;
			pcap_dump((u_char *)w->caps[r.port].d, &h, c->data + off + sizeof(r));
			off += sizeof(r) + r.caplen;
		}
		free(c);
		pthread_mutex_lock(&w->mu);
		w->queued -= CHUNK_BYTES;
		pthread_mutex_unlock(&w->mu);
	}
}

uint64_t capture_ring_bytes(uint64_t rate_bps, int snaplen, int64_t window_ns)
{
	uint64_t keep, frame, per_s, bytes, blocks;

	if (!rate_bps)
		return CAPTURE_RING_DEFAULT;
	keep = snaplen > 0 && snaplen < 1514 ? (uint64_t)snaplen : 1514;
	/* frames a second: both directions at the rate in MTU frames,
	 * and an ACK for every second frame (x 1.5) */
	frame = (keep + CAPTURE_RING_HDR + 15) & ~(uint64_t)15;
	per_s = (uint64_t)((double)rate_bps * 2 * 1.5 / (8.0 * 1514) * (double)frame);
	bytes = (uint64_t)((double)per_s * (double)(window_ns > 0 ? window_ns : 0) / 1e9);
	if (capture_uses_v3(snaplen)) {
		/* whole blocks, at least CAPTURE_RING_MIN_BLOCKS of them for
		 * the window's time at a low rate, and one more: the block
		 * the capture is reading */
		blocks = (bytes + CAPTURE_BLOCK - 1) / CAPTURE_BLOCK;
		if (blocks < CAPTURE_RING_MIN_BLOCKS)
			blocks = CAPTURE_RING_MIN_BLOCKS;
		return (blocks + 1) * CAPTURE_BLOCK;
	}
	if (bytes < CAPTURE_RING_MIN)
		bytes = CAPTURE_RING_MIN;
	return (bytes + 4095) & ~(uint64_t)4095;
}

bool capture_uses_v3(int snaplen)
{
	return snaplen <= 0 || snaplen > 1514;
}

int capture_block_timeout_ms(int64_t window_ns)
{
	int64_t ms = (window_ns > 0 ? window_ns : CAPTURE_WINDOW_NS) / 2 / 1000000;

	return ms < 10 ? 10 : ms > 1000 ? 1000 : (int)ms;
}

static int drain_once(struct cap *caps, struct take_arg *args, int n)
{
	int i, got = 0, k;

	for (i = 0; i < n; i++)
		while ((k = pcap_dispatch(caps[i].p, 256, take, (u_char *)&args[i])) > 0)
			got += k;
	if (n)
		wr_push(args[0].w);
	return got;
}

static void drain_end(struct cap *caps, struct take_arg *args, struct pollfd *pfd, int n,
		      int block_ms)
{
	int64_t quiet_until = now_ns() + 2 * block_ms * 1000000LL;
	int64_t deadline = now_ns() + 5000000000LL; /* traffic that never stops */

	drain_once(caps, args, n);
	while (now_ns() < quiet_until && now_ns() < deadline) {
		poll(pfd, (nfds_t)n, block_ms);
		if (drain_once(caps, args, n))
			quiet_until = now_ns() + 2 * block_ms * 1000000LL;
	}
}

/* DIR/NODE.capstats (see capture.h); a failure is said, not fatal: the
 * captures themselves are what the run needs */
static void write_stats(const char *dir, const char *node, const struct capture_port *ports,
			const struct cap *caps, int n)
{
	char path[4200];
	FILE *fp;
	int i;

	snprintf(path, sizeof(path), "%s/%s%s", dir, node, CAPTURE_STATS_SUFFIX);
	fp = fopen(path, "w");
	if (!fp) {
		fprintf(stderr, "hyde: capture %s: %s: %s\n", node, path, strerror(errno));
		return;
	}
	fprintf(fp, "iface rate_bps ring_bytes received dropped ifdropped lost\n");
	for (i = 0; i < n; i++) {
		struct pcap_stat st = { 0 };

		if (!caps[i].p || pcap_stats(caps[i].p, &st))
			continue;
		fprintf(fp, "%s %" PRIu64 " %" PRIu64 " %u %u %u %" PRIu64 "\n", ports[i].ifname,
			ports[i].rate_bps, ports[i].ring_bytes, st.ps_recv, st.ps_drop, st.ps_ifdrop,
			caps[i].lost);
		if (st.ps_drop)
			fprintf(stderr, "hyde: capture %s-%s: %u frame(s) dropped: its %" PRIu64
				" KB ring was full (the capture could not drain it in time)\n",
				node, ports[i].ifname, st.ps_drop, ports[i].ring_bytes >> 10);
		if (caps[i].lost)
			fprintf(stderr, "hyde: capture %s-%s: %" PRIu64 " frame(s) lost: the files could not be written fast enough (%llu MB queued)\n",
				node, ports[i].ifname, caps[i].lost, CAPTURE_QUEUE_MAX >> 20);
	}
	if (fclose(fp))
		fprintf(stderr, "hyde: capture %s: %s: %s\n", node, path, strerror(errno));
}

int capture_run(const char *dir, const char *node, struct capture_port *ports,
		int n_ifaces, int ready_fd, int snaplen, int64_t window_ns, char *errbuf)
{
	char eb[PCAP_ERRBUF_SIZE], path[4096];
	struct cap *caps = xcalloc((size_t)n_ifaces, sizeof(*caps));
	struct pollfd *pfd = xcalloc((size_t)n_ifaces, sizeof(*pfd));
	struct sigaction sa = { .sa_handler = on_signal };
	int i, r = 0, block_ms = capture_block_timeout_ms(window_ns);
	struct writer w = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };
	struct take_arg *args = NULL;
	bool started = false;
	struct timespec pace = { 0, capture_uses_v3(snaplen) ? 0 : CAPTURE_PACE_NS };
	sigset_t mask, old;
	pthread_t th;

	w.caps = caps;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* A capture that is not scheduled for longer than its rings hold
	 * loses frames: real-time priority, below the crossbar's, wakes it
	 * as soon as frames wait. Its work is small (a copy of the headers),
	 * so it takes little from the tasks. (On its own it did not end the
	 * drops measured with TPACKET_V3 rings: 8 frames on 5 uplinks of a
	 * rack8 run at SCHED_OTHER, 9 on 6 with it; the V2 ring did.) */
	{
		struct sched_param sp = { .sched_priority = CAPTURE_RT_PRIORITY };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			fprintf(stderr, "hyde: capture %s: SCHED_FIFO refused (%s): frames may be dropped on a busy box\n",
				node, strerror(errno));
	}
	/* started by a run: when it dies, stop as on SIGTERM, with every
	 * file flushed, so that its captures can still be analysed */
	fabric_death_signal(SIGTERM);
	for (i = 0; i < n_ifaces; i++) {
		const char *ifn = ports[i].ifname;
		pcap_t *p = pcap_create(ifn, eb);

		caps[i].ifname = ifn;
		if (!ports[i].ring_bytes)
			ports[i].ring_bytes = capture_ring_bytes(ports[i].rate_bps, snaplen, window_ns);
		if (!p) {
			errbuf_set(errbuf, "capture %s-%s: %s", node, ifn, eb);
			r = -ENODEV;
			goto out;
		}
		caps[i].p = p;
		/* headers only (unless asked); a ring for what the port carries
		 * while the process is descheduled (capture_ring_bytes) */
		if (pcap_set_snaplen(p, snaplen > 0 ? snaplen : CAPTURE_SNAPLEN_FULL) ||
		    pcap_set_immediate_mode(p, !capture_uses_v3(snaplen)) ||
		    pcap_set_buffer_size(p, (int)ports[i].ring_bytes) ||
		    pcap_set_timeout(p, block_ms) ||
		    pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO) ||
		    pcap_activate(p) < 0) {
			errbuf_set(errbuf, "capture %s-%s: %s", node, ifn, pcap_geterr(p));
			r = -EIO;
			goto out;
		}
		if (pcap_datalink(p) != DLT_EN10MB) {
			errbuf_set(errbuf, "capture %s-%s: not Ethernet", node, ifn);
			r = -EINVAL;
			goto out;
		}
		if (pcap_setdirection(p, PCAP_D_INOUT) || pcap_setnonblock(p, 1, eb)) {
			errbuf_set(errbuf, "capture %s-%s: %s", node, ifn, pcap_geterr(p));
			r = -EIO;
			goto out;
		}
		snprintf(path, sizeof(path), "%s/%s-%s.pcap", dir, node, ifn);
		caps[i].d = pcap_dump_open(p, path);
		if (!caps[i].d) {
			errbuf_set(errbuf, "capture %s: %s", path, pcap_geterr(p));
			r = -EIO;
			goto out;
		}
		pfd[i].fd = pcap_get_selectable_fd(p);
		pfd[i].events = POLLIN;
	}
	if (ready_fd >= 0) {
		if (write(ready_fd, "ready\n", 6) != 6) {
			r = -errno;
			goto out;
		}
		close(ready_fd);
	}
	args = xcalloc((size_t)n_ifaces, sizeof(*args));
	for (i = 0; i < n_ifaces; i++) {
		args[i].w = &w;
		args[i].port = (uint32_t)i;
	}
	/* signals to the draining loop, not to the writer */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	pthread_sigmask(SIG_BLOCK, &mask, &old);
	r = -pthread_create(&th, NULL, writer_main, &w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r) {
		errbuf_set(errbuf, "capture %s: writer thread: %s", node, strerror(-r));
		goto out;
	}
	started = true;
	while (!capture_stop) {
		int n = poll(pfd, (nfds_t)n_ifaces, 100);

		if (n < 0 && errno != EINTR) {
			errbuf_set(errbuf, "capture %s: poll: %s", node, strerror(errno));
			r = -errno;
			break;
		}
		/* a ring of fixed frames (TPACKET_V2) wakes the poll at its
		 * first frame: let frames gather for a while, so the capture
		 * wakes tens of times a second, not once a frame */
		if (drain_once(caps, args, n_ifaces) && pace.tv_nsec)
			nanosleep(&pace, NULL);
	}
	/* What is still in the kernel's rings: a V3 block being filled is
	 * handed over only when its timeout retires it, so drain until two
	 * timeouts have passed with nothing new; a V2 ring shows each frame
	 * at once, so two paces do. */
	drain_end(caps, args, pfd, n_ifaces,
		  capture_uses_v3(snaplen) ? block_ms : (int)(CAPTURE_PACE_NS / 1000000));
out:
	if (started) {
		wr_push(&w);
		pthread_mutex_lock(&w.mu);
		w.done = true;
		pthread_cond_signal(&w.cv);
		pthread_mutex_unlock(&w.mu);
		pthread_join(th, NULL);
		write_stats(dir, node, ports, caps, n_ifaces);
	}
	free(w.cur);
	free(args);
	for (i = 0; i < n_ifaces; i++) {
		if (caps[i].d) {
			pcap_dump_flush(caps[i].d);
			pcap_dump_close(caps[i].d);
		}
		if (caps[i].p)
			pcap_close(caps[i].p);
	}
	free(caps);
	free(pfd);
	return r;
}
