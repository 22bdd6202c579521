/* Containers as cgroups: see cgroup.h. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "emul/cgroup.h"

#define CG_ROOT "hyde" /* our directory in each hierarchy */

/* ---- finding the controllers ---- */

static bool has_opt(const char *opts, const char *name)
{
	size_t n = strlen(name);
	const char *p = opts;

	while ((p = strstr(p, name))) {
		if ((p == opts || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return true;
		p += n;
	}
	return false;
}

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t n = strlen(s);
	ssize_t w;

	if (fd < 0)
		return -errno;
	w = write(fd, s, n);
	if (w < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	close(fd);
	return (size_t)w == n ? 0 : -EIO;
}

int cg_detect(struct cg_layout *l, char *errbuf)
{
	FILE *fp = fopen("/proc/self/mountinfo", "r");
	char line[4096];
	bool v1all;

	memset(l, 0, sizeof(*l));
	if (!fp) {
		errbuf_set(errbuf, "/proc/self/mountinfo: %s", strerror(errno));
		return -errno;
	}
	/* id parent dev root mountpoint opts [optional...] - fstype source superopts */
	while (fgets(line, sizeof(line), fp)) {
		char *f[16], *save = NULL, *dash;
		int n = 0;

		line[strcspn(line, "\n")] = '\0';
		dash = strstr(line, " - ");
		if (!dash)
			continue;
		*dash = '\0';
		for (char *t = strtok_r(line, " ", &save); t && n < 6; t = strtok_r(NULL, " ", &save))
			f[n++] = t;
		save = NULL;
		for (char *t = strtok_r(dash + 3, " ", &save); t && n < 9; t = strtok_r(NULL, " ", &save))
			f[n++] = t;
		if (n < 9 || strlen(f[4]) >= CG_PATH_MAX)
			continue;
		if (!strcmp(f[6], "cgroup")) {
			if (has_opt(f[8], "cpu") && !l->cpu[0])
				snprintf(l->cpu, CG_PATH_MAX, "%s", f[4]);
			if (has_opt(f[8], "cpuacct") && !l->cpuacct[0])
				snprintf(l->cpuacct, CG_PATH_MAX, "%s", f[4]);
			if (has_opt(f[8], "memory") && !l->memory[0])
				snprintf(l->memory, CG_PATH_MAX, "%s", f[4]);
		} else if (!strcmp(f[6], "cgroup2") && !l->unified[0]) {
			snprintf(l->unified, CG_PATH_MAX, "%s", f[4]);
		}
	}
	fclose(fp);
	v1all = l->cpu[0] && l->cpuacct[0] && l->memory[0];
	if (!v1all && l->unified[0]) {
		char path[CG_PATH_MAX + 32], ctl[256] = "";

		snprintf(path, sizeof(path), "%s/cgroup.controllers", l->unified);
		char tmp[300];

		read_file(path, ctl, sizeof(ctl));
		ctl[strcspn(ctl, "\n")] = '\0';
		/* "cpuset cpu io memory pids": space-separated */
		snprintf(tmp, sizeof(tmp), " %s ", ctl);
		if (strstr(tmp, " cpu ") && strstr(tmp, " memory ")) {
			l->v2 = true;
			return 0;
		}
	}
	if (v1all)
		return 0;
	errbuf_set(errbuf, "no cgroup controllers for containers: cgroup v1 needs cpu, cpuacct and memory hierarchies (found cpu %s, cpuacct %s, memory %s), cgroup v2 needs cpu and memory in %s",
		   l->cpu[0] ? l->cpu : "none", l->cpuacct[0] ? l->cpuacct : "none",
		   l->memory[0] ? l->memory : "none",
		   l->unified[0] ? l->unified : "no unified mount");
	return -ENOENT;
}

void cg_describe(const struct cg_layout *l, char *buf, size_t len)
{
	if (l->v2)
		snprintf(buf, len, "cgroup v2 at %s (cpu, memory)", l->unified);
	else
		snprintf(buf, len, "cgroup v1: cpu at %s, cpuacct at %s, memory at %s", l->cpu,
			 l->cpuacct, l->memory);
}

/* ---- one container ---- */

static int mkdir_one(const char *path)
{
	return mkdir(path, 0755) && errno != EEXIST ? -errno : 0;
}

/* <base>/hyde/<prefix>/<name>, the levels above made as needed; in v2
 * each level above enables cpu and memory for its children */
static int make_dir(const char *base, bool v2, const char *prefix, const char *name, char *out)
{
	char a[CG_PATH_MAX], b[CG_PATH_MAX];
	int r;

	if ((size_t)snprintf(a, sizeof(a), "%s/%s", base, CG_ROOT) >= sizeof(a) ||
	    (size_t)snprintf(b, sizeof(b), "%s/%s/%s", base, CG_ROOT, prefix) >= sizeof(b) ||
	    (size_t)snprintf(out, CG_PATH_MAX, "%s/%s/%s/%s", base, CG_ROOT, prefix, name) >=
		    CG_PATH_MAX)
		return -ENAMETOOLONG;
	if (v2) {
		char sc[CG_PATH_MAX + 32];

		snprintf(sc, sizeof(sc), "%s/cgroup.subtree_control", base);
		write_file(sc, "+cpu +memory");
	}
	if ((r = mkdir_one(a)))
		return r;
	if (v2) {
		char sc[CG_PATH_MAX + 32];

		snprintf(sc, sizeof(sc), "%s/cgroup.subtree_control", a);
		if ((r = write_file(sc, "+cpu +memory")))
			return r;
	}
	if ((r = mkdir_one(b)))
		return r;
	if (v2) {
		char sc[CG_PATH_MAX + 32];

		snprintf(sc, sizeof(sc), "%s/cgroup.subtree_control", b);
		if ((r = write_file(sc, "+cpu +memory")))
			return r;
	}
	return mkdir(out, 0755) ? -errno : 0;
}

static int set_value(const char *dir, const char *file, const char *val)
{
	char path[CG_PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return write_file(path, val);
}

int cg_create(const struct cg_layout *l, const char *prefix, const char *name, double cores,
	      uint64_t mem, struct cg **out, char *errbuf)
{
	struct cg *g = xcalloc(1, sizeof(*g));
	/* over 100ms (a task held back waits at most that), with room for
	 * the processes' own work beside their tasks' (CG_CPU_HEADROOM);
	 * at least the kernel's 1ms */
	long long period = 100000, quota = (long long)((cores + CG_CPU_HEADROOM) * 1e5 + 0.5);
	char v[64];
	const char *what = "";
	int r;

	if (quota < 1000)
		quota = 1000;
	g->l = l;
	if (l->v2) {
		what = l->unified;
		if ((r = make_dir(l->unified, true, prefix, name, g->unified)))
			goto err;
		snprintf(v, sizeof(v), "%lld %lld", quota, period);
		what = "cpu.max";
		if ((r = set_value(g->unified, "cpu.max", v)))
			goto err;
		snprintf(v, sizeof(v), "%" PRIu64, mem);
		what = "memory.max";
		if ((r = set_value(g->unified, "memory.max", v)))
			goto err;
	} else {
		what = l->cpu;
		if ((r = make_dir(l->cpu, false, prefix, name, g->cpu)))
			goto err;
		what = l->cpuacct;
		if (strcmp(l->cpuacct, l->cpu)) {
			if ((r = make_dir(l->cpuacct, false, prefix, name, g->cpuacct)))
				goto err;
		} else {
			snprintf(g->cpuacct, CG_PATH_MAX, "%s", g->cpu);
		}
		what = l->memory;
		if (strcmp(l->memory, l->cpu) && strcmp(l->memory, l->cpuacct)) {
			if ((r = make_dir(l->memory, false, prefix, name, g->memory)))
				goto err;
		} else {
			snprintf(g->memory, CG_PATH_MAX, "%s",
				 !strcmp(l->memory, l->cpu) ? g->cpu : g->cpuacct);
		}
		snprintf(v, sizeof(v), "%lld", period);
		what = "cpu.cfs_period_us";
		if ((r = set_value(g->cpu, "cpu.cfs_period_us", v)))
			goto err;
		snprintf(v, sizeof(v), "%lld", quota);
		what = "cpu.cfs_quota_us";
		if ((r = set_value(g->cpu, "cpu.cfs_quota_us", v)))
			goto err;
		snprintf(v, sizeof(v), "%" PRIu64, mem);
		what = "memory.limit_in_bytes";
		if ((r = set_value(g->memory, "memory.limit_in_bytes", v)))
			goto err;
	}
	*out = g;
	return 0;
err:
	errbuf_set(errbuf, "cgroup %s/%s/%s (%s): %s", CG_ROOT, prefix, name, what, strerror(-r));
	cg_destroy(g);
	return r;
}

int cg_attach(const struct cg *g, pid_t pid)
{
	char v[32];
	int r;

	snprintf(v, sizeof(v), "%d", (int)pid);
	if (g->l->v2)
		return set_value(g->unified, "cgroup.procs", v);
	if ((r = set_value(g->cpu, "cgroup.procs", v)))
		return r;
	if (strcmp(g->cpuacct, g->cpu) && (r = set_value(g->cpuacct, "cgroup.procs", v)))
		return r;
	if (strcmp(g->memory, g->cpu) && strcmp(g->memory, g->cpuacct))
		r = set_value(g->memory, "cgroup.procs", v);
	return r;
}

/* the value of `key` in a "key value" file */
static int stat_value(const char *dir, const char *file, const char *key, uint64_t *out)
{
	char path[CG_PATH_MAX + 64], buf[8192], *p;
	size_t n = strlen(key);
	int r;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if ((r = read_file(path, buf, sizeof(buf))))
		return r;
	for (p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, n) && p[n] == ' ') {
			*out = strtoull(p + n + 1, NULL, 10);
			return 0;
		}
	return -ENOENT;
}

int cg_usage(const struct cg *g, uint64_t *cpu_ns, uint64_t *mem)
{
	char path[CG_PATH_MAX + 32], buf[64];
	uint64_t us;
	int r;

	if (g->l->v2) {
		if ((r = stat_value(g->unified, "cpu.stat", "usage_usec", &us)))
			return r;
		*cpu_ns = us * 1000;
		return stat_value(g->unified, "memory.stat", "anon", mem);
	}
	snprintf(path, sizeof(path), "%s/cpuacct.usage", g->cpuacct);
	if ((r = read_file(path, buf, sizeof(buf))))
		return r;
	*cpu_ns = strtoull(buf, NULL, 10);
	return stat_value(g->memory, "memory.stat", "rss", mem);
}

double cg_emulated_cpu(uint64_t counted_ns, double declared_ns, double cpu_scale)
{
	double rest = (double)counted_ns - declared_ns * cpu_scale;

	return declared_ns + (rest > 0 ? rest : 0);
}

int cg_count_procs(const struct cg *g)
{
	char path[CG_PATH_MAX + 32], buf[4096];
	int n = 0;
	char *p;

	snprintf(path, sizeof(path), "%s/cgroup.procs", g->l->v2 ? g->unified : g->cpu);
	if (read_file(path, buf, sizeof(buf)))
		return 0;
	for (p = buf; *p; p++)
		n += *p == '\n';
	return n;
}

int cg_destroy(struct cg *g)
{
	const char *dirs[3];
	int i, r = 0;

	if (!g)
		return 0;
	dirs[0] = g->l->v2 ? g->unified : g->cpu;
	dirs[1] = g->l->v2 ? "" : g->cpuacct;
	dirs[2] = g->l->v2 ? "" : g->memory;
	for (i = 0; i < 3; i++) {
		if (!dirs[i][0] || (i && (!strcmp(dirs[i], dirs[0]) || (i == 2 && !strcmp(dirs[2], dirs[1])))))
			continue;
		if (rmdir(dirs[i]) && errno != ENOENT)
			r = -errno;
	}
	if (r)
		return r;
	free(g);
	return 0;
}

/* ---- after a crash ---- */

static int clean_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char sub[CG_PATH_MAX * 2];

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		n += clean_dir(sub);
		if (!rmdir(sub))
			n++;
	}
	closedir(d);
	return n;
}

int cg_clean(const char *prefix)
{
	struct cg_layout l;
	char eb[512];
	const char *bases[4];
	int i, n = 0;

	if (cg_detect(&l, eb))
		return 0;
	bases[0] = l.v2 ? l.unified : l.cpu;
	bases[1] = l.v2 ? "" : l.cpuacct;
	bases[2] = l.v2 ? "" : l.memory;
	bases[3] = NULL;
	for (i = 0; bases[i]; i++) {
		char dir[CG_PATH_MAX * 2];

		if (!bases[i][0] || (i && !strcmp(bases[i], bases[0])) ||
		    (i == 2 && !strcmp(bases[2], bases[1])))
			continue;
		if (prefix) {
			snprintf(dir, sizeof(dir), "%s/%s/%s", bases[i], CG_ROOT, prefix);
			n += clean_dir(dir);
			if (!rmdir(dir))
				n++;
		} else {
			snprintf(dir, sizeof(dir), "%s/%s", bases[i], CG_ROOT);
			n += clean_dir(dir);
		}
		/* ours, once no prefix uses it (another run's stays) */
		snprintf(dir, sizeof(dir), "%s/%s", bases[i], CG_ROOT);
		rmdir(dir);
	}
	return n;
}
