/* Packet capture on a node's interfaces with libpcap (headers only),
 * one file per interface, <dir>/<node>-<iface>.pcap with nanosecond
 * timestamps (ns-3 style names, readable by tcpdump and Wireshark). Runs
 * inside the node's namespace, as its own process, until SIGTERM or SIGINT;
 * writes "ready" on ready_fd once every interface is open, so the run
 * starts only when nothing can be missed. */
#ifndef HYDE_CAPTURE_H
#define HYDE_CAPTURE_H

#define CAPTURE_SNAPLEN 128
/* snaplen 0: whole frames (GSO super-frames included), for a look at the
 * payload (the request lines of the shuffle and data services). */
#define CAPTURE_SNAPLEN_FULL 262144

/* snaplen: bytes kept of each frame (CAPTURE_SNAPLEN by default; 0 for
 * whole frames). */
int capture_run(const char *dir, const char *node, char *const ifaces[],
		int n_ifaces, int ready_fd, int snaplen, char *errbuf);

#endif
