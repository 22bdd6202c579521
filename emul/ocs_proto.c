/* The crossbar's pure half: matchings, the diff between two of them, ToR
 * MACs and the control protocol's parser. No I/O: the unit tests run it
 * without root. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "emul/ocs.h"

void ocs_matching_init(struct ocs_matching *m, unsigned ports)
{
	unsigned i;

	m->ports = ports;
	for (i = 0; i < OCS_MAX_PORTS; i++)
		m->out[i] = -1;
}

unsigned ocs_matching_count(const struct ocs_matching *m)
{
	unsigned i, n = 0;

	for (i = 0; i < m->ports; i++)
		n += m->out[i] >= 0;
	return n;
}

/* A port number: decimal digits only, so "1e3", "+1", " 1" and "0x1" are
 * refused rather than read as something the user did not mean. */
static int parse_port(const char *s, size_t len, unsigned *out)
{
	unsigned v = 0;
	size_t i;

	if (len == 0 || len > 5)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Record circuit a -> b; who[] remembers which word set each end so that a
 * clash names both circuits. */
static int add_circuit(struct ocs_matching *m, int *in, const char **who_out,
		       const char **who_in, unsigned a, unsigned b,
		       const char *word, char *errbuf)
{
	if (m->out[a] == (int)b) {
		errbuf_set(errbuf, "circuit %u>%u given twice ('%s' and '%s')", a, b,
			   who_out[a], word);
		return -EINVAL;
	}
	if (m->out[a] >= 0) {
		errbuf_set(errbuf,
			   "'%s' and '%s' both leave port %u: not a matching (a port has at most one circuit out)",
			   who_out[a], word, a);
		return -EINVAL;
	}
	if (in[b] >= 0) {
		errbuf_set(errbuf,
			   "'%s' and '%s' both enter port %u: not a matching (a port has at most one circuit in)",
			   who_in[b], word, b);
		return -EINVAL;
	}
	m->out[a] = (int)b;
	in[b] = (int)a;
	who_out[a] = word;
	who_in[b] = word;
	return 0;
}

int ocs_matching_parse(struct ocs_matching *m, unsigned ports,
		       char *const *words, int n, char *errbuf)
{
	static const char expect[] = "expected circuits I-J (both ways) or I>J (I to J), or 'none'";
	const char *who_out[OCS_MAX_PORTS], *who_in[OCS_MAX_PORTS];
	int in[OCS_MAX_PORTS];
	int k, r;

	ocs_matching_init(m, ports);
	if (n == 0) {
		errbuf_set(errbuf, "%s", expect);
		return -EINVAL;
	}
	if (n == 1 && !strcmp(words[0], "none"))
		return 0;
	for (k = 0; k < OCS_MAX_PORTS; k++)
		in[k] = -1;
	for (k = 0; k < n; k++) {
		const char *w = words[k], *sep = w + strcspn(w, "->");
		unsigned a, b;

		if (!*sep || parse_port(w, (size_t)(sep - w), &a) ||
		    parse_port(sep + 1, strlen(sep + 1), &b)) {
			errbuf_set(errbuf, "'%s': %s", w, expect);
			goto err;
		}
		if (a >= ports || b >= ports) {
			errbuf_set(errbuf, "'%s': port %u does not exist (ports 0..%u)", w,
				   a >= ports ? a : b, ports - 1);
			goto err;
		}
		if (a == b) {
			errbuf_set(errbuf, "'%s': a port cannot have a circuit to itself", w);
			goto err;
		}
		r = add_circuit(m, in, who_out, who_in, a, b, w, errbuf);
		if (!r && *sep == '-')
			r = add_circuit(m, in, who_out, who_in, b, a, w, errbuf);
		if (r)
			goto err;
	}
	return 0;
err:
	ocs_matching_init(m, ports);
	return -EINVAL;
}

char *ocs_matching_format(const struct ocs_matching *m, char *buf, size_t len)
{
	size_t off = 0;
	unsigned i;

	buf[0] = '\0';
	for (i = 0; i < m->ports && off < len; i++) {
		int j = m->out[i];
		int both;

		if (j < 0)
			continue;
		both = m->out[j] == (int)i;
		if (both && (unsigned)j < i)
			continue; /* written with its reverse already */
		off += (size_t)snprintf(buf + off, len - off, "%s%u%c%d", off ? " " : "", i,
					both ? '-' : '>', j);
	}
	if (!buf[0])
		snprintf(buf, len, "none");
	return buf;
}

void ocs_matching_diff(const struct ocs_matching *from,
		       const struct ocs_matching *to, struct ocs_diff *d)
{
	unsigned i;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < OCS_MAX_PORTS; i++)
		d->down[i] = d->up[i] = -1;
	for (i = 0; i < from->ports; i++) {
		int a = from->out[i], b = to->out[i];

		if (a == b)
			continue;
		if (a >= 0) {
			d->down[i] = a;
			d->n_down++;
			d->stall[i] = d->stall[a] = true;
		}
		if (b >= 0) {
			d->up[i] = b;
			d->n_up++;
			d->stall[i] = d->stall[b] = true;
		}
	}
	for (i = 0; i < from->ports; i++)
		d->n_stall += d->stall[i];
}

