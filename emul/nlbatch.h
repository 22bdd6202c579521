/* Batched rtnetlink requests: messages built with libnl's
 * rtnl_*_build_*_request() are sent without waiting, and their
 * acknowledgements collected later, so that building a fabric costs one
 * system call per object instead of a round trip. The first failure is
 * kept with the step that caused it ("tor3: route 10.0.0.0/12 via
 * 10.32.0.14: Network is unreachable (kernel: ...)"); later messages of a
 * failed batch are not sent. */
#ifndef HYDE_NLBATCH_H
#define HYDE_NLBATCH_H

#include <stdint.h>

#include <netlink/msg.h>
#include <netlink/socket.h>

/* Acknowledgements are collected after this many messages at the latest,
 * which bounds what the socket's receive buffer must hold. */
#define NLB_WINDOW 128
#define NLB_STEP_MAX 112

struct nlb {
	struct nl_sock *sk;
	char where[48]; /* the node, for messages */
	unsigned pending;
	uint32_t seq_first; /* sequence number of the oldest pending message */
	int err;	    /* first failure, 0 if none */
	char errmsg[512];
	char steps[NLB_WINDOW][NLB_STEP_MAX];
};

/* Open a NETLINK_ROUTE socket in the calling thread's current network
 * namespace (it stays bound to it). The caller owns b and closes it. */
int nlb_open(struct nlb *b, const char *where, char *errbuf);
void nlb_close(struct nlb *b);

/* Send msg (always freed) as one step of the batch; msg_err is what the
 * libnl builder returned (a negative NLE_* code fails the step). Returns
 * the batch's first error so far (0 if none). */
int nlb_send(struct nlb *b, int msg_err, struct nl_msg *msg,
	     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Wait for every pending acknowledgement. Returns 0 or the first failure
 * of the batch (a negative errno), described in errbuf. */
int nlb_flush(struct nlb *b, char *errbuf);

#endif
