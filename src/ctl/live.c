/* The live view (live.h): its line, its state file, and the controller's
 * side of it (what the run is doing now, printed by its progress timer). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/units.h"
#include "core/util.h"
#include "ctl/ctl_int.h"
#include "ctl/live.h"

/* "1h02m", "3m07s", "42s", "0.4s": wall times as people read them. */
static char *hms(int64_t ns, char *buf, size_t len)
{
	int64_t s = ns / NSEC_PER_SEC;

	if (ns < 0)
		snprintf(buf, len, "?");
	else if (s >= 3600)
		snprintf(buf, len, "%" PRId64 "h%02" PRId64 "m", s / 3600, s / 60 % 60);
	else if (s >= 60)
		snprintf(buf, len, "%" PRId64 "m%02" PRId64 "s", s / 60, s % 60);
	else if (s >= 10)
		snprintf(buf, len, "%" PRId64 "s", s);
	else
		snprintf(buf, len, "%.1fs", (double)ns / 1e9);
	return buf;
}

void live_format(const struct live_status *s, char *buf, size_t len)
{
	char w[32], eta[32], rate[32], fl[64] = "", circ[48] = "", busy[112], failed[32] = "";
	size_t off;

	off = (size_t)snprintf(fl, sizeof(fl), "flows EPS %u OCS %u", s->flows_eps, s->flows_ocs);
	if (s->flows_rack)
		off += (size_t)snprintf(fl + off, sizeof(fl) - off, " rack %u", s->flows_rack);
	if (s->flows_host && off < sizeof(fl))
		snprintf(fl + off, sizeof(fl) - off, " host %u", s->flows_host);
	if (s->has_ocs)
		snprintf(circ, sizeof(circ), "  circuits %u/%u up", s->circuits_up, s->circuits_set);
	if (s->busiest[0])
		snprintf(busy, sizeof(busy), "busiest %s %.*f%% of %s", s->busiest,
			 s->busiest_util < 0.01 ? 1 : 0, 100 * s->busiest_util,
			 unit_fmt_rate(s->busiest_bps, rate, sizeof(rate)));
	else
		snprintf(busy, sizeof(busy), "links idle");
	if (s->failed)
		snprintf(failed, sizeof(failed), " (%" PRIu64 " failed)", s->failed);
	snprintf(buf, len, "%s %s t=%.1fs  jobs %" PRIu64 "/%" PRIu64 "%s ETA %s  %s%s  %s",
		 s->backend, hms(s->wall_ns, w, sizeof(w)), (double)s->run_ns / 1e9, s->done,
		 s->jobs, failed, s->final ? "0s" : hms(s->eta_ns, eta, sizeof(eta)), fl, circ, busy);
}

void live_serialize(const struct live_status *s, char *buf, size_t len)
{
	snprintf(buf, len,
		 "backend=%s wall_ns=%" PRId64 " run_ns=%" PRId64 " jobs=%" PRIu64 " done=%" PRIu64
		 " failed=%" PRIu64 " eta_ns=%" PRId64 " flows_eps=%u flows_ocs=%u flows_rack=%u"
		 " flows_host=%u circuits_up=%u circuits_set=%u has_ocs=%d busiest=%s"
		 " busiest_util=%.4f busiest_bps=%" PRIu64 " bytes_done=%" PRIu64 " final=%d\n",
		 s->backend, s->wall_ns, s->run_ns, s->jobs, s->done, s->failed, s->eta_ns,
		 s->flows_eps, s->flows_ocs, s->flows_rack, s->flows_host, s->circuits_up,
		 s->circuits_set, s->has_ocs, s->busiest[0] ? s->busiest : "-", s->busiest_util,
		 s->busiest_bps, s->bytes_done, s->final);
}

