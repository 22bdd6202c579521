/* Packet capture on a node's interfaces with libpcap (headers only),
 * one file per interface, <dir>/<node>-<iface>.pcap with nanosecond
 * timestamps (ns-3 style names, readable by tcpdump and Wireshark). Runs
 * inside the node's namespace, as its own process, until SIGTERM or SIGINT;
 * writes "ready" on ready_fd once every interface is open, so the run
 * starts only when nothing can be missed. */
#ifndef HYDE_CAPTURE_H
#define HYDE_CAPTURE_H

#include <stdint.h>

#define CAPTURE_SNAPLEN 128
/* snaplen 0: whole frames (GSO super-frames included), for a look at the
 * payload (the request lines of the shuffle and data services). */
#define CAPTURE_SNAPLEN_FULL 262144

/* The kernel ring (TPACKET_V3, allocated in full when the capture opens
 * its port) is sized from what the port can carry: at rate_bps in each
 * direction, in frames of one MTU with an ACK for every second one, every
 * frame costing its kept bytes (min(snaplen, 1514)) plus the ring's own
 * header (CAPTURE_RING_HDR), for window_ns: the time the capture process
 * may be kept from draining it (descheduled on a busy box, or its writes
 * held up by the disk). libpcap cuts a V3 ring into blocks of
 * CAPTURE_BLOCK bytes (its MAXIMUM_SNAPLEN), and the kernel hands a block
 * over when it is full or when it has waited capture_block_timeout_ms
 * (half the window) with frames in it: at a low rate each block then
 * holds half a window's frames, so a ring has at least
 * CAPTURE_RING_MIN_BLOCKS of them, and one more for the block the capture
 * is reading. A port that overflows its ring loses frames: counted
 * (DIR/NODE.capstats), never silent. */
#define CAPTURE_WINDOW_NS (250 * 1000000LL)
#define CAPTURE_RING_HDR 96
#define CAPTURE_BLOCK (256u << 10)
#define CAPTURE_RING_MIN_BLOCKS 3
/* without a rate (a port named bare): the fixed ring of earlier versions */
#define CAPTURE_RING_DEFAULT (32u << 20)
uint64_t capture_ring_bytes(uint64_t rate_bps, int snaplen, int64_t window_ns);
int capture_block_timeout_ms(int64_t window_ns);
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
