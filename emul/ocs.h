/* The software OCS crossbar (Co-scheduler §II-B): R ports, one per ToR; the
 * configuration is a matching of circuits; reconfiguring stalls exactly the
 * ports whose circuit changes for delta (not-all-stop); frames for a
 * destination without an up circuit wait in a bounded queue per (input
 * port, destination), the ToR's VOQ. The daemon and its control protocol
 * are described in emul/README.md, "The OCS crossbar".
 *
 * This header has two halves: the pure parts (matchings, the diff between
 * two of them, VOQs, the control protocol's parser), which the unit tests
 * exercise without root, and the daemon (ocs_serve), which needs the ocs
 * namespace of a fabric. */
#ifndef HYDE_OCS_H
#define HYDE_OCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util.h"

/* One box cannot emulate more: each port holds a 4 MB receive ring and
 * up to 8 MB of large frames queued on its socket. */
#define OCS_MAX_PORTS 256
/* A control line longer than this is refused (a full matching of 256
 * ports, written out directed, is about 2 KB). */
#define OCS_LINE_MAX 4096
/* The virtio-net header carried in front of every frame (PACKET_VNET_HDR). */
#define OCS_VNET_LEN 10
/* A VOQ holds at least this much by default, whatever delta x bw_o is: a
 * ToR buffers a rack pair's traffic while its circuit is down, and the
 * fluid model (and the papers' circuit schedulers) lose nothing meanwhile:
 * a flow just waits. TCP keeps its window in flight toward a circuit that
 * is down (for seconds when Sunflow serves other coflows first), and what
 * a bound of delta x bw_o (500 KB on rack8) could not hold was lost, and
 * then recovered by retransmission timeouts, which left the circuit idle
 * when it came back (a rack8 shufflewatcher run: 94 frames dropped,
 * average CCT 1.18x the model's; with 16 MB: none, 1.005x). The deepest
 * VOQ measured on rack8 held 541 KB. Frames are allocated as they queue,
 * so the bound costs nothing until used. Smaller bounds (--voq, -B voq)
 * emulate a shallow-buffered ToR. */
#define OCS_VOQ_MIN (16000000u)

/* ---- matchings ---- */

/* A configuration: out[i] = j when circuit i -> j is in it, else -1. At
 * most one outgoing and one incoming circuit per port. */
struct ocs_matching {
	unsigned ports;
	int out[OCS_MAX_PORTS];
};

void ocs_matching_init(struct ocs_matching *m, unsigned ports);
/* Parse circuits "I-J" (both directions) and "I>J" (I to J only), or the
 * single word "none" (no circuit), for a crossbar of `ports` ports. Refuses
 * what is not a matching, naming the circuits that clash. On error
 * returns -EINVAL, fills errbuf and leaves *m empty. */
int ocs_matching_parse(struct ocs_matching *m, unsigned ports,
		       char *const *words, int n, char *errbuf);
unsigned ocs_matching_count(const struct ocs_matching *m);
/* "0-1 2>3" (a circuit and its reverse are written once as I-J), or
 * "none"; returns buf. */
char *ocs_matching_format(const struct ocs_matching *m, char *buf, size_t len);

/* What reconfiguring from `from` to `to` does: down[i] = j when circuit
 * i -> j is torn down, up[i] = j when it is set up, else -1; stall[p] for
 * every port whose circuit changes (either direction), the ports that stop
 * for delta. A circuit in both is untouched and never pauses. */
struct ocs_diff {
	unsigned n_down, n_up, n_stall;
	int down[OCS_MAX_PORTS];
	int up[OCS_MAX_PORTS];
	bool stall[OCS_MAX_PORTS];
};

void ocs_matching_diff(const struct ocs_matching *from,
		       const struct ocs_matching *to, struct ocs_diff *d);

/* ---- frames and VOQs ---- */

/* Port k's ToR has MAC 02:68:79:6f:HH:LL with k = HH x 256 + LL
 * (emul/README.md). Returns k, or -1 if mac is not such an address. */
int ocs_mac_port(const uint8_t mac[6]);
void ocs_port_mac(unsigned port, uint8_t mac[6]);

/* Bytes a frame takes on the wire once segmented, counted as HTB counts
 * them (qdisc_pkt_len: every segment repeats the L2-L4 headers, no
 * preamble or FCS). A GSO super-frame of n segments counts its headers n
 * times; anything else is its length. vnet is the frame's virtio-net
 * header. */
uint64_t ocs_wire_bytes(const void *vnet, const void *frame, uint32_t len);

/* A frame waiting in a VOQ: its virtio-net header, then len bytes. */
struct ocs_frame {
	struct ocs_frame *next;
	uint32_t len;
	uint32_t wire;
	unsigned char buf[]; /* OCS_VNET_LEN + len bytes */
};