int live_parse(const char *line, struct live_status *s)
{
	char *copy = xstrdup(line), *save = NULL, *tok;
	unsigned seen = 0;

	memset(s, 0, sizeof(*s));
	s->eta_ns = -1;
	for (tok = strtok_r(copy, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		char *v = strchr(tok, '=');

		if (!v)
			goto bad;
		*v++ = '\0';
#define NUM(key, field, conv) \
		else if (!strcmp(tok, key)) s->field = conv(v, NULL, 10)
		if (!strcmp(tok, "backend"))
			snprintf(s->backend, sizeof(s->backend), "%s", v), seen |= 1;
		NUM("wall_ns", wall_ns, strtoll);
		NUM("run_ns", run_ns, strtoll);
		else if (!strcmp(tok, "jobs"))
			s->jobs = strtoull(v, NULL, 10), seen |= 2;
		NUM("done", done, strtoull);
		NUM("failed", failed, strtoull);
		NUM("eta_ns", eta_ns, strtoll);
		NUM("flows_eps", flows_eps, (unsigned)strtoul);
		NUM("flows_ocs", flows_ocs, (unsigned)strtoul);
		NUM("flows_rack", flows_rack, (unsigned)strtoul);
		NUM("flows_host", flows_host, (unsigned)strtoul);
		NUM("circuits_up", circuits_up, (unsigned)strtoul);
		NUM("circuits_set", circuits_set, (unsigned)strtoul);
		NUM("has_ocs", has_ocs, 0 != strtol);
		else if (!strcmp(tok, "busiest"))
			snprintf(s->busiest, sizeof(s->busiest), "%s", strcmp(v, "-") ? v : "");
		else if (!strcmp(tok, "busiest_util"))
			s->busiest_util = strtod(v, NULL);
		NUM("busiest_bps", busiest_bps, strtoull);
		NUM("bytes_done", bytes_done, strtoull);
		NUM("final", final, 0 != strtol);
#undef NUM
	}
	free(copy);
	return seen == 3 ? 0 : -EINVAL;
bad:
	free(copy);
	return -EINVAL;
}

int64_t live_eta(int64_t wall_ns, int64_t run_ns, int64_t last_arrival_ns,
		 bool realtime, uint64_t jobs, uint64_t done)
{
	int64_t eta = -1;

	if (done && done < jobs)
		eta = (int64_t)((double)wall_ns * (double)(jobs - done) / (double)done);
	if (done >= jobs)
		return 0;
	/* in emulation no run can end before its last job arrives */
	if (realtime && last_arrival_ns > run_ns && last_arrival_ns - run_ns > eta)
		eta = last_arrival_ns - run_ns;
	return eta;
}

/* ---- the controller's side ---- */

static const char *const link_fmt[HYDE_LINK_KINDS] = {
	"r%uh%u->tor%u", "tor%u->r%uh%u", "tor%u->core", "core->tor%u", "tor%u->ocs", "ocs->tor%u",
};

static void link_name(const struct topo *t, enum hyde_link_kind k, unsigned idx,
		      char *buf, size_t len)
{
	unsigned r = k <= HYDE_LINK_HOST_DOWN ? topo_host_rack(t, idx) : idx;
	unsigned h = idx % t->hosts;

	if (k == HYDE_LINK_HOST_UP)
		snprintf(buf, len, link_fmt[k], r, h, r);
	else if (k == HYDE_LINK_HOST_DOWN)
		snprintf(buf, len, link_fmt[k], r, r, h);
	else
		snprintf(buf, len, link_fmt[k], r);
}

void ctl_live(struct ctl *c, bool final, struct live_status *s)
{
	const struct topo *t = c->t;
	int64_t last_arrival = 0;
	unsigned k, i;
	size_t j;

	memset(s, 0, sizeof(*s));
	snprintf(s->backend, sizeof(s->backend), "%s", c->be.ops->name);
	s->wall_ns = now_ns() - c->wall_start;
	s->run_ns = ctl_now(c) - c->t0;
	s->jobs = c->wl->n_jobs;
	s->done = c->jobs_done;
	s->failed = c->jobs_failed;
	s->final = final;
	s->bytes_done = c->bytes_done;
	for (j = 0; j < c->wl->n_jobs; j++)
		if (c->wl->jobs[j].arrival > last_arrival)
			last_arrival = c->wl->jobs[j].arrival;
	s->eta_ns = final ? 0 : live_eta(s->wall_ns, s->run_ns, last_arrival,
					 c->loop.clock != EVLOOP_VIRTUAL, s->jobs,
					 s->done + s->failed);
	s->flows_eps = c->active_paths[PATH_EPS];
	s->flows_ocs = c->active_paths[PATH_OCS];
	s->flows_rack = c->active_paths[PATH_RACK];
	s->flows_host = c->active_paths[PATH_HOST];
	s->has_ocs = t->has_ocs;
	if (c->cx.out_of)
		for (i = 0; i < t->racks; i++)
			if (c->cx.out_of[i] >= 0) {
				s->circuits_set++;
				s->circuits_up += c->cx.up[i];
			}
	/* the busiest link of the network view's last interval */
	for (k = 0; k < HYDE_LINK_KINDS; k++) {
		unsigned n = k <= HYDE_LINK_HOST_DOWN ? topo_n_hosts(t) : t->racks;

		if ((k == HYDE_LINK_OCS_UP || k == HYDE_LINK_OCS_DOWN) && !t->has_ocs)
			continue;
		if ((k == HYDE_LINK_TOR_UP || k == HYDE_LINK_TOR_DOWN) && !t->has_eps)
			continue;
		for (i = 0; i < n; i++) {
			struct hyde_link_state ls;

			if (ctl_net_link(c, (enum hyde_link_kind)k, i, &ls) || !ls.bytes ||
			    ls.utilisation <= s->busiest_util)
				continue;
			s->busiest_util = ls.utilisation;
			s->busiest_bps = ls.capacity;
			link_name(t, (enum hyde_link_kind)k, i, s->busiest, sizeof(s->busiest));
		}
	}
}
