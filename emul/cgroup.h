/* Containers as cgroups (emulation of container-holding schedulers, COBRA):
 * a container is a cgroup with a CPU quota and a memory limit from its
 * size; its tasks' processes are put in it; its use is read from the
 * cgroup's own counters, as a node manager's monitor does.
 *
 * Both layouts are supported: cgroup v1, with the cpu, cpuacct and memory
 * controllers mounted as hierarchies (together or apart), and cgroup v2,
 * with cpu and memory available in the unified hierarchy. v1 is taken
 * when it has all three (this project's machines: cpu, cpuacct and memory
 * are v1 hierarchies and the v2 mount has no controller). A container of
 * fabric prefix P with id N is <hierarchy>/hyde/P/cN in each. */
#ifndef HYDE_CGROUP_H
#define HYDE_CGROUP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define CG_PATH_MAX 512
/* Room a container's memory limit leaves beyond its size, for its
 * processes' own pages (code, stacks, socket buffers). */
#define CG_MEM_HEADROOM (32ULL << 20)
/* And its CPU quota (cores), for its processes' own work (their reports,
 * their reads and fetches) beside what their tasks burn. The tasks' work
 * is scaled (cpu_scale: a 1-core container burns 0.02 of a real core), the
 * network work is not: at 0.01 a reduce that fetched a few bytes used its
 * period's quota in its set-up and waited for the next 100 ms period (rack8,
 * cobra: every one-flow coflow took 99 ms in emulation, under 1 ms in the
 * fluid model; 1-2 ms with 0.25). A task burns its own share whatever the
 * quota (burn() paces itself), so the headroom only lets the network work
 * through; it is a ceiling, not a reservation. */
#define CG_CPU_HEADROOM 0.25

struct cg_layout {
	bool v2;
	/* v1: the mount point of each controller's hierarchy (the same
	 * directory for controllers mounted together); v2: unified */
	char cpu[CG_PATH_MAX], cpuacct[CG_PATH_MAX], memory[CG_PATH_MAX];
	char unified[CG_PATH_MAX];
};

struct cg {
	const struct cg_layout *l;
	char cpu[CG_PATH_MAX], cpuacct[CG_PATH_MAX], memory[CG_PATH_MAX];
	char unified[CG_PATH_MAX];
};

/* Find the controllers (/proc/self/mountinfo). 0, or -ENOENT with what
 * is missing in errbuf. */
int cg_detect(struct cg_layout *l, char *errbuf);
/* A one-line description ("v1: cpu /sys/fs/cgroup/cpu, ..."). */
void cg_describe(const struct cg_layout *l, char *buf, size_t len);

/* Make container `name` of prefix with a CPU quota of `cores` real cores
 * and CG_CPU_HEADROOM (over a 100ms period) and a memory limit of `mem`
 * bytes. The caller frees with cg_destroy. */
int cg_create(const struct cg_layout *l, const char *prefix, const char *name, double cores,
	      uint64_t mem, struct cg **out, char *errbuf);
/* Put a process in it. */
int cg_attach(const struct cg *g, pid_t pid);
/* The CPU its processes used since it was made (ns) and the anonymous
 * memory they hold now (bytes: what they allocated and touched, not the
 * page cache). */
int cg_usage(const struct cg *g, uint64_t *cpu_ns, uint64_t *mem);
/* The CPU (core-ns, emulated) a container used, from what its cgroup
 * counted (real ns) and what its tasks declared (emulated core-ns): the
 * declared work, which burn() does at cpu_scale, at its scale; the rest
 * of the count (set-up, reads, fetches, writes: real work at the box's
 * speed) as it is. A count below the declared work (a task held back,
 * catching up) adds nothing. */
double cg_emulated_cpu(uint64_t counted_ns, double declared_ns, double cpu_scale);
/* Processes still in it. */
int cg_count_procs(const struct cg *g);
/* Remove it (its processes gone): 0, -EBUSY while some remain; frees g
 * on success only. */
int cg_destroy(struct cg *g);
/* Remove every container of prefix (NULL: of every prefix), after their
 * processes were killed; how many, or negative. */
int cg_clean(const char *prefix);

#endif
