/* The real shuffle: map output data and the per-host shuffle service that
 * serves it over TCP to the reduce tasks (emul/task.h), between the hosts'
 * namespaces, through the emulated fabric.
 *
 * Map output is never stored: the bytes map m of job j produces for reduce
 * r are a deterministic pseudo-random stream keyed by (seed, j, m, r), and
 * byte o of it can be computed on its own, so the server generates what it
 * sends and the reduce checks every byte it receives.
 *
 * Fetch request (reduce -> shuffle service, one line, then only data comes
 * back): "GET <job> <reduce> <n> <map>:<bytes> ...\n". The service sends
 * the n partitions back to back and closes; it refuses (closes at once) a
 * request for a map output that was not registered on its host.
 * Registration (map task -> service, over the host's UNIX socket):
 * "reg <job> <map>\n", answered "ok\n". */
#ifndef HYDE_SHUFFLE_H
#define HYDE_SHUFFLE_H

#include <stddef.h>
#include <stdint.h>

#include "emul/prio.h"

/* The stream key of (job, map, reduce) under a run's seed. */
uint64_t shuffle_key(uint64_t seed, uint32_t job, uint32_t map, uint32_t reduce);
/* Fill buf with len bytes of the stream `key` from offset off. */
void shuffle_fill(uint64_t key, uint64_t off, uint8_t *buf, size_t len);
/* Offset of the first byte of buf that differs from the stream, or len. */
size_t shuffle_check(uint64_t key, uint64_t off, const uint8_t *buf, size_t len);

int64_t shuffle_realtime_ns(void);
/* A connected UNIX stream socket to path, or a negative errno. */
int emul_unix_connect(const char *path);

/* ---- requests (pure: the unit tests and the fuzzer drive them) ---- */

/* The longest request line the service reads: a fetch names a few
 * thousand map outputs of one host at most (~25 bytes each). */
#define SHUFFLE_REQ_MAX (1024 * 1024)

struct shuffle_part {
	uint32_t map;
	uint64_t bytes;
};

/* "GET <job> <reduce> <n> <map>:<bytes> ...": n >= 1 partitions. */
struct shuffle_req {
	uint32_t job, reduce, n_parts;
	struct shuffle_part *parts;
};

/* Parse a request line of len bytes (without its end of line; it need
 * not be NUL-terminated). Returns 0 (the caller owns req->parts:
 * shuffle_req_free), or -EINVAL with what is wrong in errbuf and nothing
 * allocated. A count of partitions the line cannot hold is refused before
 * any allocation. */
int shuffle_req_parse(const char *line, size_t len, struct shuffle_req *req,
		      char *errbuf);
void shuffle_req_free(struct shuffle_req *req);
/* "reg <job> <map>" (a map task's registration): 0 or -EINVAL. */
int shuffle_reg_parse(const char *line, size_t len, uint32_t *job, uint32_t *map);

/* ---- the processes (each the body of a hidden `hyde` subcommand) ---- */

/* Bad peers: a request line longer than SHUFFLE_REQ_MAX, malformed, or for
 * a map output not on this host is refused (the connection closed); a
 * request not complete within request_timeout_ns of the connection is
 * closed, and so, if send_timeout_ns is set, is a reader that takes no
 * byte for that long; past max_conns connections (and below the
 * descriptor limit) new ones are closed at once. Each is logged
 * (rate-limited) and the others are served on. */
struct shuffle_serve_opts {
	const char *reg_path;	    /* registrations (UNIX socket, made 0600) */
	uint16_t port;		    /* TCP, every address of the namespace */
	uint64_t seed;		    /* the run's: the map output streams */
	int64_t request_timeout_ns; /* SHUFFLE_REQUEST_TIMEOUT */
	int64_t send_timeout_ns;    /* 0: none (the default, see below) */
	unsigned max_conns;	    /* 0: 4096 */
	/* map outputs marked by the network's policy as they go
	 * (emul/prio.h); net HYDE_NET_FAIR: unmarked */
	struct prio_opts prio;
};
/* A fetch's request is one small write right after connect, over the EPS
 * (never held by a circuit); 30 s allows for a loaded box and TCP's
 * backoff after a few losses. A transfer, though, has no time limit by
 * default: an OCS fetch makes no progress while its circuit is down, and
 * a 30-minute soak saw that last 115 s (the circuit was taken for another
 * pair while the fetch, slower than the plan's bw_o, was under way; with
 * a 120 s limit the fetch was cut and the run failed). Idle readers are
 * bounded by max_conns instead. */
#define SHUFFLE_REQUEST_TIMEOUT (30 * 1000000000LL)

/* Serve until killed; returns only on a set-up or epoll error (-errno,
 * errbuf filled). */
int shuffle_serve(const struct shuffle_serve_opts *o, char *errbuf);
/* ---- helpers the processes share ---- */

/* Write all of buf (blocking, or on a non-blocking descriptor waiting for
 * room as a blocking write would): 0 or -errno. On a socket with
 * MSG_NOSIGNAL, so that a peer gone is -EPIPE, not a SIGPIPE, in a process
 * that does not ignore it (hyde ocs's client); any other fd by write(). */
int emul_write_all(int fd, const char *buf, size_t len);
int emul_set_nonblock(int fd);

/* A line reader over a non-blocking or blocking descriptor, holding at
 * most max bytes (0: no bound, for the controller's own lines). */
struct linebuf {
	char *b;
	size_t len, cap, max;
};

/* Read what is there; returns 0, or -1 at end of file, -EMSGSIZE when max
 * bytes are held and none is an end of line, or another -errno. */
int emul_lb_fill(struct linebuf *lb, int fd);
/* Next complete line (NUL-terminated, in place) or NULL; *consumed is how
 * much to drop afterwards with emul_lb_drop. */
char *emul_lb_line(struct linebuf *lb, size_t *consumed);
void emul_lb_drop(struct linebuf *lb, size_t n);

#endif
