/* Run-directory I/O of the controller: it owns making a run's directory
 * (inputs/, app/, the copied topology, the workload as run) and writing
 * events.log (ctl_event). It may call the core (workload, units, log) and
 * the controller's accessors (ctl_now); nothing else of the controller.
 * The run's report files (flows.csv, jobs.csv, summary.json) are report.c's. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/rundir.h"
#include "ctl/ctl_int.h"

/* Times in logs and files: from the loop's start in the simulator, the
 * wall clock (epoch ns, as pcap) in the emulator. */
void ctl_event(struct ctl *c, const char *fmt, ...)
{
	char line[512], *p;
	va_list ap;
	int n;

	if (!c->events)
		return;
	/* the line by put_fmt where it can (fprintf's were 2% of a run's
	 * instructions: 2,000 a line), else by vfprintf */
	p = put_i64(line, ctl_now(c));
	*p++ = ' ';
	va_start(ap, fmt);
	n = put_fmt(p, sizeof(line) - 1 - (size_t)(p - line), fmt, ap);
	va_end(ap);
	if (n >= 0) {
		p += n;
		*p++ = '\n';
		fwrite(line, 1, (size_t)(p - line), c->events);
		return;
	}
	fwrite(line, 1, (size_t)(p - line), c->events);
	va_start(ap, fmt);
	vfprintf(c->events, fmt, ap);
	va_end(ap);
	fputc('\n', c->events);
}

/* The events of every flow, written by hand (two lines per flow: half
 * the simulator's output): "flow_start ID JOB TASK PATH BYTES[ KIND]"
 * (KIND: with_kind) and "flow_done ID", as ctl_event would write them. */
void ctl_event_flow_start(struct ctl *c, const struct flow *f, bool with_kind)
{
	const char *id = c->wl->jobs[f->job].id;
	char line[256], *p;

	if (!c->events || c->no_flow_log)
		return;
	if (strlen(id) > 128) { /* no workload file's (WL_ID_MAX) */
		ctl_event(c, "flow_start %" PRIu32 " %s %u %s %" PRIu64 "%s%s", f->id, id, f->reduce,
			  flow_path_name(f->path), f->bytes, with_kind ? " " : "",
			  with_kind ? flow_kind_name(f->kind) : "");
		return;
	}
	p = put_i64(line, ctl_now(c));
	p = put_str(p, " flow_start ");
	p = put_u64(p, f->id);
	*p++ = ' ';
	p = put_str(p, id);
	*p++ = ' ';
	p = put_u64(p, f->reduce);
	*p++ = ' ';
	p = put_str(p, flow_path_name(f->path));
	*p++ = ' ';
	p = put_u64(p, f->bytes);
	if (with_kind) {
		*p++ = ' ';
		p = put_str(p, flow_kind_name(f->kind));
	}
	*p++ = '\n';
	fwrite(line, 1, (size_t)(p - line), c->events);
}

void ctl_event_flow_done(struct ctl *c, const struct flow *f)
{
	char line[64], *p;

	if (!c->events || c->no_flow_log)
		return;
	p = put_i64(line, ctl_now(c));
	p = put_str(p, " flow_done ");
	p = put_u64(p, f->id);
	*p++ = '\n';
	fwrite(line, 1, (size_t)(p - line), c->events);
}

static int mkdir_p(const char *path)
{
	char buf[4096], *p;

	if (strlen(path) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "r"), *out;
	char buf[65536];
	size_t n;
	int r = 0;

	if (!in)
		return -errno;
	out = fopen(to, "w");
	if (!out) {
		r = -errno;
		fclose(in);
		return r;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n) {
			r = -EIO;
			break;
		}
	if (ferror(in))
		r = -EIO;
	fclose(in);
	if (fclose(out) && !r)
		r = -errno;
	return r;
}

