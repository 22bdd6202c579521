/* Packet capture on a node's interfaces with libpcap (headers only),
 * one file per interface, <dir>/<node>-<iface>.pcap with nanosecond
 * timestamps (ns-3 style names, readable by tcpdump and Wireshark). Runs
 * inside the node's namespace, as its own process, until SIGTERM or SIGINT;
 * writes "ready" on ready_fd once every interface is open, so the run
 * starts only when nothing can be missed. */
#ifndef HYDE_CAPTURE_H
#define HYDE_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#define CAPTURE_SNAPLEN 128
/* snaplen 0: whole frames (GSO super-frames included), for a look at the
 * payload (the request lines of the shuffle and data services). */
#define CAPTURE_SNAPLEN_FULL 262144

/* The kernel ring (allocated in full when the capture opens its port) is
 * sized from what the port can carry: at rate_bps in each direction, in
 * frames of one MTU with an ACK for every second one, every frame costing
 * its kept bytes (min(snaplen, 1514)) plus the ring's own header
 * (CAPTURE_RING_HDR), for window_ns: the time the capture process may be
 * kept from draining it (descheduled on a busy box). Headers only (the
 * default), the ring is TPACKET_V2: fixed slots, one a frame, never less
 * than CAPTURE_RING_MIN; the capture drains it, then lets frames gather
 * for CAPTURE_PACE_NS. Whole frames (a snap length over 1514), it is
 * libpcap's TPACKET_V3: blocks of CAPTURE_BLOCK bytes (its
 * MAXIMUM_SNAPLEN) that the kernel hands over when full or when they have
 * waited capture_block_timeout_ms (half the window) with frames in them;
 * at least CAPTURE_RING_MIN_BLOCKS, and one more for the block being
 * read. (V3 was the default until it was measured to drop a few frames
 * on the uplinks of a rack8 run with rings far from full: 4-12 frames
 * of 25,000, with at most 344 frames in any 125 ms on a ring of 4,600.)
 * A port that overflows its ring loses frames: counted
 * (DIR/NODE.capstats), never silent. */
#define CAPTURE_WINDOW_NS (250 * 1000000LL)
#define CAPTURE_RING_HDR 96
#define CAPTURE_RING_MIN (512u << 10)
#define CAPTURE_PACE_NS (10 * 1000000L)
#define CAPTURE_BLOCK (256u << 10)
#define CAPTURE_RING_MIN_BLOCKS 3
/* without a rate (a port named bare): the fixed ring of earlier versions */
#define CAPTURE_RING_DEFAULT (32u << 20)
uint64_t capture_ring_bytes(uint64_t rate_bps, int snaplen, int64_t window_ns);
int capture_block_timeout_ms(int64_t window_ns);
/* whether a capture of that snap length uses TPACKET_V3 (else V2) */
bool capture_uses_v3(int snaplen);
/* SCHED_FIFO priority of a capture: below the crossbar's (OCS_RT_PRIORITY) */
#define CAPTURE_RT_PRIORITY 5

/* One port to capture: its interface, its rate (0: unknown, the default
 * ring) and the ring's size in bytes (0: computed by capture_run). */
struct capture_port {
	const char *ifname;
	uint64_t rate_bps;
	uint64_t ring_bytes;
};

/* Written at the end of a capture, DIR/NODE.capstats: a header line, then
 * one line a port: "iface rate_bps ring_bytes received dropped ifdropped
 * lost" (libpcap's counts: dropped = frames the ring had no room for;
 * lost = frames taken from the ring that the writer's queue had no room
 * for, CAPTURE_QUEUE_MAX, while the disk was slow). */
#define CAPTURE_STATS_SUFFIX ".capstats"

/* snaplen: bytes kept of each frame (CAPTURE_SNAPLEN by default; 0 for
 * whole frames). */
int capture_run(const char *dir, const char *node, struct capture_port *ports,
		int n_ports, int ready_fd, int snaplen, int64_t window_ns, char *errbuf);

#endif