static const uint8_t ocs_mac_prefix[4] = { 0x02, 0x68, 0x79, 0x6f };

int ocs_mac_port(const uint8_t mac[6])
{
	if (memcmp(mac, ocs_mac_prefix, sizeof(ocs_mac_prefix)))
		return -1;
	return mac[4] * 256 + mac[5];
}

void ocs_port_mac(unsigned port, uint8_t mac[6])
{
	memcpy(mac, ocs_mac_prefix, sizeof(ocs_mac_prefix));
	mac[4] = (uint8_t)(port >> 8);
	mac[5] = (uint8_t)port;
}

/* ---- the control protocol ---- */

const char *const ocs_cmd_help[] = {
	"set I-J|I>J... | set none   replace the configuration (I-J: both ways)",
	"show                        the circuits, up or pending, with times",
	"stats                       per-port and per-VOQ counters",
	"watch                       receive 'down I J T' / 'up I J T' lines",
	"unwatch                     stop receiving them",
	"events [N]                  the last N circuit events (all by default)",
	"delta [TIME]                show or change delta (next sets)",
	"time                        the daemon's clocks (monotonic, realtime)",
	"help                        this list",
	"quit                        close this connection",
	NULL,
};

static const struct {
	const char *name;
	enum ocs_cmd_kind kind;
	int min_args, max_args;
} ocs_cmds[] = {
	{ "set", OCS_CMD_SET, 1, OCS_MAX_PORTS },
	{ "show", OCS_CMD_SHOW, 0, 0 },
	{ "stats", OCS_CMD_STATS, 0, 0 },
	{ "watch", OCS_CMD_WATCH, 0, 0 },
	{ "unwatch", OCS_CMD_UNWATCH, 0, 0 },
	{ "events", OCS_CMD_EVENTS, 0, 1 },
	{ "delta", OCS_CMD_DELTA, 0, 1 },
	{ "time", OCS_CMD_TIME, 0, 0 },
	{ "help", OCS_CMD_HELP, 0, 0 },
	{ "quit", OCS_CMD_QUIT, 0, 0 },
};

