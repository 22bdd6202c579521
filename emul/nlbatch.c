/* Batched rtnetlink requests (see nlbatch.h). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>

#include "core/util.h"
#include "nlbatch.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

int nlb_open(struct nlb *b, const char *where, char *errbuf)
{
	int one = 1, r, fd;

	memset(b, 0, sizeof(*b));
	snprintf(b->where, sizeof(b->where), "%s", where);
	b->sk = nl_socket_alloc();
	if (!b->sk) {
		errbuf_set(errbuf, "%s: cannot allocate a netlink socket", where);
		return -ENOMEM;
	}
	r = nl_connect(b->sk, NETLINK_ROUTE);
	if (r < 0) {
		errbuf_set(errbuf, "%s: netlink: %s", where, nl_geterror(r));
		nl_socket_free(b->sk);
		b->sk = NULL;
		return -EIO;
	}
	fd = nl_socket_get_fd(b->sk);
	/* Short acknowledgements (no copy of the request), with the kernel's
	 * own words on what was wrong. Both are optional: older kernels
	 * only lose the detail. */
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	nl_socket_set_buffer_size(b->sk, 1 << 20, 1 << 20);
	return 0;
}

void nlb_close(struct nlb *b)
{
	if (b->sk)
		nl_socket_free(b->sk);
	b->sk = NULL;
}

/* The kernel's extended-ack message, if any, of an NLMSG_ERROR. */
static const char *ext_ack_msg(const struct nlmsghdr *h)
{
	const struct nlmsgerr *e = NLMSG_DATA(h);
	const struct nlattr *a;
	size_t off, len;

	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return NULL;
	off = NLMSG_HDRLEN + sizeof(*e);
	if (!(h->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	while (off + NLA_HDRLEN <= h->nlmsg_len) {
		a = (const struct nlattr *)((const char *)h + off);
		len = a->nla_len;
		if (len < NLA_HDRLEN || off + len > h->nlmsg_len)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG &&
		    len > NLA_HDRLEN)
			return (const char *)a + NLA_HDRLEN;
		off += NLA_ALIGN(len);
	}
	return NULL;
}

static void record(struct nlb *b, int err, const char *step, const char *why,
		   const char *detail)
{
	if (b->err)
		return;
	b->err = err;
	snprintf(b->errmsg, sizeof(b->errmsg), "%s: %s: %s%s%s%s", b->where,
		 step, why, detail ? " (kernel: " : "", detail ? detail : "",
		 detail ? ")" : "");
}

static int drain(struct nlb *b)
{
	/* Acknowledgements are short (NETLINK_CAP_ACK). */
	char buf[32768] __attribute__((aligned(8)));
	int fd = nl_socket_get_fd(b->sk);

	while (b->pending) {
		struct nlmsghdr *h;
		ssize_t n;
		int len;

		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			record(b, -errno, "waiting for the kernel's answers",
			       strerror(errno), NULL);
			b->pending = 0;
			return b->err;
		}
		len = (int)n;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, len);
		     h = NLMSG_NEXT(h, len)) {
			const struct nlmsgerr *e;

			if (h->nlmsg_type != NLMSG_ERROR)
				continue;
			e = NLMSG_DATA(h);
			if (b->pending)
				b->pending--;
			if (e->error)
				record(b, e->error,
				       b->steps[h->nlmsg_seq % NLB_WINDOW],
				       strerror(-e->error), ext_ack_msg(h));
		}
	}
	return b->err;
}

int nlb_send(struct nlb *b, int msg_err, struct nl_msg *msg,
	     const char *fmt, ...)
{
	char step[NLB_STEP_MAX];
	uint32_t seq;
	va_list ap;
	int r;

	if (b->err) {
		nlmsg_free(msg);
		return b->err;
	}
	va_start(ap, fmt);
	vsnprintf(step, sizeof(step), fmt, ap);
	va_end(ap);
	if (msg_err < 0 || !msg) {
		record(b, -EINVAL, step, msg_err < 0 ? nl_geterror(msg_err)
						     : "cannot build the request",
		       NULL);
		if (msg)
			nlmsg_free(msg);
		return b->err;
	}
	nl_complete_msg(b->sk, msg); /* sequence number, NLM_F_ACK */
	seq = nlmsg_hdr(msg)->nlmsg_seq;
	if (!b->pending)
		b->seq_first = seq;
	memcpy(b->steps[seq % NLB_WINDOW], step, sizeof(step));
	r = nl_send(b->sk, msg);
	nlmsg_free(msg);
	if (r < 0) {
		record(b, -EIO, step, nl_geterror(r), NULL);
		return b->err;
	}
	b->pending++;
	if (b->pending >= NLB_WINDOW)
		return drain(b);
	return 0;
}

int nlb_flush(struct nlb *b, char *errbuf)
{
	int r = drain(b);

	if (r)
		errbuf_set(errbuf, "%s", b->errmsg);
	return r;
}
