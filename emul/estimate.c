/* What an emulated run will cost: see estimate.h. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "core/topo.h"
#include "core/units.h"
#include "core/util.h"
#include "emul/capture.h"
#include "emul/estimate.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))

void estimate_run(const struct topo *t, uint64_t tasks, bool capture, int snaplen,
		  int64_t window_ns, struct estimate *e)
{
	uint64_t hosts = topo_n_hosts(t), ports, slots = hosts * t->containers;

	memset(e, 0, sizeof(*e));
	if (!window_ns)
		window_ns = CAPTURE_WINDOW_NS;
	if (!snaplen)
		snaplen = CAPTURE_SNAPLEN; /* the run's default */
	/* a namespace per host and per ToR, the core's and the crossbar's */
	e->namespaces = (unsigned)(hosts + t->racks + 1 + (t->has_ocs ? 1 : 0));
	e->mem_kernel = (uint64_t)e->namespaces * EST_NS_KERNEL;
	if (t->has_ocs)
		e->mem_rings += (uint64_t)t->racks * EST_OCS_RING_PER_PORT;
	if (!capture) {
		e->mem_total = e->mem_kernel + e->mem_rings;
		return;
	}
	ports = (uint64_t)t->racks * (t->hosts + 1 + (t->has_ocs ? 1 : 0));
	e->captured_ports = (unsigned)ports;
	e->mem_rings += (uint64_t)t->racks *
		((uint64_t)t->hosts * capture_ring_bytes(t->host_rate, snaplen, window_ns) +
		 capture_ring_bytes(t->uplink_rate ? t->uplink_rate : t->hosts * t->host_rate,
				    snaplen, window_ns) +
		 (t->has_ocs ? capture_ring_bytes(t->ocs_rate, snaplen, window_ns) : 0));
	/* two services a host, a task process in each busy container (no
	 * more than the workload's tasks), a capture a ToR, the crossbar,
	 * the controller */
	if (!tasks || tasks > slots)
		tasks = slots;
	e->processes = (unsigned)(hosts * 2 + tasks + t->racks + (t->has_ocs ? 1 : 0) + 1);
	e->mem_procs = hosts * (2 * (uint64_t)EST_SERVICE_PROC + EST_CTL_PER_HOST) +
		       tasks * EST_TASK_PROC + (uint64_t)t->racks * EST_CAPTURE_PROC +
		       (t->has_ocs ? EST_OCS_PROC : 0);
	e->mem_kernel += (uint64_t)e->processes * EST_PROC_KERNEL;
	e->fds = hosts * EST_FDS_PER_HOST + t->racks * 2 + 64;
	e->mem_total = e->mem_kernel + e->mem_rings + e->mem_procs;
}

static bool read_u64(const char *path, uint64_t *v)
{
	FILE *fp = fopen(path, "r");
	unsigned long long x;
	bool ok;

	if (!fp)
		return false;
	ok = fscanf(fp, "%llu", &x) == 1;
	fclose(fp);
	if (ok)
		*v = x;
	return ok;
}

/* What the memory cgroup at `dir` (and each ancestor up to `root`)
 * leaves: the least of limit - usage; UINT64_MAX if none is limited. */
static uint64_t cgroup_room(const char *root, const char *rel, bool v2)
{
	char path[1024], sub[512];
	uint64_t room = UINT64_MAX;

	snprintf(sub, sizeof(sub), "%s", rel);
	for (;;) {
		uint64_t lim, use;

		snprintf(path, sizeof(path), "%s%s/%s", root, sub,
			 v2 ? "memory.max" : "memory.limit_in_bytes");
		if (read_u64(path, &lim)) {
			snprintf(path, sizeof(path), "%s%s/%s", root, sub,
				 v2 ? "memory.current" : "memory.usage_in_bytes");
			/* v1 reports "no limit" as a page-rounded LLONG_MAX */
			if (lim < (1ULL << 60) && read_u64(path, &use))
				room = MIN(room, lim > use ? lim - use : 0);
		}
		{
			char *slash = strrchr(sub, '/');

			if (!slash || !sub[0] || !strcmp(sub, "/"))
				break;
			*slash = '\0';
		}
	}
	return room;
}