int ocs_cmd_parse(char *line, unsigned ports, struct ocs_cmd *cmd, char *errbuf)
{
	char *w[OCS_MAX_PORTS + 2];
	const unsigned char *p;
	size_t i;
	int n;

	memset(cmd, 0, sizeof(*cmd));
	/* Text only: a binary blob is refused as a whole, not parsed into
	 * whatever words it happens to contain. */
	for (p = (const unsigned char *)line; *p; p++)
		if ((*p < 0x20 && *p != '\t' && *p != '\r') || *p >= 0x7f) {
			errbuf_set(errbuf, "not a command: byte 0x%02x at column %zu (text only; 'help' lists commands)",
				   *p, (size_t)(p - (const unsigned char *)line) + 1);
			return -EINVAL;
		}
	for (p = (const unsigned char *)line; *p; p++)
		if (*p == '#') {
			errbuf_set(errbuf, "no comments on the control socket");
			return -EINVAL;
		}
	n = str_split_fields(line, w, (int)ARRAY_SIZE(w) - 1);
	if (n == 0)
		return -ENODATA;
	for (i = 0; i < ARRAY_SIZE(ocs_cmds); i++)
		if (!strcmp(w[0], ocs_cmds[i].name))
			break;
	if (i == ARRAY_SIZE(ocs_cmds)) {
		char shown[40];

		snprintf(shown, sizeof(shown), "%s", w[0]);
		errbuf_set(errbuf, "unknown command '%s%s' ('help' lists commands)", shown,
			   strlen(w[0]) >= sizeof(shown) ? "..." : "");
		return -EINVAL;
	}
	cmd->kind = ocs_cmds[i].kind;
	if (n - 1 < ocs_cmds[i].min_args || n - 1 > ocs_cmds[i].max_args) {
		if (ocs_cmds[i].max_args == 0)
			errbuf_set(errbuf, "%s takes no argument", w[0]);
		else if (cmd->kind == OCS_CMD_SET)
			errbuf_set(errbuf, "set: expected circuits I-J or I>J, or 'none'");
		else
			errbuf_set(errbuf, "%s takes at most one argument", w[0]);
		return -EINVAL;
	}
	cmd->has_arg = n > 1;
	switch (cmd->kind) {
	case OCS_CMD_SET:
		if (ocs_matching_parse(&cmd->m, ports, w + 1, n - 1, errbuf))
			return -EINVAL;
		break;
	case OCS_CMD_DELTA:
		if (n > 1 && (unit_parse_time(w[1], &cmd->delta) || cmd->delta < 0 ||
			      cmd->delta > OCS_DELTA_MAX)) {
			errbuf_set(errbuf, "delta: expected a time from 0 to 10s such as 100us or 10ms, got '%s'",
				   w[1]);
			return -EINVAL;
		}
		break;
	case OCS_CMD_EVENTS:
		if (n > 1 && parse_uint(w[1], 1, UINT64_MAX, &cmd->count)) {
			errbuf_set(errbuf, "events: expected a count of 1 or more, got '%s'", w[1]);
			return -EINVAL;
		}
		break;
	default:
		break;
	}
	return 0;
}

size_t ocs_linebuf_room(const struct ocs_linebuf *lb)
{
	return sizeof(lb->buf) - lb->len;
}

bool ocs_linebuf_feed(struct ocs_linebuf *lb, size_t n,
		      int (*line)(void *arg, char *text, size_t len), void *arg)
{
	size_t start = 0, k;

	lb->len += n;
	for (k = lb->len - n; k < lb->len; k++) {
		if (lb->buf[k] != '\n')
			continue;
		if (lb->discard) {
			lb->discard = false;
		} else {
			size_t len = k - start;

			if (len && lb->buf[start + len - 1] == '\r')
				len--;
			lb->buf[start + len] = '\0';
			if (line(arg, lb->buf + start, len)) {
				lb->len = 0;
				return false;
			}
		}
		start = k + 1;
	}
	memmove(lb->buf, lb->buf + start, lb->len - start);
	lb->len -= start;
	if (lb->len == sizeof(lb->buf)) {
		bool first = !lb->discard;

		lb->discard = true;
		lb->len = 0;
		return first;
	}
	return false;
}

bool ocs_linebuf_pending(const struct ocs_linebuf *lb)
{
	return lb->len || lb->discard;
}