/* A FIFO of frames bounded in bytes (the frames' lengths). */
struct ocs_voq {
	struct ocs_frame *head, *tail;
	uint64_t frames, bytes;			/* queued now */
	uint64_t dropped_frames, dropped_bytes; /* refused by the bound */
	uint64_t peak_bytes;			/* the most ever queued at once */
};

/* Default bound: a full delta at bw_o, and never less than OCS_VOQ_MIN. */
uint64_t ocs_voq_default(uint64_t rate_bps, int64_t delta_ns);
/* Queue a copy of the frame if bytes + len <= bound; else count it as
 * dropped and return -ENOBUFS. */
int ocs_voq_push(struct ocs_voq *q, uint64_t bound, const void *vnet,
		 const void *frame, uint32_t len, uint32_t wire);
/* Unlink the head; the caller frees it with free(). NULL when empty. */
struct ocs_frame *ocs_voq_pop(struct ocs_voq *q);
void ocs_voq_clear(struct ocs_voq *q);

/* ---- the control protocol ---- */

enum ocs_cmd_kind {
	OCS_CMD_SET,
	OCS_CMD_SHOW,
	OCS_CMD_STATS,
	OCS_CMD_WATCH,
	OCS_CMD_UNWATCH,
	OCS_CMD_EVENTS,
	OCS_CMD_DELTA,
	OCS_CMD_TIME,
	OCS_CMD_HELP,
	OCS_CMD_QUIT,
};

struct ocs_cmd {
	enum ocs_cmd_kind kind;
	struct ocs_matching m; /* set */
	bool has_arg;	       /* delta TIME, events N */
	int64_t delta;	       /* delta, ns */
	uint64_t count;	       /* events: the last N */
};

/* Longest delta the daemon takes: a longer stall is a typo, not an OCS. */
#define OCS_DELTA_MAX (10 * NSEC_PER_SEC)

/* Parse one request line (without its end of line; modified in place).
 * A line of blanks is OCS_CMD_... nothing: returns -ENODATA. Bad input
 * returns -EINVAL with the reason in errbuf (the text of the "err" reply). */
int ocs_cmd_parse(char *line, unsigned ports, struct ocs_cmd *cmd, char *errbuf);
/* The help text the daemon sends for "help" (one command a line). */
extern const char *const ocs_cmd_help[];

/* The control socket's framing: bytes in, whole lines out. A line longer
 * than OCS_LINE_MAX is reported once and skipped up to its end. */
struct ocs_linebuf {
	size_t len;
	bool discard; /* inside an overlong line, skipping to its end */
	char buf[OCS_LINE_MAX + 1];
};

/* Room after what is held: read at most this much into buf + len. */
size_t ocs_linebuf_room(const struct ocs_linebuf *lb);
/* n bytes were read into buf + len: call line(arg, text, len) for every
 * complete line, NUL-terminated, without its "\n" or "\r\n". A nonzero
 * return from line() stops there and drops the rest (the connection is
 * closing). Returns true when a line has just become too long (reply
 * once: it is skipped up to its end). */
bool ocs_linebuf_feed(struct ocs_linebuf *lb, size_t n,
		      int (*line)(void *arg, char *text, size_t len), void *arg);
/* A line is under way (started, not ended). */
bool ocs_linebuf_pending(const struct ocs_linebuf *lb);

/* ---- the daemon ---- */

struct ocs_opts {
	const char *netns;  /* run inside this named namespace (NULL: current) */
	unsigned ports;	    /* R: interfaces p0 .. p<R-1> */
	uint64_t rate;	    /* bw_o, bit/s */
	int64_t delta;	    /* ns */
	uint64_t voq;	    /* VOQ bound, bytes; 0: ocs_voq_default() */
	const char *socket; /* control socket path */
	const char *log;    /* circuit event log (appended), or NULL */
	bool no_pacing;	    /* leave bw_o to the ports' qdiscs (measurement) */
	bool no_rt;	    /* stay SCHED_OTHER (default: SCHED_FIFO if allowed) */
	int64_t request_timeout; /* ns a request line may take to arrive
				  * whole; 0: OCS_REQUEST_TIMEOUT */
};

/* A client that starts a request line and does not end it within this is
 * answered "err" and disconnected (a line is one write from every client
 * we know; 10 s allows for a loaded box). An idle client between requests
 * stays: a run's controller keeps its connection for the whole run. */
#define OCS_REQUEST_TIMEOUT (10 * NSEC_PER_SEC)

/* The crossbar's real-time priority: above the emulated hosts' processes,
 * well below the kernel's own threads. */
#define OCS_RT_PRIORITY 10

/* Run the crossbar until SIGINT or SIGTERM. Returns 0 after a clean stop,
 * or a negative errno with errbuf filled when it cannot start or its data
 * path fails. */
int ocs_serve(const struct ocs_opts *o, char *errbuf);

#endif