uint64_t estimate_mem_available(void)
{
	char line[1024];
	uint64_t avail = 0, room = UINT64_MAX;
	FILE *fp = fopen("/proc/meminfo", "r");

	if (fp) {
		while (fgets(line, sizeof(line), fp)) {
			unsigned long long kb;

			if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
				avail = kb << 10;
				break;
			}
		}
		fclose(fp);
	}
	fp = fopen("/proc/self/cgroup", "r");
	if (fp) {
		while (fgets(line, sizeof(line), fp)) {
			char *ctrl = strchr(line, ':'), *rel;

			if (!ctrl || !(rel = strchr(ctrl + 1, ':')))
				continue;
			*rel++ = '\0';
			rel[strcspn(rel, "\n")] = '\0';
			ctrl++;
			if (!strcmp(ctrl, "memory") || strstr(ctrl, "memory,") ||
			    strstr(ctrl, ",memory"))
				room = MIN(room, cgroup_room("/sys/fs/cgroup/memory", rel, false));
			else if (!*ctrl)
				room = MIN(room, cgroup_room("/sys/fs/cgroup", rel, true));
		}
		fclose(fp);
	}
	if (room != UINT64_MAX && (!avail || room < avail))
		avail = room;
	return avail;
}

int estimate_check(const struct estimate *e, char *errbuf)
{
	uint64_t avail = estimate_mem_available(), pid_max = 0, threads = 0;
	char a[32], b[32], c[32], d[32], f[32];
	struct rlimit rl;

	if (avail && e->mem_total > avail - avail / 16) {
		errbuf_set(errbuf, "this run needs about %s of memory (%u namespaces: %s; capture and crossbar rings: %s; %u processes: %s) but this box has %s available: use fewer racks or hosts, or a shorter --capture-window (smaller rings)",
			   unit_human_size((double)e->mem_total, a, sizeof(a)), e->namespaces,
			   unit_human_size((double)e->mem_kernel, b, sizeof(b)),
			   unit_human_size((double)e->mem_rings, c, sizeof(c)), e->processes,
			   unit_human_size((double)e->mem_procs, d, sizeof(d)),
			   unit_human_size((double)avail, f, sizeof(f)));
		return -ENOMEM;
	}
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < e->fds) {
		if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= e->fds) {
			rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ? e->fds : rl.rlim_max;
			if (setrlimit(RLIMIT_NOFILE, &rl))
				rl.rlim_cur = 0;
		}
		if (rl.rlim_cur < e->fds) {
			errbuf_set(errbuf, "this run needs about %" PRIu64 " file descriptors in its controller, but its limit is %llu (hard %llu): raise it (ulimit -Hn) or use fewer hosts",
				   e->fds, (unsigned long long)rl.rlim_cur,
				   (unsigned long long)rl.rlim_max);
			return -EMFILE;
		}
	}
	if (read_u64("/proc/sys/kernel/pid_max", &pid_max) &&
	    read_u64("/proc/sys/kernel/threads-max", &threads) &&
	    (e->processes + 512 > pid_max || e->processes + 512 > threads)) {
		errbuf_set(errbuf, "this run needs about %u processes, but the kernel allows %" PRIu64
			   " (kernel.pid_max %" PRIu64 ", kernel.threads-max %" PRIu64 "): use fewer hosts or containers",
			   e->processes, MIN(pid_max, threads), pid_max, threads);
		return -EAGAIN;
	}
	return 0;
}

void estimate_print(const struct estimate *e, FILE *fp)
{
	char a[32], b[32], c[32], d[32];

	fprintf(fp, "estimate   %s of memory: %u namespaces %s, rings %s (%u captured ports and the crossbar), %u processes %s; %" PRIu64 " file descriptors in the controller\n",
		unit_human_size((double)e->mem_total, a, sizeof(a)), e->namespaces,
		unit_human_size((double)e->mem_kernel, b, sizeof(b)),
		unit_human_size((double)e->mem_rings, c, sizeof(c)), e->captured_ports,
		e->processes, unit_human_size((double)e->mem_procs, d, sizeof(d)), e->fds);
	fprintf(fp, "bytes      total %" PRIu64 ", kernel %" PRIu64 ", rings %" PRIu64 ", processes %" PRIu64 "\n",
		e->mem_total, e->mem_kernel, e->mem_rings, e->mem_procs);
}