int rundir_setup(struct ctl *c, char *errbuf)
{
	char path[4096];
	FILE *fp;
	int r;

	if (!c->opts.outdir)
		return 0;
	c->outdir = xstrdup(c->opts.outdir);
	snprintf(path, sizeof(path), "%s/inputs", c->outdir);
	if ((r = mkdir_p(path)))
		goto err;
	snprintf(path, sizeof(path), "%s/app", c->outdir);
	if ((r = mkdir_p(path)))
		goto err;
	snprintf(path, sizeof(path), "%s/%s", c->outdir, RUNDIR_INPUT_TOPO);
	if ((r = copy_file(c->opts.topo_path, path)))
		goto err;
	snprintf(path, sizeof(path), "%s/%s", c->outdir, RUNDIR_INPUT_WL);
	fp = fopen(path, "w");
	if (!fp || wl_write(c->wl, fp) || fclose(fp)) {
		r = -errno ? -errno : -EIO;
		goto err;
	}
	snprintf(path, sizeof(path), "%s/%s", c->outdir, RUNDIR_EVENTS);
	c->events = fopen(path, "w");
	if (!c->events) {
		r = -errno;
		goto err;
	}
	/* in real time, each line as it happens: a run killed outright
	 * keeps its log up to the kill (hyde analyze reads it then) */
	if (c->opts.backend->clock == EVLOOP_REAL)
		setvbuf(c->events, NULL, _IOLBF, 0);
	return 0;
err:
	errbuf_set(errbuf, "%s: %s", path, strerror(-r));
	return r;
}

/* A run refused after its directory was set up (the backend's own checks
 * of its options against the controller's): what rundir_setup made goes,
 * and the directory too when nothing else is in it (rmdir leaves one that
 * holds anything more). */
void rundir_discard(struct ctl *c)
{
	static const char *const files[] = { RUNDIR_EVENTS, RUNDIR_INPUT_TOPO, RUNDIR_INPUT_WL };
	static const char *const dirs[] = { "inputs", "app" };
	char path[4096];
	size_t i;

	if (!c->outdir)
		return;
	if (c->events) {
		fclose(c->events);
		c->events = NULL;
	}
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", c->outdir, files[i]);
		unlink(path);
	}
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", c->outdir, dirs[i]);
		rmdir(path);
	}
	rmdir(c->outdir);
}

bool rundir_flow_bytes(const char *dir, uint64_t *ocs, uint64_t *eps)
{
	char *path = xasprintf("%s/%s", dir, RUNDIR_SUMMARY), *line = NULL, *k;
	size_t lcap = 0;
	FILE *fp = fopen(path, "r");
	uint64_t in = 0, out = 0, shuffle_eps = 0;
	unsigned got = 0;

	free(path);
	if (!fp)
		return false;
	while (read_line(fp, &line, &lcap) >= 0) {
		if (sscanf(line, " \"ocs_bytes\": %" SCNu64, ocs) == 1)
			got |= 1;
		else if (sscanf(line, " \"eps_bytes\": %" SCNu64, &shuffle_eps) == 1)
			got |= 2;
		else if ((k = strstr(line, "\"by_kind\": {"))) {
			char *i = strstr(k, "\"input\": {"), *o = strstr(k, "\"output\": {");

			i = i ? strstr(i, "\"cross_rack\": ") : NULL;
			o = o ? strstr(o, "\"cross_rack\": ") : NULL;
			if (i && o && sscanf(i, "\"cross_rack\": %" SCNu64, &in) == 1 &&
			    sscanf(o, "\"cross_rack\": %" SCNu64, &out) == 1)
				got |= 4;
		}
	}
	free(line);
	fclose(fp);
	*eps = shuffle_eps + in + out;
	return got == 7;
}

/* The emulated run's measured set-up (hyde analyze's first byte of the
 * flows under 100 KB, in DIR/summary.json): its median in *ns and count
 * in *n; false if the run has none (a simulated run, an older analysis). */
bool rundir_first_byte(const char *dir, int64_t *ns, size_t *n)
{
	char *path = xasprintf("%s/%s", dir, RUNDIR_SUMMARY), *line = NULL, *k;
	size_t lcap = 0;
	FILE *fp = fopen(path, "r");
	bool in = false, ok = false;

	free(path);
	if (!fp)
		return false;
	while (!ok && read_line(fp, &line, &lcap) >= 0) {
		if (strstr(line, "\"first_byte\": {"))
			in = true;
		else if (in && (k = strstr(line, "\"under_100kb\": { \"n\": ")))
			ok = sscanf(k, "\"under_100kb\": { \"n\": %zu, \"median_ns\": %" SCNd64, n,
				    ns) == 2 && *n;
	}
	free(line);
	fclose(fp);
	return ok;
}
