/* hyde pcap: the captures of a whole run as one annotated pcapng, for
 * Wireshark and tshark.
 *
 * - One interface per captured ToR port, named as its capture (tor3-up,
 *   tor3-ocs, tor3-h1), its description giving the node, what the port
 *   links to and its rate (also as if_speed); a last interface,
 *   "ocs-control", carries the lines of the crossbar's control protocol
 *   (emul/README.md) the run exchanged with it and its circuit events,
 *   one record per line (link type "exported PDU", naming the dissector
 *   "hyde_ocs" of wireshark/hyde.lua).
 * - Every packet of every capture, once, in time order (ties: capture
 *   order; each capture sorted on the way, within REORDER_NS), with its
 *   direction on its port (received or sent by the ToR).
 * - Each TCP segment of a connection in manifest.csv carries a comment
 *   naming its flow, coflow, job, kind and path:
 *     "hyde flow=3 coflow=0 job=heavy kind=shuffle path=ocs src=r0h0
 *      dst=r1h0 bytes=5000000 reduce=1 maps=1"
 *   (src -> dst is the way the data goes; input flows say map=, output
 *   flows reduce=); one in no line says so. Every OCS record says what it
 *   is ("hyde ocs: circuit 0>1 up (tor0 -> tor1)").
 * - Filters: a job, flows, ports, a window of run time. */
#ifndef HYDE_RUNPCAP_H
#define HYDE_RUNPCAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct runpcap_opts {
	const char *job;	/* only this job's flows (NULL: all) */
	const uint64_t *flows;	/* only these flows (n_flows 0: all) */
	size_t n_flows;
	char **ports;		/* only these interfaces (n_ports 0: all) */
	size_t n_ports;
	int64_t from, to;	/* window, ns from the run's start
				 * (INT64_MIN / INT64_MAX: open) */
	bool no_ocs;		/* leave the OCS records out */
};

struct runpcap_result {
	unsigned captures;	  /* capture files read */
	unsigned interfaces;	  /* interfaces written */
	uint64_t packets_in;	  /* packets in the captures read */
	uint64_t packets;	  /* captured packets written */
	uint64_t commented;	  /* of which TCP with a flow's comment */
	uint64_t unknown;	  /* TCP in no manifest line */
	uint64_t ocs_records;	  /* OCS lines written */
	size_t ocs_unplaced;	  /* crossbar events left out: their clock
				   * could not be placed (runlog.h) */
	const char *ocs_clock_how;
	bool cut;		  /* a capture ended inside a packet */
	uint64_t late;		  /* packets more than 100 ms out of time
				   * order in their own capture: written
				   * where they came, out of order */
};

struct runpcap;

/* Read the run directory (manifest, logs, the list of captures) and check
 * the options against it (a job, flow or port it does not have). 0, or
 * -EINVAL with errbuf set (the run cannot be read, or an option names
 * nothing in it). The caller owns *out (runpcap_free). */
int runpcap_open(const char *rundir, const struct runpcap_opts *o,
		 struct runpcap **out, char *errbuf);
/* Write the pcapng to fp. 0, -EINVAL for a capture that cannot be read,
 * or -errno of a failed write; errbuf says which. */
int runpcap_write(struct runpcap *rp, FILE *fp, struct runpcap_result *res,
		  char *errbuf);
void runpcap_free(struct runpcap *rp);

#endif
