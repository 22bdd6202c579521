/* Fuzz target: the OCS crossbar's control protocol as the daemon runs it
 * for one client: the input is the byte stream the client sends, cut
 * into reads of varying sizes (from the input itself) and framed by
 * ocs_linebuf; each line is parsed (ocs_cmd_parse) on a crossbar of 2 to
 * 256 ports, and each `set` is diffed against the configuration before
 * (ocs_matching_diff) and formatted back, as cmd_set and `show` do. The
 * properties: a matching accepted has at most one circuit out of and
 * into each port, its formatted form parses back to it, and the diff
 * stalls exactly the ports whose circuit changes. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "emul/ocs.h"
#include "fuzz.h"

struct session {
	unsigned ports;
	struct ocs_matching cur;
	unsigned lines;
};

static void check_matching(const struct ocs_matching *m)
{
	bool in[OCS_MAX_PORTS] = { false };
	char text[8192], *w[OCS_MAX_PORTS + 1], errbuf[HYDE_ERRBUF_SIZE];
	struct ocs_matching back;
	unsigned i;
	int n;

	for (i = 0; i < m->ports; i++) {
		if (m->out[i] < 0)
			continue;
		if ((unsigned)m->out[i] >= m->ports || (unsigned)m->out[i] == i || in[m->out[i]])
			fuzz_fail("not a matching: %u -> %d", i, m->out[i]);
		in[m->out[i]] = true;
	}
	ocs_matching_format(m, text, sizeof(text));
	n = str_split_fields(text, w, OCS_MAX_PORTS);
	if (ocs_matching_parse(&back, m->ports, w, n, errbuf))
		fuzz_fail("a formatted matching does not parse back: %s", errbuf);
	if (memcmp(back.out, m->out, m->ports * sizeof(m->out[0])))
		fuzz_fail("a formatted matching parses back to another");
}

static void check_diff(const struct ocs_matching *a, const struct ocs_matching *b)
{
	struct ocs_diff d;
	unsigned p;

	ocs_matching_diff(a, b, &d);
	for (p = 0; p < a->ports; p++) {
		bool changed = a->out[p] != b->out[p];
		unsigned q;

		/* its circuit out, or the one into it (from whichever port) */
		for (q = 0; q < a->ports && !changed; q++)
			changed = (a->out[q] == (int)p) != (b->out[q] == (int)p);
		if (d.stall[p] != changed)
			fuzz_fail("port %u: stall %d, its circuit %s", p, d.stall[p],
				  changed ? "changes" : "stays");
	}
}

static int line(void *arg, char *text, size_t len)
{
	struct session *s = arg;
	char errbuf[HYDE_ERRBUF_SIZE];
	struct ocs_cmd cmd;
	int r;

	s->lines++;
	if (memchr(text, '\0', len))
		return 0; /* the daemon refuses it before parsing */
	r = ocs_cmd_parse(text, s->ports, &cmd, errbuf);
	if (r && r != -EINVAL && r != -ENODATA)
		fuzz_fail("ocs_cmd_parse returned %d", r);
	if (r)
		return 0;
	switch (cmd.kind) {
	case OCS_CMD_SET:
		check_matching(&cmd.m);
		check_diff(&s->cur, &cmd.m);
		s->cur = cmd.m;
		break;
	case OCS_CMD_DELTA:
		if (cmd.has_arg && (cmd.delta < 0 || cmd.delta > OCS_DELTA_MAX))
			fuzz_fail("delta %lld accepted", (long long)cmd.delta);
		break;
	case OCS_CMD_QUIT:
		return 1; /* the rest is dropped */
	default:
		break;
	}
	return 0;
}

FUZZ_TARGET(ocs)
{
	static struct ocs_linebuf lb;
	struct session s;
	size_t off = 0;

	if (size < 2)
		return 0;
	s.ports = 2 + data[0] % (OCS_MAX_PORTS - 1);
	s.lines = 0;
	ocs_matching_init(&s.cur, s.ports);
	memset(&lb, 0, sizeof(lb));
	off = 1;
	while (off < size) {
		/* a read of 1 to 256 bytes, as the socket hands them over */
		size_t n = 1 + data[off - 1] % 256, room = ocs_linebuf_room(&lb);

		if (n > size - off)
			n = size - off;
		if (n > room)
			n = room;
		memcpy(lb.buf + lb.len, data + off, n);
		off += n;
		ocs_linebuf_feed(&lb, n, line, &s);
		if (lb.len > OCS_LINE_MAX)
			fuzz_fail("the line buffer holds %zu bytes", lb.len);
	}
	return 0;
}
